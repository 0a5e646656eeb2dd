/**
 * Reading what people type into date, time and checkbox cells. The port hands
 * over serial numbers for real dates and times, and text for anything a
 * spreadsheet did not recognise (or for a workbook typed by hand), so both
 * are accepted. Formulas arrive as text starting with `=`.
 */
import type { CellValue } from '../sheets/port.ts'
import { SECONDS_PER_DAY, SERIAL_OF_UNIX_EPOCH } from './time.ts'

/** How `3/2/2026` reads: March 2 (`mdy`, US) or 2 March (`dmy`). `02.03.2026` is always day first. */
export type SlashDateOrder = 'mdy' | 'dmy'

export type CellRead<T> = { ok: true; value: T } | { ok: false; message: string }

const HALF_SECOND_IN_DAYS = 0.5 / SECONDS_PER_DAY
/** Largest serial a spreadsheet shows as a date (9999-12-31). */
const MAX_SERIAL = 2_958_465

/** True for a cell with nothing in it (null, blank text). */
export function isEmptyCell(value: CellValue | undefined): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '')
}

/** True for text the port returns for a formula. */
export function isFormula(value: CellValue | undefined): value is string {
  return typeof value === 'string' && value.trimStart().startsWith('=')
}

/** A cell as display text (numbers as written, booleans as TRUE/FALSE). */
export function cellText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  return String(value)
}

/** Reads a Date cell: a whole serial, or `2026-03-02`, `3/2/2026` (per `order`), `02.03.2026`. */
export function readDateCell(value: CellValue | undefined, order: SlashDateOrder): CellRead<number> {
  if (typeof value === 'number') {
    const day = Math.round(value)
    if (!Number.isFinite(value) || day < 1 || day > MAX_SERIAL) return { ok: false, message: `${value} is not a date` }
    if (Math.abs(value - day) > HALF_SECOND_IN_DAYS) {
      return { ok: false, message: 'holds a time as well as a date; put only the date here and the time in Start' }
    }
    return { ok: true, value: day }
  }
  if (typeof value !== 'string') return { ok: false, message: `${cellText(value)} is not a date` }
  const text = value.trim()
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text)
  if (m) return calendarSerial(Number(m[1]), Number(m[2]), Number(m[3]), text)
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text)
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])]
    return order === 'mdy' ? calendarSerial(Number(m[3]), a, b, text) : calendarSerial(Number(m[3]), b, a, text)
  }
  m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text)
  if (m) return calendarSerial(Number(m[3]), Number(m[2]), Number(m[1]), text)
  return { ok: false, message: `"${text}" is not a date` }
}

function calendarSerial(year: number, month: number, day: number, text: string): CellRead<number> {
  const ms = Date.UTC(year, month - 1, day)
  const d = new Date(ms)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    return { ok: false, message: `"${text}" is not a real date` }
  }
  return { ok: true, value: ms / 1000 / SECONDS_PER_DAY + SERIAL_OF_UNIX_EPOCH }
}

export interface TimeCellOptions {
  /** End may carry whole days (≥ 1) and may be typed as `24:00`. */
  allowDays: boolean
}

/** Reads a time cell: a day fraction, or `13:45`, `13:45:10`, `1:45 PM`, `9 AM`. */
export function readTimeCell(value: CellValue | undefined, options: TimeCellOptions): CellRead<number> {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return { ok: false, message: `${value} is not a time of day` }
    if (value >= 1 && !options.allowDays) {
      return { ok: false, message: 'holds a date as well as a time; put only the time here and the date in Date' }
    }
    return { ok: true, value }
  }
  if (typeof value !== 'string') return { ok: false, message: `${cellText(value)} is not a time` }
  const text = value.trim()
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([AaPp])\.?\s*[Mm]\.?)?$/.exec(text)
  if (!m || (m[2] === undefined && m[4] === undefined)) return { ok: false, message: `"${text}" is not a time` }
  let hours = Number(m[1])
  const minutes = Number(m[2] ?? 0)
  const seconds = Number(m[3] ?? 0)
  if (minutes > 59 || seconds > 59) return { ok: false, message: `"${text}" is not a time` }
  if (m[4] !== undefined) {
    if (hours < 1 || hours > 12) return { ok: false, message: `"${text}" is not a time (AM/PM hours run 1–12)` }
    hours = (hours % 12) + (m[4].toLowerCase() === 'p' ? 12 : 0)
  } else if (hours > 23 && !(options.allowDays && hours === 24 && minutes === 0 && seconds === 0)) {
    return { ok: false, message: `"${text}" is not a time` }
  }
  return { ok: true, value: (hours * 3600 + minutes * 60 + seconds) / SECONDS_PER_DAY }
}

const TICKED = new Set(['true', 'x', 'yes', 'y', '1', '✓', '✔'])
const UNTICKED = new Set(['', 'false', 'no', 'n', '0'])

/** Reads the Delete checkbox: `true`, `TRUE`, `x`, `yes`, `1` tick it; empty, `false`, `no`, `0` do not. */
export function readCheckboxCell(value: CellValue | undefined): CellRead<boolean> {
  if (value === null || value === undefined) return { ok: true, value: false }
  if (typeof value === 'boolean') return { ok: true, value }
  if (typeof value === 'number') {
    if (value === 1 || value === 0) return { ok: true, value: value === 1 }
    return { ok: false, message: `${value} is not a tick` }
  }
  const text = value.trim().toLowerCase()
  if (TICKED.has(text)) return { ok: true, value: true }
  if (UNTICKED.has(text)) return { ok: true, value: false }
  return { ok: false, message: `"${value}" is not a tick` }
}
