/**
 * What the layout sets on one column of a tab: the format of its data rows (number format, wrap), its data
 * validation, its width and whether it is hidden, as `spreadsheets.batchUpdate` requests; and the same cell
 * format as the column's `RowFormats` entry, so rows the tool adds later look like the rows above them. Pure.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { ColumnSpec } from '../port.ts'
import { numberFormatFor, validationFor, type ColumnCellFormat } from './column-formats.ts'

/** Where a column sits: the title and sheet id of its tab, and its 0-based index there. */
export interface ColumnPlace {
  tab: string
  sheetId: number
  index: number
}

/** One column's part of the layout. */
export interface ColumnLayout {
  /** In the order they are sent: format, validation, then width and visibility. */
  requests: sheets_v4.Schema$Request[]
  /** What its data rows carry, as rows the tool adds later get it. */
  cellFormat: ColumnCellFormat
}

/**
 * The layout of one column. `columns` holds the column positions of every tab laid out in the same call (a
 * dropdown lists another tab's column); a column that shows its zone shows `timeZone`.
 */
export function columnLayout(
  column: ColumnSpec,
  place: ColumnPlace,
  columns: ReadonlyMap<string, ReadonlyMap<string, number>>,
  timeZone: string,
): ColumnLayout {
  const dataRows = { sheetId: place.sheetId, startRowIndex: 1, startColumnIndex: place.index, endColumnIndex: place.index + 1 }
  const format = userEnteredFormat(column, timeZone)
  const rule = validationFor(column, place.tab, columns)
  const requests = [
    formatRequest(format, dataRows),
    rule ? { setDataValidation: { range: dataRows, rule } } : undefined,
    dimensionRequest(column, place, timeZone),
  ].filter((r): r is sheets_v4.Schema$Request => r !== undefined)
  return { requests, cellFormat: { ...format, ...(rule ? { dataValidation: rule } : {}) } }
}

/** The part of a column's cell format that is its `userEnteredFormat`: the number format of its kind, and wrap. */
function userEnteredFormat(column: ColumnSpec, timeZone: string): Pick<ColumnCellFormat, 'numberFormat' | 'wrapStrategy'> {
  const numberFormat = numberFormatFor(column.kind, column.showZone ? timeZone : undefined)
  return { ...(numberFormat ? { numberFormat } : {}), ...(column.wrap ? { wrapStrategy: 'WRAP' as const } : {}) }
}

/** Sets `format` on the data rows, naming only the fields it has (a checkbox column has none unless it wraps). */
function formatRequest(
  format: Pick<ColumnCellFormat, 'numberFormat' | 'wrapStrategy'>,
  dataRows: sheets_v4.Schema$GridRange,
): sheets_v4.Schema$Request | undefined {
  const fields = Object.keys(format).map((field) => `userEnteredFormat.${field}`)
  if (fields.length === 0) return undefined
  return { repeatCell: { range: dataRows, cell: { userEnteredFormat: format }, fields: fields.join(',') } }
}

/** The column's width and visibility, when its spec sets either. */
function dimensionRequest(column: ColumnSpec, place: ColumnPlace, timeZone: string): sheets_v4.Schema$Request | undefined {
  const properties: sheets_v4.Schema$DimensionProperties = {}
  if (column.hidden) properties.hiddenByUser = true
  // Room for the zone name the number format adds (about 7 px a character).
  if (column.width !== undefined) properties.pixelSize = column.width + (column.showZone ? 7 * (timeZone.length + 1) : 0)
  const fields = Object.keys(properties)
  if (fields.length === 0) return undefined
  return {
    updateDimensionProperties: {
      range: { sheetId: place.sheetId, dimension: 'COLUMNS', startIndex: place.index, endIndex: place.index + 1 },
      properties,
      fields: fields.join(','),
    },
  }
}
