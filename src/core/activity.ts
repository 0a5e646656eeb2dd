/**
 * The Timeline service's domain as the whole tool works with it: an activity,
 * what a create or update sends, the allowed tag combinations. Checked at the
 * boundary by the Timeline client's schemas, then passed around typed.
 */

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

/** An activity's values as a create or an update sends them (a copy). */
export function toInput(activity: Pick<Activity, 'tags' | 'notes' | 'start' | 'duration'>): ActivityInput {
  return { tags: [...activity.tags], notes: activity.notes, start: activity.start, duration: activity.duration }
}
