/**
 * Sheet times: an activity's start (ISO 8601 with its own UTC offset) and duration (whole seconds) as the
 * sheet's Date, Start, End and Duration serials in the spreadsheet's IANA zone, and a row's serials back to a
 * start with an offset and a duration. It stands apart because the End rule, the choice between two readings
 * of a repeated hour, the range a row may ask for and the offset a start written back carries are the
 * product's rules for one row's times, checked side by side so the round trip stays lossless.
 */
import { fractionToSeconds, serialToWallSeconds, SECONDS_PER_DAY, SERIAL_OF_UNIX_EPOCH } from './serial.ts'
import { formatOffsetInstant, parseOffsetInstant, type OffsetInstant } from './instant.ts'
import { zoneOffsetMinutes } from './zone-offset.ts'
import { clock, mod, resolveWall, soleInstant, wallSecondsAt, type WallResolution } from './wall-clock.ts'
import { calendarDayOfStart, dateOfStart, MIDNIGHT, type DayStart } from './day-start.ts'

/*
 * How a row shows an activity (decisions/0000-product.md §6):
 * - `Date` is the day of the start as the target counts days (day-start.ts:
 *   from midnight, or from the hour of ManicTime's day start shift), `Start`
 *   its time of day (fraction) as the clock reads it. With days from 04:00, a
 *   Start before 04:00 reads on the calendar day after its Date (Date
 *   2026-11-09, Start 01:30 is 2026-11-10 01:30). Below, "the same day" is the
 *   calendar day the Start reads on.
 * - `End` is a time of day. `End > Start`: the same day. `End < Start`: the
 *   next day (23:00–01:00). `End = Start`: zero length. An activity whose end
 *   is a day or more after its start, wall-clock, carries the days in `End`
 *   (`1.25` = the next day 06:00, still shown as `06:00`), so nothing is lost.
 * - `Duration` is the real elapsed time (seconds / 86400), not the wall-clock
 *   difference, so it stays right across DST. When the wall-clock reading of
 *   Start/End is ambiguous (the repeated hour in autumn, or a short activity
 *   that ends "before" it starts because the clocks went back), the candidate
 *   whose length equals the Duration cell wins, then the one that keeps the
 *   original start, then the earlier start, then the shortest length: that
 *   is what makes the round trip lossless.
 * - A local time that does not exist (02:30 on a spring-forward day) resolves
 *   forward by the size of the gap (03:30), like Temporal's "compatible"
 *   disambiguation, and is flagged as a warning (a row that asks for one is
 *   refused: `clockJumpAt` says what the clocks did). A repeated local time with
 *   nothing to decide it takes the earlier instant, also with a warning.
 *
 * What a row may ask for (`sheetTimesToInterval` refuses the rest as
 * `out-of-range`, never producing a start the server or this tool cannot read
 * back): a Date from 1970-01-01 to 2999-12-31, a start whose own offset reads
 * a year from 1970 to 2999, and at most a year from start to end. These are
 * the activities the Timeline client accepts from a server (its boundary
 * refuses anything else as a broken answer), so a row outside them would be
 * created and then be unreadable. Every time conversion also stays within
 * four-digit years whatever it is given: read windows (windows.ts) stop at
 * 9999-12-31 23:59:59, and `formatOffsetInstant` (instant.ts) refuses rather
 * than spell `+010000`.
 *
 * Which offset a start written back to the server carries:
 * - instant unchanged: the original start string, verbatim;
 * - instant changed on an existing activity recorded in the sheet's zone
 *   (its offset equals the zone's offset at its original start): the zone's
 *   offset at the new instant (a move across DST takes the new offset);
 * - instant changed on an activity recorded elsewhere: its original offset
 *   (the device's local day stays the device's);
 * - new rows: the zone's offset at the new instant.
 */

/** The sheet's serial numbers for one activity (see the End rule at the top). */
export interface SheetTimes {
  /** Whole serial day of the start. */
  date: number
  /** Fraction of a day, [0, 1). */
  start: number
  /** Fraction of a day; ≥ 1 only when the end is a day or more later, wall-clock. */
  end: number
  /** Real elapsed time in days (seconds / 86400). */
  duration: number
}

export type TimeWarning =
  | { kind: 'nonexistent-time'; field: 'start' | 'end'; typed: string; usedAs: string }
  | { kind: 'ambiguous-time'; field: 'start' | 'end'; typed: string; usedAs: string }

export type SheetToIntervalResult =
  | { ok: true; start: string; duration: number; warnings: TimeWarning[] }
  | { ok: false; problem: 'end-before-start'; message: string }
  /** A Date, Start or End outside what the sheet and the server can hold (the rules at the top). */
  | { ok: false; problem: 'out-of-range'; field: 'date' | 'start' | 'end'; message: string }

/** The years an activity may start in, read in its own offset (the rules at the top). */
export const FIRST_START_YEAR = 1970
export const LAST_START_YEAR = 2999
/** The longest activity a row may ask for: a year, in seconds. */
export const MAX_ACTIVITY_SECONDS = 366 * SECONDS_PER_DAY
/** Serial days of 1970-01-01 and 2999-12-31: the Date cells a row may hold. */
export const FIRST_DATE_SERIAL = SERIAL_OF_UNIX_EPOCH
export const LAST_DATE_SERIAL = Date.UTC(LAST_START_YEAR, 11, 31) / 1000 / SECONDS_PER_DAY + SERIAL_OF_UNIX_EPOCH

/** The wall-clock seconds a row's Start and End mean (End: its most likely day, per the End rule). */
export function typedWallSeconds(input: SheetTimesInput, dayStart: DayStart = MIDNIGHT): { start: number; end: number } {
  const day = calendarDayOfStart(Math.floor(input.date), input.start, dayStart)
  return { start: serialToWallSeconds(day + input.start), end: endWallCandidates(day, input.start, input.end)[0]! }
}

/** An activity's start and duration as the sheet's serials in `timeZone`, its Date counted from `dayStart`. */
export function activityToSheetTimes(start: string, duration: number, timeZone: string, dayStart: DayStart = MIDNIGHT): SheetTimes {
  const { epochSeconds } = parseOffsetInstant(start)
  const startWall = wallSecondsAt(timeZone, epochSeconds)
  const endWall = wallSecondsAt(timeZone, epochSeconds + duration)
  const dayWall = Math.floor(startWall / SECONDS_PER_DAY) * SECONDS_PER_DAY
  const startOfDay = startWall - dayWall
  const endDelta = endWall - dayWall
  const endOfDay = mod(endDelta, SECONDS_PER_DAY)
  const endDays = Math.floor(endDelta / SECONDS_PER_DAY)
  // A plain time of day is enough when the End rule reads it back to the same wall time.
  const plain = endDays === 0 || (endDays === 1 && endOfDay < startOfDay)
  const startFraction = startOfDay / SECONDS_PER_DAY
  return {
    date: dateOfStart(dayWall / SECONDS_PER_DAY + SERIAL_OF_UNIX_EPOCH, startFraction, dayStart),
    start: startFraction,
    end: (plain ? endOfDay : endDelta) / SECONDS_PER_DAY,
    duration: duration / SECONDS_PER_DAY,
  }
}

/** What the row says, in serials, plus what helps decide ambiguous readings. */
export interface SheetTimesInput {
  date: number
  start: number
  end: number
  /** The Duration cell, if it holds a number: decides between candidates of equal standing. */
  durationHint?: number | undefined
}

/** The existing activity's start, for offset choice and ambiguous starts. */
export interface OriginalStart {
  start: string
}

/**
 * Converts the row's Date/Start/End to a start with an offset and a duration
 * in whole seconds, following the End rule and the offset rules in the module
 * comment, its Date counted from `dayStart`. Fails only when the end falls
 * before the start.
 */
export function sheetTimesToInterval(
  input: SheetTimesInput,
  timeZone: string,
  original?: OriginalStart,
  dayStart: DayStart = MIDNIGHT,
): SheetToIntervalResult {
  if (dayStart !== MIDNIGHT) return sheetTimesToInterval(onCalendar(input, dayStart), timeZone, original)
  const outside = outOfRange(input)
  if (outside) return outside
  // Nearly every row of a sheet: one instant for its Start and for each End candidate (decided without building readings).
  const day = Math.floor(input.date)
  const hintSeconds = input.durationHint === undefined ? undefined : fractionToSeconds(input.durationHint)
  const sole = soleReading(timeZone, serialToWallSeconds(day + input.start), endWallCandidates(day, input.start, input.end), hintSeconds)
  if (sole === null) return { ok: false, problem: 'end-before-start', message: 'End is before Start' }
  if (sole === undefined) return rankedSheetTimesToInterval(input, timeZone, original)
  const originalInstant = original ? parseOffsetInstant(original.start) : undefined
  return finishInterval(sole.startEpoch, sole.endEpoch, [], timeZone, original, originalInstant)
}

/**
 * `sheetTimesToInterval` for every row, each reading built and ranked: what it does for a time near a transition.
 * Exported so a property test holds the common case's shortcut to it.
 */
export function rankedSheetTimesToInterval(
  input: SheetTimesInput,
  timeZone: string,
  original?: OriginalStart,
  dayStart: DayStart = MIDNIGHT,
): SheetToIntervalResult {
  if (dayStart !== MIDNIGHT) return rankedSheetTimesToInterval(onCalendar(input, dayStart), timeZone, original)
  const warnings: TimeWarning[] = []
  const outside = outOfRange(input)
  if (outside) return outside
  const originalInstant = original ? parseOffsetInstant(original.start) : undefined
  const day = Math.floor(input.date)
  const startWall = serialToWallSeconds(day + input.start)
  const hintSeconds = input.durationHint === undefined ? undefined : fractionToSeconds(input.durationHint)

  const endCandidates = endWallCandidates(day, input.start, input.end)
  const startResolution = resolveWall(timeZone, startWall)
  const startCandidates = startResolution.kind === 'ambiguous' ? startResolution.candidates : [startResolution.epochSeconds]

  const readings: Reading[] = []
  for (const endWall of endCandidates) {
    const endResolution = resolveWall(timeZone, endWall)
    const ends = endResolution.kind === 'ambiguous' ? endResolution.candidates : [endResolution.epochSeconds]
    startCandidates.forEach((startEpoch, startRank) => {
      for (const endEpoch of ends) {
        if (endEpoch >= startEpoch) readings.push({ startEpoch, endEpoch, endResolution, startRank })
      }
    })
  }
  if (readings.length === 0) {
    return { ok: false, problem: 'end-before-start', message: 'End is before Start' }
  }
  // Lexicographic: the Duration cell first, then the original start, then the
  // earlier of two repeated starts, then the shortest length (End < Start = next day).
  const rank = (r: Reading): number[] => [
    hintSeconds !== undefined && r.endEpoch - r.startEpoch === hintSeconds ? 0 : 1,
    !originalInstant
      ? 0
      : r.startEpoch === originalInstant.epochSeconds
        ? 0
        : zoneOffsetMinutes(timeZone, r.startEpoch) === originalInstant.offsetMinutes
          ? 1
          : 2,
    r.startRank,
    r.endEpoch - r.startEpoch,
  ]
  const best = readings.reduce((a, b) => (compareRanks(rank(b), rank(a)) < 0 ? b : a))
  // A repeated local time is "decided" when the Duration cell or the original start rules out the other reading.
  const bestRank = rank(best)
  const tied = readings.filter((r) => compareRanks(rank(r).slice(0, 2), bestRank.slice(0, 2)) === 0)
  const startUndecided = new Set(tied.map((r) => r.startEpoch)).size > 1
  const endRes = best.endResolution
  const endUndecided =
    endRes.kind === 'ambiguous' && endRes.candidates.every((c) => tied.some((r) => r.startEpoch === best.startEpoch && r.endEpoch === c))

  if (startResolution.kind === 'gap') {
    warnings.push({
      kind: 'nonexistent-time',
      field: 'start',
      typed: clock(startWall),
      usedAs: clock(wallSecondsAt(timeZone, best.startEpoch)),
    })
  } else if (startResolution.kind === 'ambiguous' && startUndecided) {
    warnings.push({ kind: 'ambiguous-time', field: 'start', typed: clock(startWall), usedAs: describeInstant(timeZone, best.startEpoch) })
  }
  if (endRes.kind === 'gap') {
    warnings.push({
      kind: 'nonexistent-time',
      field: 'end',
      typed: clock(serialToWallSeconds(day + input.end)),
      usedAs: clock(wallSecondsAt(timeZone, best.endEpoch)),
    })
  } else if (endUndecided) {
    warnings.push({
      kind: 'ambiguous-time',
      field: 'end',
      typed: clock(serialToWallSeconds(day + input.end)),
      usedAs: describeInstant(timeZone, best.endEpoch),
    })
  }

  return finishInterval(best.startEpoch, best.endEpoch, warnings, timeZone, original, originalInstant)
}

/**
 * The reading of a row whose Start and every End candidate each have one instant (nearly every row): the ranking
 * of `sheetTimesToInterval` without building its readings. With one start, the original start ranks every reading
 * alike, so the Duration cell decides, then the shorter length, then the earlier candidate. Undefined when some wall
 * time is near a transition (the general path decides); null when no End candidate falls after the start.
 */
function soleReading(
  timeZone: string,
  startWall: number,
  endWalls: readonly number[],
  hintSeconds: number | undefined,
): { startEpoch: number; endEpoch: number } | null | undefined {
  const startEpoch = soleInstant(timeZone, startWall)
  if (startEpoch === undefined) return undefined
  let bestEnd: number | undefined
  let bestMiss = 0
  for (const endWall of endWalls) {
    const endEpoch = soleInstant(timeZone, endWall)
    if (endEpoch === undefined) return undefined
    if (endEpoch < startEpoch) continue
    const miss = hintSeconds !== undefined && endEpoch - startEpoch === hintSeconds ? 0 : 1
    if (bestEnd === undefined || miss < bestMiss || (miss === bestMiss && endEpoch < bestEnd)) {
      bestEnd = endEpoch
      bestMiss = miss
    }
  }
  return bestEnd === undefined ? null : { startEpoch, endEpoch: bestEnd }
}

/** The chosen reading as a start with its offset and a duration, held to the lengths and years the tool takes. */
function finishInterval(
  startEpoch: number,
  endEpoch: number,
  warnings: TimeWarning[],
  timeZone: string,
  original: OriginalStart | undefined,
  originalInstant: OffsetInstant | undefined,
): SheetToIntervalResult {
  const duration = endEpoch - startEpoch
  if (duration > MAX_ACTIVITY_SECONDS) return { ok: false, problem: 'out-of-range', field: 'end', message: LONGER_THAN_A_YEAR }
  const startOffset = chosenOffset(startEpoch, timeZone, originalInstant)
  const start =
    originalInstant && startEpoch === originalInstant.epochSeconds ? original!.start : formatOffsetInstant(startEpoch, startOffset)
  // The year the server records is the one the start's own offset reads (another device's offset may cross New Year).
  const year = Number(start.slice(0, 4))
  if (year < FIRST_START_YEAR || year > LAST_START_YEAR) {
    return {
      ok: false,
      problem: 'out-of-range',
      field: 'date',
      message: `starts in ${year} as the activity's offset reads it; ${DAYS_ALLOWED}`,
    }
  }
  return { ok: true, start, duration, warnings }
}

const DAYS_ALLOWED = `the tool takes days from 1970-01-01 to ${LAST_START_YEAR}-12-31`
const LONGER_THAN_A_YEAR = 'makes the activity last more than a year, the longest the tool takes'

/** The Date, Start and End serials outside what can be represented (the rules at the top), before any conversion. */
function outOfRange(input: SheetTimesInput): Extract<SheetToIntervalResult, { problem: 'out-of-range' }> | undefined {
  const { date, start, end } = input
  if (!Number.isFinite(date) || Math.floor(date) < FIRST_DATE_SERIAL || Math.floor(date) > LAST_DATE_SERIAL) {
    return { ok: false, problem: 'out-of-range', field: 'date', message: `is not a day the tool takes; ${DAYS_ALLOWED}` }
  }
  if (!Number.isFinite(start) || start < 0 || fractionToSeconds(start) >= SECONDS_PER_DAY) {
    return { ok: false, problem: 'out-of-range', field: 'start', message: 'is not a time of day between 00:00 and 23:59:59' }
  }
  if (!Number.isFinite(end) || end < 0) return { ok: false, problem: 'out-of-range', field: 'end', message: 'is not a time of day' }
  // A day of slack for DST and the End rule; the exact length is checked once the instants are known.
  if (end - start > MAX_ACTIVITY_SECONDS / SECONDS_PER_DAY + 1)
    return { ok: false, problem: 'out-of-range', field: 'end', message: LONGER_THAN_A_YEAR }
  return undefined
}

/** The row with its Date as the calendar day its Start reads on: what the rules below count from. */
function onCalendar(input: SheetTimesInput, dayStart: DayStart): SheetTimesInput {
  const date = Math.floor(input.date)
  return { ...input, date: calendarDayOfStart(date, input.start, dayStart) + (input.date - date) }
}

interface Reading {
  startEpoch: number
  endEpoch: number
  endResolution: WallResolution
  startRank: number
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/** Wall-clock seconds the End cell may mean, most likely first. */
function endWallCandidates(day: number, start: number, end: number): number[] {
  const sameDay = serialToWallSeconds(day + end)
  if (end >= 1) return [sameDay]
  const startSeconds = fractionToSeconds(start)
  const endSeconds = fractionToSeconds(end)
  // End < Start means the next day; the same day stays a candidate for the autumn repeated hour.
  return endSeconds < startSeconds ? [sameDay + SECONDS_PER_DAY, sameDay] : [sameDay]
}

/** The offset a start written back carries (the rules at the top); the original string itself when the instant is unchanged. */
function chosenOffset(epochSeconds: number, timeZone: string, originalInstant: OffsetInstant | undefined): number {
  if (!originalInstant) return zoneOffsetMinutes(timeZone, epochSeconds)
  if (epochSeconds === originalInstant.epochSeconds) return originalInstant.offsetMinutes
  const recordedInZone = zoneOffsetMinutes(timeZone, originalInstant.epochSeconds) === originalInstant.offsetMinutes
  return recordedInZone ? zoneOffsetMinutes(timeZone, epochSeconds) : originalInstant.offsetMinutes
}

function describeInstant(timeZone: string, epochSeconds: number): string {
  const offset = zoneOffsetMinutes(timeZone, epochSeconds)
  return `${clock(epochSeconds + offset * 60)} (UTC${formatOffsetInstant(0, offset).slice(19)})`
}
