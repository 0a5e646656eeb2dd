/**
 * The Summary tab as the Google layout draws it (decisions/0007-summary-tab.md): the core's cells
 * (`core/summary.ts`) written as formulas over the Activities tab into the Summary's own columns, their widths,
 * and a stacked column chart of hours per person per week under the tables. The chart's id is derived from the
 * tab's id, so a later layout finds the chart it drew and replaces it, and no other. Pure.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { SummarySpec } from '../../core/sheet.ts'
import { summaryCells, summaryShape, type SummaryCell } from '../../core/summary.ts'
import { TimelineSheetsError } from '../../errors.ts'
import { columnLetters } from './a1.ts'
import { newSheetId } from './layout-state.ts'

/**
 * The requests that lay out a Summary tab: its cells, widths and chart. `columns` holds the column positions of
 * every tab laid out in the same call (header names → 0-based index), where the Activities tab it sums must be.
 */
export function summaryLayoutRequests(
  title: string,
  spec: SummarySpec,
  sheetId: number,
  columns: ReadonlyMap<string, ReadonlyMap<string, number>>,
  chartIds: readonly number[],
): sheets_v4.Schema$Request[] {
  // The Activities tab, and with approvals the Approvals tab, are laid out in the same call.
  const columnOf = (name: string, tab: string) => {
    const index = columns.get(tab)?.get(name)
    if (index === undefined) {
      throw new TimelineSheetsError(
        'TS_SHEET_LAYOUT',
        `The ${title} tab sums column "${name}" of "${tab}", which is not laid out in the same call`,
        { hint: 'This is a bug in the tab specification: lay out the Activities tab together with its Summary.' },
      )
    }
    return columnLetters(index)
  }
  return summaryRequests(spec, sheetId, summaryCells(spec, columnOf), chartIds)
}

/** Rows a Summary needs: its tables, then room for the chart under them. */
export function summaryRowCount(spec: SummarySpec): number {
  return summaryShape(spec).groupsTotalRow + 2 + CHART_ROWS
}

const CHART_ROWS = 20

/** The id of the Summary's chart on a tab: derived, so a later layout finds and replaces its own chart only. */
export function summaryChartId(sheetId: number): number {
  return newSheetId(`timeline-sheets summary chart ${sheetId}`, new Set([sheetId]))
}

const HOURS_FORMAT: sheets_v4.Schema$NumberFormat = { type: 'NUMBER', pattern: '0.0' }
const WEEK_FORMAT: sheets_v4.Schema$NumberFormat = { type: 'DATE', pattern: 'yyyy-mm-dd' }

function summaryCellData(cell: SummaryCell | null): sheets_v4.Schema$CellData {
  if (cell === null) return {}
  const format: sheets_v4.Schema$CellFormat = {}
  if (cell.format === 'hours') format.numberFormat = HOURS_FORMAT
  if (cell.format === 'week') format.numberFormat = WEEK_FORMAT
  if (cell.bold) format.textFormat = { bold: true }
  if (cell.right) format.horizontalAlignment = 'RIGHT'
  return {
    ...(cell.formula !== undefined
      ? { userEnteredValue: { formulaValue: cell.formula } }
      : cell.text !== undefined
        ? { userEnteredValue: { stringValue: cell.text } }
        : {}),
    ...(Object.keys(format).length > 0 ? { userEnteredFormat: format } : {}),
  }
}

/**
 * The Summary written over its own columns (what was there before is cleared first, a manager's columns to the
 * right are not touched), its column widths, and a stacked column chart of hours per person per week under the
 * tables, replacing the chart an earlier layout drew.
 */
function summaryRequests(
  spec: SummarySpec,
  sheetId: number,
  cells: (SummaryCell | null)[][],
  chartIds: readonly number[],
): sheets_v4.Schema$Request[] {
  const shape = summaryShape(spec)
  const requests: sheets_v4.Schema$Request[] = [
    {
      updateCells: {
        range: { sheetId, startRowIndex: 0, startColumnIndex: 0, endColumnIndex: shape.width },
        fields: 'userEnteredValue,userEnteredFormat',
      },
    },
    {
      updateCells: {
        start: { sheetId, rowIndex: 0, columnIndex: 0 },
        rows: cells.map((row) => ({ values: row.map(summaryCellData) })),
        fields: 'userEnteredValue,userEnteredFormat',
      },
    },
    {
      updateDimensionProperties: {
        range: { sheetId, dimension: 'COLUMNS', startIndex: 0, endIndex: 1 },
        properties: { pixelSize: 240 },
        fields: 'pixelSize',
      },
    },
    {
      updateDimensionProperties: {
        range: { sheetId, dimension: 'COLUMNS', startIndex: 1, endIndex: shape.width },
        properties: { pixelSize: 90 },
        fields: 'pixelSize',
      },
    },
  ]
  const chartId = summaryChartId(sheetId)
  if (chartIds.includes(chartId)) requests.push({ deleteEmbeddedObject: { objectId: chartId } })
  // Row-wise data: the week dates of the header row are the domain, each person (and everyone else) a series,
  // the names in column A their headers.
  const rowRange = (row: number) => ({
    sheetId,
    startRowIndex: row - 1,
    endRowIndex: row,
    startColumnIndex: 0,
    endColumnIndex: spec.weeks + 1,
  })
  const seriesRows = Array.from({ length: shape.peopleTotalRow - shape.peopleRows[0] }, (_, i) => shape.peopleRows[0] + i)
  requests.push({
    addChart: {
      chart: {
        chartId,
        spec: {
          title: 'Hours per person per week',
          basicChart: {
            chartType: 'COLUMN',
            stackedType: 'STACKED',
            legendPosition: 'RIGHT_LEGEND',
            headerCount: 1,
            axis: [
              { position: 'BOTTOM_AXIS', title: 'Week starting' },
              { position: 'LEFT_AXIS', title: 'Hours' },
            ],
            domains: [{ domain: { sourceRange: { sources: [rowRange(shape.peopleHeaderRow)] } } }],
            series: seriesRows.map((row) => ({ series: { sourceRange: { sources: [rowRange(row)] } }, targetAxis: 'LEFT_AXIS' })),
          },
        },
        position: {
          overlayPosition: {
            anchorCell: { sheetId, rowIndex: shape.groupsTotalRow + 1, columnIndex: 0 },
            widthPixels: 760,
            heightPixels: 380,
          },
        },
      },
    },
  })
  return requests
}
