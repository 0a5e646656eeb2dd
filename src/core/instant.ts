/**
 * An instant as the server writes it: ISO 8601 with its own UTC offset (`2026-03-29T01:30:00+01:00`), parsed
 * to epoch seconds and that offset, and formatted back. It stands apart because the server's form is read and
 * written everywhere (fingerprints, read ranges, plans, sheet times) and its shortcuts and caches for speed need
 * no time zone: a zone's rules are the business of the modules that convert to and from the sheet's wall clock.
 */
import { TimelineSheetsError } from '../errors.ts'
import { SECONDS_PER_DAY } from './serial.ts'

/** An instant as the server gives it: epoch seconds plus the offset it was written with. */
export interface OffsetInstant {
  epochSeconds: number
  offsetMinutes: number
}

/** 0000-01-01T00:00:00 and 9999-12-31T23:59:59 as wall-clock seconds: what `YYYY-…` can spell. */
const FIRST_WALL_SECONDS = Date.parse('0000-01-01T00:00:00Z') / 1000
export const LAST_WALL_SECONDS = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000

const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})$/

/** Parses an ISO 8601 date-time that carries an offset (`Z` or `±hh:mm`); seconds rounded to whole. */
export function parseOffsetInstant(iso: string): OffsetInstant {
  // The form the server and the tool write (`2026-03-29T01:30:00+01:00`) read by hand: faster than looking its
  // text up, and far faster than the pattern for a text not seen before (every server start, once).
  const canonical = canonicalInstant(iso)
  if (canonical !== undefined) return canonical
  // A run reads each activity's start several times (fingerprint, sheet times, plan, read ranges): the text of
  // a start parses once. Frozen, so no caller can change what the next one is given.
  let instant = instantCache.get(iso)
  if (instant === undefined) {
    instant = Object.freeze(parseOffsetInstantText(iso))
    if (instantCache.size >= INSTANT_CACHE_LIMIT) instantCache.clear()
    instantCache.set(iso, instant)
  }
  return instant
}

const INSTANT_CACHE_LIMIT = 400_000
const instantCache = new Map<string, Readonly<OffsetInstant>>()

/**
 * `YYYY-MM-DDTHH:MM:SS±HH:MM` (a year from 100 on), read as `parseOffsetInstantText` reads it; undefined for any
 * other text, which the pattern decides. Frozen, like every instant handed out.
 */
function canonicalInstant(iso: string): Readonly<OffsetInstant> | undefined {
  if (iso.length !== 25) return undefined
  const sign = iso.charCodeAt(19)
  if (
    (sign !== 0x2b && sign !== 0x2d) ||
    iso.charCodeAt(4) !== 0x2d ||
    iso.charCodeAt(7) !== 0x2d ||
    iso.charCodeAt(10) !== 0x54 ||
    iso.charCodeAt(13) !== 0x3a ||
    iso.charCodeAt(16) !== 0x3a ||
    iso.charCodeAt(22) !== 0x3a
  )
    return undefined
  // A character that is no digit makes its number NaN, and the whole reading with it.
  const year = digitAt(iso, 0) * 1000 + digitAt(iso, 1) * 100 + twoDigits(iso, 2)
  const minutes = twoDigits(iso, 20) * 60 + twoDigits(iso, 23)
  const offsetMinutes = sign === 0x2d ? -minutes : minutes
  const wall = Date.UTC(year, twoDigits(iso, 5) - 1, twoDigits(iso, 8), twoDigits(iso, 11), twoDigits(iso, 14), twoDigits(iso, 17)) / 1000
  if (!(year >= 100) || Number.isNaN(wall) || Number.isNaN(offsetMinutes)) return undefined
  return Object.freeze({ epochSeconds: wall - offsetMinutes * 60, offsetMinutes })
}

function digitAt(text: string, i: number): number {
  const d = text.charCodeAt(i) - 0x30
  return d >= 0 && d <= 9 ? d : NaN
}

function twoDigits(text: string, i: number): number {
  return digitAt(text, i) * 10 + digitAt(text, i + 1)
}

/** `parseOffsetInstant` by its pattern alone, without the shortcut or the cache (exported for a property test). */
export function parseOffsetInstantByPattern(iso: string): OffsetInstant {
  return parseOffsetInstantText(iso)
}

function parseOffsetInstantText(iso: string): OffsetInstant {
  const m = ISO_WITH_OFFSET.exec(iso.trim())
  if (!m) {
    throw new TimelineSheetsError('TS_VALIDATION', `"${iso}" is not an ISO 8601 date-time with an offset`, {
      hint: 'Expected a form like 2026-03-29T01:30:00+01:00.',
    })
  }
  const [, y, mo, d, h, mi, s, frac, off] = m as unknown as string[]
  const wall =
    utcSeconds(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0)) + Math.round(Number(`0.${frac ?? '0'}`))
  const offsetMinutes = off === 'Z' ? 0 : parseOffset(off!)
  return { epochSeconds: wall - offsetMinutes * 60, offsetMinutes }
}

/** `Date.UTC` in seconds, for every four-digit year: `Date.UTC` itself reads years 0 to 99 as 1900 to 1999. */
function utcSeconds(year: number, monthIndex: number, day: number, hours: number, minutes: number, seconds: number): number {
  if (year >= 100) return Date.UTC(year, monthIndex, day, hours, minutes, seconds) / 1000
  const date = new Date(Date.UTC(2000, monthIndex, day, hours, minutes, seconds))
  date.setUTCFullYear(year, monthIndex, day)
  return date.getTime() / 1000
}

function parseOffset(text: string): number {
  const digits = text.slice(1).replace(':', '')
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))
  return text.startsWith('-') ? -minutes : minutes
}

/**
 * `2026-03-29T03:30:00+02:00`: whole seconds, explicit offset (never `Z`). An
 * offset with seconds (local mean time) is written to the whole minute with
 * the wall clock to match, so the instant is kept. Throws for an instant
 * outside four-digit years rather than spell one nobody can read back.
 */
export function formatOffsetInstant(epochSeconds: number, offsetMinutes: number): string {
  const minutes = Math.round(offsetMinutes)
  const wallSeconds = epochSeconds + minutes * 60
  if (!Number.isFinite(wallSeconds) || wallSeconds < FIRST_WALL_SECONDS || wallSeconds > LAST_WALL_SECONDS) {
    throw new TimelineSheetsError(
      'TS_VALIDATION',
      `The instant ${epochSeconds} (epoch seconds) has no four-digit year in UTC${minutes < 0 ? '-' : '+'}${Math.abs(minutes)} minutes`,
    )
  }
  // The date part from a per-day table and the clock by hand: reading a sheet formats a start for each row, and
  // Date#toISOString makes a Date and a text each time. Whole seconds as toISOString cuts them: to whole
  // milliseconds towards zero, then to the second before.
  const whole = Math.floor(Math.trunc(wallSeconds * 1000) / 1000)
  const day = Math.floor(whole / SECONDS_PER_DAY)
  const clockSeconds = whole - day * SECONDS_PER_DAY
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(minutes)
  const text =
    `${dayText(day)}T${TWO_DIGITS[Math.floor(clockSeconds / 3600)]}:${TWO_DIGITS[Math.floor(clockSeconds / 60) % 60]}:` +
    `${TWO_DIGITS[clockSeconds % 60]}${sign}${TWO_DIGITS[Math.floor(abs / 60)] ?? pad2(Math.floor(abs / 60))}:${TWO_DIGITS[abs % 60]}`
  // What this text reads back as is known: a row's start is formatted here and read back straight away.
  if (Number.isInteger(epochSeconds)) {
    lastFormatted = text
    lastFormattedSeconds = epochSeconds
  }
  return text
}

let lastFormatted: string | undefined
let lastFormattedSeconds = 0

/**
 * `parseOffsetInstant(iso).epochSeconds`, without a lookup when `iso` is the text `formatOffsetInstant` made last
 * (a row's start, read back as soon as it is made): a cache entry per row cost more than the parse it saved.
 */
export function offsetInstantSeconds(iso: string): number {
  return iso === lastFormatted ? lastFormattedSeconds : parseOffsetInstant(iso).epochSeconds
}

export function pad2(n: number): string {
  return String(n).padStart(2, '0')
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => pad2(n))
const dayTexts = new Map<number, string>()

/** `YYYY-MM-DD` of a day counted from 1970-01-01 (UTC), made once per day. */
function dayText(day: number): string {
  let text = dayTexts.get(day)
  if (text === undefined) {
    text = new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 10)
    if (dayTexts.size >= 100_000) dayTexts.clear()
    dayTexts.set(day, text)
  }
  return text
}
