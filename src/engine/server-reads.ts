/**
 * What changed on the server for one Tags timeline since the last run: a full
 * read of the window, in one request unless the server refuses it, on the first
 * run (or with --full); otherwise the stored `updatedactivities` links followed
 * exactly as the server wrote them, each for the range it covers, plus a plain
 * read of the days the window gained since then, which is also the look-back's
 * read of the window's last days when that is due (the real service may not
 * report deletions on incremental reads). A link the server no longer accepts
 * is followed by a full read of the window (decisions/0005, 0019).
 */
import { mergeRanges, planRangeReads, halveWindow } from '../core/read-ranges.ts'
import { windowForDays, type TimeWindow } from '../core/windows.ts'
import { offsetInstantSeconds } from '../core/instant.ts'
import { addDays } from '../core/serial.ts'
import type { TimelineClient } from '../timeline/client.ts'
import { bugError, HttpError } from '../errors.ts'
import { meansRangeTooLarge } from '../timeline/http.ts'
import type { ActivitiesRead, Activity, TimelineInfo } from '../timeline/model.ts'
import type { CursorLink, TimelineCursor } from '../state/target-state.ts'
import type { ExportWindow } from '../core/export-plan.ts'

export type TimelineChanges =
  | {
      mode: 'full'
      timeline: TimelineInfo
      /** Every activity overlapping the window. */
      activities: Activity[]
      cursor: TimelineCursor
      /**
       * The stored `updatedactivities` link was refused as a link (what the server answered, e.g. `HTTP 400`),
       * so the window was read in full instead; undefined for a first run or `--full`.
       */
      linkRefused?: string
    }
  | {
      mode: 'incremental'
      timeline: TimelineInfo
      /** Activities in the window created or changed since the cursor. */
      activities: Activity[]
      /** Entity ids the server reported deleted (only servers that report them). */
      deletedIds: number[]
      /**
       * A range read whole: the days the window gained since its links' range, and the look-back's days when it
       * was due; every activity in it.
       */
      lookBack: { window: TimeWindow; activities: Activity[] } | undefined
      /** The timeline list showed the version the last read began from: nothing changed, no link was followed. */
      unchanged?: true
      cursor: TimelineCursor
    }

export interface ReadChangesOptions {
  full: boolean
  now: Date
  /** Re-read the look-back window when the last re-read is older than this. @default 20 hours */
  lookBackEveryMs?: number
  /**
   * The timeline's version (`timelineVersion`) as the timeline list showed it before this read. The cursor
   * keeps it; a later incremental read given the same version skips the request: nothing changed since.
   */
  listedVersion?: string | undefined
}

const DEFAULT_LOOK_BACK_EVERY_MS = 20 * 60 * 60 * 1000

export async function readTimelineChanges(
  client: TimelineClient,
  timeline: TimelineInfo,
  cursor: TimelineCursor | undefined,
  window: ExportWindow,
  options: ReadChangesOptions,
): Promise<TimelineChanges> {
  const base: TimelineCursor = {
    timelineKey: timeline.timelineKey,
    owner: timeline.ownerUsername,
    schemaName: timeline.schemaName,
    windowFrom: window.window.from,
    windowTo: window.window.to,
    ...(options.listedVersion === undefined ? {} : { listedVersion: options.listedVersion }),
  }
  const readFull = async (): Promise<Extract<TimelineChanges, { mode: 'full' }>> => {
    const read = await readRange(client, timeline, window.window)
    return {
      mode: 'full',
      timeline: read.last.timeline,
      activities: read.activities,
      cursor: {
        ...base,
        ...linksOf(read, 'links'),
        lastLookBackAt: options.now.toISOString(),
        lastChangeId: read.first.timeline.lastChangeId,
      },
    }
  }
  const windowFrom = offsetInstantSeconds(window.window.from)
  const windowTo = offsetInstantSeconds(window.window.to)
  // Links whose range has left the window say nothing it needs; a state without links (a first run, or one
  // written when links were rebuilt for the window) has nothing to follow.
  const links = (cursor?.links ?? []).filter((link) => offsetInstantSeconds(link.to) > windowFrom)
  if (options.full || !cursor || links.length === 0) return readFull()
  const linksEnd = links.map((link) => link.to).reduce((a, b) => (offsetInstantSeconds(b) > offsetInstantSeconds(a) ? b : a))
  // Once the days since the links are as many as the days of the window they still cover, reading those days
  // whole costs as much as the window: the window is read whole, and its fresh links start over.
  if (windowTo - offsetInstantSeconds(linksEnd) >= offsetInstantSeconds(linksEnd) - windowFrom) return readFull()

  const lookBackDue =
    window.lookBackDays > 0 &&
    (!cursor.lastLookBackAt ||
      options.now.getTime() - Date.parse(cursor.lastLookBackAt) >= (options.lookBackEveryMs ?? DEFAULT_LOOK_BACK_EVERY_MS))
  const recentLinks = cursor.recentLinks ?? []
  const recentEnd = recentLinks.length > 0 ? Math.max(...recentLinks.map((link) => offsetInstantSeconds(link.to))) : undefined
  // The days since the links are read whole when the window has gained days since they were last read, or the
  // look-back is due (it starts there when the links end later); otherwise their own links are followed.
  const readRecent = lookBackDue || recentEnd === undefined || windowTo > recentEnd
  // Every change moves the version, and the last read began after the list showed this one: no link would
  // answer anything. The days the window gained are still read (their activities may be older than the link).
  const unchanged = options.listedVersion !== undefined && options.listedVersion === cursor.listedVersion
  const toFollow = unchanged ? [] : readRecent ? links : [...links, ...recentLinks]
  const followed = await followLinks(client, toFollow)
  // The server will not answer a link at all (its change tracking no longer reaches back that far): read the
  // window as a first run does, which reconciles every row of the timeline and gives fresh links.
  if (followed.kind === 'link-refused') return { ...(await readFull()), linkRefused: followed.answer }
  // A deleted group or groupList may have given tags to rows this read does not name (the tool keeps no map from
  // groups to rows): the window read whole reconciles every row of the timeline.
  if (followed.tagSourcesDeleted) return readFull()

  let recent: RangeRead | undefined
  let recentRange: TimeWindow | undefined
  if (readRecent) {
    const days = Math.min(window.lookBackDays, window.days)
    const lookBack = lookBackDue
      ? windowForDays(window.timeZone, addDays(window.fromDate, window.days - days), days, window.dayStart)
      : undefined
    const from = lookBack && offsetInstantSeconds(lookBack.from) < offsetInstantSeconds(linksEnd) ? lookBack.from : linksEnd
    if (offsetInstantSeconds(from) < windowTo) {
      recentRange = { from, to: window.window.to }
      recent = await readRange(client, timeline, recentRange)
    }
  }
  const fresh = (given: CursorLink[]) => given.map((link) => ({ ...link, href: followed.fresh.get(link) ?? link.href }))
  return {
    mode: 'incremental',
    timeline: recent?.last.timeline ?? followed.last?.timeline ?? timeline,
    activities: followed.activities.filter((a) => overlaps(a, windowFrom, windowTo)),
    deletedIds: followed.deletedIds,
    lookBack: recent && recentRange ? { window: recentRange, activities: recent.activities } : undefined,
    ...(unchanged ? { unchanged: true as const } : {}),
    cursor: {
      ...base,
      links: fresh(links),
      ...(recent ? linksOf(recent, 'recentLinks') : readRecent ? {} : { recentLinks: fresh(recentLinks) }),
      lastLookBackAt: lookBackDue && recent ? options.now.toISOString() : cursor.lastLookBackAt,
      lastChangeId: followed.first ? followed.first.timeline.lastChangeId : cursor.lastChangeId,
    },
  }
}

/** The links of each part of a read, with its range; none when a part came without one (the next read is whole). */
function linksOf(read: RangeRead, field: 'links' | 'recentLinks'): Partial<Pick<TimelineCursor, 'links' | 'recentLinks'>> {
  const links: CursorLink[] = []
  for (const part of read.parts) {
    if (part.answer.updatedActivitiesUrl === undefined) return {}
    links.push({ href: part.answer.updatedActivitiesUrl, from: part.range.from, to: part.range.to })
  }
  return { [field]: links }
}

/** An activity overlapping `[from, to)` (epoch seconds), as the server counts one for a range: a zero-length one by its start. */
function overlaps(activity: Activity, from: number, to: number): boolean {
  const start = offsetInstantSeconds(activity.start)
  return start < to && (start + activity.duration > from || (activity.duration === 0 && start >= from))
}

/** What `readRange` found: every activity once, the first and last answers, and each part's answer. */
export interface RangeRead {
  activities: Activity[]
  /** The earliest answer: its `lastChangeId` is the oldest of the read. */
  first: ActivitiesRead
  /** The latest answer: the timeline as it was last seen. */
  last: ActivitiesRead
  /** The ranges answered, in order, each with its answer (and so its `updatedactivities` link). */
  parts: { range: TimeWindow; answer: ActivitiesRead }[]
}

/**
 * Reads `window` of one timeline in one request, halving a range only when the
 * server refuses it or its answer is too large (src/core/read-ranges.ts). The
 * halves are read one after another, earlier first, so the first answer is the
 * earliest: a `lastChangeId` taken from it makes anything that changed while
 * later parts were read come again next time (harmless) instead of being
 * skipped. Different timelines are read concurrently by the callers; the
 * client's pace bounds the requests in flight.
 */
export async function readRange(client: TimelineClient, timeline: TimelineInfo, window: TimeWindow): Promise<RangeRead> {
  const plan = planRangeReads(window)
  const byId = new Map<number, Activity>()
  const parts: RangeRead['parts'] = []
  for (let range = plan.next(); range; range = plan.next()) {
    const splittable = halveWindow(range) !== undefined
    let answer: ActivitiesRead
    try {
      answer = await client.readActivities(timeline, range, { splittable })
    } catch (error) {
      if (splittable && meansRangeTooLarge(error) && plan.refused()) continue
      throw error
    }
    plan.answered()
    parts.push({ range, answer })
    // An activity that spans the edge between two halves comes in both.
    for (const activity of answer.activities) byId.set(activity.entityId, activity)
  }
  const first = parts[0]?.answer
  const last = parts[parts.length - 1]?.answer
  if (!first || !last) throw bugError(`readRange: the read plan of ${window.from} … ${window.to} ended without an answer`)
  return { activities: [...byId.values()], first, last, parts }
}

/** What following the links found, or the answer of the server that refused one. */
type Followed =
  | {
      kind: 'read'
      activities: Activity[]
      deletedIds: number[]
      /** An answer listed a deleted group or groupList, where activities' tags come from. */
      tagSourcesDeleted: boolean
      /** The fresh link each answer gave, by the link followed. */
      fresh: Map<CursorLink, string>
      first: ActivitiesRead | undefined
      last: ActivitiesRead | undefined
    }
  | { kind: 'link-refused'; answer: string }

/**
 * Follows each link exactly as the server wrote it ("the complete url including parameters is provided by
 * 'links' resource"), one request each, in the order of their ranges, so the first answer is the oldest.
 *
 * A link is never halved: the server wrote it for a range it answered. So any refusal that would mean a range
 * too large for a plain read (decisions/0005, rule 2), and any that names the link's timestamp or the change
 * tracking, is a refusal of the link: the server no longer answers it (it trimmed the change tracking the
 * link points into, or takes the link for another).
 */
async function followLinks(client: TimelineClient, links: readonly CursorLink[]): Promise<Followed> {
  const byId = new Map<number, Activity>()
  const deleted = new Set<number>()
  const fresh = new Map<CursorLink, string>()
  let tagSourcesDeleted = false
  let first: ActivitiesRead | undefined
  let last: ActivitiesRead | undefined
  const ordered = [...links].sort((a, b) => offsetInstantSeconds(a.from) - offsetInstantSeconds(b.from))
  for (const link of ordered) {
    let answer: ActivitiesRead
    try {
      answer = await client.readUpdated(link.href)
    } catch (error) {
      if (saysLinkRefused(error) || meansRangeTooLarge(error)) return { kind: 'link-refused', answer: answerOf(error) }
      throw error
    }
    first ??= answer
    last = answer
    for (const activity of answer.activities) byId.set(activity.entityId, activity)
    for (const id of answer.deletedActivityIds ?? []) deleted.add(id)
    // Folders are left alone: the tool reads none, and an activity's tags come from its groups.
    if (answer.deletedGroupIds?.length || answer.deletedGroupListIds?.length) tagSourcesDeleted = true
    // A server that gives no fresh link leaves the old one valid: the next read repeats these changes, harmlessly.
    if (answer.updatedActivitiesUrl !== undefined) fresh.set(link, answer.updatedActivitiesUrl)
  }
  return { kind: 'read', activities: [...byId.values()], deletedIds: [...deleted], tagSourcesDeleted, fresh, first, last }
}

const LINK_WORDS = /updatedAfterTimestamp|change ?tracking|trimmed|garbage/i

/** Fields of an error body that say what went wrong (not those that echo the request, such as its address). */
const SAYING_FIELDS = new Set(['errorcode', 'message', 'title', 'detail', 'error', 'error_description'])

/** 410 Gone, or a refusal whose body names the link's timestamp or the server's change tracking. */
function saysLinkRefused(error: unknown): boolean {
  if (!(error instanceof HttpError) || error.status < 400) return false
  if (error.status === 410) return true
  const data = error.data
  if (typeof data === 'string') return LINK_WORDS.test(data)
  if (typeof data !== 'object' || data === null) return false
  return Object.entries(data).some(
    ([key, value]) => SAYING_FIELDS.has(key.toLowerCase()) && typeof value === 'string' && LINK_WORDS.test(value),
  )
}

function answerOf(error: unknown): string {
  if (error instanceof HttpError) return `HTTP ${error.status}`
  return error instanceof Error ? error.message : String(error)
}

/**
 * What the timeline list says of a timeline's changes: its `lastChangeId` and `timestamp`, which the service
 * moves on every change (compared whole, as opaque text). Undefined when the list shows neither.
 */
export function timelineVersion(timeline: Pick<TimelineInfo, 'lastChangeId' | 'timestamp'>): string | undefined {
  if (timeline.lastChangeId === undefined && timeline.timestamp === undefined) return undefined
  return `${timeline.lastChangeId ?? ''} ${timeline.timestamp ?? ''}`
}

/**
 * Reads the given ranges of one timeline, each run of touching ranges as one
 * (halved only where refused); writes must then prove they saw the state of the
 * first answer, so a change between two reads is caught as a concurrency rejection.
 */
export async function readRanged(client: TimelineClient, timeline: TimelineInfo, ranges: TimeWindow[]): Promise<Activity[]> {
  const byId = new Map<number, Activity>()
  let firstChange: { value: string | undefined } | undefined
  for (const range of mergeRanges(ranges)) {
    const read = await readRange(client, timeline, range)
    firstChange ??= { value: read.first.timeline.lastChangeId }
    for (const a of read.activities) byId.set(a.entityId, a)
  }
  client.setLastChangeId(timeline.timelineKey, firstChange?.value)
  return [...byId.values()]
}

/**
 * `read` of every item at once (the client's pace bounds the requests in
 * flight), the results in the items' order. Every read is waited for, so none
 * is still running when this settles; the first failure in the items' order is
 * thrown, so a run fails the same way however the answers interleave.
 */
export async function readEach<T, R>(items: readonly T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const settled = await Promise.allSettled(items.map((item) => read(item)))
  const failed = settled.find((s) => s.status === 'rejected')
  if (failed) throw failed.reason
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value)
}
