/**
 * addChart, updateChartSpec and deleteEmbeddedObject for charts overlaid on a
 * grid, as the Request and EmbeddedChart schemas describe them (reference/sheets-api.md
 * §6.2: addChart replies with the chart). Google's echo of a spec adds defaults
 * no public recording shows, so the fake echoes the spec as sent, ranges in
 * proto3 form [I]. Charts on their own sheet (`newSheet`, `position.sheetId`)
 * are not implemented.
 */
import { formatOpenRange } from './a1.ts'
import { exceedsGridLimits, invalidArgument } from './google-errors.ts'
import type { EmbeddedChart, GridCoordinate, GridRange, SheetData, SpreadsheetData } from './sheet-data.ts'
import { setKey } from './tx.ts'
import { type Applier, gridBoundsOf, type Json, sheetOrThrow } from './request-support.ts'

/** OverlayPosition's documented defaults. */
const DEFAULT_WIDTH = 600
const DEFAULT_HEIGHT = 371

/** Every chart of the spreadsheet with the sheet it is drawn on. */
function findChart(ss: SpreadsheetData, chartId: unknown): { sheet: SheetData; index: number } | undefined {
  for (const sheet of ss.sheets) {
    const index = sheet.charts.findIndex((c) => c.chartId === chartId)
    if (index >= 0) return { sheet, index }
  }
  return undefined
}

/** A GridRange as Google echoes it: sheetId 0 and absent indexes left out. */
function echoRange(range: GridRange): GridRange {
  const { sheetId, ...rest } = range
  return sheetId ? { sheetId, ...rest } : rest
}

function checkedRange(ss: SpreadsheetData, range: GridRange): GridRange {
  gridBoundsOf(ss, range)
  return echoRange(range)
}

/**
 * Checks and echoes the data ranges of a spec (every `sources` list of a
 * ChartSourceRange): an unknown sheet is `No grid with id`, a start past the
 * grid the grid-limits error, as for any GridRange in a request [I].
 */
function checkedSpec(ss: SpreadsheetData, spec: unknown, field: string): Json {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw invalidArgument(`${field} must be set.`)
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk)
    if (value === null || typeof value !== 'object') return value
    const out: Json = {}
    for (const [key, v] of Object.entries(value)) {
      out[key] = key === 'sources' && Array.isArray(v) ? v.map((r: GridRange) => checkedRange(ss, r)) : walk(v)
    }
    return out
  }
  return walk(spec) as Json
}

function overlayOf(ss: SpreadsheetData, position: Json | undefined): EmbeddedChart['position'] {
  if (!position?.overlayPosition)
    throw invalidArgument('This request is not implemented by the Sheets fake: charts on their own sheet (newSheet or position.sheetId).')
  const overlay = position.overlayPosition as Json
  const anchor = (overlay.anchorCell ?? {}) as GridCoordinate
  const sheet = sheetOrThrow(ss, anchor.sheetId, 'grid')
  const { rowCount, columnCount } = sheet.properties.gridProperties
  const row = anchor.rowIndex ?? 0
  const column = anchor.columnIndex ?? 0
  if (row >= rowCount || column >= columnCount) {
    throw exceedsGridLimits(
      formatOpenRange(sheet.properties.title, {
        startRow: row,
        endRow: row + 1,
        startColumn: column,
        endColumn: column + 1,
      }),
      rowCount,
      columnCount,
    )
  }
  const anchorCell: GridCoordinate = {}
  if (sheet.properties.sheetId !== 0) anchorCell.sheetId = sheet.properties.sheetId
  if (row > 0) anchorCell.rowIndex = row
  if (column > 0) anchorCell.columnIndex = column
  const positive = (v: unknown, fallback: number) => (typeof v === 'number' && v > 0 ? v : fallback)
  // Keys in the order of the OverlayPosition message; zero offsets left out.
  return {
    overlayPosition: {
      anchorCell,
      ...(typeof overlay.offsetXPixels === 'number' && overlay.offsetXPixels !== 0 ? { offsetXPixels: overlay.offsetXPixels } : {}),
      ...(typeof overlay.offsetYPixels === 'number' && overlay.offsetYPixels !== 0 ? { offsetYPixels: overlay.offsetYPixels } : {}),
      widthPixels: positive(overlay.widthPixels, DEFAULT_WIDTH),
      heightPixels: positive(overlay.heightPixels, DEFAULT_HEIGHT),
    },
  }
}

function sheetOfAnchor(ss: SpreadsheetData, position: EmbeddedChart['position']): SheetData {
  return sheetOrThrow(ss, position.overlayPosition.anchorCell.sheetId ?? 0, 'grid')
}

export const chartAppliers: Record<string, Applier> = {
  addChart(ctx, body) {
    const spec = (body.chart ?? {}) as Json
    let chartId = spec.chartId as number | undefined
    // "It is an error to specify the ID of an embedded object that already exists" (AddChartRequest); the wording is [I].
    if (chartId !== undefined && findChart(ctx.ss, chartId)) throw invalidArgument(`An embedded object with id ${chartId} already exists.`)
    if (chartId === undefined) {
      do chartId = ctx.store.randomId()
      while (chartId === 0 || findChart(ctx.ss, chartId))
    }
    const chart: EmbeddedChart = {
      chartId,
      spec: checkedSpec(ctx.ss, spec.spec, 'chart.spec'),
      position: overlayOf(ctx.ss, spec.position as Json | undefined),
    }
    if (spec.border !== undefined) chart.border = spec.border
    const sheet = sheetOfAnchor(ctx.ss, chart.position)
    setKey(ctx.tx, sheet, 'charts', [...sheet.charts, chart])
    return { addChart: { chart } }
  },
  updateChartSpec(ctx, body) {
    const found = findChart(ctx.ss, body.chartId)
    // Wording by analogy with "No sheet with id" and "No protected range with id" [I].
    if (!found) throw invalidArgument(`No chart with id: ${String(body.chartId)}`)
    const spec = checkedSpec(ctx.ss, body.spec, 'spec')
    setKey(
      ctx.tx,
      found.sheet,
      'charts',
      found.sheet.charts.map((c, i) => (i === found.index ? { ...c, spec } : c)),
    )
    return undefined
  },
  deleteEmbeddedObject(ctx, body) {
    const found = findChart(ctx.ss, body.objectId)
    if (!found) throw invalidArgument(`No embedded object with id: ${String(body.objectId)}`)
    setKey(
      ctx.tx,
      found.sheet,
      'charts',
      found.sheet.charts.filter((_, i) => i !== found.index),
    )
    return undefined
  },
}
