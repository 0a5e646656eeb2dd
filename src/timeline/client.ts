/**
 * The Timeline client: hypermedia navigation from the entry (the only
 * hard-coded address), operations that return the typed values of
 * `model.ts`, and the per-timeline `lastChangeId` that every write carries as
 * `expectedLastChangeId`.
 *
 * Longer than most files because it is the API's whole surface: one short operation per resource, navigated
 * the same way.
 */
import { checkOption, checkOptions } from '../core/options.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { Pace, PaceOptions } from '../http/pace.ts'
import type { RetryOptions } from '../http/retry.ts'
import type { SignIn } from './auth/sign-in.ts'
import { createTimelineHttp, type TimelineCall, type TimelineHttp, type TimelineHttpLogEvent } from './http.ts'
import type { ActivitiesRead, Activity, ActivityInput, AllowedTags, Link, TimelineInfo, WriteResult } from './model.ts'
import {
  HomeSchema,
  parseBody,
  TagCombinationListSchema,
  TimelinesListSchema,
  WriteResponseSchema,
  type EntityJson,
  type TimelineJson,
} from './schemas.ts'
import { parseActivitiesBody } from './activities-body.ts'
import { parseFlatListing, toTagCombinationListBody } from './tag-combinations.ts'
import { vendorIdentifiers, type VendorIdentifiers } from './vendor.ts'

export interface TimelineClientOptions {
  signIn: SignIn
  /** Vendor token (`manictime`, `service`) or its identifiers. @default 'manictime' */
  vendor?: string | VendorIdentifiers
  /** A shared pace lane, or options for a new one. */
  pace?: Pace | Partial<PaceOptions>
  retry?: Partial<RetryOptions>
  log?: (event: TimelineHttpLogEvent) => void
  /** The API's entry links, shared by the clients of one run (each target has its own client): read once. */
  home?: SharedHome
}

/** Where the clients of one run keep the API's entry links once one of them has read them. */
export interface SharedHome {
  links?: Promise<Link[]>
}

/** A timeline as listed, or just its key (the client then looks it up). */
export type TimelineRef = TimelineInfo | string

/** Read window: ISO 8601 date-times with an explicit offset, `[from, to)`. */
export interface ActivityRange {
  from: string
  to: string
}

/** Which server and account a client reads: a target's state belongs to one. */
export interface ServerIdentity {
  entryUrl: string
  account: string | undefined
}

export interface TimelineClient {
  readonly vendor: VendorIdentifiers
  /** The server (its API entry) and the account this client signs in as. */
  identity(): Promise<ServerIdentity>
  /** The home resource's links (fetched once, then cached). */
  home(): Promise<Link[]>
  /**
   * Starts reading the home resource without waiting for it, so the read overlaps other start-up work (a
   * spreadsheet opening, Google's libraries loading). A failure is kept for the next `home()` to report, rather
   * than read again: the run sees one failure of one read, as without the head start.
   */
  readHomeAhead(): void
  /** Timelines visible to the signed-in user; with `timelineKey`, at most that one. */
  listTimelines(options?: { timelineKey?: string }): Promise<TimelineInfo[]>
  /** The `<Brand>/Tags` timelines visible to the signed-in user. */
  tagsTimelines(): Promise<TimelineInfo[]>
  /** The Tags timeline of `username` (compared case-insensitively), if visible. */
  findTagsTimeline(username: string): Promise<TimelineInfo | undefined>
  /**
   * Activities overlapping `[from, to)`, with the `updatedactivities` link for the next incremental read.
   * `splittable`: the caller halves the range when the server finds it too large (`meansRangeTooLarge`), so
   * such an answer is not repeated.
   */
  readActivities(timeline: TimelineRef, range: ActivityRange, options?: { splittable?: boolean }): Promise<ActivitiesRead>
  /**
   * Follows an `updatedactivities` link: what changed since that read (deletions when the server reports them).
   * `splittable` as for `readActivities`.
   */
  readUpdated(url: string, options?: { splittable?: boolean }): Promise<ActivitiesRead>
  createActivity(timeline: TimelineRef, input: ActivityInput): Promise<WriteResult>
  updateActivity(timeline: TimelineRef, entityId: number, input: ActivityInput): Promise<WriteResult>
  deleteActivity(timeline: TimelineRef, entityId: number): Promise<WriteResult>
  /** The last `lastChangeId` seen for a timeline, sent as `expectedLastChangeId` by the next write. */
  lastChangeId(timelineKey: string): string | undefined
  /** Sets it, e.g. after a re-read that the caller did outside this client; `undefined` forgets it. */
  setLastChangeId(timelineKey: string, lastChangeId: string | undefined): void
  /** `all: false`: the signed-in user's combinations (as `everyone`); `all: true`: everyone's and every group's. */
  readAllowedTags(options?: { all?: boolean }): Promise<AllowedTags>
  /** Replaces the whole allowed list on the server; resolves with the signed-in user's combinations afterwards. */
  writeAllowedTags(allowed: AllowedTags): Promise<string[]>
}

const OFFSET_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
const MAX_TAGS = 10
const MAX_TAG_LENGTH = 200

/** Creates a Timeline client over a sign-in. */
export function createTimelineClient(options: TimelineClientOptions): TimelineClient {
  const vendor = typeof options.vendor === 'object' ? options.vendor : vendorIdentifiers(options.vendor)
  const http: TimelineHttp = createTimelineHttp({
    signIn: options.signIn,
    vendor,
    pace: options.pace,
    retry: options.retry,
    log: options.log,
  })
  const lastChanges = new Map<string, string | undefined>()
  const shared: SharedHome = options.home ?? {}

  const remember = (info: TimelineInfo) => {
    lastChanges.set(info.timelineKey, info.lastChangeId)
  }

  async function identity(): Promise<ServerIdentity> {
    return { entryUrl: await options.signIn.entryUrl(), account: options.signIn.account }
  }

  function readHome(): Promise<Link[]> {
    return (async () => {
      const url = await options.signIn.entryUrl()
      const body = parseBody(HomeSchema, await http.json({ method: 'GET', url }), url)
      return body.links.map((link) => ({ rel: link.rel, href: new URL(link.href, url).toString() }))
    })()
  }

  async function home(): Promise<Link[]> {
    const links = (shared.links ??= readHome())
    try {
      return await links
    } catch (error) {
      // Read again by the next call: a failed read is not kept beyond the callers that shared it.
      if (shared.links === links) shared.links = undefined
      throw error
    }
  }

  function readHomeAhead(): void {
    if (shared.links) return
    const links = readHome()
    // Reported by the next `home()`, which awaits this very promise.
    links.catch(() => undefined)
    shared.links = links
  }

  async function homeLink(name: string): Promise<string> {
    const links = await home()
    return requireLink(links, vendor.rel(name), 'the home resource')
  }

  async function listTimelines(listOptions: { timelineKey?: string } = {}): Promise<TimelineInfo[]> {
    const url = new URL(await homeLink('timelines'))
    if (listOptions.timelineKey !== undefined) url.searchParams.set('timelineKey', listOptions.timelineKey)
    const href = url.toString()
    const body = parseBody(TimelinesListSchema, await http.json({ method: 'GET', url: href, role: 'Content reader' }), href)
    const timelines = body.timelines.map((json) => toTimelineInfo(json, href))
    for (const timeline of timelines) if (!lastChanges.has(timeline.timelineKey)) remember(timeline)
    return timelines
  }

  async function resolve(timeline: TimelineRef): Promise<TimelineInfo> {
    if (typeof timeline !== 'string') return timeline
    const found = (await listTimelines({ timelineKey: timeline })).find((t) => t.timelineKey === timeline)
    if (!found) {
      throw new TimelineSheetsError('TS_NOT_FOUND', `Timeline ${timeline} was not found or is not visible to the signed-in user`, {
        hint: 'Check the timeline key, and that the transfer account may see other users\u2019 timelines (Content editor).',
      })
    }
    return found
  }

  const isTags = (info: TimelineInfo) => info.schemaName === vendor.schema('Tags')

  async function tagsTimelines(): Promise<TimelineInfo[]> {
    return (await listTimelines()).filter(isTags)
  }

  async function readActivities(
    timeline: TimelineRef,
    range: ActivityRange,
    readOptions: { splittable?: boolean } = {},
  ): Promise<ActivitiesRead> {
    checkOptions(range, ['from', 'to'], 'an ISO 8601 date-time with seconds and an explicit offset')
    const info = await resolve(timeline)
    const url = new URL(requireLink(info.links, vendor.rel('activities'), describeTimeline(info)))
    // URLSearchParams percent-encodes `+` and `:`; an unencoded `+` would arrive as a space.
    url.searchParams.set('fromTime', range.from)
    url.searchParams.set('toTime', range.to)
    return readActivitiesAt(url.toString(), describeTimeline(info), readOptions.splittable ?? false)
  }

  async function readActivitiesAt(url: string, subject: string | undefined, splittable: boolean): Promise<ActivitiesRead> {
    const call: TimelineCall = { method: 'GET', url, role: 'Content reader' }
    if (subject) call.subject = subject
    if (splittable) call.splittable = true
    const read = processActivitiesResponse(url, vendor, await http.json(call))
    remember(read.timeline)
    return read
  }

  async function write(
    timeline: TimelineRef,
    method: 'POST' | 'PUT' | 'DELETE',
    entityId: number | undefined,
    input: ActivityInput | undefined,
  ): Promise<WriteResult> {
    const info = await resolve(timeline)
    const base = findLink(info.links, vendor.rel('editactivities')) ?? findLink(info.links, vendor.rel('activities'))
    if (!base) throw linkMissing(vendor.rel('editactivities'), describeTimeline(info))
    const url = entityId === undefined ? base : `${base.replace(/\/$/, '')}/${encodeURIComponent(String(entityId))}`
    const expected = lastChanges.has(info.timelineKey) ? lastChanges.get(info.timelineKey) : info.lastChangeId
    const body: Record<string, unknown> = input === undefined ? {} : { values: activityValues(input) }
    if (expected !== undefined) body['expectedLastChangeId'] = expected
    const result = processWriteResponse(
      url,
      await http.json({
        method,
        url,
        body,
        role: 'Content editor',
        subject: describeTimeline(info),
        concurrency: { timelineKey: info.timelineKey, expectedLastChangeId: expected },
      }),
      entityId,
    )
    remember(result.timeline)
    return result
  }

  return {
    vendor,
    identity,
    home,
    readHomeAhead,
    listTimelines,
    tagsTimelines,
    async findTagsTimeline(username) {
      const wanted = username.toLowerCase()
      return (await tagsTimelines()).find((t) => t.ownerUsername.toLowerCase() === wanted)
    },
    readActivities,
    readUpdated: (url, readOptions = {}) => readActivitiesAt(url, undefined, readOptions.splittable ?? false),
    createActivity: (timeline, input) => write(timeline, 'POST', undefined, input),
    updateActivity: (timeline, entityId, input) => write(timeline, 'PUT', assertEntityId(entityId), input),
    deleteActivity: (timeline, entityId) => write(timeline, 'DELETE', assertEntityId(entityId), undefined),
    lastChangeId: (timelineKey) => lastChanges.get(timelineKey),
    setLastChangeId(timelineKey, lastChangeId) {
      if (lastChangeId === undefined) lastChanges.delete(timelineKey)
      else lastChanges.set(timelineKey, lastChangeId)
    },
    async readAllowedTags(readOptions = {}) {
      const url = new URL(await homeLink('tagcombinationlist'))
      if (readOptions.all) url.searchParams.set('getAll', 'true')
      const href = url.toString()
      const call: TimelineCall = { method: 'GET', url: href }
      if (readOptions.all) call.role = 'Administrator or Content editor'
      const body = parseBody(TagCombinationListSchema, await http.json(call), href)
      return readOptions.all ? parseFlatListing(body.tagCombinations) : { everyone: body.tagCombinations, groups: [] }
    },
    async writeAllowedTags(allowed) {
      const url = await homeLink('tagcombinationlist')
      const body = toTagCombinationListBody(allowed)
      const answer = await http.json({
        method: 'POST',
        url,
        body,
        // Replacing the whole list with the same list is harmless to repeat.
        repeat: 'idempotent',
        role: 'Administrator or Content editor',
        subject: 'the allowed tags list',
      })
      return parseBody(TagCombinationListSchema, answer, url).tagCombinations
    },
  }
}

/** Converts a timeline's JSON into `TimelineInfo`, links resolved against `url`. */
export function toTimelineInfo(json: TimelineJson, url: string): TimelineInfo {
  return {
    timelineKey: json.timelineKey,
    ownerUsername: json.owner.username,
    ownerDisplayName: json.owner.displayName ?? json.owner.username,
    schemaName: json.schema.name,
    lastChangeId: json.lastChangeId ?? undefined,
    timestamp: json.timestamp ?? undefined,
    lastUpdated: json.lastUpdate?.updatedUtcTime,
    links: (json.links ?? []).map((link) => ({ rel: link.rel, href: new URL(link.href, url).toString() })),
  }
}

/** Validates an activities read (full or incremental) and resolves each activity's tags. */
export function processActivitiesResponse(url: string, vendor: VendorIdentifiers, data: unknown): ActivitiesRead {
  const body = parseActivitiesBody(data, url)
  const timeline = toTimelineInfo(body, url)
  return {
    timeline,
    activities: toActivities(timeline.timelineKey, body.entities),
    deletedActivityIds: body.deletedActivityIds ?? undefined,
    ...(body.deletedGroupIds?.length ? { deletedGroupIds: body.deletedGroupIds } : {}),
    ...(body.deletedGroupListIds?.length ? { deletedGroupListIds: body.deletedGroupListIds } : {}),
    ...(body.deletedFolderIds?.length ? { deletedFolderIds: body.deletedFolderIds } : {}),
    updatedActivitiesUrl: findLink(timeline.links, vendor.rel('updatedactivities')),
  }
}

/**
 * Validates a write answer. `entityId` picks the activity of an update; after
 * a create the one activity in the answer is the new one.
 */
export function processWriteResponse(url: string, data: unknown, entityId?: number): WriteResult {
  const body = parseBody(WriteResponseSchema, data, url)
  const timeline = toTimelineInfo(body, url)
  const activities = toActivities(timeline.timelineKey, body.entities)
  const activity = entityId === undefined ? activities[0] : activities.find((a) => a.entityId === entityId)
  return { timeline, activity }
}

/**
 * Activities with tags from their groupList's groups (or a Group-based
 * timeline's single group); falls back to splitting `name` on commas.
 */
export function toActivities(timelineKey: string, entities: readonly EntityJson[]): Activity[] {
  const groups = new Map<number, string>()
  const groupLists = new Map<number, number[]>()
  for (const entity of entities) {
    const values = (entity.values ?? {}) as Record<string, unknown>
    if (entity.entityType === 'group') {
      const text = typeof values['name'] === 'string' ? values['name'] : values['key']
      if (typeof text === 'string') groups.set(entity.entityId, text)
    } else if (entity.entityType === 'groupList') {
      groupLists.set(entity.entityId, values['groupIds'] as number[])
    }
  }
  const activities: Activity[] = []
  for (const entity of entities) {
    if (entity.entityType !== 'activity') continue
    const values = entity.values as {
      groupListId?: number
      groupId?: number
      isActive?: boolean
      name?: string
      notes?: string | null
      timeInterval: { start: string; duration: number }
    }
    activities.push({
      timelineKey,
      entityId: entity.entityId,
      tags: resolveTags(values, groups, groupLists) ?? splitTags(values.name ?? ''),
      notes: values.notes ?? undefined,
      start: values.timeInterval.start,
      duration: values.timeInterval.duration,
      isActive: values.isActive,
    })
  }
  return activities
}

function resolveTags(
  values: { groupListId?: number; groupId?: number },
  groups: Map<number, string>,
  groupLists: Map<number, number[]>,
): string[] | undefined {
  if (values.groupListId !== undefined) {
    const ids = groupLists.get(values.groupListId)
    if (!ids) return undefined
    const tags = ids.map((id) => groups.get(id))
    return tags.every((tag): tag is string => tag !== undefined) ? tags : undefined
  }
  if (values.groupId !== undefined) {
    const tag = groups.get(values.groupId)
    return tag === undefined ? undefined : [tag]
  }
  return undefined
}

/** Splits an activity name into tags: on `,`, trimmed, empty parts dropped. */
export function splitTags(name: string): string[] {
  return name
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '')
}

/**
 * The `values` of a create or update: tags joined with `", "`, start with an
 * explicit offset in whole seconds, duration in integer seconds.
 */
export function activityValues(input: ActivityInput): {
  name: string
  notes: string
  timeInterval: { start: string; duration: number }
} {
  if (input.tags.length === 0) throw invalidInput('An activity needs at least one tag')
  if (input.tags.length > MAX_TAGS) {
    throw invalidInput(`An activity may have at most ${MAX_TAGS} tags, got ${input.tags.length}`)
  }
  const tags = input.tags.map((raw) => {
    const tag = raw.trim()
    if (tag === '') throw invalidInput(`Empty tag in ${JSON.stringify(input.tags)}`)
    if (tag.includes(',')) throw invalidInput(`The tag ${JSON.stringify(tag)} contains a comma; tags are separated by commas`)
    if (tag.length > MAX_TAG_LENGTH) {
      throw invalidInput(`The tag ${JSON.stringify(tag.slice(0, 40))}… is longer than ${MAX_TAG_LENGTH} characters`)
    }
    return tag
  })
  return {
    name: tags.join(', '),
    notes: input.notes ?? '',
    timeInterval: { start: wholeSecondStart(input.start), duration: wholeSeconds(input.duration) },
  }
}

function wholeSecondStart(start: string): string {
  const match = OFFSET_DATE_TIME.exec(start)
  if (!match) {
    throw invalidInput(`Start ${JSON.stringify(start)} is not an ISO 8601 date-time with seconds and an explicit offset`)
  }
  const fraction = match[1]
  if (fraction === undefined) return start
  if (/^\.0+$/.test(fraction)) return start.replace(fraction, '')
  throw invalidInput(`Start ${JSON.stringify(start)} has a fraction of a second; the server keeps whole seconds`)
}

function wholeSeconds(duration: number): number {
  if (!Number.isInteger(duration) || duration < 0) {
    throw invalidInput(`Duration must be a whole number of seconds >= 0, got ${duration}`)
  }
  return duration
}

function assertEntityId(entityId: number): number {
  checkOption('entityId', entityId, 'a safe integer')
  return entityId
}

function findLink(links: readonly Link[], rel: string): string | undefined {
  return links.find((link) => link.rel === rel)?.href
}

function requireLink(links: readonly Link[], rel: string, where: string): string {
  const href = findLink(links, rel)
  if (href === undefined) throw linkMissing(rel, where)
  return href
}

function linkMissing(rel: string, where: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_LINK_MISSING', `No "${rel}" link in ${where}`, {
    hint: 'Check the vendor setting (manictime or service) and the server version (writes need 4.1 or later).',
  })
}

function describeTimeline(info: TimelineInfo): string {
  return `the ${info.schemaName} timeline of ${info.ownerUsername}`
}

function invalidInput(message: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_VALIDATION', message, { hint: 'Fix the row and run again.' })
}
