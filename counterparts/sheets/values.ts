/**
 * Cell values as the Sheets API stores, parses and renders them
 * (reference/sheets-api.md §4.3, §4.4, §5.5, §9). Pure functions: input
 * parsing (RAW / USER_ENTERED), number formats, render options, trimming.
 */
import { isValidDate, partsFromSerial, serialFromParts } from './serial.ts'

/** ExtendedValue: exactly one field is set. */
export interface ExtendedValue {
  stringValue?: string
  numberValue?: number
  boolValue?: boolean
  formulaValue?: string
  errorValue?: { type: string; message: string }
}

export type NumberFormatType = 'TEXT' | 'NUMBER' | 'PERCENT' | 'CURRENCY' | 'DATE' | 'TIME' | 'DATE_TIME' | 'SCIENTIFIC'

/** The NumberFormatType enum (there is no DURATION: durations are TIME with an elapsed pattern). */
export const NUMBER_FORMAT_TYPES: readonly NumberFormatType[] = [
  'TEXT',
  'NUMBER',
  'PERCENT',
  'CURRENCY',
  'DATE',
  'TIME',
  'DATE_TIME',
  'SCIENTIFIC',
]

export interface NumberFormat {
  type: NumberFormatType
  pattern?: string
}

export type Scalar = string | number | boolean
export type ValueInputOption = 'RAW' | 'USER_ENTERED'
export type ValueRenderOption = 'FORMATTED_VALUE' | 'UNFORMATTED_VALUE' | 'FORMULA'
export type DateTimeRenderOption = 'SERIAL_NUMBER' | 'FORMATTED_STRING'

export interface RenderOptions {
  valueRenderOption: ValueRenderOption
  dateTimeRenderOption: DateTimeRenderOption
}

/** What an input turns into: a value (undefined = clear the value) and the format a person's typing implies. */
export interface ParsedInput {
  value: ExtendedValue | undefined
  numberFormat?: NumberFormat
}

/** Largest text a cell takes (§8). */
export const MAX_CELL_CHARS = 50_000

const DATE_TYPES = new Set<NumberFormatType>(['DATE', 'TIME', 'DATE_TIME'])

/** Whether a format shows a serial as a date, time or duration. */
export function isDateTimeFormat(format: NumberFormat | undefined): boolean {
  return format !== undefined && DATE_TYPES.has(format.type)
}

function twoDigitYear(y: number): number {
  // Sheets reads 00–29 as 2000s and 30–99 as 1900s.
  return y < 30 ? 2000 + y : 1900 + y
}

interface TimeParts {
  hour: number
  minute: number
  second: number
  twelveHour: boolean
  withSeconds: boolean
}

const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?\s*(am|pm|a|p)?$/i

function parseTime(text: string): TimeParts | undefined {
  const m = TIME.exec(text)
  if (!m) return undefined
  let hour = Number(m[1])
  const minute = Number(m[2])
  const second = m[3] === undefined ? 0 : Number(m[3])
  const suffix = m[4]?.toLowerCase()
  if (minute > 59 || second >= 60) return undefined
  if (suffix !== undefined) {
    if (hour < 1 || hour > 12) return undefined
    const pm = suffix.startsWith('p')
    hour = (hour % 12) + (pm ? 12 : 0)
  }
  return { hour, minute, second, twelveHour: suffix !== undefined, withSeconds: m[3] !== undefined }
}

function timePattern(t: TimeParts): string {
  return `${t.hour >= 24 ? '[h]' : 'h'}:mm${t.withSeconds ? ':ss' : ''}${t.twelveHour ? ' AM/PM' : ''}`
}

function parseDate(text: string, locale: string): { serial: number; pattern: string } | undefined {
  let m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(text)
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
    if (!isValidDate(y, mo, d)) return undefined
    return { serial: serialFromParts(y, mo, d), pattern: text.includes('/') ? 'yyyy/mm/dd' : 'yyyy-mm-dd' }
  }
  m = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{2}|\d{4})$/.exec(text)
  if (m) {
    const a = Number(m[1])
    const b = Number(m[3])
    const y = m[4]!.length === 2 ? twoDigitYear(Number(m[4])) : Number(m[4])
    // The spreadsheet's locale decides the order of an ambiguous date (§5.5).
    const monthFirst = locale === 'en_US' || locale === 'en' || locale === 'en_PH'
    const [mo, d] = monthFirst ? [a, b] : [b, a]
    if (!isValidDate(y, mo, d)) return undefined
    const sep = m[2]!
    return { serial: serialFromParts(y, mo, d), pattern: monthFirst ? `M${sep}d${sep}yyyy` : `d${sep}M${sep}yyyy` }
  }
  return undefined
}

const PLAIN_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/
const GROUPED_NUMBER = /^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$/

function decimalsOf(text: string): number {
  const dot = text.indexOf('.')
  return dot < 0 ? 0 : text.length - dot - 1
}

function parseNumberText(text: string): { value: number; grouped: boolean; decimals: number } | undefined {
  if (PLAIN_NUMBER.test(text)) return { value: Number(text), grouped: false, decimals: decimalsOf(text) }
  if (GROUPED_NUMBER.test(text)) return { value: Number(text.replaceAll(',', '')), grouped: true, decimals: decimalsOf(text) }
  return undefined
}

/**
 * Parses what a person types (USER_ENTERED, §5.5): `'` forces text, `=`/`+`
 * start a formula, TRUE/FALSE, numbers (leading zeros lost, grouping kept as a
 * format), percentages, dollars, dates, times, date-times. Anything else is text.
 */
export function parseUserEntered(text: string, locale = 'en_US'): ParsedInput {
  if (text === '') return { value: undefined }
  if (text.startsWith("'")) return { value: { stringValue: text.slice(1) } }
  if (text.startsWith('=') && text.length > 1) return { value: { formulaValue: text } }
  if (text.startsWith('+') && text.length > 1) return { value: { formulaValue: `=${text}` } }
  const trimmed = text.trim()
  if (/^(true|false)$/i.test(trimmed)) return { value: { boolValue: trimmed.toLowerCase() === 'true' } }
  const plain = parseNumberText(trimmed)
  if (plain) {
    if (!plain.grouped) return { value: { numberValue: plain.value } }
    return {
      value: { numberValue: plain.value },
      numberFormat: { type: 'NUMBER', pattern: plain.decimals > 0 ? `#,##0.${'0'.repeat(plain.decimals)}` : '#,##0' },
    }
  }
  const percent = /^([-+]?[\d,]*\.?\d+)\s*%$/.exec(trimmed)
  if (percent) {
    const n = parseNumberText(percent[1]!)
    if (n) {
      return {
        value: { numberValue: Number((n.value / 100).toPrecision(15)) },
        numberFormat: { type: 'PERCENT', pattern: n.decimals > 0 ? `0.${'0'.repeat(n.decimals)}%` : '0%' },
      }
    }
  }
  const currency = /^(-?)\$([\d,]*\.?\d+)$/.exec(trimmed)
  if (currency) {
    const n = parseNumberText(currency[2]!)
    if (n) {
      return {
        value: { numberValue: currency[1] === '-' ? -n.value : n.value },
        numberFormat: { type: 'CURRENCY', pattern: n.decimals > 0 ? '"$"#,##0.00' : '"$"#,##0' },
      }
    }
  }
  const time = parseTime(trimmed)
  if (time) {
    return {
      value: { numberValue: (time.hour * 3600 + time.minute * 60 + time.second) / 86_400 },
      numberFormat: { type: 'TIME', pattern: timePattern(time) },
    }
  }
  const date = parseDate(trimmed, locale)
  if (date) return { value: { numberValue: date.serial }, numberFormat: { type: 'DATE', pattern: date.pattern } }
  const split = /^(\S+)[ T](.+)$/.exec(trimmed)
  if (split) {
    const d = parseDate(split[1]!, locale)
    const t = d ? parseTime(split[2]!) : undefined
    if (d && t && t.hour < 24) {
      return {
        value: { numberValue: d.serial + (t.hour * 3600 + t.minute * 60 + t.second) / 86_400 },
        numberFormat: { type: 'DATE_TIME', pattern: `${d.pattern} ${timePattern(t)}` },
      }
    }
  }
  return { value: { stringValue: text } }
}

/**
 * Turns one JSON value of a ValueRange into what gets stored. `null` is
 * handled by the caller (leave the cell alone); `""` clears the value.
 */
export function parseInput(input: Scalar, option: ValueInputOption, locale = 'en_US'): ParsedInput {
  if (typeof input === 'number') return { value: { numberValue: input } }
  if (typeof input === 'boolean') return { value: { boolValue: input } }
  if (option === 'RAW') return { value: input === '' ? undefined : { stringValue: input } }
  return parseUserEntered(input, locale)
}

// ---------------------------------------------------------------- formatting

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

const DATE_TOKEN = /\[h+\]|\[m+\]|\[s+\]|yyyy|yy|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am\/pm|a\/p|\.0+|"[^"]*"|\\.|./gi

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

/** Renders a serial with a date/time pattern (`yyyy-mm-dd`, `hh:mm`, `[h]:mm:ss`, `M/d/yyyy h:mm AM/PM`). */
export function formatDateTime(serial: number, pattern: string): string {
  const tokens = pattern.match(DATE_TOKEN) ?? []
  const lower = tokens.map((t) => (t.startsWith('"') || t.startsWith('\\') ? t : t.toLowerCase()))
  const p = partsFromSerial(serial)
  const twelve = lower.some((t) => t === 'am/pm' || t === 'a/p')
  const isHour = (t: string | undefined) => t !== undefined && /^(h+|\[h+\])$/.test(t)
  const isSecond = (t: string | undefined) => t !== undefined && /^(s+|\[s+\])$/.test(t)
  const significant = (from: number, step: number) => {
    for (let i = from; i >= 0 && i < lower.length; i += step) {
      const t = lower[i]!
      if (/^[a-z[]/.test(t) && t !== 'am/pm' && t !== 'a/p') return t
    }
    return undefined
  }
  const totalSeconds = Math.round(serial * 86_400)
  let out = ''
  lower.forEach((t, i) => {
    if (t.startsWith('"')) out += t.slice(1, -1)
    else if (t.startsWith('\\')) out += t.slice(1)
    else if (t === 'yyyy') out += pad(p.year, 4)
    else if (t === 'yy') out += pad(p.year % 100, 2)
    else if (t === 'mmmmm') out += MONTHS[p.month - 1]!.slice(0, 1)
    else if (t === 'mmmm') out += MONTHS[p.month - 1]
    else if (t === 'mmm') out += MONTHS[p.month - 1]!.slice(0, 3)
    else if (t === 'mm' || t === 'm') {
      // m is minutes next to an hour or before a second, else the month.
      const minutes = isHour(significant(i - 1, -1)) || isSecond(significant(i + 1, 1))
      const n = minutes ? p.minute : p.month
      out += t === 'mm' ? pad(n, 2) : String(n)
    } else if (t === 'dddd') out += DAYS[p.weekday]
    else if (t === 'ddd') out += DAYS[p.weekday]!.slice(0, 3)
    else if (t === 'dd') out += pad(p.day, 2)
    else if (t === 'd') out += String(p.day)
    else if (t === 'hh' || t === 'h') {
      const h = twelve ? ((p.hour + 11) % 12) + 1 : p.hour
      out += t === 'hh' ? pad(h, 2) : String(h)
    } else if (t.startsWith('[h')) out += pad(Math.floor(totalSeconds / 3600), t.length - 2)
    else if (t.startsWith('[m')) out += pad(Math.floor(totalSeconds / 60), t.length - 2)
    else if (t.startsWith('[s')) out += pad(totalSeconds, t.length - 2)
    else if (t === 'ss') out += pad(p.second, 2)
    else if (t === 's') out += String(p.second)
    else if (t === 'am/pm') out += p.hour < 12 ? 'AM' : 'PM'
    else if (t === 'a/p') out += p.hour < 12 ? 'A' : 'P'
    else if (t.startsWith('.0'))
      out += `.${pad(p.millisecond, 3)
        .slice(0, t.length - 1)
        .padEnd(t.length - 1, '0')}`
    else out += tokens[i]
  })
  return out
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function literalText(raw: string): string {
  return raw
    .replace(/\[\$([^\]-]*)[^\]]*\]/g, '$1')
    .replace(/"([^"]*)"/g, '$1')
    .replace(/\\(.)/g, '$1')
}

/** Renders a number with a numeric pattern (`0`, `0.00`, `#,##0.00`, `0.00%`, `"$"#,##0.00`, `0.00E+00`). */
export function formatNumberPattern(value: number, pattern: string): string {
  const section = pattern.split(';')[0] ?? pattern
  const first = section.search(/[0#]/)
  if (first < 0) return literalText(section)
  let last = first
  for (let i = first; i < section.length; i++) if (/[0#.,]/.test(section[i]!)) last = i
  const core = section.slice(first, last + 1)
  const prefix = literalText(section.slice(0, first))
  let suffix = section.slice(last + 1)
  const exponent = /^E\+?(0+)/i.exec(suffix)
  const [intPart, fracPart = ''] = core.split('.')
  const minDecimals = (fracPart.match(/0/g) ?? []).length
  const maxDecimals = (fracPart.match(/[0#]/g) ?? []).length
  if (exponent) {
    const [mantissa, exp] = Math.abs(value).toExponential(maxDecimals).split('e')
    const e = Number(exp)
    suffix = suffix.slice(exponent[0].length)
    return `${value < 0 ? '-' : ''}${prefix}${mantissa}E${e < 0 ? '-' : '+'}${pad(Math.abs(e), exponent[1]!.length)}${literalText(suffix)}`
  }
  const scaled = suffix.includes('%') ? value * 100 : value
  const fixed = Math.abs(scaled).toFixed(maxDecimals)
  let [whole = '0', frac = ''] = fixed.split('.')
  while (frac.length > minDecimals && frac.endsWith('0')) frac = frac.slice(0, -1)
  const minWhole = (intPart!.match(/0/g) ?? []).length
  if (minWhole === 0 && whole === '0') whole = ''
  whole = whole.padStart(minWhole, '0')
  if (intPart!.includes(',')) whole = groupThousands(whole)
  const sign = scaled < 0 && Number(fixed) !== 0 ? '-' : ''
  return `${sign}${prefix}${whole}${frac === '' ? '' : `.${frac}`}${literalText(suffix)}`
}

/** The "automatic" display of a number: integers as they are, fractions up to 15 significant digits. */
export function formatAutomatic(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value)
  const abs = Math.abs(value)
  if (abs !== 0 && (abs >= 1e15 || abs < 1e-9))
    return value
      .toExponential(5)
      .replace(/\.?0+e/, 'e')
      .replace('e', 'E')
  const s = String(Number(value.toPrecision(15)))
  if (!s.includes('e')) return s
  return value.toFixed(15).replace(/0+$/, '').replace(/\.$/, '')
}

const DEFAULT_PATTERNS: Record<NumberFormatType, string> = {
  TEXT: '@',
  NUMBER: '#,##0.00',
  PERCENT: '0.00%',
  CURRENCY: '"$"#,##0.00',
  DATE: 'M/d/yyyy',
  TIME: 'h:mm:ss AM/PM',
  DATE_TIME: 'M/d/yyyy H:mm:ss',
  SCIENTIFIC: '0.00E+00',
}

/** Formats a number by its cell's number format (FORMATTED_VALUE). */
export function formatNumber(value: number, format: NumberFormat | undefined): string {
  if (!format) return formatAutomatic(value)
  const pattern = format.pattern || DEFAULT_PATTERNS[format.type]
  if (format.type === 'TEXT' || pattern === '@') return formatAutomatic(value)
  if (DATE_TYPES.has(format.type) || /[yd]|\[h|h:|:s|am\/pm/i.test(pattern.replace(/"[^"]*"/g, ''))) {
    return formatDateTime(value, pattern)
  }
  return formatNumberPattern(value, pattern)
}

/** What a person sees in an error cell, by ErrorValue type. */
export const ERROR_CODES: Readonly<Record<string, string>> = {
  ERROR: '#ERROR!',
  NULL_VALUE: '#NULL!',
  DIVIDE_BY_ZERO: '#DIV/0!',
  VALUE: '#VALUE!',
  REF: '#REF!',
  NAME: '#NAME?',
  NUM: '#NUM!',
  N_A: '#N/A',
}

/** An error cell as values.get renders it (`#DIV/0!`); the message is only in grid data. */
export function errorText(error: { type: string; message: string }): string {
  return ERROR_CODES[error.type] ?? '#ERROR!'
}

/** The text a person sees in a cell holding `value`. */
export function formatValue(value: ExtendedValue, format: NumberFormat | undefined): string {
  if (value.numberValue !== undefined) return formatNumber(value.numberValue, format)
  if (value.boolValue !== undefined) return value.boolValue ? 'TRUE' : 'FALSE'
  if (value.stringValue !== undefined) return value.stringValue
  if (value.errorValue) return errorText(value.errorValue)
  return ''
}

/**
 * Renders a cell for `values.get` (§4.4). `stored` is the userEnteredValue,
 * `effective` its computed value. Undefined = empty cell.
 */
export function renderValue(
  stored: ExtendedValue | undefined,
  effective: ExtendedValue | undefined,
  format: NumberFormat | undefined,
  options: RenderOptions,
): Scalar | undefined {
  if (!stored) return undefined
  if (options.valueRenderOption === 'FORMULA' && stored.formulaValue !== undefined) return stored.formulaValue
  const value = effective ?? stored
  if (options.valueRenderOption === 'FORMATTED_VALUE') return formatValue(value, format)
  if (value.numberValue !== undefined) {
    if (options.dateTimeRenderOption === 'FORMATTED_STRING' && isDateTimeFormat(format)) return formatNumber(value.numberValue, format)
    return value.numberValue
  }
  if (value.boolValue !== undefined) return value.boolValue
  if (value.stringValue !== undefined) return value.stringValue
  if (value.errorValue) return errorText(value.errorValue)
  // A formula whose result is blank still reads as a (empty) value.
  return ''
}

/**
 * Trims a block the way Google does (§4.3): trailing empty cells of each row
 * go, empty cells before a value become `""`, empty rows before the last
 * non-empty row become `[]`, trailing empty rows go.
 */
export function trimBlock(block: ReadonlyArray<ReadonlyArray<Scalar | undefined>>): Scalar[][] {
  const out: Scalar[][] = []
  let lastNonEmpty = -1
  block.forEach((row, i) => {
    let end = row.length
    while (end > 0 && row[end - 1] === undefined) end--
    const trimmed: Scalar[] = []
    for (let c = 0; c < end; c++) trimmed.push(row[c] ?? '')
    out.push(trimmed)
    if (end > 0) lastNonEmpty = i
  })
  out.length = lastNonEmpty + 1
  return out
}

/** Swaps rows and columns (majorDimension=COLUMNS); missing cells become undefined. */
export function transpose<T>(block: ReadonlyArray<ReadonlyArray<T | undefined>>): (T | undefined)[][] {
  const width = block.reduce((w, row) => Math.max(w, row.length), 0)
  const out: (T | undefined)[][] = []
  for (let c = 0; c < width; c++) out.push(block.map((row) => row[c]))
  return out
}
