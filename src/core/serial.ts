/**
 * The spreadsheet's serial numbers (days since 1899-12-30, the time of day as the fraction) and the local days
 * `YYYY-MM-DD` they name, as plain arithmetic on wall-clock seconds with no time zone in it. It stands apart
 * because every cell reader, every read window and every DST rule counts in these units, and none of them
 * needs the others to do so.
 */
import { TimelineSheetsError } from '../errors.ts'

/** A local calendar day, `YYYY-MM-DD`. */
export type LocalDate = string

export const SECONDS_PER_DAY = 86_400
/** Serial number of 1970-01-01 (serial epoch 1899-12-30). */
export const SERIAL_OF_UNIX_EPOCH = 25_569

const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** Serial (days since 1899-12-30) of wall-clock seconds. */
export function wallSecondsToSerial(wallSeconds: number): number {
  return wallSeconds / SECONDS_PER_DAY + SERIAL_OF_UNIX_EPOCH
}

/** Wall-clock seconds of a serial, rounded to the nearest second. */
export function serialToWallSeconds(serial: number): number {
  const day = Math.floor(serial)
  return (day - SERIAL_OF_UNIX_EPOCH) * SECONDS_PER_DAY + Math.round((serial - day) * SECONDS_PER_DAY)
}

/** Whole seconds of a day fraction (a time or duration cell), rounded to the nearest second. */
export function fractionToSeconds(fraction: number): number {
  return Math.round(fraction * SECONDS_PER_DAY)
}

/** `YYYY-MM-DD` → serial day. */
export function localDateToSerial(date: LocalDate): number {
  const m = LOCAL_DATE.exec(date)
  if (!m) throw new TimelineSheetsError('TS_VALIDATION', `"${date}" is not a date of the form YYYY-MM-DD`)
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return ms / 1000 / SECONDS_PER_DAY + SERIAL_OF_UNIX_EPOCH
}

/** Serial day → `YYYY-MM-DD`. */
export function serialToLocalDate(serial: number): LocalDate {
  const day = Math.floor(serial)
  // A sheet names a few hundred days over and over (every row's Date, Start and End): each is made once.
  const known = localDates.get(day)
  if (known !== undefined) return known
  const ms = (day - SERIAL_OF_UNIX_EPOCH) * SECONDS_PER_DAY * 1000
  const date = new Date(ms).toISOString().slice(0, 10)
  if (localDates.size >= LOCAL_DATES_KEPT) localDates.clear()
  localDates.set(day, date)
  return date
}

/** Days `serialToLocalDate` remembers: decades of days, far more than any window names. */
const LOCAL_DATES_KEPT = 20_000
const localDates = new Map<number, LocalDate>()

/** A local date `days` later (or earlier). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}
