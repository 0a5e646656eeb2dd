/**
 * Pure conversions from what a cell holds to the port's values, and the
 * Google-like trimming every backend promises (sheets-api.md §4.3).
 */
import type { CellValue } from '../port.ts'
import { columnName } from './sheet-xml.ts'

const MS_PER_DAY = 86_400_000
/** Days from the serial epoch 1899-12-30 to the Unix epoch. */
const UNIX_EPOCH_SERIAL = 25_569

/**
 * A JS Date read as wall-clock time in UTC back to the serial; never through
 * local time, so the zone of the machine cannot shift it.
 */
export function dateToSerial(date: Date): number {
  // Whole days and the time of day apart: a time-only cell (1899-12-30T07:45Z)
  // must come back as exactly 7.75/24, not as that minus 25569 plus 25569.
  const ms = date.getTime()
  const days = Math.floor(ms / MS_PER_DAY)
  return days + UNIX_EPOCH_SERIAL + (ms - days * MS_PER_DAY) / MS_PER_DAY
}

/** The inverse of `dateToSerial`, for tests and tools that need a Date. */
export function serialToDate(serial: number): Date {
  return new Date(Math.round((serial - UNIX_EPOCH_SERIAL) * MS_PER_DAY))
}

/** The shapes a cell's value takes (the ones exceljs gives, which readers of this module still hand over). */
type ExcelValue =
  | null
  | undefined
  | string
  | number
  | boolean
  | Date
  | { formula?: string; sharedFormula?: string; result?: unknown }
  | { richText: Array<{ text: string }> }
  | { text: unknown; hyperlink: string }
  | { error: string }

/**
 * One cell value as the port reads it. `formula` is the cell's own formula
 * text (a shared formula's already derived for this cell), passed separately
 * because only the cell knows it.
 */
export function toCellValue(value: ExcelValue, formula?: string): CellValue {
  if (formula !== undefined && formula !== '') return `=${formula}`
  if (value === null || value === undefined) return null
  if (typeof value === 'string') return value === '' ? null : value
  if (typeof value === 'boolean') return value
  // A number cell whose text is not a number (`<v>abc</v>`, `<v>1e999</v>`) parses to NaN or Infinity: that is
  // no value a spreadsheet shows, so it reads as the error a spreadsheet would show, never as a number.
  if (typeof value === 'number') return Number.isFinite(value) ? value : NOT_A_NUMBER
  if (value instanceof Date) {
    const serial = dateToSerial(value)
    return Number.isFinite(serial) ? serial : NOT_A_NUMBER
  }
  if ('richText' in value) return emptyToNull(value.richText.map((run) => run.text).join(''))
  if ('hyperlink' in value) return emptyToNull(String(value.text ?? ''))
  // An error cell (`t="e"`) is handed over as its text, `#N/A`, as Google's FORMULA rendering does.
  if ('error' in value) return typeof value.error === 'string' && value.error !== '' ? value.error : '#ERROR!'
  if ('formula' in value || 'sharedFormula' in value) return `=${value.formula ?? value.sharedFormula ?? ''}`
  return null
}

const NOT_A_NUMBER = '#NUM!'

function emptyToNull(text: string): CellValue {
  return text === '' ? null : text
}

/** True for the values the port treats as an empty cell. */
export function isEmptyCell(value: CellValue | undefined): boolean {
  return value === null || value === undefined || value === ''
}

/** Drops trailing empty cells; interior empty cells stay `null`. */
export function trimRow(cells: readonly (CellValue | undefined)[]): CellValue[] {
  let end = cells.length
  while (end > 0 && isEmptyCell(cells[end - 1])) end--
  const out: CellValue[] = new Array(end)
  for (let i = 0; i < end; i++) {
    const cell = cells[i]
    out[i] = cell === undefined || cell === '' ? null : cell
  }
  return out
}

/** Drops trailing empty rows; an empty row before the last non-empty one stays as `[]`. */
export function trimRows(rows: readonly CellValue[][]): CellValue[][] {
  let end = rows.length
  while (end > 0 && (rows[end - 1]?.length ?? 0) === 0) end--
  return rows.slice(0, end)
}

/** A value the port can write: finite numbers only, so a NaN never lands in a file. */
export function isWritableValue(value: unknown): value is CellValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  return typeof value === 'number' && Number.isFinite(value)
}

/** `A`, `B`, … `AA` for a 1-based column number. */
export function columnLetter(column: number): string {
  return columnName(column - 1)
}

/** `B7` for a 1-based row and column, for messages. */
export function cellAddress(row: number, column: number): string {
  return `${columnLetter(column)}${row}`
}
