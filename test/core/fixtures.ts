import type { Activity } from '../../src/timeline/model.ts'
import { activitiesTab, validateHeader, type HeaderLayout } from '../../src/core/columns.ts'
import type { KnownUser, RowContext, ServerActivity } from '../../src/core/row-context.ts'
import { activityKey } from '../../src/core/activity-key.ts'

export const ZONE = 'Europe/Berlin'
export const ANNA_TL = 'tl-anna'
export const BEN_TL = 'tl-ben'

export const USERS: KnownUser[] = [
  { username: 'ACME\\anna', displayName: 'Anna Schmidt', tagsTimelineKey: ANNA_TL, teams: ['Design'] },
  { username: 'ACME\\ben', displayName: 'Ben Ito', tagsTimelineKey: BEN_TL, teams: [] },
  { username: 'ACME\\carl', displayName: 'Carl', tagsTimelineKey: undefined },
]

export function activity(over: Partial<Activity> = {}): Activity {
  return {
    timelineKey: ANNA_TL,
    entityId: 7,
    tags: ['Acme', 'Website', ':billable'],
    notes: 'Kick-off',
    start: '2026-03-02T09:00:00+01:00',
    duration: 5400,
    isActive: true,
    ...over,
  }
}

export function serverMap(...items: { activity: Activity; user?: string }[]): Map<string, ServerActivity> {
  return new Map(
    items.map((i) => [activityKey(i.activity.timelineKey, i.activity.entityId), { activity: i.activity, user: i.user ?? 'ACME\\anna' }]),
  )
}

export const HEADER = activitiesTab().columns.map((c) => c.name)

export function layoutOf(header: string[] = HEADER): HeaderLayout {
  const check = validateHeader(header, activitiesTab())
  if (!check.ok) throw new Error(JSON.stringify(check.problems))
  return check.layout
}

export function context(over: Partial<RowContext> = {}): RowContext {
  return { timeZone: ZONE, users: USERS, server: new Map(), baseKeys: new Set(), ...over }
}
