/**
 * Finding things in the model: a sheet by title or id, an A1 range resolved
 * against a spreadsheet, and the translation between GridRange (as requests
 * send and Google echoes it) and the Bounds the grid code works in.
 */
import { type Bounds, formatOpenRange, type GridBounds, parseA1, startsInsideGrid } from './a1.ts'
import { exceedsGridLimits, unableToParseRange } from './google-errors.ts'
import type { GridRange, SheetData, SpreadsheetData } from './sheet-data.ts'

/** Which way a DimensionRange runs. */
export type Dimension = 'ROWS' | 'COLUMNS'

/** The sheet with this title (exact, as Google matches titles). */
export function sheetByTitle(ss: SpreadsheetData, title: string): SheetData | undefined {
  return (
    ss.sheets.find((s) => s.properties.title === title) ?? ss.sheets.find((s) => s.properties.title.toLowerCase() === title.toLowerCase())
  )
}

export function sheetById(ss: SpreadsheetData, sheetId: number): SheetData | undefined {
  return ss.sheets.find((s) => s.properties.sheetId === sheetId)
}

function firstVisibleSheet(ss: SpreadsheetData): SheetData {
  return ss.sheets.find((s) => !s.properties.hidden) ?? (ss.sheets[0] as SheetData)
}

/** A range string resolved against a spreadsheet. */
export interface ResolvedRange {
  sheet: SheetData
  /** undefined = the whole sheet. */
  bounds: Bounds | undefined
  /** The range as sent, for messages that echo it. */
  sent: string
}

/**
 * Resolves an A1 range (§3.1–3.3): a string that parses as a cell area is a
 * cell area on the first visible sheet; otherwise it is a sheet title.
 * Unknown sheets and garbage → `Unable to parse range: <as sent>`.
 */
export function resolveRange(ss: SpreadsheetData, text: string): ResolvedRange {
  const parsed = parseA1(text)
  if (!parsed) throw unableToParseRange(text)
  if (parsed.sheetTitle === undefined) return { sheet: firstVisibleSheet(ss), bounds: parsed.bounds, sent: text }
  const sheet = sheetByTitle(ss, parsed.sheetTitle)
  if (!sheet) throw unableToParseRange(text)
  return { sheet, bounds: parsed.bounds, sent: text }
}

/** Throws "exceeds grid limits" when the range starts outside the grid (§3.6). */
export function assertStartsInGrid(sheet: SheetData, bounds: Bounds | undefined): void {
  const { rowCount, columnCount } = sheet.properties.gridProperties
  if (bounds && !startsInsideGrid(bounds, rowCount, columnCount)) {
    throw exceedsGridLimits(formatOpenRange(sheet.properties.title, bounds), rowCount, columnCount)
  }
}

/** GridRange → Bounds (open sides stay open). */
export function boundsOfGridRange(range: GridRange): Bounds {
  const b: Bounds = {}
  if (range.startRowIndex !== undefined) b.startRow = range.startRowIndex
  if (range.endRowIndex !== undefined) b.endRow = range.endRowIndex
  if (range.startColumnIndex !== undefined) b.startColumn = range.startColumnIndex
  if (range.endColumnIndex !== undefined) b.endColumn = range.endColumnIndex
  return b
}

/** Bounds → GridRange as Google echoes it: sheetId 0 omitted, zero indexes kept. */
export function gridRangeOf(sheetId: number, b: GridBounds | Bounds): GridRange {
  const out: GridRange = {}
  if (sheetId !== 0) out.sheetId = sheetId
  if (b.startRow !== undefined) out.startRowIndex = b.startRow
  if (b.endRow !== undefined) out.endRowIndex = b.endRow
  if (b.startColumn !== undefined) out.startColumnIndex = b.startColumn
  if (b.endColumn !== undefined) out.endColumnIndex = b.endColumn
  return out
}
