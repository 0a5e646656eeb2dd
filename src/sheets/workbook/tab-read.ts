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
  SheetFormatError,
  type RawCell,
  type SheetFrame,
} from './sheet-xml.ts'
import { decodeCellText, decodeXml, parseAttributes } from './xml-text.ts'

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
  if (content.formula !== undefined && content.type === 'b') {
    // LibreOffice has no boolean cells: it saves every TRUE and FALSE, a ticked box too, as the formula
    // TRUE() or FALSE(). Read as a formula, each row of a sheet a manager saved there would look edited.
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

/** The cells of one row as values, trimmed. */
export function rowValues(cells: readonly RawCell[], row: number, context: ReadContext, formulas: SharedFormulas): CellValue[] {
  const values: CellValue[] = []
  for (const cell of cells) {
    const value = readCell(cell, row, context, formulas)
    if (value !== null) values[cell.column] = value
  }
  return trimRow(values)
}

/** Reads a whole tab. */
export async function readTab(
  title: string,
  chunks: AsyncIterable<string>,
  context: ReadContext,
): Promise<TabData & { frame: SheetFrame }> {
  const formulas: SharedFormulas = new Map()
  const rows: CellValue[][] = []
  let header: CellValue[] = []
  let previous = 0
  let last = 0
  const frame = await scanSheet(chunks, (xml) => {
    const row = parseRow(xml, previous)
    previous = row.number
    if (row.number > last) last = row.number
    if (row.cells.length === 0) return
    const values = rowValues(row.cells, row.number, context, formulas)
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

/**
 * Reads row 1 and the merged ranges (they come after the rows) without reading the rows between: past
 * row 1 the bytes are only searched for the end of `<sheetData>`, never decoded. Undefined when the first
 * row element is not row 1 (rows out of order, or no header): only a whole read says what row 1 holds then.
 */
export async function readHeaderOnly(chunks: AsyncIterable<Uint8Array>, context: ReadContext): Promise<CellValue[] | undefined> {
  const source = chunks[Symbol.asyncIterator]()
  const decoder = new TextDecoder()
  // The raw chunks the scanner decoded last: the end of the rows may already be in them.
  let seen: Uint8Array[] = []
  let ended = false
  const text: AsyncIterable<string> = {
    // No `return`: the scanner stopping at row 1 must not close the source, which is read on below.
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<string>> => {
        if (ended) return { done: true, value: undefined }
        const next = await source.next()
        if (next.done === true) {
          ended = true
          return { done: false, value: decoder.decode() }
        }
        seen = [...seen.slice(-1), next.value]
        return { done: false, value: decoder.decode(next.value, { stream: true }) }
      },
    }),
  }
  let header: CellValue[] | undefined
  try {
    const frame = await scanSheet(text, (xml) => {
      const row = parseRow(xml, 0)
      if (row.number === 1) header = rowValues(row.cells, 1, context, new Map())
      return true
    })
    if (!frame.stopped) return header ?? []
    if (header === undefined) return undefined
    const suffix = await textAfterRows(seen, ended ? undefined : source)
    const merged = mergedAreas(suffix)
    return merged.length > 0 ? blankMerged(header, 1, merged) : header
  } finally {
    await source.return?.()
  }
}

/** The text after `</sheetData>`: found in the bytes, decoded from there on. */
async function textAfterRows(seen: readonly Uint8Array[], rest: AsyncIterator<Uint8Array> | undefined): Promise<string> {
  let buffer = Buffer.concat(seen)
  for (;;) {
    const end = rowsEnd(buffer)
    if (end >= 0) {
      const tail: Uint8Array[] = [buffer.subarray(end)]
      for (let next = await rest?.next(); next !== undefined && next.done !== true; next = await rest!.next()) tail.push(next.value)
      return new TextDecoder().decode(Buffer.concat(tail))
    }
    const next = await rest?.next()
    if (next === undefined || next.done === true)
      throw new SheetFormatError('its <sheetData> element is not closed (the part is truncated)')
    // Keep a tail that could hold the start of the end tag.
    buffer = Buffer.concat([buffer.subarray(Math.max(0, buffer.length - 256)), next.value])
  }
}

const SHEET_DATA = Buffer.from('sheetData')

/** Where the text after `</sheetData>` (or `</x:sheetData>`) starts in `bytes`; -1 when it is not there whole. */
function rowsEnd(bytes: Buffer): number {
  for (let at = bytes.indexOf(SHEET_DATA); at >= 0; at = bytes.indexOf(SHEET_DATA, at + 1)) {
    // Text cannot hold a `<`: `</` before the name, past an optional prefix, makes it the end tag.
    let i = at - 1
    if (bytes[i] === 58 /* : */) {
      i--
      while (i >= 0 && isNameByte(bytes[i]!)) i--
    }
    if (i < 1 || bytes[i] !== 47 /* / */ || bytes[i - 1] !== 60 /* < */) continue
    const close = bytes.indexOf(62 /* > */, at)
    return close < 0 ? -1 : close + 1
  }
  return -1
}

function isNameByte(byte: number): boolean {
  return (
    (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte === 95 || byte === 45 || byte === 46
  )
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
function blankMerged(values: CellValue[], row: number, areas: readonly Area[]): CellValue[] {
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
