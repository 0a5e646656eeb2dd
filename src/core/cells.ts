/**
 * Reading what people type into date, time and checkbox cells. The port hands
 * over serial numbers for real dates and times, and text for anything a
 * spreadsheet did not recognise (or for a workbook typed by hand), so both
 * are accepted. Formulas arrive as text starting with `=`.
 */
import type { CellValue } from './sheet.ts'
import { FIRST_DATE_SERIAL, LAST_DATE_SERIAL } from './sheet-times.ts'
import { SECONDS_PER_DAY, SERIAL_OF_UNIX_EPOCH, serialToLocalDate } from './serial.ts'

/** How `3/2/2026` reads: March 2 (`mdy`, US) or 2 March (`dmy`). `02.03.2026` is always day first. */
export type SlashDateOrder = 'mdy' | 'dmy'

export type CellRead<T> = { ok: true; value: T } | { ok: false; message: string }

const HALF_SECOND_IN_DAYS = 0.5 / SECONDS_PER_DAY
/** Largest serial a spreadsheet shows as a date (9999-12-31). */
const MAX_SERIAL = 2_958_465

/**
 * The error values of Excel, LibreOffice and Google Sheets. Both backends hand
 * an error cell over as this text (sheets-api §4.4; exceljs `{ error }`), so a
 * cell holding one is not data, unless the tool wrote that very text (row-judge.ts).
 */
export const SPREADSHEET_ERRORS: readonly string[] = [
  '#N/A',
  '#REF!',
  '#DIV/0!',
  '#VALUE!',
  '#NAME?',
  '#NUM!',
  '#NULL!',
  '#ERROR!',
  '#SPILL!',
  '#CALC!',
  '#GETTING_DATA',
  '#BLOCKED!',
  '#BUSY!',
  '#CONNECT!',
  '#FIELD!',
  '#UNKNOWN!',
  '#PYTHON!',
]
const ERRORS = new Set(SPREADSHEET_ERRORS)

/** True for a cell with nothing in it (null, blank text). */
export function isEmptyCell(value: CellValue | undefined): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '')
}

/** True for text the port returns for a formula. */
export function isFormula(value: CellValue | undefined): value is string {
  return typeof value === 'string' && value.trimStart().startsWith('=')
}

/** True for a cell holding a spreadsheet error value (`#N/A`, `#REF!`, …), as the port hands it over. */
export function isErrorValue(value: CellValue | undefined): boolean {
  // Every error value holds a `#`: most cells are ruled out without trimming or upper-casing them.
  return typeof value === 'string' && value.length <= 32 && value.includes('#') && ERRORS.has(value.trim().toUpperCase())
}

/**
 * A cell's text as a message may quote it: at most `max` characters, control
 * characters and lone surrogates shown as `�`. A Status must stay short (a
 * Google cell holds 50,000 characters) and must never carry what a workbook's
 * XML cannot hold.
 */
export function excerpt(text: string, max = 40): string {
  let cut = text.length > max ? text.slice(0, max) : text
  // Never end on half of a surrogate pair.
  if (cut.length < text.length && /[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1)
  const clean = cut.replace(UNPRINTABLE, '\uFFFD')
  return cut.length < text.length ? `${clean}…` : clean
}

const UNPRINTABLE =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

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
    return withinDateRange(day, () => serialToLocalDate(day))
  }
  if (typeof value !== 'string') return { ok: false, message: `${cellText(value)} is not a date` }
  const text = value.trim()
  const shown = excerpt(text)
  let m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(text)
  if (m) return calendarSerial(Number(m[1]), Number(m[2]), Number(m[3]), text)
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text)
  if (m) {
    const [a, b] = [Number(m[1]), Number(m[2])]
    return order === 'mdy' ? calendarSerial(Number(m[3]), a, b, text) : calendarSerial(Number(m[3]), b, a, text)
  }
  m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text)
  if (m) return calendarSerial(Number(m[3]), Number(m[2]), Number(m[1]), text)
  return { ok: false, message: `"${shown}" is not a date` }
}

function calendarSerial(year: number, month: number, day: number, text: string): CellRead<number> {
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999.
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    return { ok: false, message: `"${text}" is not a real date` }
  }
  return withinDateRange(d.getTime() / 1000 / SECONDS_PER_DAY + SERIAL_OF_UNIX_EPOCH, () => `"${text}"`)
}

/** The days a row may hold (sheet-times.ts): from 1970-01-01 to 2999-12-31. */
function withinDateRange(serial: number, shown: () => string): CellRead<number> {
  // `shown` only for the message: formatting every valid day of a large sheet cost more than reading it.
  if (serial < FIRST_DATE_SERIAL) return { ok: false, message: `${shown()} is before 1970-01-01, the first day the tool takes` }
  if (serial > LAST_DATE_SERIAL) return { ok: false, message: `${shown()} is after 2999-12-31, the last day the tool takes` }
  return { ok: true, value: serial }
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
    // Times count in whole seconds: 23:59:59.9 would be 24:00, which is the next day's 00:00.
    if (!options.allowDays && Math.round(value * SECONDS_PER_DAY) >= SECONDS_PER_DAY) {
      return {
        ok: false,
        message: 'rounds to 24:00, which is midnight of the next day; type 23:59:59 at the latest, or the next day in Date and 00:00 here',
      }
    }
    return { ok: true, value }
  }
  if (typeof value !== 'string') return { ok: false, message: `${cellText(value)} is not a time` }
  const text = value.trim()
  const m = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([AaPp])\.?\s*[Mm]\.?)?$/.exec(text)
  if (!m || (m[2] === undefined && m[4] === undefined)) return { ok: false, message: `"${excerpt(text)}" is not a time` }
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

/** What a person may type to tick Delete (trimmed, letter case aside); a workbook's rule highlights the same. */
export const TICK_TEXTS: readonly string[] = ['true', 'x', 'yes', 'y', '1', '✓', '✔']
const TICKED = new Set(TICK_TEXTS)
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
  return { ok: false, message: `"${excerpt(value)}" is not a tick` }
}
