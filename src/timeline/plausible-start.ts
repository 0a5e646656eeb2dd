/**
 * Whether an activity's start, as a server sends it, is a moment the tool accepts: a real date and time, with an
 * offset, within the years anyone tracks time in. Every activity of every answer is asked, so the form servers send
 * is read by hand and any other text by the pattern.
 */

/** Activity starts the tool accepts: no one tracks time outside these years, and a sheet cannot show much beyond them. */
export const START_YEARS = { earliest: 1970, latest: 2999 }

/** True for a date-time that exists on the calendar (no 13th month, no 30 February) within `START_YEARS`. */
export function isPlausibleStart(text: string): boolean {
  // The form servers send, `2026-03-29T01:30:00+01:00` or `…Z`, read by hand: every activity of an answer has one.
  return plainStartIsPlausible(text) ?? isPlausibleStartByPattern(text)
}

/** `isPlausibleStart` by its pattern alone, for any text: what the hand-read form is held to. */
export function isPlausibleStartByPattern(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))$/.exec(text)
  if (!m) return false
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = m.slice(1).map((part) => Number(part ?? 0)) as number[]
  if (year! < START_YEARS.earliest || year! > START_YEARS.latest || month! < 1 || month! > 12) return false
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  return day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 14 && offsetMinutes! <= 59
}

/**
 * `isPlausibleStart` for `YYYY-MM-DDTHH:MM:SS` followed by `Z` or `±HH:MM`; undefined for any other text (the pattern
 * decides). test/property/time-shortcuts.test.ts holds it to `isPlausibleStartByPattern`.
 */
function plainStartIsPlausible(text: string): boolean | undefined {
  const length = text.length
  if (length !== 20 && length !== 25) return undefined
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return undefined
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined
  const year = digits(text, 0, 4)
  const month = digits(text, 5, 2)
  const day = digits(text, 8, 2)
  const hour = digits(text, 11, 2)
  const minute = digits(text, 14, 2)
  const second = digits(text, 17, 2)
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined
  if (length === 20) {
    if (text.charCodeAt(19) !== 90) return undefined
  } else {
    const sign = text.charCodeAt(19)
    if ((sign !== 43 && sign !== 45) || text.charCodeAt(22) !== 58) return undefined
    const offsetHours = digits(text, 20, 2)
    const offsetMinutes = digits(text, 23, 2)
    if (offsetHours < 0 || offsetMinutes < 0) return undefined
    if (offsetHours > 14 || offsetMinutes > 59) return false
  }
  if (year < START_YEARS.earliest || year > START_YEARS.latest || month < 1 || month > 12) return false
  return day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 && second <= 59
}

/** The number `count` ASCII digits at `at` spell, or −1 when one of them is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const digit = text.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return DAYS_IN_MONTH[month - 1]!
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
}
