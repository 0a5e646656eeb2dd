/**
 * The spreadsheets.values.* semantics over the model (reference/sheets-api.md
 * §4, §5): reads with trimming and render options, writes with anchor
 * expansion and grid limits, append with table detection, clears. Each
 * function takes already-parsed JSON and throws `SheetsApiError`.
 */
import { type Bounds, boundToGrid, columnLetters, formatRange, type GridBounds } from './a1.ts'
import type { Recalc } from './formula-eval.ts'
import { badRequest, invalidArgument, SheetsApiError } from './google-errors.ts'
import { effectiveValue, getCell, recalcOf, setCell } from './cells.ts'
import { assertCellLimit, insertDimension } from './grid-shape.ts'
import type { CellData, SheetData, SpreadsheetData } from './sheet-data.ts'
import { assertStartsInGrid, resolveRange, type ResolvedRange } from './sheet-lookup.ts'
import { setKey, type Tx } from './tx.ts'
import {
  type DateTimeRenderOption,
  MAX_CELL_CHARS,
  parseInput,
  type RenderOptions,
  renderValue,
  type Scalar,
  transpose,
  trimBlock,
  type ValueInputOption,
  type ValueRenderOption,
} from './values.ts'

export type MajorDimension = 'ROWS' | 'COLUMNS'

/** A ValueRange as returned. */
export interface ValueRangeJson {
  range: string
  majorDimension: MajorDimension
  values?: Scalar[][]
}

function enumValue<T extends string>(value: unknown, allowed: readonly T[], fallback: T, field: string, type: string): T {
  if (value === undefined || value === null || value === '') return fallback
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T
  const description = `Invalid value at '${field}' (type.googleapis.com/google.apps.sheets.v4.${type}), "${String(value)}"`
  throw badRequest(description, field, description)
}

/** Validates the render options of a read (defaults FORMATTED_VALUE / SERIAL_NUMBER). */
export function renderOptionsOf(valueRenderOption: unknown, dateTimeRenderOption: unknown, prefix = ''): RenderOptions {
  return {
    valueRenderOption: enumValue<ValueRenderOption>(
      valueRenderOption,
      ['FORMATTED_VALUE', 'UNFORMATTED_VALUE', 'FORMULA'],
      'FORMATTED_VALUE',
      `${prefix}value_render_option`,
      'ValueRenderOption',
    ),
    dateTimeRenderOption: enumValue<DateTimeRenderOption>(
      dateTimeRenderOption,
      ['SERIAL_NUMBER', 'FORMATTED_STRING'],
      'SERIAL_NUMBER',
      `${prefix}date_time_render_option`,
      'DateTimeRenderOption',
    ),
  }
}

export function majorDimensionOf(value: unknown, field = 'major_dimension'): MajorDimension {
  return enumValue<MajorDimension>(value, ['ROWS', 'COLUMNS'], 'ROWS', field, 'Dimension')
}

/** `valueInputOption` is required on every write (§5.1). */
export function valueInputOptionOf(value: unknown): ValueInputOption {
  if (value === undefined || value === null || value === '' || value === 'INPUT_VALUE_OPTION_UNSPECIFIED') {
    throw invalidArgument("'valueInputOption' is required but not specified")
  }
  return enumValue<ValueInputOption>(value, ['RAW', 'USER_ENTERED'], 'RAW', 'value_input_option', 'ValueInputOption')
}

/** Renders a bounded block of a sheet, row-major, undefined for empty cells; formulas computed as of now. */
export function readBlock(
  ss: SpreadsheetData,
  sheet: SheetData,
  b: GridBounds,
  render: RenderOptions,
  recalc: Recalc = recalcOf(ss),
): (Scalar | undefined)[][] {
  const formatted = render.valueRenderOption === 'FORMATTED_VALUE' || render.dateTimeRenderOption === 'FORMATTED_STRING'
  const out: (Scalar | undefined)[][] = []
  const lastRow = Math.min(b.endRow, sheet.rows.length)
  for (let r = b.startRow; r < lastRow; r++) {
    const row = sheet.rows[r]
    const line: (Scalar | undefined)[] = []
    if (row) {
      const lastCol = Math.min(b.endColumn, row.cells.length)
      for (let c = b.startColumn; c < lastCol; c++) {
        const cell = row.cells[c]
        const stored = cell?.userEnteredValue
        if (!stored) {
          line.push(undefined)
          continue
        }
        if (stored.formulaValue === undefined) {
          line.push(renderValue(stored, stored, cell.userEnteredFormat?.numberFormat, render))
          continue
        }
        const effective = effectiveValue(recalc, sheet, r, c)
        const format = cell.userEnteredFormat?.numberFormat ?? (formatted ? recalc.inferredFormat(stored, sheet) : undefined)
        line.push(renderValue(stored, effective, format, render))
      }
    }
    out.push(line)
  }
  return out
}

/** The bounded block a resolved range covers, after the start-inside-grid check. */
export function boundedOf(resolved: ResolvedRange): GridBounds {
  assertStartsInGrid(resolved.sheet, resolved.bounds)
  const { rowCount, columnCount } = resolved.sheet.properties.gridProperties
  return boundToGrid(resolved.bounds, rowCount, columnCount)
}

/** values.get of one range. */
export function getValues(
  ss: SpreadsheetData,
  range: string,
  majorDimension: MajorDimension,
  render: RenderOptions,
  recalc?: Recalc,
): ValueRangeJson {
  const resolved = resolveRange(ss, range)
  const b = boundedOf(resolved)
  return valueRangeOf(ss, resolved.sheet, b, majorDimension, render, recalc)
}

/** A bounded block as a ValueRange: echoed range, values rendered and trimmed like a read. */
export function valueRangeOf(
  ss: SpreadsheetData,
  sheet: SheetData,
  b: GridBounds,
  majorDimension: MajorDimension,
  render: RenderOptions,
  recalc?: Recalc,
): ValueRangeJson {
  const block = readBlock(ss, sheet, b, render, recalc)
  const values = trimBlock(majorDimension === 'COLUMNS' ? transpose(block) : block)
  const out: ValueRangeJson = { range: formatRange(sheet.properties.title, b), majorDimension }
  if (values.length > 0) out.values = values
  return out
}

/** One input cell of a ValueRange: `null` leaves the cell as it is. */
export type Input = Scalar | null

/** Checks that `values` is a list of lists of scalars, with Google's messages (§5.1). */
export function checkValues(values: unknown, field: string): Input[][] {
  if (values === undefined || values === null) return []
  const invalid = (path: string, shown: unknown) => {
    const description = `Invalid value at '${path}' (type.googleapis.com/google.protobuf.ListValue), ${JSON.stringify(shown)}`
    return badRequest(description, path, description)
  }
  if (!Array.isArray(values)) throw invalid(field, values)
  values.forEach((row, i) => {
    if (!Array.isArray(row)) throw invalid(`${field}[${i}]`, row)
    row.forEach((cell, j) => {
      if (cell !== null && typeof cell === 'object') {
        throw invalidArgument(`Invalid values[${i}][${j}]: ${Array.isArray(cell) ? 'list_value' : 'struct_value'} {\n}`)
      }
      if (typeof cell === 'string' && cell.length > MAX_CELL_CHARS) {
        throw invalidArgument(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`)
      }
    })
  })
  return values as Input[][]
}

/** What a write returns (UpdateValuesResponse without spreadsheetId). */
export interface UpdateResult {
  updatedRange: string
  updatedRows?: number
  updatedColumns?: number
  updatedCells?: number
  updatedData?: ValueRangeJson
  /** For batch totals. */
  sheetId: number
  /** Every cell written (row, column), for batch totals that count distinct rows, columns and cells. */
  written: [number, number][]
}

/** Where a write may land: the bounded range, or the whole grid for a single-cell anchor. */
function writeLimit(sheet: SheetData, bounds: Bounds | undefined): { endRow: number; endColumn: number } {
  const { rowCount, columnCount } = sheet.properties.gridProperties
  const single =
    bounds !== undefined &&
    bounds.endRow === (bounds.startRow ?? 0) + 1 &&
    bounds.endColumn === (bounds.startColumn ?? 0) + 1 &&
    bounds.startRow !== undefined &&
    bounds.startColumn !== undefined
  if (bounds === undefined || single) return { endRow: rowCount, endColumn: columnCount }
  return { endRow: Math.min(bounds.endRow ?? rowCount, rowCount), endColumn: Math.min(bounds.endColumn ?? columnCount, columnCount) }
}

/** Stores one input into a cell, keeping its other parts; a parsed date/number style is set only on cells without a format. */
export function writeInput(
  tx: Tx,
  ss: SpreadsheetData,
  sheet: SheetData,
  row: number,
  column: number,
  input: Scalar,
  option: ValueInputOption,
): void {
  const old = getCell(sheet, row, column)
  const parsed = parseInput(input, option, ss.properties.locale)
  const next: CellData = { ...(old ?? {}) }
  if (parsed.value) next.userEnteredValue = parsed.value
  else delete next.userEnteredValue
  if (parsed.numberFormat && !old?.userEnteredFormat?.numberFormat) {
    next.userEnteredFormat = { ...(old?.userEnteredFormat ?? {}), numberFormat: parsed.numberFormat }
  }
  setCell(tx, sheet, row, column, Object.keys(next).length > 0 ? next : undefined)
}

/**
 * Writes a row-major block at (row, column) and reports Google's counts:
 * cells = non-null values, rows/columns = those holding one (§5.1).
 */
export function writeBlock(
  tx: Tx,
  ss: SpreadsheetData,
  sheet: SheetData,
  row: number,
  column: number,
  values: Input[][],
  option: ValueInputOption,
  response: ResponseOptions | undefined,
): UpdateResult {
  const rows = new Set<number>()
  const columns = new Set<number>()
  const written: [number, number][] = []
  let cells = 0
  let width = 0
  values.forEach((line, i) => {
    width = Math.max(width, line.length)
    line.forEach((value, j) => {
      if (value === null || value === undefined) return
      writeInput(tx, ss, sheet, row + i, column + j, value, option)
      cells++
      rows.add(i)
      columns.add(j)
      written.push([row + i, column + j])
    })
  })
  const extent: GridBounds = {
    startRow: row,
    endRow: row + Math.max(values.length, 1),
    startColumn: column,
    endColumn: column + Math.max(width, 1),
  }
  const result: UpdateResult = { updatedRange: formatRange(sheet.properties.title, extent), sheetId: sheet.properties.sheetId, written }
  if (rows.size > 0) result.updatedRows = rows.size
  if (columns.size > 0) result.updatedColumns = columns.size
  if (cells > 0) result.updatedCells = cells
  if (response?.include) result.updatedData = valueRangeOf(ss, sheet, extent, 'ROWS', response.render)
  return result
}

export interface ResponseOptions {
  include: boolean
  render: RenderOptions
}

/** Orients the input block (majorDimension COLUMNS → row-major). */
export function rowMajor(values: Input[][], majorDimension: MajorDimension): Input[][] {
  return majorDimension === 'COLUMNS' ? transpose(values).map((line) => line.map((v) => (v === undefined ? null : v))) : values
}

/**
 * values.update semantics for one range: start inside the grid, data inside
 * the range (or the grid, for an anchor cell), never grows the grid.
 */
export function updateValues(
  tx: Tx,
  ss: SpreadsheetData,
  range: string,
  body: { values?: unknown; majorDimension?: unknown; range?: unknown },
  option: ValueInputOption,
  response: ResponseOptions | undefined,
  valuesField: string,
): UpdateResult {
  const resolved = resolveRange(ss, range)
  if (typeof body.range === 'string' && body.range !== range) {
    const other = resolveRange(ss, body.range)
    if (other.sheet !== resolved.sheet || JSON.stringify(other.bounds) !== JSON.stringify(resolved.bounds)) {
      throw invalidArgument(`Request range[${range}] does not match value's range[${body.range}]`)
    }
  }
  const values = rowMajor(checkValues(body.values, valuesField), majorDimensionOf(body.majorDimension))
  const b = boundedOf(resolved)
  const limit = writeLimit(resolved.sheet, resolved.bounds)
  values.forEach((line, i) => {
    if (b.startRow + i >= limit.endRow)
      throw invalidArgument(`Requested writing within range [${range}], but tried writing to row [${limit.endRow + 1}]`)
    if (b.startColumn + line.length > limit.endColumn)
      throw invalidArgument(`Requested writing within range [${range}], but tried writing to column [${columnLetters(limit.endColumn)}]`)
  })
  if (values.length === 0)
    return { updatedRange: formatRange(resolved.sheet.properties.title, b), sheetId: resolved.sheet.properties.sheetId, written: [] }
  return writeBlock(tx, ss, resolved.sheet, b.startRow, b.startColumn, values, option, response)
}

function isFilled(sheet: SheetData, r: number, c: number): boolean {
  return getCell(sheet, r, c)?.userEnteredValue !== undefined
}

/** The bounding box of the edge-connected block of non-empty cells holding (row, column). */
function connectedBlock(sheet: SheetData, row: number, column: number, seen: Set<number>): GridBounds {
  const width = sheet.properties.gridProperties.columnCount
  const box = { startRow: row, endRow: row + 1, startColumn: column, endColumn: column + 1 }
  const stack = [row * width + column]
  seen.add(row * width + column)
  while (stack.length > 0) {
    const key = stack.pop()!
    const r = Math.floor(key / width)
    const c = key % width
    box.startRow = Math.min(box.startRow, r)
    box.endRow = Math.max(box.endRow, r + 1)
    box.startColumn = Math.min(box.startColumn, c)
    box.endColumn = Math.max(box.endColumn, c + 1)
    for (const [nr, nc] of [
      [r - 1, c],
      [r + 1, c],
      [r, c - 1],
      [r, c + 1],
    ] as const) {
      if (nr < 0 || nc < 0 || nc >= width) continue
      const k = nr * width + nc
      if (seen.has(k) || !isFilled(sheet, nr, nc)) continue
      seen.add(k)
      stack.push(k)
    }
  }
  return box
}

/**
 * Table detection of values.append (§5.3): a one-cell range finds the block
 * holding that cell (none if empty); a larger range takes the last block
 * discovered scanning it row-major, which is why a header with a gap shifts
 * appended rows to the right.
 */
export function detectTable(sheet: SheetData, b: GridBounds): GridBounds | undefined {
  const seen = new Set<number>()
  const width = sheet.properties.gridProperties.columnCount
  if (b.endRow - b.startRow === 1 && b.endColumn - b.startColumn === 1) {
    return isFilled(sheet, b.startRow, b.startColumn) ? connectedBlock(sheet, b.startRow, b.startColumn, seen) : undefined
  }
  let last: GridBounds | undefined
  const lastRow = Math.min(b.endRow, sheet.rows.length)
  for (let r = b.startRow; r < lastRow; r++) {
    const row = sheet.rows[r]
    if (!row) continue
    const lastCol = Math.min(b.endColumn, row.cells.length)
    for (let c = b.startColumn; c < lastCol; c++) {
      if (row.cells[c]?.userEnteredValue === undefined || seen.has(r * width + c)) continue
      last = connectedBlock(sheet, r, c, seen)
    }
  }
  return last
}

export interface AppendResult {
  tableRange?: string
  updates: UpdateResult
}

/** values.append: find the table, write below it, grow the grid (or insert rows) as needed. */
export function appendValues(
  tx: Tx,
  ss: SpreadsheetData,
  range: string,
  body: { values?: unknown; majorDimension?: unknown },
  option: ValueInputOption,
  insertDataOption: 'OVERWRITE' | 'INSERT_ROWS',
  response: ResponseOptions | undefined,
  cellLimit: number,
): AppendResult {
  const resolved = resolveRange(ss, range)
  const values = rowMajor(checkValues(body.values, 'data.values'), majorDimensionOf(body.majorDimension))
  const b = boundedOf(resolved)
  const sheet = resolved.sheet
  const table = detectTable(sheet, b)
  const row = table ? table.endRow : b.startRow
  const column = table ? table.startColumn : b.startColumn
  const width = values.reduce((w, line) => Math.max(w, line.length), 0)
  const out: AppendResult = { updates: { updatedRange: '', sheetId: sheet.properties.sheetId, written: [] } }
  if (table) out.tableRange = formatRange(sheet.properties.title, table)
  if (values.length === 0) {
    out.updates.updatedRange = formatRange(sheet.properties.title, {
      startRow: Math.min(row, sheet.properties.gridProperties.rowCount - 1),
      endRow: Math.min(row, sheet.properties.gridProperties.rowCount - 1) + 1,
      startColumn: column,
      endColumn: column + 1,
    })
    return out
  }
  const grid = () => sheet.properties.gridProperties
  if (insertDataOption === 'INSERT_ROWS' && row < grid().rowCount) {
    insertDimension(tx, ss, sheet, 'ROWS', row, values.length, row > 0, cellLimit)
  }
  const needRows = row + values.length - grid().rowCount
  const needColumns = column + width - grid().columnCount
  if (needRows > 0 || needColumns > 0) {
    setKey(tx, sheet.properties, 'gridProperties', {
      ...grid(),
      rowCount: grid().rowCount + Math.max(0, needRows),
      columnCount: grid().columnCount + Math.max(0, needColumns),
    })
    assertCellLimit(ss, cellLimit)
  }
  out.updates = writeBlock(tx, ss, sheet, row, column, values, option, response)
  return out
}

/** values.clear of one range: values go, formats/notes/validation stay (§5.4). */
export function clearValues(tx: Tx, ss: SpreadsheetData, range: string): { clearedRange: string } {
  const resolved = resolveRange(ss, range)
  const b = boundedOf(resolved)
  const sheet = resolved.sheet
  const lastRow = Math.min(b.endRow, sheet.rows.length)
  for (let r = b.startRow; r < lastRow; r++) {
    const row = sheet.rows[r]
    if (!row) continue
    const lastCol = Math.min(b.endColumn, row.cells.length)
    for (let c = b.startColumn; c < lastCol; c++) {
      const cell = row.cells[c]
      if (!cell?.userEnteredValue) continue
      const { userEnteredValue: _dropped, ...rest } = cell
      setCell(tx, sheet, r, c, Object.keys(rest).length > 0 ? rest : undefined)
    }
  }
  return { clearedRange: formatRange(sheet.properties.title, b) }
}

/**
 * Totals of a batch write as Google defines them: rows, columns and sheets
 * "where at least one cell … was updated", so a row or column written by two
 * items counts once (A1:D1 plus A4:D4 is 2 rows, 4 columns, 8 cells, 1 sheet).
 */
export function batchTotals(results: readonly { sheetId: number; written: readonly [number, number][] }[]): {
  totalUpdatedRows?: number
  totalUpdatedColumns?: number
  totalUpdatedCells?: number
  totalUpdatedSheets?: number
} {
  const rows = new Set<string>()
  const columns = new Set<string>()
  const cells = new Set<string>()
  const sheets = new Set<number>()
  for (const result of results) {
    for (const [r, c] of result.written) {
      rows.add(`${result.sheetId}:${r}`)
      columns.add(`${result.sheetId}:${c}`)
      cells.add(`${result.sheetId}:${r}:${c}`)
      sheets.add(result.sheetId)
    }
  }
  const out: { totalUpdatedRows?: number; totalUpdatedColumns?: number; totalUpdatedCells?: number; totalUpdatedSheets?: number } = {}
  if (rows.size) out.totalUpdatedRows = rows.size
  if (columns.size) out.totalUpdatedColumns = columns.size
  if (cells.size) out.totalUpdatedCells = cells.size
  if (sheets.size) out.totalUpdatedSheets = sheets.size
  return out
}

/** Re-throws with a prefix such as `Invalid data[2]: `. */
export function withPrefix<T>(prefix: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof SheetsApiError) throw error.prefixed(prefix)
    throw error
  }
}
