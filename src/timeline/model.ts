/**
 * Typed values the Timeline client hands to the rest of the tool, after the
 * zod schemas at the boundary have checked the server's JSON.
 */

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
  links: Link[]
}

/** One activity of any timeline, tags resolved from its groupList/group entities. */
export interface Activity {
  timelineKey: string
  entityId: number
  /** Tags in order as the server holds them; labels (`:billable`) included. */
  tags: string[]
  notes: string | undefined
  /** ISO 8601 with the offset the server stored, e.g. `2026-03-29T01:30:00+01:00`. */
  start: string
  /** Seconds. */
  duration: number
  isActive: boolean | undefined
}

/** What the client sends for a create or an update. */
export interface ActivityInput {
  tags: string[]
  notes: string | undefined
  /** ISO 8601 with an explicit offset, whole seconds. */
  start: string
  duration: number
}

export interface ActivitiesRead {
  timeline: TimelineInfo
  activities: Activity[]
  /** Present only when the server reports deletions on incremental reads. */
  deletedActivityIds: number[] | undefined
  /** The `updatedactivities` link for the next incremental read. */
  updatedActivitiesUrl: string | undefined
}

export interface WriteResult {
  timeline: TimelineInfo
  /** The created or updated activity; undefined after a delete. */
  activity: Activity | undefined
}

/** Allowed tag combinations as the bridge works with them. */
export interface AllowedTags {
  /** Combinations for every user. */
  everyone: string[]
  /** Per group of users and/or teams, in server order. */
  groups: AllowedTagsGroup[]
}

export interface AllowedTagsGroup {
  /** `[DOMAIN\user]` or `{Team}` identifiers, as the server writes them. */
  appliesTo: string[]
  combinations: string[]
}
