/**
 * A worksheet part as the port reads it (`TabData`), straight from its XML
 * rows: values, formulas as `=…` text (a shared formula's cells derived from
 * its first cell), error cells as their text, numbers as they are (date cells
 * stay serials), inline and shared strings, and Google's trimming.
 */
import type { CellValue, TabData } from '../port.ts'
import { dateToSerial, toCellValue, trimRow, trimRows } from './cells.ts'
import {
  cellContent,
  columnIndex,
  formulaText,
  parseRow,
  scanSheet,
  sharedFormula,
  shiftFormula,
  type RawCell,
  type SheetFrame,
} from './sheet-xml.ts'
import { decodeCellText, decodeXml, ownText, parseAttributes } from './xml-text.ts'

/** The first cell of each shared formula group seen so far: its formula and where it is. */
export type SharedFormulas = Map<string, { text: string; row: number; column: number }>

/** What reading needs besides the sheet: the workbook's shared strings, and which cell formats show dates or times. */
export interface ReadContext {
  sharedStrings: readonly string[]
  isDateStyle(style: number): boolean
}

/** One cell's value as the port reads it. */
export function readCell(cell: RawCell, row: number, context: ReadContext, formulas: SharedFormulas): CellValue {
  const content = cellContent(cell)
  if (content.formula !== undefined && (content.type === 'b' || content.type === 'n')) {
    // LibreOffice has no boolean cells: it saves every TRUE and FALSE, a ticked box too, as the formula
    // TRUE() or FALSE(), typed `b`, or `n` where the cell's number format is not a boolean one (the tool's
    // checkbox format, LibreOffice 7.4). Read as a formula, each row of a sheet a manager saved there would
    // look edited.
    const constant = BOOLEAN_FUNCTION.exec(formulaText(content.formula.text))
    if (constant !== null) return constant[1]!.toUpperCase() === 'TRUE'
  }
  if (content.formula !== undefined) {
    const shared = sharedFormula(content.formula.attributes)
    const text = formulaText(content.formula.text)
    if (shared !== undefined) {
      if (text !== '') {
        formulas.set(shared.group, { text, row, column: cell.column })
        return `=${text}`
      }
      const first = formulas.get(shared.group)
      if (first !== undefined) return `=${shiftFormula(first.text, row - first.row, cell.column - first.column)}`
    } else if (text !== '') {
      return `=${text}`
    }
  }
  if (content.type === 'inlineStr') return emptyToNull(content.inline ?? '')
  const raw = content.value
  if (raw === undefined) return null
  switch (content.type) {
    case 's': {
      const text = context.sharedStrings[Number(raw.trim())]
      return text === undefined ? null : emptyToNull(text)
    }
    case 'str':
      return emptyToNull(decodeCellText(raw))
    case 'b': {
      const flag = raw.trim()
      return flag === '1' || flag === 'true'
    }
    case 'e':
      return toCellValue({ error: decodeXml(raw).trim() })
    case 'd': {
      const iso = decodeXml(raw).trim()
      // A date without a zone is wall-clock time, as every serial is: read it as UTC so the machine's zone stays out.
      const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) || !iso.includes('T') ? iso : `${iso}Z`)
      return toCellValue(Number.isNaN(date.getTime()) ? Number.NaN : dateToSerial(date))
    }
    default: {
      const text = raw.trim()
      if (text === '') return null
      const number = Number(text)
      // Excel keeps a date or time to the millisecond; a writer's float noise (exceljs writes 0.6 as
      // 0.6000000000021828) must not make a row look edited, so a date cell reads as its millisecond.
      if (content.style !== undefined && content.style > 0 && context.isDateStyle(content.style))
        return toCellValue(serialToMillisecond(number))
      return toCellValue(number)
    }
  }
}

const BOOLEAN_FUNCTION = /^\s*(TRUE|FALSE)\s*\(\s*\)\s*$/i

function serialToMillisecond(serial: number): number {
  const date = new Date(Math.round((serial - UNIX_EPOCH_SERIAL) * MS_PER_DAY))
  return Number.isNaN(date.getTime()) ? Number.NaN : dateToSerial(date)
}

const MS_PER_DAY = 86_400_000
const UNIX_EPOCH_SERIAL = 25_569

/** Whether a number format shows a date or a time (any of y m d h s outside quotes and brackets, as exceljs decides). */
export function isDateFormat(code: string): boolean {
  return /[ymdhMsb]/.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''))
}

function emptyToNull(text: string): CellValue {
  return text === '' ? null : text
}

/** The cells of one row as values, trimmed; text through `strings` when the values are kept. */
export function rowValues(
  cells: readonly RawCell[],
  row: number,
  context: ReadContext,
  formulas: SharedFormulas,
  strings?: OwnStrings,
): CellValue[] {
  const values: CellValue[] = []
  for (const cell of cells) {
    const value = readCell(cell, row, context, formulas)
    if (value !== null) values[cell.column] = typeof value === 'string' && strings !== undefined ? strings.own(value, cell.column) : value
  }
  return trimRow(values)
}

/** Distinct texts a column shares at most; past that (a column of Keys), each text is only copied. */
const SHARED_PER_COLUMN = 4096

/**
 * Text values as strings of their own. A value cut out of the sheet's text is a view of that text: kept in
 * a snapshot, it would keep every piece of the sheet's XML it was cut from (about the whole part) in memory.
 * A text a column repeats (users, tags) is one string for all its rows.
 */
export class OwnStrings {
  readonly #byColumn: Array<{ texts: Map<string, string>; hits: number } | undefined> = []

  own(text: string, column: number): string {
    let shared = this.#byColumn[column]
    if (shared === undefined) this.#byColumn[column] = shared = { texts: new Map(), hits: 0 }
    const full = shared.texts.size >= SHARED_PER_COLUMN
    // A full column that found few of its texts again holds distinct ones (Keys): looking them up is wasted.
    if (full && shared.hits < SHARED_PER_COLUMN) return ownText(text)
    const known = shared.texts.get(text)
    if (known !== undefined) {
      shared.hits++
      return known
    }
    const copy = ownText(text)
    if (!full) shared.texts.set(copy, copy)
    return copy
  }
}

/** Reads a whole tab. */
export async function readTab(
  title: string,
  chunks: AsyncIterable<string>,
  context: ReadContext,
): Promise<TabData & { frame: SheetFrame }> {
  const formulas: SharedFormulas = new Map()
  const strings = new OwnStrings()
  const rows: CellValue[][] = []
  let header: CellValue[] = []
  let previous = 0
  let last = 0
  const frame = await scanSheet(chunks, (xml) => {
    const row = parseRow(xml, previous)
    previous = row.number
    if (row.number > last) last = row.number
    if (row.cells.length === 0) return
    const values = rowValues(row.cells, row.number, context, formulas, strings)
    if (row.number === 1) header = values
    else rows[row.number - 2] = values
  })
  const merged = mergedAreas(frame.suffix)
  if (merged.length > 0) {
    header = blankMerged(header, 1, merged)
    for (let i = 0; i < rows.length; i++) if (rows[i] !== undefined) rows[i] = blankMerged(rows[i]!, i + 2, merged)
  }
  const filled = Array.from(rows, (row) => row ?? [])
  return { title, exists: true, header, rows: trimRows(filled), gridRowCount: last, frame }
}

interface Area {
  top: number
  left: number
  bottom: number
  right: number
}

/** The merged ranges a worksheet's `<mergeCells>` lists. */
export function mergedAreas(suffix: string): Area[] {
  const areas: Area[] = []
  for (const match of suffix.matchAll(/<(?:[\w.-]+:)?mergeCell\b((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/g)) {
    const ref = parseAttributes(match[1]!).get('ref')
    const parsed = ref === undefined ? null : /^\$?([A-Za-z]{1,3})\$?(\d+)(?::\$?([A-Za-z]{1,3})\$?(\d+))?$/.exec(ref)
    if (parsed === null) continue
    const [, left, top, right, bottom] = parsed
    areas.push({ top: Number(top), left: columnIndex(left!), bottom: Number(bottom ?? top), right: columnIndex(right ?? left!) })
  }
  return areas
}

/** A merged cell other than the top-left one holds no value of its own, as in Google. */
export function blankMerged(values: CellValue[], row: number, areas: readonly Area[]): CellValue[] {
  let out: CellValue[] | undefined
  for (const area of areas) {
    if (row < area.top || row > area.bottom) continue
    for (let column = area.left; column <= area.right && column < values.length; column++) {
      if (row === area.top && column === area.left) continue
      out ??= [...values]
      out[column] = null
    }
  }
  return out === undefined ? values : trimRow(out)
}
