/**
 * Row and column operations on the model: inserting, deleting and resizing
 * rows and columns, their properties, and the cell limit a grown grid must
 * stay under. Row and column properties and row/column developer metadata
 * live on the row/column object, so they move with it; merges, protected
 * ranges, rules, filters and charts are shifted here to follow the cells.
 */
import { MAX_COLUMNS } from './a1.ts'
import { cellLimit, invalidArgument } from './google-errors.ts'
import { deleteMetadataRecord } from './metadata-index.ts'
import type { CellData, ColumnData, DimensionProps, EmbeddedChart, GridRange, RowData, SheetData, SpreadsheetData } from './sheet-data.ts'
import type { Dimension } from './sheet-lookup.ts'
import { setKey, splice, type Tx } from './tx.ts'

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
  tx.guard?.insert(sheet, dimension, start)
  const grid = sheet.properties.gridProperties
  const from = inheritFromBefore ? start - 1 : start
  const formatOf = (c: CellData | undefined): CellData | undefined =>
    c?.userEnteredFormat ? { userEnteredFormat: c.userEnteredFormat } : undefined
  if (dimension === 'ROWS') {
    const source = sheet.rows[from]
    const inherit = (): RowData | undefined => {
      const formats = source?.cells.map(formatOf)
      if (!formats || !formats.some(Boolean)) return undefined
      const row = { cells: formats }
      // Undoing the insertion drops the row, so writes into it need no undo of their own.
      tx.created.add(row)
      return row
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
  tx.guard?.remove(sheet, dimension, start, end)
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
  else if (rowCount > grid.rowCount) {
    tx.guard?.insert(sheet, 'ROWS', grid.rowCount)
    setKey(tx, sheet.properties, 'gridProperties', { ...sheet.properties.gridProperties, rowCount })
  }
  assertCellLimit(ss, cellLimitValue)
  const now = sheet.properties.gridProperties
  if (columnCount < now.columnCount) deleteDimension(tx, ss, sheet, 'COLUMNS', columnCount, now.columnCount)
  else if (columnCount > now.columnCount) {
    tx.guard?.insert(sheet, 'COLUMNS', now.columnCount)
    setKey(tx, sheet.properties, 'gridProperties', { ...sheet.properties.gridProperties, columnCount })
  }
  assertCellLimit(ss, cellLimitValue)
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
