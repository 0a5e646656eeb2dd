/**
 * What changed on the server for one Tags timeline since the last run: a full
 * read of the window, in one request unless the server refuses it, on the first
 * run (or with --full), otherwise one incremental read through the stored
 * `updatedactivities` link, plus a full re-read of the look-back window when
 * it is due (the real service may not report deletions on incremental reads).
 * A link the server no longer accepts is followed by a full read of the window.
 */
import { halveWindow, mergeRanges, planRangeReads } from '../core/read-ranges.ts'
import { windowForDays, type TimeWindow } from '../core/windows.ts'
import { addDays, type LocalDate } from '../core/serial.ts'
import type { TimelineClient } from '../timeline/client.ts'
import { HttpError, InternalError } from '../errors.ts'
import { meansRangeTooLarge } from '../timeline/http.ts'
import type { ActivitiesRead, Activity, TimelineInfo } from '../timeline/model.ts'
import type { TimelineCursor } from '../state/target-state.ts'
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
      /** Activities created or changed since the cursor. */
      activities: Activity[]
      /** Entity ids the server reported deleted (only servers that report them). */
      deletedIds: number[]
      /** When the look-back window was re-read: its range and every activity in it. */
      lookBack: { window: TimeWindow; activities: Activity[] } | undefined
      /** The timeline list showed the version the last read began from: nothing changed, no incremental read was sent. */
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
    const read = await readWindow(client, timeline, window.timeZone, window.fromDate, window.days)
    return {
      mode: 'full',
      timeline: read.timeline,
      activities: read.activities,
      cursor: {
        ...base,
        updatedActivitiesUrl: read.link && retargetLink(read.link, window.window),
        lastLookBackAt: options.now.toISOString(),
        lastChangeId: read.lastChangeId,
      },
    }
  }
  if (options.full || !cursor?.updatedActivitiesUrl) return readFull()

  const url = retargetLink(cursor.updatedActivitiesUrl, window.window)
  // Every change moves the version, and the last read began after the list showed this one: an incremental read
  // would answer nothing. A look-back that is due still reads (it also finds what the window's moving end reaches).
  const unchanged = options.listedVersion !== undefined && options.listedVersion === cursor.listedVersion
  const outcome = unchanged ? undefined : await readUpdatedRange(client, cursor.updatedActivitiesUrl, window.window)
  // The server will not answer the link at all (its change tracking no longer reaches back that far): read the
  // window as a first run does, which reconciles every row of the timeline and gives a fresh link.
  if (outcome?.kind === 'link-refused') return { ...(await readFull()), linkRefused: outcome.answer }
  // A deleted group or groupList may have given tags to rows this read does not name (the tool keeps no map from
  // groups to rows): the window read whole reconciles every row of the timeline.
  if (outcome?.read.tagSourcesDeleted) return readFull()
  const updated = outcome?.read
  const lookBackDue =
    window.lookBackDays > 0 &&
    (!cursor.lastLookBackAt ||
      options.now.getTime() - Date.parse(cursor.lastLookBackAt) >= (options.lookBackEveryMs ?? DEFAULT_LOOK_BACK_EVERY_MS))
  let lookBack: { window: TimeWindow; activities: Activity[] } | undefined
  if (lookBackDue) {
    const days = Math.min(window.lookBackDays, window.days)
    const fromDate = addDays(window.fromDate, window.days - days)
    const read = await readWindow(client, timeline, window.timeZone, fromDate, days)
    lookBack = { window: { from: read.window.from, to: read.window.to }, activities: read.activities }
  }
  return {
    mode: 'incremental',
    timeline: updated?.last.timeline ?? timeline,
    activities: updated?.activities ?? [],
    deletedIds: updated?.deletedIds ?? [],
    lookBack,
    ...(unchanged ? { unchanged: true as const } : {}),
    cursor: {
      ...base,
      // A server that gives no fresh link leaves the old one valid: the next read repeats these changes, harmlessly.
      updatedActivitiesUrl: updated?.first.updatedActivitiesUrl ? retargetLink(updated.first.updatedActivitiesUrl, window.window) : url,
      lastLookBackAt: lookBack ? options.now.toISOString() : cursor.lastLookBackAt,
      lastChangeId: updated ? updated.first.timeline.lastChangeId : cursor.lastChangeId,
    },
  }
}

interface WindowRead {
  timeline: TimelineInfo
  activities: Activity[]
  link: string | undefined
  /** The first answer's: a change made while later parts were read then still shows as a change. */
  lastChangeId: string | undefined
  window: TimeWindow
}

/** `days` from `fromDate`, read whole (halved only where the server refuses), the cursor link from the earliest answer. */
async function readWindow(
  client: TimelineClient,
  timeline: TimelineInfo,
  timeZone: string,
  fromDate: LocalDate,
  days: number,
): Promise<WindowRead> {
  const window = windowForDays(timeZone, fromDate, days)
  const read = await readRange(client, timeline, window)
  return {
    timeline: read.last.timeline,
    activities: read.activities,
    link: read.first.updatedActivitiesUrl,
    lastChangeId: read.first.timeline.lastChangeId,
    window,
  }
}

/** What `readRange` found: every activity once, and the first and last answers. */
export interface RangeRead {
  activities: Activity[]
  /** The earliest answer: its `updatedactivities` link and `lastChangeId` are the oldest of the read. */
  first: ActivitiesRead
  /** The latest answer: the timeline as it was last seen. */
  last: ActivitiesRead
}

/**
 * Reads `window` of one timeline in one request, halving a range only when the
 * server refuses it or its answer is too large (src/core/read-ranges.ts). The
 * halves are read one after another, earlier first, so the first answer is the
 * earliest: a cursor link or `lastChangeId` taken from it makes anything that
 * changed while later parts were read come again next time (harmless) instead
 * of being skipped. Different timelines are read concurrently by the callers;
 * the client's pace bounds the requests in flight.
 */
export async function readRange(client: TimelineClient, timeline: TimelineInfo, window: TimeWindow): Promise<RangeRead> {
  return readPlanned(window, (range, splittable) => client.readActivities(timeline, range, { splittable }))
}

/** The loop of `readRange`: `read` one range after another as the plan says, halving what is refused. */
async function readPlanned(
  window: TimeWindow,
  read: (range: TimeWindow, splittable: boolean) => Promise<ActivitiesRead>,
  onAnswer: (answer: ActivitiesRead) => void = () => undefined,
): Promise<RangeRead> {
  const plan = planRangeReads(window)
  const byId = new Map<number, Activity>()
  let first: ActivitiesRead | undefined
  let last: ActivitiesRead | undefined
  for (let range = plan.next(); range; range = plan.next()) {
    const splittable = halveWindow(range) !== undefined
    let answer: ActivitiesRead
    try {
      answer = await read(range, splittable)
    } catch (error) {
      if (splittable && meansRangeTooLarge(error) && plan.refused()) continue
      throw error
    }
    plan.answered()
    first ??= answer
    last = answer
    onAnswer(answer)
    // An activity that spans the edge between two halves comes in both.
    for (const activity of answer.activities) byId.set(activity.entityId, activity)
  }
  if (!first || !last) throw new TypeError('A read plan ended without an answer')
  return { activities: [...byId.values()], first, last }
}

/** What `readUpdatedRange` found: the changes, the deletions, and the first and last answers. */
interface UpdatedRead extends RangeRead {
  deletedIds: number[]
  /** An answer listed a deleted group or groupList, where activities' tags come from. */
  tagSourcesDeleted: boolean
}

/** An incremental read: answered, or its link refused as such (`answer` says how). */
type UpdatedOutcome = { kind: 'read'; read: UpdatedRead } | { kind: 'link-refused'; answer: string }

/** Carries a refusal of the link out of the read plan's loop. */
class LinkRefused extends InternalError {
  readonly code = 'TS_HTTP'
  readonly convertedBy = 'readUpdatedRange (engine/server-reads.ts): a control-flow signal; the window is then read in full'
  readonly answer: string
  constructor(answer: string) {
    super(`The updatedactivities link was refused: ${answer}`)
    this.name = 'LinkRefused'
    this.answer = answer
  }
}

/**
 * Follows an `updatedactivities` link over `window`: one request, halved (the
 * link retargeted to each half) only where the server refuses the range, as a
 * full read is. The fresh link comes from the first answer, the oldest.
 *
 * A server that no longer accepts the link (it trimmed the change tracking the
 * link's timestamp points into) may answer as one refusing a range does; the
 * service documents neither answer. The link's refusal is told apart by what
 * the answer says (410 Gone, or a body naming the timestamp or the change
 * tracking), else by a refusal of a day-long part of the link, which no
 * maximum range explains. Telling them apart costs a server with a maximum
 * range nothing on the runs that read through a good link; a refused link
 * costs the halvings down to a day, once.
 */
async function readUpdatedRange(client: TimelineClient, link: string, window: TimeWindow): Promise<UpdatedOutcome> {
  const deleted = new Set<number>()
  let tagSourcesDeleted = false
  const read = async (range: TimeWindow, splittable: boolean): Promise<ActivitiesRead> => {
    try {
      return await client.readUpdated(retargetLink(link, range), { splittable })
    } catch (error) {
      if (saysLinkRefused(error)) throw new LinkRefused(answerOf(error))
      if (!splittable && meansRangeTooLarge(error)) throw new LinkRefused(`${answerOf(error)}, even for one day`)
      throw error
    }
  }
  try {
    const answered = await readPlanned(window, read, (answer) => {
      for (const id of answer.deletedActivityIds ?? []) deleted.add(id)
      // Folders are left alone: the tool reads none, and an activity's tags come from its groups.
      if (answer.deletedGroupIds?.length || answer.deletedGroupListIds?.length) tagSourcesDeleted = true
    })
    return { kind: 'read', read: { ...answered, deletedIds: [...deleted], tagSourcesDeleted } }
  } catch (error) {
    if (error instanceof LinkRefused) return { kind: 'link-refused', answer: error.answer }
    throw error
  }
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
 * The server's `updatedactivities` link with its range set to the export
 * window: the link is the server's (path, timestamp and any other parameter
 * kept as given); only fromTime and toTime follow the window as days pass.
 */
export function retargetLink(link: string, window: TimeWindow): string {
  const url = new URL(link)
  url.searchParams.set('fromTime', window.from)
  url.searchParams.set('toTime', window.to)
  return url.toString()
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
