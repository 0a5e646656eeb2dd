/**
 * Time parsing for the reference Timeline server: activity starts (always
 * with an offset) and range bounds (date or date-time, offset optional).
 */
import { TZDate } from '@date-fns/tz'

/** A start as the server stores it: the instant plus the offset text the client sent. */
export interface ParsedStart {
  ms: number
  /** Normalised `YYYY-MM-DDTHH:MM:SS[.fff]±hh:mm`, offset as sent (`Z` becomes `+00:00`). */
  text: string
}

const START = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})$/

/** Parses an activity start; undefined when it is not an ISO 8601 date-time with an offset. */
export function parseStart(raw: string): ParsedStart | undefined {
  const match = START.exec(raw)
  if (!match) return undefined
  const [, y, mo, d, h, mi, s = '00', fraction = '', zone = 'Z'] = match
  if (!validWallTime(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))) return undefined
  const offset = zone === 'Z' ? '+00:00' : zone
  if (Number(offset.slice(1, 3)) > 14 || Number(offset.slice(4, 6)) > 59) return undefined
  const text = `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction}${offset}`
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) return undefined
  return { ms, text }
}

const BOUND = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,7})?)?(Z|[+-]\d{2}:?\d{2}| \d{2}:?\d{2})?)?$/

export type BoundResult = { ok: true; ms: number } | { ok: false; problem: string }

/**
 * Parses a `fromTime`/`toTime` value: `YYYY-MM-DD` or a date-time, with or
 * without an offset. Without one, the wall time is read in `timeZone`.
 */
export function parseBound(raw: string, timeZone: string): BoundResult {
  const match = BOUND.exec(raw.trim())
  if (!match) return { ok: false, problem: `is not an ISO 8601 date or date-time: ${JSON.stringify(raw)}` }
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone] = match
  if (!validWallTime(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s))) {
    return { ok: false, problem: `is not a valid date or time: ${JSON.stringify(raw)}` }
  }
  if (zone?.startsWith(' ')) {
    // An unencoded `+` in a query string arrives as a space; say so rather than guess.
    return {
      ok: false,
      problem: `has a space where the offset sign belongs (${JSON.stringify(raw)}); percent-encode "+" as %2B`,
    }
  }
  const ms = fraction ? Math.round(Number(`0${fraction}`) * 1000) : 0
  if (zone) {
    const offset = zone === 'Z' ? '+00:00' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`
    const instant = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`)
    if (Number.isNaN(instant)) return { ok: false, problem: `has an invalid offset: ${JSON.stringify(raw)}` }
    return { ok: true, ms: instant + ms }
  }
  const local = new TZDate(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms, timeZone)
  return { ok: true, ms: local.getTime() }
}

/** `YYYY-MM-DDTHH:MM:SS` wall time of an instant in a zone, as the `updatedactivities` link carries it. */
export function wallTime(ms: number, timeZone: string): string {
  const date = new TZDate(ms, timeZone)
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
}

/** `YYYY-MM-DDTHH:MM:SS±hh:mm` of an instant in a zone, for seeding. */
export function zonedIso(ms: number, timeZone: string): string {
  const date = new TZDate(ms, timeZone)
  const offsetMinutes = -date.getTimezoneOffset()
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  return `${wallTime(ms, timeZone)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

/** The instant of a local wall time in a zone. */
export function zonedInstant(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): number {
  return new TZDate(year, month - 1, day, hour, minute, 0, 0, timeZone).getTime()
}

/** `2026-03-29T10:00:00.123+00:00`, the shape of `lastUpdate.updatedUtcTime`. */
export function utcStamp(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}0000+00:00`
}

function validWallTime(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate()
  return d <= daysInMonth
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
