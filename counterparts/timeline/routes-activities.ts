/**
 * The activity routes of the reference Timeline server: reading a range (whole
 * or incremental through `updatedAfterTimestamp`), and creating, updating and
 * deleting one activity. It also holds the refusals a range read can meet (a
 * server's maximum range, a change-tracking link older than the server keeps)
 * and the entity JSON an answer carries, since only these routes answer with
 * activities.
 */
import { z } from 'zod'
import { describeIssues, readJson } from './request-bodies.ts'
import { errorResponse, forbidden, json } from './responses.ts'
import type { RouteContext } from './router.ts'
import { canEdit, timelineJson, visibleTimeline } from './routes-timelines.ts'
import type { ActivityRecord, RangeLimit, TimelineRecord, TimelineStore } from './store.ts'
import { parseBound, wallTime } from './time.ts'

/** Whether a path segment names an activity: decimal digits within the safe integers. */
export function isEntityId(segment: string): boolean {
  return /^\d+$/.test(segment) && Number.isSafeInteger(Number(segment))
}

// ── reading ─────────────────────────────────────────────────────────────

const RANGE_REFUSALS = {
  400: ['Validation', (days: number) => `The range is longer than ${days} days, the most this server reads at once.`],
  413: ['RangeTooLarge', (days: number) => `The answer for a range longer than ${days} days would be too large.`],
  500: ['InternalError', () => 'The server failed while reading the range.'],
  504: ['GatewayTimeout', () => 'The server did not answer in time.'],
} as const

function rangeRefusal(store: TimelineStore, limit: RangeLimit): Response {
  const status = limit.status ?? 400
  const [errorCode, message] = RANGE_REFUSALS[status]
  return errorResponse(store, status, errorCode, message(limit.maxDays))
}

const TRIMMED_LINK_REFUSALS = {
  400: 'Validation',
  410: 'ChangesTrimmed',
  500: 'InternalError',
} as const

/**
 * A link whose fromTime or toTime is not what the server wrote beside that timestamp. The service says the link is
 * to be used as given ("the complete url including parameters is provided by 'links' resource") and documents no
 * answer to a changed one; this server refuses it as it refuses a link it no longer tracks (decisions/0005, 0019).
 */
function changedLinkRefusal(store: TimelineStore, after: string): Response {
  return errorResponse(
    store,
    400,
    'Validation',
    `updatedAfterTimestamp '${after}' was given with another fromTime and toTime; use the updatedactivities link as given, or read the range without it.`,
  )
}

/** How a given-out link is remembered: the timestamp and the bounds as the link's text reads back. */
function issuedLink(after: string, fromMs: number, toMs: number): string {
  return `${after} ${fromMs} ${toMs}`
}

function trimmedLinkRefusal(store: TimelineStore, after: string): Response {
  const status = store.settings.trimmedLinkStatus
  const message =
    status === 500
      ? 'The server failed while reading the changes.'
      : `updatedAfterTimestamp '${after}' is older than the changes this server still tracks for the timeline; read the range without it.`
  return errorResponse(store, status, TRIMMED_LINK_REFUSALS[status], message)
}

export function readActivities({ store, url, params, apiUrl, user }: RouteContext): Response {
  const timeline = visibleTimeline(store, params['timelineKey']!, user)
  const bounds: number[] = []
  for (const name of ['fromTime', 'toTime'] as const) {
    const raw = url.searchParams.get(name)
    if (raw === null) return errorResponse(store, 400, 'Validation', `${name} is required.`)
    const parsed = parseBound(raw, store.serverTimeZone)
    if (!parsed.ok) return errorResponse(store, 400, 'Validation', `${name} ${parsed.problem}`)
    bounds.push(parsed.ms)
  }
  const [fromMs, toMs] = bounds as [number, number]
  if (fromMs > toMs) return errorResponse(store, 400, 'Validation', 'fromTime is after toTime.')
  const limit = store.settings.rangeLimit
  if (limit && toMs - fromMs > limit.maxDays * 86_400_000) return rangeRefusal(store, limit)
  let activities = store.overlapping(timeline.key, fromMs, toMs)
  let deleted: string[] | undefined
  const after = url.searchParams.get('updatedAfterTimestamp')
  if (after !== null) {
    const match = /^(\d+),(-?\d+)$/.exec(after.trim())
    if (!match) {
      return errorResponse(store, 400, 'Validation', `updatedAfterTimestamp must look like "<seq>,<rand>", got ${JSON.stringify(after)}.`)
    }
    const afterSeq = Number(match[1])
    if (afterSeq < timeline.trackedAfterSeq) return trimmedLinkRefusal(store, after)
    // Compared as instants, so the bounds may be spelled otherwise (the guide's own example sends dates).
    if (!timeline.issuedLinks.has(issuedLink(after.trim(), fromMs, toMs))) return changedLinkRefusal(store, after)
    activities = activities.filter((activity) => activity.changedSeq > afterSeq)
    if (store.settings.reportDeletions) {
      deleted = store.deletedSince(timeline.key, afterSeq, fromMs, toMs).map(String)
    }
  }
  const body = timelineJson(store, timeline, apiUrl)
  // Written out as the real server does (`fromTime=2018-05-08T00:00:00&…=131402,1991595575`):
  // `:` and `,` are legal in a query, so nothing is escaped.
  const [fromText, toText] = [wallTime(fromMs, store.serverTimeZone), wallTime(toMs, store.serverTimeZone)]
  const stamp = store.timestamp(timeline.key)
  const updated = `${apiUrl}/timelines/${timeline.key}/activities?fromTime=${fromText}&toTime=${toText}&updatedAfterTimestamp=${stamp}`
  timeline.issuedLinks.add(issuedLink(stamp, boundMs(fromText, store), boundMs(toText, store)))
  ;(body['links'] as unknown[]).push({ rel: store.vendor.rel('updatedactivities'), href: updated })
  body['entities'] = entitiesJson(store, timeline, activities)
  if (deleted !== undefined) {
    // The lists of the vendor's sample answer, in its order; this server never deletes groups, groupLists or folders.
    body['deletedActivityIds'] = deleted
    body['deletedGroupIds'] = []
    body['deletedGroupListIds'] = []
    body['deletedFolderIds'] = []
  }
  return json(store, body)
}

/** A bound of a link as a request carrying it reads back (a wall time in the server's zone). */
function boundMs(text: string, store: TimelineStore): number {
  const parsed = parseBound(text, store.serverTimeZone)
  if (!parsed.ok) throw new TypeError(`A link bound that does not read back: ${text}`)
  return parsed.ms
}

/** The activities plus the groupList and group entities they reference, activities first. */
function entitiesJson(store: TimelineStore, timeline: TimelineRecord, activities: ActivityRecord[]): unknown[] {
  const groupListIds = new Set<number>()
  const groupIds = new Set<number>()
  const out: unknown[] = []
  for (const activity of activities) {
    const values: Record<string, unknown> = {}
    if (activity.groupListId !== undefined) {
      values['groupListId'] = activity.groupListId
      groupListIds.add(activity.groupListId)
      for (const id of timeline.groupLists.get(activity.groupListId)?.groupIds ?? []) groupIds.add(id)
    }
    if (activity.groupId !== undefined) {
      values['groupId'] = activity.groupId
      groupIds.add(activity.groupId)
    }
    values['isActive'] = activity.isActive
    values['name'] = store.tagsOf(timeline.key, activity).join(', ')
    if (activity.notes !== undefined) values['notes'] = activity.notes
    values['timeInterval'] = { start: activity.start, duration: activity.duration }
    out.push({ entityType: 'activity', entityId: activity.id, values })
  }
  for (const id of [...groupListIds].sort((a, b) => a - b)) {
    out.push({ entityType: 'groupList', entityId: id, values: { groupIds: timeline.groupLists.get(id)!.groupIds } })
  }
  for (const id of [...groupIds].sort((a, b) => a - b)) {
    const group = timeline.groups.get(id)!
    out.push({
      entityType: 'group',
      entityId: id,
      values: { color: group.color, key: group.key, name: group.name, skipColor: false },
    })
  }
  return out
}

// ── writing ─────────────────────────────────────────────────────────────

const WriteBody = z.object({
  expectedlastchangeid: z.string().nullish(),
  values: z.object({
    name: z.string(),
    notes: z.string().nullish(),
    timeinterval: z.object({ start: z.string(), duration: z.number() }),
  }),
})

const DeleteBody = z.object({ expectedlastchangeid: z.string().nullish() })

/** POST `…/activities`. */
export function createActivity(context: RouteContext): Promise<Response> {
  return writeActivity(context, undefined)
}

/** PUT `…/activities/{entityId}`. */
export function updateActivity(context: RouteContext): Promise<Response> {
  return writeActivity(context, Number(context.params['entityId']))
}

/** DELETE `…/activities/{entityId}`. */
export async function deleteActivity(context: RouteContext): Promise<Response> {
  const { store, request, apiUrl } = context
  const timeline = editableTimeline(context)
  if (timeline instanceof Response) return timeline
  const raw = await readJson(request, true)
  if (!raw.ok) return errorResponse(store, 400, 'Validation', raw.problem)
  const body = DeleteBody.safeParse(raw.value)
  if (!body.success) return errorResponse(store, 400, 'Validation', describeIssues(body.error))
  store.deleteActivity(timeline.key, Number(context.params['entityId']), { expectedLastChangeId: body.data.expectedlastchangeid })
  return json(store, { ...timelineJson(store, timeline, apiUrl), entities: [] })
}

async function writeActivity(context: RouteContext, entityId: number | undefined): Promise<Response> {
  const { store, request, apiUrl } = context
  const timeline = editableTimeline(context)
  if (timeline instanceof Response) return timeline
  const raw = await readJson(request, false)
  if (!raw.ok) return errorResponse(store, 400, 'Validation', raw.problem)
  const body = WriteBody.safeParse(raw.value)
  if (!body.success) return errorResponse(store, 400, 'Validation', describeIssues(body.error))
  const { values } = body.data
  const write = {
    tags: values.name,
    notes: values.notes ?? undefined,
    start: values.timeinterval.start,
    duration: values.timeinterval.duration,
  }
  const options = { expectedLastChangeId: body.data.expectedlastchangeid }
  const activity =
    entityId === undefined
      ? store.createActivity(timeline.key, write, options)
      : store.updateActivity(timeline.key, entityId, write, options)
  return json(store, { ...timelineJson(store, timeline, apiUrl), entities: entitiesJson(store, timeline, [activity]) })
}

/**
 * The timeline a write names, or the answer refusing it: 404 when it does not
 * exist, 403 when the caller may not edit it, 400 when its schema has no
 * editable activities. These come before the body is read.
 */
function editableTimeline({ store, params, user }: RouteContext): TimelineRecord | Response {
  const key = params['timelineKey']!
  const timeline = store.timeline(key)
  if (!timeline) return errorResponse(store, 404, 'NotFound', `Timeline '${key}' was not found.`)
  if (!canEdit(user, timeline)) {
    return forbidden(
      store,
      `User '${user.username}' (${user.role}) may not change timeline '${timeline.key}' of '${timeline.owner}'; the Content editor permission is needed.`,
    )
  }
  if (timeline.kind !== 'Tags') {
    return errorResponse(
      store,
      400,
      'TimelineConstraint/SchemaNotAllowed',
      `Timeline '${timeline.key}' has schema ${store.schemaName(timeline)}; activities can be changed on ${store.vendor.schema('Tags')} timelines only.`,
    )
  }
  return timeline
}
