/**
 * The reference Timeline server as one Web handler: home, timelines,
 * activities (read, incremental read, create, update, delete), allowed tag
 * combinations. Mount it in msw or on loopback (counterparts/mount.ts).
 * Behaviour follows spec/timeline-api.md plus the "Decisions for the gaps"
 * table of reference/timeline-service.md.
 */
import { z } from 'zod'
import type { WebHandler } from '../mount.ts'
import { createPasswordAuthenticator, type AuthContext, type Authenticator } from './authenticator.ts'
import type { FaultInjector } from './faults.ts'
import { describeIssues, readJson } from './request-bodies.ts'
import { errorResponse, forbidden, json, methodNotAllowed, notFound } from './responses.ts'
import {
  expandTagLines,
  normaliseAppliesTo,
  TimelineStoreError,
  type ActivityRecord,
  type RangeLimit,
  type TimelineRecord,
  type TimelineStore,
  type UserRecord,
} from './store.ts'
import { parseBound, wallTime } from './time.ts'

export { lowerKeys } from './request-bodies.ts'

export interface TimelineHandlerOptions {
  /** Who is calling. @default the on-premise password flow (`createPasswordAuthenticator()`) */
  authenticator?: Authenticator
  /** Injected faults, changeable at runtime. */
  faults?: FaultInjector
  /**
   * Path the server lives under, with slashes at both ends, e.g. `/acct-1/`
   * for a cloud `serverUrl`. The API is then at `{basePath}api`. @default '/'
   */
  basePath?: string
}

/** Creates the handler over a store. */
export function createTimelineHandler(store: TimelineStore, options: TimelineHandlerOptions = {}): WebHandler {
  const authenticator = options.authenticator ?? createPasswordAuthenticator()
  const basePath = options.basePath ?? '/'
  if (!basePath.startsWith('/') || !basePath.endsWith('/')) {
    throw new TypeError(`Expected \`basePath\` to start and end with "/", got ${JSON.stringify(basePath)}`)
  }
  const faults = options.faults

  return async (request: Request): Promise<Response> => {
    if (faults) {
      const decision = await faults.before(request, store)
      if (decision.kind === 'drop') return Response.error()
      if (decision.kind === 'respond') return decision.response
    }
    const url = new URL(request.url)
    const context: AuthContext = { apiUrl: `${url.origin}${basePath}api`, store }
    try {
      const own = await authenticator.handle?.(request, context)
      if (own) return own
      const auth = await authenticator.authenticate(request, context)
      if (!auth.ok) return auth.response
      const user = store.user(auth.username)
      if (!user) return errorResponse(store, 401, 'Unauthorized', `User '${auth.username}' is not known to the server.`)
      return await route(store, request, url, basePath, context.apiUrl, user)
    } catch (error) {
      if (error instanceof TimelineStoreError) return errorResponse(store, error.status, error.errorCode, error.message)
      throw error
    }
  }
}

async function route(
  store: TimelineStore,
  request: Request,
  url: URL,
  basePath: string,
  apiUrl: string,
  user: UserRecord,
): Promise<Response> {
  const method = request.method.toUpperCase()
  if (!url.pathname.startsWith(basePath)) return notFound(store, url)
  const segments = url.pathname
    .slice(basePath.length)
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => safeDecode(segment))
  const lower = segments.map((segment) => segment.toLowerCase())
  const only = (allowed: string, answer: () => Response | Promise<Response>) =>
    method === allowed ? answer() : methodNotAllowed(store, [allowed])

  if (lower.length === 0 || (lower.length === 1 && lower[0] === 'api')) return only('GET', () => home(store, apiUrl))
  if (lower[0] !== 'api') return notFound(store, url)
  const [, resource, key, sub, entity] = lower
  if (resource === 'timelines') {
    if (key === undefined) return only('GET', () => listTimelines(store, url, apiUrl, user))
    const timelineKey = segments[2]!
    if (sub === undefined) return only('GET', () => oneTimeline(store, timelineKey, apiUrl, user))
    if (sub === 'changes' && entity === undefined) {
      return errorResponse(store, 501, 'NotImplemented', 'The changes endpoints are not implemented by this server.')
    }
    if (sub === 'activities' && entity === undefined) {
      if (method === 'GET') return readActivities(store, url, timelineKey, apiUrl, user)
      if (method === 'POST') return writeActivity(store, request, timelineKey, undefined, apiUrl, user)
      return methodNotAllowed(store, ['GET', 'POST'])
    }
    if (sub === 'activities' && lower.length === 5) {
      const entityId = /^\d+$/.test(entity!) ? Number(entity) : Number.NaN
      if (!Number.isSafeInteger(entityId)) return notFound(store, url)
      if (method === 'PUT' || method === 'DELETE') {
        return writeActivity(store, request, timelineKey, entityId, apiUrl, user)
      }
      return methodNotAllowed(store, ['PUT', 'DELETE'])
    }
    return notFound(store, url)
  }
  if (resource === 'tagcombinationlist' && key === undefined) {
    if (method === 'GET') return readTagList(store, url, apiUrl, user)
    if (method === 'POST') return writeTagList(store, request, apiUrl, user)
    return methodNotAllowed(store, ['GET', 'POST'])
  }
  if (['environments', 'screenshots', 'clientstate', 'clientsettings'].includes(resource ?? '') && key === undefined) {
    return errorResponse(store, 501, 'NotImplemented', `/api/${segments[1]} is not implemented by this server.`)
  }
  return notFound(store, url)
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    // A malformed escape cannot name anything here; keep it raw so it falls through to 404.
    return segment
  }
}

// ── responses ───────────────────────────────────────────────────────────

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

function trimmedLinkRefusal(store: TimelineStore, after: string): Response {
  const status = store.settings.trimmedLinkStatus
  const message =
    status === 500
      ? 'The server failed while reading the changes.'
      : `updatedAfterTimestamp '${after}' is older than the changes this server still tracks for the timeline; read the range without it.`
  return errorResponse(store, status, TRIMMED_LINK_REFUSALS[status], message)
}

// ── home and timelines ──────────────────────────────────────────────────

function home(store: TimelineStore, apiUrl: string): Response {
  const rel = store.vendor.rel
  return json(store, {
    links: [
      { rel: 'self', href: `${apiUrl}/` },
      { rel: rel('timelines'), href: `${apiUrl}/timelines` },
      { rel: rel('environments'), href: `${apiUrl}/environments` },
      { rel: rel('screenshots'), href: `${apiUrl}/screenshots` },
      { rel: rel('clientState'), href: `${apiUrl}/clientState` },
      { rel: rel('tagcombinationlist'), href: `${apiUrl}/tagcombinationlist` },
      { rel: rel('clientsettings'), href: `${apiUrl}/clientSettings` },
    ],
  })
}

/** Administrators, content editors and content readers see every timeline; users their own. */
export function canSee(user: UserRecord, timeline: TimelineRecord): boolean {
  return user.role !== 'user' || sameUser(user.username, timeline.owner)
}

/** The owner edits their own; administrators and content editors edit anyone's. */
export function canEdit(user: UserRecord, timeline: TimelineRecord): boolean {
  return user.role === 'administrator' || user.role === 'contentEditor' || sameUser(user.username, timeline.owner)
}

function sameUser(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

function listTimelines(store: TimelineStore, url: URL, apiUrl: string, user: UserRecord): Response {
  const filter = url.searchParams.get('timelineKey')?.toLowerCase()
  const timelines = store.timelines().filter((timeline) => canSee(user, timeline) && (filter === undefined || timeline.key === filter))
  return json(store, { timelines: timelines.map((timeline) => timelineJson(store, timeline, apiUrl)) })
}

function oneTimeline(store: TimelineStore, key: string, apiUrl: string, user: UserRecord): Response {
  const timeline = visibleTimeline(store, key, user)
  return json(store, timelineJson(store, timeline, apiUrl))
}

function visibleTimeline(store: TimelineStore, key: string, user: UserRecord): TimelineRecord {
  const timeline = store.timeline(key)
  if (!timeline) throw new TimelineStoreError(404, 'NotFound', `Timeline '${key}' was not found.`)
  if (!canSee(user, timeline)) {
    throw new TimelineStoreError(403, 'Forbidden', `User '${user.username}' may not read timeline '${key}'.`)
  }
  return timeline
}

function timelineJson(store: TimelineStore, timeline: TimelineRecord, apiUrl: string): Record<string, unknown> {
  const owner = store.user(timeline.owner)
  const self = `${apiUrl}/timelines/${timeline.key}`
  const rel = store.vendor.rel
  const environment = { environmentId: timeline.environmentId, deviceName: timeline.deviceName }
  const lastChangeId = store.lastChangeId(timeline.key)
  return {
    timelineKey: timeline.key,
    publishKey: timeline.publishKey,
    owner: { username: timeline.owner, displayName: owner?.displayName ?? timeline.owner },
    schema: {
      name: store.schemaName(timeline),
      version: '1.0.0.0',
      baseSchema: { name: store.baseSchemaName(timeline), version: '1.0.0.0' },
    },
    homeEnvironment: environment,
    deviceDisplayName: timeline.deviceName,
    lastUpdate: { updatedUtcTime: store.lastUpdate(timeline.key), environment },
    ...(lastChangeId === undefined ? {} : { lastChangeId }),
    updateProtocol: 'Changes',
    timestamp: store.timestamp(timeline.key),
    links: [
      { rel: 'self', href: self },
      { rel: rel('getchanges'), href: `${self}/changes` },
      { rel: rel('activities'), href: `${self}/activities` },
      { rel: rel('addchanges'), href: `${self}/changes` },
      { rel: rel('editactivities'), href: `${self}/activities` },
    ],
  }
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

// ── activities ──────────────────────────────────────────────────────────

function readActivities(store: TimelineStore, url: URL, key: string, apiUrl: string, user: UserRecord): Response {
  const timeline = visibleTimeline(store, key, user)
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
    activities = activities.filter((activity) => activity.changedSeq > afterSeq)
    if (store.settings.reportDeletions) {
      deleted = store.deletedSince(timeline.key, afterSeq, fromMs, toMs).map(String)
    }
  }
  const body = timelineJson(store, timeline, apiUrl)
  // Written out as the real server does (`fromTime=2018-05-08T00:00:00&…=131402,1991595575`):
  // `:` and `,` are legal in a query, so nothing is escaped.
  const updated =
    `${apiUrl}/timelines/${timeline.key}/activities?fromTime=${wallTime(fromMs, store.serverTimeZone)}` +
    `&toTime=${wallTime(toMs, store.serverTimeZone)}&updatedAfterTimestamp=${store.timestamp(timeline.key)}`
  ;(body['links'] as unknown[]).push({ rel: store.vendor.rel('updatedactivities'), href: updated })
  body['entities'] = entitiesJson(store, timeline, activities)
  if (deleted !== undefined) body['deletedActivityIds'] = deleted
  return json(store, body)
}

const WriteBody = z.object({
  expectedlastchangeid: z.string().nullish(),
  values: z.object({
    name: z.string(),
    notes: z.string().nullish(),
    timeinterval: z.object({ start: z.string(), duration: z.number() }),
  }),
})

const DeleteBody = z.object({ expectedlastchangeid: z.string().nullish() })

async function writeActivity(
  store: TimelineStore,
  request: Request,
  key: string,
  entityId: number | undefined,
  apiUrl: string,
  user: UserRecord,
): Promise<Response> {
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
  const isDelete = request.method.toUpperCase() === 'DELETE'
  const raw = await readJson(request, isDelete)
  if (!raw.ok) return errorResponse(store, 400, 'Validation', raw.problem)
  if (isDelete) {
    const body = DeleteBody.safeParse(raw.value)
    if (!body.success) return errorResponse(store, 400, 'Validation', describeIssues(body.error))
    store.deleteActivity(timeline.key, entityId!, { expectedLastChangeId: body.data.expectedlastchangeid })
    return json(store, { ...timelineJson(store, timeline, apiUrl), entities: [] })
  }
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

// ── allowed tag combinations ────────────────────────────────────────────

function tagListJson(store: TimelineStore, tagCombinations: string[], apiUrl: string): Response {
  return json(store, { tagCombinations, links: [{ rel: 'self', href: `${apiUrl}/tagcombinationlist` }] })
}

function mayManageTags(user: UserRecord): boolean {
  return user.role === 'administrator' || user.role === 'contentEditor'
}

function readTagList(store: TimelineStore, url: URL, apiUrl: string, user: UserRecord): Response {
  if (url.searchParams.get('getAll')?.toLowerCase() === 'true') {
    if (!mayManageTags(user)) {
      return forbidden(
        store,
        `User '${user.username}' (${user.role}) may not list all tag combinations; administrator or content editor needed.`,
      )
    }
    return tagListJson(store, store.allowedTagsListing(), apiUrl)
  }
  return tagListJson(store, store.allowedTagsFor(user.username), apiUrl)
}

const TagListBody = z.object({
  tagcombinations: z.array(z.string()),
  usertagcombinationlists: z.array(z.object({ users: z.array(z.string()), tagcombinations: z.array(z.string()) })).optional(),
})

async function writeTagList(store: TimelineStore, request: Request, apiUrl: string, user: UserRecord): Promise<Response> {
  if (!mayManageTags(user)) {
    return forbidden(store, `User '${user.username}' (${user.role}) may not set tag combinations; administrator or content editor needed.`)
  }
  if (store.settings.tagSource !== 'service') {
    return errorResponse(
      store,
      409,
      'Tags/SourceNotService',
      'The server takes allowed tags from another source; set the tag combination source to Service.',
    )
  }
  const raw = await readJson(request, false)
  if (!raw.ok) return errorResponse(store, 400, 'Validation', raw.problem)
  const body = TagListBody.safeParse(raw.value)
  if (!body.success) return errorResponse(store, 400, 'Validation', describeIssues(body.error))
  const everyone = expandTagLines(body.data.tagcombinations)
  if (!everyone.ok) return errorResponse(store, 400, 'Validation', `tagCombinations: ${everyone.problem}`)
  const groups = []
  for (const [index, list] of (body.data.usertagcombinationlists ?? []).entries()) {
    const expanded = expandTagLines(list.tagcombinations)
    if (!expanded.ok) {
      return errorResponse(store, 400, 'Validation', `userTagCombinationLists[${index}].tagCombinations: ${expanded.problem}`)
    }
    if (list.users.length === 0) {
      return errorResponse(store, 400, 'Validation', `userTagCombinationLists[${index}].users is empty.`)
    }
    groups.push({ appliesTo: list.users.map(normaliseAppliesTo), combinations: expanded.combinations })
  }
  store.setAllowedTags({ everyone: everyone.combinations, groups })
  return tagListJson(store, store.allowedTagsFor(user.username), apiUrl)
}
