/**
 * The in-memory spreadsheet model and the grid operations both the API
 * handler and the manager helpers go through. Rows are per-sheet arrays of
 * sparse cell arrays (100,000 × 12 stays cheap); row and column properties
 * and row/column developer metadata live on the row/column object, so they
 * move with it on insert, delete and sort for free.
 *
 * Every mutation goes through a `Tx` that records how to undo it: a
 * batchUpdate that fails at request 7 rolls back requests 0–6 (atomicity, §6.1).
 */
import { type Bounds, type GridBounds, MAX_COLUMNS, parseA1 } from './a1.ts'
import { Recalc } from './formula-eval.ts'
import { cellLimit, exceedsGridLimits, invalidArgument, unableToParseRange } from './google-errors.ts'
import { formatOpenRange, startsInsideGrid } from './a1.ts'
import type { ExtendedValue } from './values.ts'
import type {
  CellData,
  DimensionProps,
  RowData,
  ColumnData,
  GridRange,
  EmbeddedChart,
  SheetData,
  DeveloperMetadataRecord,
  SpreadsheetData,
  MetadataIndex,
  MetadataHolder,
} from './sheet-data.ts'

export type * from './sheet-data.ts'

/** An empty metadata index. */
export function emptyMetadataIndex(): MetadataIndex {
  return { byKey: new Map(), byKeyValue: new Map(), holders: new Map() }
}

/** Undo log of one atomic operation. */
export interface Tx {
  undo: (() => void)[]
}

/** A fresh undo log. */
export function beginTx(): Tx {
  return { undo: [] }
}

/**
 * Ends an operation that succeeded: if it changed anything, the file's Drive version moves on (by one: Google
 * documents only that it grows with every change) and its modification time is now.
 */
export function commitTx(tx: Tx, ss: SpreadsheetData): void {
  if (tx.undo.length === 0) return
  ss.drive.version++
  ss.drive.modifiedTime = ss.clock()
  tx.undo.length = 0
}

/** Undoes everything a failed operation did, newest first. */
export function rollback(tx: Tx): void {
  for (let i = tx.undo.length - 1; i >= 0; i--) tx.undo[i]!()
  tx.undo.length = 0
}

/** Sets `obj[key]` (undefined deletes it) and records how to put it back. */
export function setKey<T extends object, K extends keyof T>(tx: Tx, obj: T, key: K, value: T[K] | undefined): void {
  const had = Object.hasOwn(obj, key)
  const old = obj[key]
  if (value === undefined) delete obj[key]
  else obj[key] = value
  tx.undo.push(() => {
    if (had) obj[key] = old
    else delete obj[key]
  })
}

function spliceMany<T>(arr: T[], start: number, deleteCount: number, items: readonly T[]): T[] {
  const removed = arr.slice(start, start + deleteCount)
  const tail = arr.slice(start + deleteCount)
  arr.length = start
  for (const item of items) arr.push(item)
  for (const item of tail) arr.push(item)
  return removed
}

/** Splice that survives 100,000 items (no spread) and records its inverse. */
export function splice<T>(tx: Tx, arr: T[], start: number, deleteCount: number, items: readonly T[]): T[] {
  const removed = spliceMany(arr, start, deleteCount, items)
  tx.undo.push(() => {
    spliceMany(arr, start, items.length, removed)
  })
  return removed
}

// ------------------------------------------------------------------ lookup

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

// ------------------------------------------------------------------- cells

export function getCell(sheet: SheetData, row: number, column: number): CellData | undefined {
  return sheet.rows[row]?.cells[column]
}

/** Replaces a cell (undefined removes it). */
export function setCell(tx: Tx, sheet: SheetData, row: number, column: number, cell: CellData | undefined): void {
  let rowData = sheet.rows[row]
  if (!rowData) {
    if (cell === undefined) return
    rowData = { cells: [] }
    if (row >= sheet.rows.length) {
      const oldLength = sheet.rows.length
      sheet.rows[row] = rowData
      tx.undo.push(() => {
        sheet.rows.length = oldLength
      })
    } else {
      setKey(tx, sheet.rows, row, rowData)
    }
  }
  if (cell === undefined && rowData.cells[column] === undefined) return
  if (column >= rowData.cells.length) {
    const r = rowData
    const oldLength = r.cells.length
    r.cells[column] = cell
    tx.undo.push(() => {
      r.cells.length = oldLength
    })
  } else {
    setKey(tx, rowData.cells, column, cell)
  }
}

/** Whether a cell has a value (formatting, notes and validation alone do not count, §4.3). */
export function hasValue(cell: CellData | undefined): boolean {
  return cell?.userEnteredValue !== undefined
}

/** A fresh evaluation for one read: formulas are computed when read, so every change is seen by the next read. */
export function recalcOf(ss: SpreadsheetData): Recalc {
  return new Recalc(ss, ss.clock)
}

/** The cell's computed value: its stored value, or its formula's result (`{}` when blank). */
export function effectiveValue(recalc: Recalc, sheet: SheetData, row: number, column: number): ExtendedValue | undefined {
  const stored = getCell(sheet, row, column)?.userEnteredValue
  if (!stored || stored.formulaValue === undefined) return stored
  return recalc.effective(sheet, row, column)
}

// -------------------------------------------------------------- grid shape

/** Default limit of cells per spreadsheet (§8). */
export const DEFAULT_CELL_LIMIT = 10_000_000

export function cellCount(ss: SpreadsheetData): number {
  return ss.sheets.reduce((n, s) => n + s.properties.gridProperties.rowCount * s.properties.gridProperties.columnCount, 0)
}

/**
 * Throws the 10M-cell error when the workbook is over the limit (call after growing), and refuses a sheet wider
 * than Google's 18,278 columns (`ZZZ`; the wording of that refusal is not public).
 */
export function assertCellLimit(ss: SpreadsheetData, limit: number): void {
  if (cellCount(ss) > limit) throw cellLimit(limit)
  for (const sheet of ss.sheets) {
    if (sheet.properties.gridProperties.columnCount > MAX_COLUMNS)
      throw invalidArgument(`This action would increase the number of columns in the sheet above the limit of ${MAX_COLUMNS} columns.`)
  }
}

export type Dimension = 'ROWS' | 'COLUMNS'

function shiftIndex(index: number | undefined, start: number, delta: number, isEnd: boolean): number | undefined {
  if (index === undefined) return undefined
  if (delta > 0) return index > start || (index === start && !isEnd) ? index + delta : index
  // Deleting [start, start - delta): indexes inside collapse to start.
  const end = start - delta
  if (index >= end) return index + delta
  if (index > start) return start
  return index
}

/** Moves a GridRange for rows/columns inserted (delta > 0) or deleted (delta < 0) at `start`; undefined when it vanished. */
export function shiftGridRange(range: GridRange, dimension: Dimension, start: number, delta: number): GridRange | undefined {
  const out = { ...range }
  const [s, e] = dimension === 'ROWS' ? (['startRowIndex', 'endRowIndex'] as const) : (['startColumnIndex', 'endColumnIndex'] as const)
  const ns = shiftIndex(out[s], start, delta, false)
  const ne = shiftIndex(out[e], start, delta, true)
  if (ns !== undefined) out[s] = ns
  if (ne !== undefined) out[e] = ne
  if (ns !== undefined && ne !== undefined && ne <= ns) return undefined
  return out
}

function shiftSheetRanges(tx: Tx, sheet: SheetData, dimension: Dimension, start: number, delta: number): void {
  if (sheet.merges.length > 0) {
    setKey(
      tx,
      sheet,
      'merges',
      sheet.merges.flatMap((m) => {
        const moved = shiftGridRange(m, dimension, start, delta)
        // A merge cut down to one cell is no merge.
        if (
          !moved ||
          ((moved.endRowIndex ?? 0) - (moved.startRowIndex ?? 0) === 1 && (moved.endColumnIndex ?? 0) - (moved.startColumnIndex ?? 0) === 1)
        )
          return []
        return [moved]
      }),
    )
  }
  setKey(
    tx,
    sheet,
    'protectedRanges',
    sheet.protectedRanges.flatMap((p) => {
      const range = shiftGridRange(p.range, dimension, start, delta)
      return range ? [{ ...p, range }] : []
    }),
  )
  setKey(
    tx,
    sheet,
    'conditionalFormats',
    sheet.conditionalFormats.flatMap((rule) => {
      const ranges = rule.ranges.flatMap((r) => {
        const moved = shiftGridRange(r, dimension, start, delta)
        return moved ? [moved] : []
      })
      return ranges.length > 0 ? [{ ...rule, ranges }] : []
    }),
  )
  if (sheet.basicFilter) {
    const range = shiftGridRange(sheet.basicFilter.range, dimension, start, delta)
    setKey(tx, sheet, 'basicFilter', range ? { ...sheet.basicFilter, range } : undefined)
  }
}

/** Rewrites every GridRange under a `sources` list (ChartSourceRange) in a chart spec. */
function mapChartSources(value: unknown, fn: (range: GridRange) => GridRange): unknown {
  if (Array.isArray(value)) return value.map((v) => mapChartSources(v, fn))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === 'sources' && Array.isArray(v) ? v.map((r) => fn(r as GridRange)) : mapChartSources(v, fn)
  }
  return out
}

/**
 * Charts follow the cells: an anchor on `sheet` moves with its row or column,
 * and a chart's data ranges on `sheet` (from a chart on any tab) grow, shrink
 * and move as other ranges do. A data range whose rows all went keeps its place [I].
 */
function shiftCharts(tx: Tx, ss: SpreadsheetData, sheet: SheetData, dimension: Dimension, start: number, delta: number): void {
  const id = sheet.properties.sheetId
  for (const holder of ss.sheets) {
    if (holder.charts.length === 0) continue
    setKey(
      tx,
      holder,
      'charts',
      holder.charts.map((chart) => {
        const moveRange = (r: GridRange) => ((r.sheetId ?? 0) === id ? (shiftGridRange(r, dimension, start, delta) ?? r) : r)
        const spec = mapChartSources(chart.spec, moveRange) as EmbeddedChart['spec']
        if (holder !== sheet) return { ...chart, spec }
        const overlay = chart.position.overlayPosition
        const key = dimension === 'ROWS' ? 'rowIndex' : 'columnIndex'
        const anchorCell = { ...overlay.anchorCell }
        const moved = shiftIndex(anchorCell[key] ?? 0, start, delta, false) ?? 0
        if (moved > 0) anchorCell[key] = moved
        else delete anchorCell[key]
        return { ...chart, spec, position: { overlayPosition: { ...overlay, anchorCell } } }
      }),
    )
  }
}

function fillArray<T>(count: number, make: () => T): T[] {
  const out: T[] = []
  for (let i = 0; i < count; i++) out.push(make())
  return out
}

/**
 * Inserts `count` rows or columns before `start`. Shifts values, formats,
 * metadata, protected ranges, rules; with `inheritFromBefore` the new ones
 * copy the formats of the row/column before (else after).
 */
export function insertDimension(
  tx: Tx,
  ss: SpreadsheetData,
  sheet: SheetData,
  dimension: Dimension,
  start: number,
  count: number,
  inheritFromBefore: boolean,
  cellLimitValue: number,
): void {
  const grid = sheet.properties.gridProperties
  const from = inheritFromBefore ? start - 1 : start
  const formatOf = (c: CellData | undefined): CellData | undefined =>
    c?.userEnteredFormat ? { userEnteredFormat: c.userEnteredFormat } : undefined
  if (dimension === 'ROWS') {
    const source = sheet.rows[from]
    const inherit = (): RowData | undefined => {
      const formats = source?.cells.map(formatOf)
      return formats && formats.some(Boolean) ? { cells: formats } : undefined
    }
    // Rows past the last stored one are blank, unless they inherit from the stored row just before them.
    if (start < sheet.rows.length || (start === sheet.rows.length && inherit())) splice(tx, sheet.rows, start, 0, fillArray(count, inherit))
    setKey(tx, sheet.properties, 'gridProperties', { ...grid, rowCount: grid.rowCount + count })
  } else {
    for (const row of sheet.rows) {
      if (!row) continue
      const inherits = formatOf(row.cells[from]) !== undefined
      if (start < row.cells.length || (start === row.cells.length && inherits)) {
        splice(
          tx,
          row.cells,
          start,
          0,
          fillArray(count, () => formatOf(row.cells[from])),
        )
      }
    }
    if (start < sheet.columns.length)
      splice(
        tx,
        sheet.columns,
        start,
        0,
        fillArray<ColumnData | undefined>(count, () => undefined),
      )
    setKey(tx, sheet.properties, 'gridProperties', { ...grid, columnCount: grid.columnCount + count })
  }
  shiftSheetRanges(tx, sheet, dimension, start, count)
  shiftCharts(tx, ss, sheet, dimension, start, count)
  assertCellLimit(ss, cellLimitValue)
}

/** Deletes rows or columns [start, end); their metadata goes with them. */
export function deleteDimension(tx: Tx, ss: SpreadsheetData, sheet: SheetData, dimension: Dimension, start: number, end: number): void {
  const grid = sheet.properties.gridProperties
  const count = end - start
  const dropMetadata = (items: readonly ({ metadataIds?: number[] } | undefined)[]) => {
    for (const item of items) for (const id of item?.metadataIds ?? []) deleteMetadataRecord(tx, ss, id)
  }
  if (dimension === 'ROWS') {
    if (start < sheet.rows.length) dropMetadata(splice(tx, sheet.rows, start, Math.min(count, sheet.rows.length - start), []))
    setKey(tx, sheet.properties, 'gridProperties', {
      ...grid,
      rowCount: grid.rowCount - count,
      ...(grid.frozenRowCount ? { frozenRowCount: Math.min(grid.frozenRowCount, grid.rowCount - count) } : {}),
    })
  } else {
    for (const row of sheet.rows) {
      if (row && start < row.cells.length) splice(tx, row.cells, start, Math.min(count, row.cells.length - start), [])
    }
    if (start < sheet.columns.length) dropMetadata(splice(tx, sheet.columns, start, Math.min(count, sheet.columns.length - start), []))
    setKey(tx, sheet.properties, 'gridProperties', { ...grid, columnCount: grid.columnCount - count })
  }
  shiftSheetRanges(tx, sheet, dimension, start, -count)
  shiftCharts(tx, ss, sheet, dimension, start, -count)
}

function deleteMetadataRecord(tx: Tx, ss: SpreadsheetData, id: number): void {
  // The row or column is gone with its id list; only the record and the index remain to drop.
  const record = ss.metadata.get(id)
  const holder = ss.metadataIndex.holders.get(id)
  if (!record || !holder) return
  unindex(ss, record)
  ss.metadata.delete(id)
  ss.metadataIndex.holders.delete(id)
  tx.undo.push(() => {
    ss.metadata.set(id, record)
    ss.metadataIndex.holders.set(id, holder)
    index(ss, record)
  })
}

/** Grows or shrinks the grid to the given counts; shrinking drops the data beyond. */
export function resizeGrid(
  tx: Tx,
  ss: SpreadsheetData,
  sheet: SheetData,
  rowCount: number,
  columnCount: number,
  cellLimitValue: number,
): void {
  const grid = sheet.properties.gridProperties
  // Google applies rowCount before checking the cell limit, then columnCount (§6.3).
  if (rowCount < grid.rowCount) deleteDimension(tx, ss, sheet, 'ROWS', rowCount, grid.rowCount)
  else if (rowCount > grid.rowCount) setKey(tx, sheet.properties, 'gridProperties', { ...sheet.properties.gridProperties, rowCount })
  assertCellLimit(ss, cellLimitValue)
  const now = sheet.properties.gridProperties
  if (columnCount < now.columnCount) deleteDimension(tx, ss, sheet, 'COLUMNS', columnCount, now.columnCount)
  else if (columnCount > now.columnCount)
    setKey(tx, sheet.properties, 'gridProperties', { ...sheet.properties.gridProperties, columnCount })
  assertCellLimit(ss, cellLimitValue)
}

/** One sort key of sortRange. */
export interface SortSpec {
  dimensionIndex: number
  sortOrder: 'ASCENDING' | 'DESCENDING'
}

/** A blank formula result sorts as a blank. */
function present(v: ExtendedValue | undefined): ExtendedValue | undefined {
  return v && Object.keys(v).length > 0 ? v : undefined
}

function sortRank(v: ExtendedValue | undefined): number {
  if (!v) return 3
  if (v.numberValue !== undefined) return 0
  if (v.stringValue !== undefined || v.errorValue) return 1
  return 2
}

function compareValues(a: ExtendedValue | undefined, b: ExtendedValue | undefined): number {
  const ra = sortRank(a)
  const rb = sortRank(b)
  if (ra !== rb) return ra - rb
  if (ra === 0) return a!.numberValue! - b!.numberValue!
  if (ra === 1)
    return (a!.stringValue ?? a!.errorValue?.message ?? '').localeCompare(b!.stringValue ?? b!.errorValue?.message ?? '', 'en', {
      sensitivity: 'base',
    })
  if (ra === 2) return Number(a!.boolValue) - Number(b!.boolValue)
  return 0
}

/**
 * Sorts the rows of a bounded range (numbers, then text, then booleans,
 * blanks last whatever the order; later specs break ties; stable). When the
 * range spans every column the whole row moves, metadata and sizes included.
 */
export function sortRows(
  tx: Tx,
  ss: SpreadsheetData,
  sheet: SheetData,
  b: GridBounds,
  specs: readonly SortSpec[],
  movesRowMetadata = true,
): void {
  const recalc = recalcOf(ss)
  const width = sheet.properties.gridProperties.columnCount
  // A sort over every column moves whole rows, metadata included (undocumented; `movesRowMetadata` turns it off).
  const whole = movesRowMetadata && b.startColumn === 0 && b.endColumn >= width
  const indexes: number[] = []
  for (let r = b.startRow; r < b.endRow; r++) indexes.push(r)
  const keys = new Map(indexes.map((r) => [r, specs.map((s) => present(effectiveValue(recalc, sheet, r, s.dimensionIndex)))]))
  const sorted = [...indexes].sort((x, y) => {
    const kx = keys.get(x)!
    const ky = keys.get(y)!
    for (let i = 0; i < specs.length; i++) {
      const a = kx[i]
      const c = ky[i]
      // Blanks sink to the bottom in both orders.
      if (!a || !c) {
        if (!a && !c) continue
        return !a ? 1 : -1
      }
      const cmp = compareValues(a, c)
      if (cmp !== 0) return specs[i]!.sortOrder === 'DESCENDING' ? -cmp : cmp
    }
    return x - y
  })
  if (whole) {
    const moved = sorted.map((r) => sheet.rows[r])
    if (sheet.rows.length < b.endRow) {
      const old = sheet.rows.length
      sheet.rows.length = b.endRow
      tx.undo.push(() => {
        sheet.rows.length = old
      })
    }
    splice(tx, sheet.rows, b.startRow, b.endRow - b.startRow, moved)
    return
  }
  const slices = sorted.map((r) => {
    const out: (CellData | undefined)[] = []
    for (let c = b.startColumn; c < b.endColumn; c++) out.push(getCell(sheet, r, c))
    return out
  })
  slices.forEach((slice, i) => {
    slice.forEach((cell, j) => setCell(tx, sheet, b.startRow + i, b.startColumn + j, cell))
  })
}

/** Where each row/column-located metadata id sits now (found by position, since it moves with rows). */
export interface MetadataLocation {
  locationType: 'SPREADSHEET' | 'SHEET' | 'ROW' | 'COLUMN'
  sheetId?: number
  index?: number
}

/** Finds every metadata's current location in one pass. */
export function locateMetadata(ss: SpreadsheetData): Map<number, MetadataLocation> {
  const out = new Map<number, MetadataLocation>()
  for (const id of ss.metadataIds) out.set(id, { locationType: 'SPREADSHEET' })
  for (const sheet of ss.sheets) {
    const sheetId = sheet.properties.sheetId
    for (const id of sheet.metadataIds) out.set(id, { locationType: 'SHEET', sheetId })
    sheet.rows.forEach((row, index) => {
      for (const id of row?.metadataIds ?? []) out.set(id, { locationType: 'ROW', sheetId, index })
    })
    sheet.columns.forEach((column, index) => {
      for (const id of column?.metadataIds ?? []) out.set(id, { locationType: 'COLUMN', sheetId, index })
    })
  }
  return out
}

// Positions of row and column objects, per list, rebuilt only when a lookup finds the list moved.
const positions = new WeakMap<readonly unknown[], Map<unknown, number>>()

function positionOf(list: readonly unknown[], item: unknown): number | undefined {
  let known = positions.get(list)
  const cached = known?.get(item)
  if (cached !== undefined && list[cached] === item) return cached
  known = new Map()
  for (let i = 0; i < list.length; i++) if (list[i] !== undefined) known.set(list[i], i)
  positions.set(list, known)
  return known.get(item)
}

/** Where one metadata id sits now; undefined when it does not exist. One lookup, not a scan of the spreadsheet. */
export function locateMetadataId(ss: SpreadsheetData, id: number): MetadataLocation | undefined {
  const holder = ss.metadataIndex.holders.get(id)
  if (!holder || !ss.metadata.has(id)) return undefined
  if (holder.locationType === 'SPREADSHEET') return { locationType: 'SPREADSHEET' }
  const sheetId = holder.sheet.properties.sheetId
  if (holder.locationType === 'SHEET') return { locationType: 'SHEET', sheetId }
  const index = positionOf(holder.locationType === 'ROW' ? holder.sheet.rows : holder.sheet.columns, holder.item)
  return index === undefined ? undefined : { locationType: holder.locationType, sheetId, index }
}

function keyValue(key: string, value: string | undefined): string {
  return `${key}\u0000${value ?? ''}`
}

function addTo(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key)
  if (set) set.add(id)
  else map.set(key, new Set([id]))
}

function removeFrom(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key)
  if (!set) return
  set.delete(id)
  if (set.size === 0) map.delete(key)
}

function index(ss: SpreadsheetData, record: DeveloperMetadataRecord): void {
  addTo(ss.metadataIndex.byKey, record.metadataKey, record.metadataId)
  addTo(ss.metadataIndex.byKeyValue, keyValue(record.metadataKey, record.metadataValue), record.metadataId)
}

function unindex(ss: SpreadsheetData, record: DeveloperMetadataRecord): void {
  removeFrom(ss.metadataIndex.byKey, record.metadataKey, record.metadataId)
  removeFrom(ss.metadataIndex.byKeyValue, keyValue(record.metadataKey, record.metadataValue), record.metadataId)
}

/** Ids that may match a lookup: by key and value, by key, or every id when the lookup names neither. */
export function metadataCandidates(ss: SpreadsheetData, key: string | undefined, value: string | undefined): Iterable<number> {
  if (key === undefined) return ss.metadata.keys()
  if (value !== undefined) return ss.metadataIndex.byKeyValue.get(keyValue(key, value)) ?? []
  return ss.metadataIndex.byKey.get(key) ?? []
}

/** Stores a new metadata record attached where `where` says (undoable). */
export function putMetadata(
  tx: Tx,
  ss: SpreadsheetData,
  record: DeveloperMetadataRecord,
  where:
    | { locationType: 'SPREADSHEET' }
    | { locationType: 'SHEET'; sheet: SheetData }
    | { locationType: 'ROW' | 'COLUMN'; sheet: SheetData; index: number },
): void {
  const id = record.metadataId
  let holder: MetadataHolder
  if (where.locationType === 'SPREADSHEET') {
    setKey(tx, ss, 'metadataIds', ss.metadataIds.concat(id))
    holder = where
  } else if (where.locationType === 'SHEET') {
    setKey(tx, where.sheet, 'metadataIds', where.sheet.metadataIds.concat(id))
    holder = where
  } else {
    const item = attachMetadata(tx, where.sheet, where.locationType === 'ROW' ? 'ROWS' : 'COLUMNS', where.index, id)
    holder =
      where.locationType === 'ROW'
        ? { locationType: 'ROW', sheet: where.sheet, item: item as RowData }
        : { locationType: 'COLUMN', sheet: where.sheet, item: item as ColumnData }
  }
  ss.metadata.set(id, record)
  ss.metadataIndex.holders.set(id, holder)
  index(ss, record)
  tx.undo.push(() => {
    unindex(ss, record)
    ss.metadata.delete(id)
    ss.metadataIndex.holders.delete(id)
  })
}

/** Deletes a metadata record and detaches it from its holder (undoable). */
export function dropMetadata(tx: Tx, ss: SpreadsheetData, id: number): void {
  const record = ss.metadata.get(id)
  const holder = ss.metadataIndex.holders.get(id)
  if (!record || !holder) return
  const owner: { metadataIds?: number[] } =
    holder.locationType === 'SPREADSHEET' ? ss : holder.locationType === 'SHEET' ? holder.sheet : holder.item
  if (owner.metadataIds?.includes(id))
    setKey(
      tx,
      owner,
      'metadataIds',
      owner.metadataIds.filter((x) => x !== id),
    )
  deleteMetadataRecord(tx, ss, id)
}

/** Replaces a record's key, value or visibility, keeping the index in step (undoable). */
export function replaceMetadata(tx: Tx, ss: SpreadsheetData, next: DeveloperMetadataRecord): void {
  const old = ss.metadata.get(next.metadataId)
  if (!old) return
  unindex(ss, old)
  ss.metadata.set(next.metadataId, next)
  index(ss, next)
  tx.undo.push(() => {
    unindex(ss, next)
    ss.metadata.set(old.metadataId, old)
    index(ss, old)
  })
}

/** Attaches a metadata id to row/column `index`, creating the row/column object if needed; returns that object. */
export function attachMetadata(tx: Tx, sheet: SheetData, dimension: Dimension, index: number, id: number): RowData | ColumnData {
  const list = dimension === 'ROWS' ? sheet.rows : sheet.columns
  let item: { metadataIds?: number[] } | undefined = list[index]
  if (!item) {
    item = dimension === 'ROWS' ? ({ cells: [] } as RowData) : ({} as ColumnData)
    if (index >= list.length) {
      const old = list.length
      ;(list as unknown[])[index] = item
      tx.undo.push(() => {
        list.length = old
      })
    } else setKey(tx, list as unknown[], index, item)
  }
  setKey(tx, item, 'metadataIds', (item.metadataIds ?? []).concat(id))
  return item as RowData | ColumnData
}

/** Sets row/column properties (hiddenByUser, pixelSize) for [start, end). */
export function setDimensionProps(
  tx: Tx,
  sheet: SheetData,
  dimension: Dimension,
  start: number,
  end: number,
  props: DimensionProps,
  fields: readonly string[],
): void {
  const list = dimension === 'ROWS' ? sheet.rows : sheet.columns
  for (let i = start; i < end; i++) {
    let item: { props?: DimensionProps } | undefined = list[i]
    if (!item) {
      item = dimension === 'ROWS' ? ({ cells: [] } as RowData) : ({} as ColumnData)
      if (i >= list.length) {
        const old = list.length
        ;(list as unknown[])[i] = item
        tx.undo.push(() => {
          list.length = old
        })
      } else setKey(tx, list as unknown[], i, item)
    }
    const next: DimensionProps = { ...(item.props ?? {}) }
    for (const f of fields) {
      const key = f as keyof DimensionProps
      if (props[key] === undefined) delete next[key]
      else (next as Record<string, unknown>)[key] = props[key]
    }
    setKey(tx, item, 'props', next)
  }
}

/** Validates a DimensionRange against the sheet; `what` names the request for the message. */
export function checkDimensionRange(start: unknown, end: unknown): { start: number; end: number } {
  if (typeof start !== 'number' || typeof end !== 'number')
    throw invalidArgument('DimensionRange must specify both startIndex and endIndex')
  if (start < 0 || end < 0) throw invalidArgument('DimensionRange indexes must be >= 0')
  if (end <= start) throw invalidArgument('DimensionRange endIndex must be greater than startIndex')
  return { start, end }
}
