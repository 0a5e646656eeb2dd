/**
 * Spreadsheet serial dates: days since 1899-12-30, the fraction is the time of
 * day (reference/sheets-api.md §9). Zone-less wall-clock values, so all maths is UTC.
 */

const EPOCH_MS = Date.UTC(1899, 11, 30)
const DAY_MS = 86_400_000

/** Wall-clock parts of a serial. */
export interface SerialParts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  millisecond: number
  /** 0 = Sunday. */
  weekday: number
}

/** `2020-01-01` → 43831; `1900-01-01 12:00` → 2.5. */
export function serialFromParts(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const days = (Date.UTC(year, month - 1, day) - EPOCH_MS) / DAY_MS
  return days + (hour * 3600 + minute * 60 + second) / 86_400
}

/** Whether y-m-d is a real calendar day. */
export function isValidDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const d = new Date(Date.UTC(year, month - 1, day))
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day
}

/** Splits a serial into calendar parts, rounding to the millisecond so 0.5729166… is 13:45:00. */
export function partsFromSerial(serial: number): SerialParts {
  const ms = Math.round(serial * DAY_MS)
  const d = new Date(EPOCH_MS + ms)
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
    weekday: d.getUTCDay(),
  }
}

/** Serial of a JS timestamp read as UTC wall clock. */
export function serialFromEpochMs(ms: number): number {
  return (ms - EPOCH_MS) / DAY_MS
}
