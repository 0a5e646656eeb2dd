/**
 * The day as ManicTime counts it. Its "day start shift" counts a day from a configured hour (4 am to 4 am), its
 * reports and timesheets follow it, and its API does not expose it (decisions/0023-day-start.md), so a target
 * names the hour (`dayStartsAt`). A day `D` is then the wall-clock hours from `D` at that hour to `D + 1` at that
 * hour in the sheet's zone: an activity at 01:30 on 2026-11-10 belongs to the day 2026-11-09. It stands apart
 * because the Date column, the read windows, the look-back, the Summary (through the Date column) and approvals
 * must all give an activity the same day, and this is where that day is decided.
 */
import { TimelineSheetsError } from '../errors.ts'
import { fractionToSeconds, serialToLocalDate, serialToWallSeconds, wallSecondsToSerial, type LocalDate } from './serial.ts'
import { parseOffsetInstant } from './instant.ts'
import { firstInstantFrom, wallSecondsAt } from './wall-clock.ts'

/** Seconds after local midnight a day starts at: whole minutes, from 0 (midnight) to 23:59. */
export type DayStart = number

/** A day that starts at midnight: the calendar day. */
export const MIDNIGHT: DayStart = 0

const HOUR_MINUTE = /^([01]\d|2[0-3]):([0-5]\d)$/

/** The pattern a `dayStartsAt` text follows (the config validates with it): `00:00` to `23:59`. */
export const DAY_START_PATTERN = HOUR_MINUTE

/** `"04:00"` → the seconds after midnight the day starts at; undefined (not configured) is midnight. */
export function parseDayStart(text: string | undefined): DayStart {
  if (text === undefined) return MIDNIGHT
  const m = HOUR_MINUTE.exec(text)
  if (!m) {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `"${text}" is not a time a day can start at`, {
      hint: 'Type it as hours and minutes from 00:00 to 23:59, such as "04:00".',
    })
  }
  return Number(m[1]) * 3600 + Number(m[2]) * 60
}

/** `14400` → `"04:00"`. */
export function dayStartText(dayStart: DayStart): string {
  const minutes = Math.floor(dayStart / 60)
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

/** The day an instant belongs to in `timeZone`: the local day its wall clock reads, less the shift. */
export function dayOfInstant(timeZone: string, epochSeconds: number, dayStart: DayStart): LocalDate {
  return serialToLocalDate(wallSecondsToSerial(wallSecondsAt(timeZone, epochSeconds) - dayStart))
}

/**
 * The day of an activity: the day its start belongs to, as ManicTime counts days. The Date column shows it, an
 * edited row's weeks are found by it, and approvals (of a person's day) are to group by it.
 */
export function activityDay(start: string, timeZone: string, dayStart: DayStart): LocalDate {
  return dayOfInstant(timeZone, parseOffsetInstant(start).epochSeconds, dayStart)
}

/**
 * Whether a time of day (a Start cell's fraction) lies before the day's start, so that its wall clock reads on
 * the calendar day after its Date. Rounded to the second as the wall clock is.
 */
export function beforeDayStart(timeOfDay: number, dayStart: DayStart): boolean {
  return dayStart !== MIDNIGHT && fractionToSeconds(timeOfDay) < dayStart
}

/** The calendar day (serial) a row's Start reads on: its Date, or the day after for a Start before the day's start. */
export function calendarDayOfStart(date: number, start: number, dayStart: DayStart): number {
  return beforeDayStart(start, dayStart) ? date + 1 : date
}

/** The Date (serial) of a start at `start` on the calendar day `calendarDay`: that day, or the one before. */
export function dateOfStart(calendarDay: number, start: number, dayStart: DayStart): number {
  return beforeDayStart(start, dayStart) ? calendarDay - 1 : calendarDay
}

/**
 * The first instant of the day `serialDay` in `timeZone`: the first whose wall clock reads the day's start hour
 * or later. Where the clocks skip that hour, the day starts where they land; where they repeat it, at its first
 * reading (as a midnight does).
 */
export function dayStartInstant(timeZone: string, serialDay: number, dayStart: DayStart): number {
  return firstInstantFrom(timeZone, serialToWallSeconds(serialDay) + dayStart)
}
