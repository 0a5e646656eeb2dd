/**
 * Read windows: runs of days in the sheet's zone as `[from, to)` instants with explicit offsets, each
 * starting at the hour the target's day starts at (midnight, or ManicTime's day start shift: day-start.ts), or
 * where a gap over that hour ends, chunked for reading and stopped at 9999-12-31. It stands apart because the windows say which of the server's activities a run reads, a
 * question of days, not of how one row's times convert.
 */
import { TimelineSheetsError } from '../errors.ts'
import { localDateToSerial, serialToLocalDate, type LocalDate } from './serial.ts'
import { formatOffsetInstant, LAST_WALL_SECONDS } from './instant.ts'
import { zoneOffsetMinutes } from './zone-offset.ts'
import { dayStartInstant, MIDNIGHT, type DayStart } from './day-start.ts'

/** A read window `[from, to)` with explicit offsets. */
export interface TimeWindow {
  from: string
  to: string
}

/** Serial of 9999-12-31, the last day `YYYY-MM-DD` can spell; read windows stop there. */
const LAST_SPELLABLE_SERIAL = 2_958_465

/**
 * Days `[fromDate, fromDate+days)` in `timeZone`, each from the hour `dayStart` names (midnight unless given), with
 * explicit offsets.
 */
export function windowForDays(timeZone: string, fromDate: LocalDate, days: number, dayStart: DayStart = MIDNIGHT): TimeWindow {
  if (!Number.isInteger(days) || days < 1) {
    throw new TimelineSheetsError('TS_USAGE', `A read window needs a whole number of days ≥ 1, got ${days}`)
  }
  const first = localDateToSerial(fromDate)
  return { from: dayBound(timeZone, first, dayStart), to: dayBound(timeZone, first + days, dayStart) }
}

function dayBound(timeZone: string, serialDay: number, dayStart: DayStart): string {
  // A window never reaches past 9999-12-31 23:59:59: nothing the tool accepts is there, and nothing later has a four-digit year.
  if (serialDay > LAST_SPELLABLE_SERIAL) return lastWindowBound(timeZone)
  const epoch = dayStartInstant(timeZone, serialDay, dayStart)
  return formatOffsetInstant(epoch, zoneOffsetMinutes(timeZone, epoch))
}

/** 9999-12-31 23:59:59 in the zone, or earlier where UTC would pass into the year 10000 first. */
function lastWindowBound(timeZone: string): string {
  let epoch = LAST_WALL_SECONDS
  for (let i = 0; i < 3; i++) {
    const offset = zoneOffsetMinutes(timeZone, epoch)
    epoch = LAST_WALL_SECONDS - Math.max(0, Math.round(offset) * 60)
  }
  return formatOffsetInstant(epoch, zoneOffsetMinutes(timeZone, epoch))
}

/** `days` days from `fromDate` as consecutive windows of at most `maxDays` days each. */
export function chunkWindows(
  timeZone: string,
  fromDate: LocalDate,
  days: number,
  maxDays = 7,
  dayStart: DayStart = MIDNIGHT,
): TimeWindow[] {
  if (!Number.isInteger(maxDays) || maxDays < 1) {
    throw new TimelineSheetsError('TS_USAGE', `maxDays must be a whole number ≥ 1, got ${maxDays}`)
  }
  const first = localDateToSerial(fromDate)
  const windows: TimeWindow[] = []
  for (let offset = 0; offset < days && first + offset <= LAST_SPELLABLE_SERIAL; offset += maxDays) {
    const length = Math.min(maxDays, days - offset)
    windows.push(windowForDays(timeZone, serialToLocalDate(first + offset), length, dayStart))
  }
  return windows
}
