/**
 * Typed values the Timeline client hands to the rest of the tool, after the
 * zod schemas at the boundary have checked the server's JSON. The domain types
 * (activities, allowed tags) are the core's; this adds what is the client's.
 */
import type { Activity } from '../core/activity.ts'

export type { Activity, ActivityInput, AllowedTags, AllowedTagsGroup } from '../core/activity.ts'

export interface Link {
  rel: string
  href: string
}

export interface TimelineInfo {
  timelineKey: string
  ownerUsername: string
  ownerDisplayName: string
  /** e.g. `ManicTime/Tags` */
  schemaName: string
  /** Opaque `<seq>,<rand>`; absent on a timeline with no changes yet. */
  lastChangeId: string | undefined
  /** Opaque `<seq>,<rand>`. */
  timestamp: string | undefined
  /** When the server last took a change for the timeline (`lastUpdate.updatedUtcTime`), where it says. */
  lastUpdated?: string | undefined
  links: Link[]
}

export interface ActivitiesRead {
  timeline: TimelineInfo
  activities: Activity[]
  /** Present only when the server reports deletions on incremental reads. */
  deletedActivityIds: number[] | undefined
  /**
   * Groups and groupLists the server reports deleted (the activities' tags come from them); folders it reports
   * deleted. Absent when the answer lists none.
   */
  deletedGroupIds?: number[]
  deletedGroupListIds?: number[]
  deletedFolderIds?: number[]
  /** The `updatedactivities` link for the next incremental read. */
  updatedActivitiesUrl: string | undefined
}

export interface WriteResult {
  timeline: TimelineInfo
  /** The created or updated activity; undefined after a delete. */
  activity: Activity | undefined
}
