/**
 * The values methods that address cells through DataFilters instead of A1
 * ranges: values.batchGetByDataFilter and values.batchUpdateByDataFilter
 * (README "Data filters"; Google's REST reference). A filter is an A1 range,
 * a GridRange, or a developer-metadata lookup; a lookup selects the rows,
 * columns or sheets its metadata sits on, wherever they have moved.
 */
import { columnLetters, formatRange, type GridBounds } from './a1.ts'
import { badRequest, invalidArgument } from './google-errors.ts'
import { recalcOf } from './cells.ts'
import { locateMetadataId } from './metadata-index.ts'
import type { GridRange, SheetData, SpreadsheetData } from './sheet-data.ts'
import { resolveRange, sheetById } from './sheet-lookup.ts'
import type { Tx } from './tx.ts'
import { gridBoundsOf } from './request-support.ts'
import { filterMetadata } from './developer-metadata.ts'
import {
  batchTotals,
  boundedOf,
  checkValues,
  majorDimensionOf,
  type ResponseOptions,
  rowMajor,
  type UpdateResult,
  valueRangeOf,
  withPrefix,
  writeBlock,
} from './values-ops.ts'
import type { RenderOptions, ValueInputOption } from './values.ts'

type Json = Record<string, unknown>

/** One block of one sheet that a filter selected. */
export interface MatchedRange {
  sheet: SheetData
  bounds: GridBounds
}

const FILTER_KINDS = ['a1Range', 'gridRange', 'developerMetadataLookup'] as const

/**
 * The ranges one DataFilter selects. A row's metadata selects that row across
 * the whole grid, a column's that column, a sheet's the whole sheet;
 * spreadsheet-level metadata selects no cells. In sheet order, then top to bottom.
 */
export function rangesOfFilter(ss: SpreadsheetData, filter: unknown, field: string): MatchedRange[] {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) {
    const description = `Invalid value at '${field}' (type.googleapis.com/google.apps.sheets.v4.DataFilter), ${JSON.stringify(filter)}`
    throw badRequest(description, field, description)
  }
  const json = filter as Json
  const kinds = FILTER_KINDS.filter((kind) => json[kind] !== undefined && json[kind] !== null)
  if (kinds.length > 1) {
    const description = `Invalid JSON payload received. Oneof field 'filter' is already set. Cannot set '${kinds[1]}'`
    throw badRequest(description, field, description)
  }
  if (kinds.length === 0) throw invalidArgument('A data filter must specify an a1Range, a gridRange or a developerMetadataLookup.')
  if (typeof json.a1Range === 'string') {
    const resolved = resolveRange(ss, json.a1Range)
    return [{ sheet: resolved.sheet, bounds: boundedOf(resolved) }]
  }
  if (json.gridRange !== undefined) {
    const { sheet, bounds } = gridBoundsOf(ss, json.gridRange as GridRange)
    return [{ sheet, bounds }]
  }
  const out: MatchedRange[] = []
  for (const id of filterMetadata(ss, { developerMetadataLookup: json.developerMetadataLookup })) {
    const location = locateMetadataId(ss, id)
    if (!location || location.locationType === 'SPREADSHEET') continue
    const sheet = sheetById(ss, location.sheetId ?? 0)
    if (!sheet) continue
    const { rowCount, columnCount } = sheet.properties.gridProperties
    const index = location.index ?? 0
    const bounds =
      location.locationType === 'ROW'
        ? { startRow: index, endRow: index + 1, startColumn: 0, endColumn: columnCount }
        : location.locationType === 'COLUMN'
          ? { startRow: 0, endRow: rowCount, startColumn: index, endColumn: index + 1 }
          : { startRow: 0, endRow: rowCount, startColumn: 0, endColumn: columnCount }
    out.push({ sheet, bounds })
  }
  const order = new Map(ss.sheets.map((s, i) => [s, i]))
  return out.sort(
    (a, b) =>
      order.get(a.sheet)! - order.get(b.sheet)! || a.bounds.startRow - b.bounds.startRow || a.bounds.startColumn - b.bounds.startColumn,
  )
}

function filtersOf(body: Json, field: string): unknown[] {
  const filters = body[field] ?? []
  if (!Array.isArray(filters)) {
    const description = `Invalid value at '${field === 'dataFilters' ? 'data_filters' : field}' (type.googleapis.com/google.apps.sheets.v4.DataFilter), ${JSON.stringify(filters)}`
    throw badRequest(description, field, description)
  }
  return filters
}

/**
 * values.batchGetByDataFilter: every range any filter selects, once, with
 * the filters that selected it, in the order of the first filter that did.
 * A filter that selects nothing adds nothing; `valueRanges` is absent when
 * nothing matched.
 */
export function batchGetByDataFilter(ss: SpreadsheetData, body: Json, render: RenderOptions): Json {
  const major = majorDimensionOf(body.majorDimension)
  const groups = new Map<string, { range: MatchedRange; filters: unknown[] }>()
  filtersOf(body, 'dataFilters').forEach((filter, i) => {
    const ranges = withPrefix(`Invalid dataFilters[${i}]: `, () => rangesOfFilter(ss, filter, `data_filters[${i}]`))
    for (const range of ranges) {
      const key = `${range.sheet.properties.sheetId}:${range.bounds.startRow}:${range.bounds.endRow}:${range.bounds.startColumn}:${range.bounds.endColumn}`
      const group = groups.get(key)
      if (group) group.filters.push(filter)
      else groups.set(key, { range, filters: [filter] })
    }
  })
  const out: Json = { spreadsheetId: ss.spreadsheetId }
  if (groups.size > 0) {
    const recalc = recalcOf(ss)
    out.valueRanges = [...groups.values()].map(({ range, filters }) => ({
      valueRange: valueRangeOf(ss, range.sheet, range.bounds, major, render, recalc),
      dataFilters: filters,
    }))
  }
  return out
}

/**
 * values.batchUpdateByDataFilter: each item's values go to every range its
 * filter selects, from that range's top-left cell; values larger than a
 * selected range fail the whole request, smaller ones leave the rest of the
 * range as it is, `null` leaves a cell as it is. One response per range
 * written; an item whose filter selects nothing writes nothing. Totals count
 * distinct rows, columns and sheets, as Google defines them.
 */
export function batchUpdateByDataFilter(
  tx: Tx,
  ss: SpreadsheetData,
  body: Json,
  option: ValueInputOption,
  response: ResponseOptions,
  emptyFilter: 'no-op' | 'refused' = 'no-op',
): Json {
  const data = body.data ?? []
  if (!Array.isArray(data)) {
    const description = `Invalid value at 'data' (type.googleapis.com/google.apps.sheets.v4.DataFilterValueRange), ${JSON.stringify(data)}`
    throw badRequest(description, 'data', description)
  }
  const written: { range: MatchedRange; filter: unknown; result: Json }[] = []
  const results: UpdateResult[] = []
  data.forEach((item: Json, i) =>
    withPrefix(`Invalid data[${i}]: `, () => {
      const values = rowMajor(
        checkValues(item?.values, `data[${i}].values`),
        majorDimensionOf(item?.majorDimension, `data[${i}].major_dimension`),
      )
      const ranges = rangesOfFilter(ss, item?.dataFilter, `data[${i}].data_filter`)
      if (ranges.length === 0 && emptyFilter === 'refused') throw invalidArgument('No range matches the data filter.')
      for (const range of ranges) {
        const { sheet, bounds } = range
        const where = formatRange(sheet.properties.title, bounds)
        values.forEach((line, r) => {
          if (bounds.startRow + r >= bounds.endRow)
            throw invalidArgument(`Requested writing within range [${where}], but tried writing to row [${bounds.endRow + 1}]`)
          if (bounds.startColumn + line.length > bounds.endColumn)
            throw invalidArgument(
              `Requested writing within range [${where}], but tried writing to column [${columnLetters(bounds.endColumn)}]`,
            )
        })
        if (values.length === 0) continue
        const result = writeBlock(tx, ss, sheet, bounds.startRow, bounds.startColumn, values, option, undefined)
        results.push(result)
        const json: Json = { updatedRange: result.updatedRange }
        if (result.updatedRows) json.updatedRows = result.updatedRows
        if (result.updatedColumns) json.updatedColumns = result.updatedColumns
        if (result.updatedCells) json.updatedCells = result.updatedCells
        json.dataFilter = item.dataFilter
        written.push({ range, filter: item.dataFilter, result: json })
      }
    }),
  )
  const out: Json = { spreadsheetId: ss.spreadsheetId, ...batchTotals(results) }
  if (written.length > 0) {
    // updatedData shows each selected range after every item was applied.
    const recalc = recalcOf(ss)
    out.responses = written.map(({ range, result }) =>
      response.include ? { ...result, updatedData: valueRangeOf(ss, range.sheet, range.bounds, 'ROWS', response.render, recalc) } : result,
    )
  }
  return out
}
