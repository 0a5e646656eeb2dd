/**
 * Which ranges to read of a timeline. The Timeline service publishes no
 * maximum range or page size (decisions/0005-timeline-read-ranges.md), so a
 * window is asked for whole and halved only when the server refuses it or its
 * answer is too large; halves are read in order, earlier first, so the first
 * answer is always the earliest one. An import reads the weeks around its
 * edits (`readRanges`).
 */
import { bugError } from '../errors.ts'
import { chunkWindows, windowForDays, type TimeWindow } from './windows.ts'
import { formatOffsetInstant, parseOffsetInstant } from './instant.ts'
import { addDays, SECONDS_PER_DAY } from './serial.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'

/** A window this long or shorter is never halved: a refusal of one day is the server's last word. */
export const MIN_SPLIT_SECONDS = SECONDS_PER_DAY

/** The two halves of `window` (split at its middle instant, in the offset of its start), or undefined when it is too short to halve. */
export function halveWindow(window: TimeWindow): [TimeWindow, TimeWindow] | undefined {
  const from = parseOffsetInstant(window.from)
  const to = parseOffsetInstant(window.to)
  if (to.epochSeconds - from.epochSeconds <= MIN_SPLIT_SECONDS) return undefined
  const middle = formatOffsetInstant(Math.floor((from.epochSeconds + to.epochSeconds) / 2), from.offsetMinutes)
  return [
    { from: window.from, to: middle },
    { from: middle, to: window.to },
  ]
}

/**
 * The reads of one window, planned as answers come: `next()` is the range to
 * read, `answered()` or `refused()` says how it went. A refused range is
 * replaced by its halves, read next; nothing else ever splits a range.
 */
export interface RangePlan {
  /** The range to read next; undefined when every part of the window is answered. */
  next(): TimeWindow | undefined
  /** The range from `next()` was answered. */
  answered(): void
  /** The range from `next()` was refused or its answer too large: true when it was halved, false when it is too short to halve. */
  refused(): boolean
  /** The ranges answered so far, in order: together they cover the window once. */
  readonly answeredRanges: readonly TimeWindow[]
}

/** Plans the reads of `window`: first the whole of it. */
export function planRangeReads(window: TimeWindow): RangePlan {
  const pending: TimeWindow[] = [window]
  const answeredRanges: TimeWindow[] = []
  const current = (): TimeWindow => {
    const range = pending[0]
    if (!range) {
      throw bugError('planRangeReads: a range was answered or refused after every range of the window was answered')
    }
    return range
  }
  return {
    next: () => pending[0],
    answered() {
      answeredRanges.push(current())
      pending.shift()
    },
    refused() {
      const halves = halveWindow(current())
      if (!halves) return false
      pending.splice(0, 1, ...halves)
      return true
    },
    answeredRanges,
  }
}

/**
 * Ranges sorted by start, with those that touch or overlap joined into one
 * (weekly chunks of a window become the window): each is then read whole.
 */
export function mergeRanges(ranges: readonly TimeWindow[]): TimeWindow[] {
  const sorted = ranges
    .map((range) => ({ range, from: parseOffsetInstant(range.from).epochSeconds, to: parseOffsetInstant(range.to).epochSeconds }))
    .sort((a, b) => a.from - b.from || a.to - b.to)
  const out: { range: TimeWindow; from: number; to: number }[] = []
  for (const next of sorted) {
    const last = out[out.length - 1]
    if (last && next.from <= last.to) {
      if (next.to > last.to) {
        last.range = { from: last.range.from, to: next.range.to }
        last.to = next.to
      }
    } else {
      out.push({ ...next, range: { ...next.range } })
    }
  }
  return out.map((r) => r.range)
}

/**
 * What to read of one timeline: the window's weekly chunks from the first to
 * the last that holds an edited day (all of them when `full`), plus the week
 * around each edited day outside the window. The weeks between edits are read
 * too, so the window's part is one request: the service's pace counts requests,
 * and each costs a round trip, while a few more weeks of one user's activities
 * cost little.
 */
export function readRanges(
  timeZone: string,
  fromDate: string,
  days: number,
  dates: Set<string>,
  full: boolean,
  dayStart: DayStart = MIDNIGHT,
): TimeWindow[] {
  const window = chunkWindows(timeZone, fromDate, days, 7, dayStart)
  const edited = (c: TimeWindow) => [...dates].some((d) => within(d, c, timeZone, dayStart))
  const first = full ? 0 : window.findIndex(edited)
  const last = full ? window.length - 1 : window.findLastIndex(edited)
  const chunks = first < 0 ? [] : window.slice(first, last + 1)
  const lastDate = addDays(fromDate, days)
  const extra = [...dates].filter((d) => d < fromDate || d >= lastDate).sort()
  for (const d of extra) {
    if (!chunks.some((c) => within(d, c, timeZone, dayStart))) chunks.push(...chunkWindows(timeZone, addDays(d, -3), 7, 7, dayStart))
  }
  return chunks
}

/** The window's chunks a read of `ranges` left out. */
export function restOfWindow(
  timeZone: string,
  fromDate: string,
  days: number,
  ranges: TimeWindow[],
  dayStart: DayStart = MIDNIGHT,
): TimeWindow[] {
  return chunkWindows(timeZone, fromDate, days, 7, dayStart).filter((c) => !ranges.some((r) => r.from === c.from && r.to === c.to))
}

/**
 * Whether the day `date` of `timeZone` lies in `window`, a run of whole days: its start, local midnight or the
 * hour `dayStart` names as the windows place it, is in `[from, to)`. An instant of that day in UTC would be on
 * another local day in zones far from UTC (at UTC+13, noon UTC is already 01:00 of the next day).
 */
export function within(date: string, window: TimeWindow, timeZone: string, dayStart: DayStart = MIDNIGHT): boolean {
  return startsWithin(windowForDays(timeZone, date, 1, dayStart).from, window)
}

export function startsWithin(start: string, window: TimeWindow): boolean {
  const t = parseOffsetInstant(start).epochSeconds
  return t >= parseOffsetInstant(window.from).epochSeconds && t < parseOffsetInstant(window.to).epochSeconds
}
