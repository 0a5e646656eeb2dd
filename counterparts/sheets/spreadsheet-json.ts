/**
 * The Spreadsheet resource as spreadsheets.get returns it (reference/sheets-api.md
 * §2): sheet properties, grid data per requested range with each cell's
 * effective value and format, row and column metadata, and developer metadata
 * at its current location. Output follows proto3 JSON: defaults omitted,
 * sheetId 0 left out of ranges, ids typed as Google types them.
 */
import { boundToGrid, formatOpenRange, type GridBounds } from './a1.ts'
import { effectiveValue, recalcOf } from './cells.ts'
import type { Recalc } from './formula-eval.ts'
import { exceedsGridLimits } from './google-errors.ts'
import { locateMetadata, type MetadataLocation } from './metadata-index.ts'
import { callerCanEdit, protectedRangeJson } from './protected-ranges.ts'
import type { Caller } from './protection-rules.ts'
import type { Json } from './request-support.ts'
import type { CellData, DeveloperMetadataRecord, SheetData, SpreadsheetData } from './sheet-data.ts'
import { resolveRange } from './sheet-lookup.ts'
import { formatValue } from './values.ts'

const DEFAULT_FORMAT = {
  backgroundColor: { red: 1, green: 1, blue: 1 },
  padding: { top: 2, right: 3, bottom: 2, left: 3 },
  verticalAlignment: 'BOTTOM',
  wrapStrategy: 'OVERFLOW_CELL',
  textFormat: {
    foregroundColor: {},
    fontFamily: 'arial,sans,sans-serif',
    fontSize: 10,
    bold: false,
    italic: false,
    strikethrough: false,
    underline: false,
    foregroundColorStyle: { rgbColor: {} },
  },
  backgroundColorStyle: { rgbColor: { red: 1, green: 1, blue: 1 } },
}

/** SheetProperties as JSON (hidden/frozen only when set). */
export function sheetPropertiesJson(sheet: SheetData): Json {
  const p = sheet.properties
  const grid: Json = { rowCount: p.gridProperties.rowCount, columnCount: p.gridProperties.columnCount }
  if (p.gridProperties.frozenRowCount) grid.frozenRowCount = p.gridProperties.frozenRowCount
  if (p.gridProperties.frozenColumnCount) grid.frozenColumnCount = p.gridProperties.frozenColumnCount
  if (p.gridProperties.hideGridlines) grid.hideGridlines = true
  const out: Json = { sheetId: p.sheetId, title: p.title, index: p.index, sheetType: p.sheetType, gridProperties: grid }
  if (p.hidden) out.hidden = true
  if (p.tabColorStyle !== undefined) out.tabColorStyle = p.tabColorStyle
  if (p.rightToLeft) out.rightToLeft = true
  return out
}

function locationJson(location: MetadataLocation): Json {
  if (location.locationType === 'SPREADSHEET') return { locationType: 'SPREADSHEET', spreadsheet: true }
  if (location.locationType === 'SHEET') return { locationType: 'SHEET', sheetId: location.sheetId }
  const range: Json = {}
  if (location.sheetId) range.sheetId = location.sheetId
  range.dimension = location.locationType === 'ROW' ? 'ROWS' : 'COLUMNS'
  range.startIndex = location.index
  range.endIndex = (location.index ?? 0) + 1
  return { locationType: location.locationType, dimensionRange: range }
}

/** DeveloperMetadata as JSON, with its current location. */
export function metadataJson(record: DeveloperMetadataRecord, location: MetadataLocation): Json {
  const out: Json = { metadataId: record.metadataId, metadataKey: record.metadataKey }
  if (record.metadataValue) out.metadataValue = record.metadataValue
  out.location = locationJson(location)
  out.visibility = record.visibility
  return out
}

function cellJson(recalc: Recalc, sheet: SheetData, r: number, c: number, cell: CellData): Json {
  const out: Json = {}
  // A formula without a number format of its own shows its result as Sheets infers (a date for TODAY()).
  const inferred =
    cell.userEnteredValue?.formulaValue !== undefined && !cell.userEnteredFormat?.numberFormat
      ? recalc.inferredFormat(cell.userEnteredValue, sheet)
      : undefined
  if (cell.userEnteredValue) {
    out.userEnteredValue = cell.userEnteredValue
    const effective = effectiveValue(recalc, sheet, r, c)
    if (effective && Object.keys(effective).length > 0) {
      out.effectiveValue = effective
      out.formattedValue = formatValue(effective, cell.userEnteredFormat?.numberFormat ?? inferred)
    }
  }
  if (cell.userEnteredFormat) {
    out.userEnteredFormat = cell.userEnteredFormat
    out.effectiveFormat = { ...DEFAULT_FORMAT, ...cell.userEnteredFormat, ...(inferred ? { numberFormat: inferred } : {}) }
  } else if (inferred) {
    out.effectiveFormat = { ...DEFAULT_FORMAT, numberFormat: inferred }
  }
  if (cell.note) out.note = cell.note
  if (cell.dataValidation) out.dataValidation = cell.dataValidation
  return out
}

function dimensionJson(
  item: { props?: { hiddenByUser?: boolean; pixelSize?: number }; metadataIds?: number[] } | undefined,
  defaultSize: number,
  ss: SpreadsheetData,
  locations: Map<number, MetadataLocation>,
): Json {
  const out: Json = {}
  if (item?.props?.hiddenByUser) out.hiddenByUser = true
  out.pixelSize = item?.props?.pixelSize ?? defaultSize
  const ids = item?.metadataIds ?? []
  if (ids.length > 0)
    out.developerMetadata = ids.flatMap((id) => {
      const record = ss.metadata.get(id)
      const location = locations.get(id)
      return record && location ? [metadataJson(record, location)] : []
    })
  return out
}

function gridDataJson(
  ss: SpreadsheetData,
  sheet: SheetData,
  b: GridBounds,
  locations: Map<number, MetadataLocation>,
  recalc: Recalc,
): Json {
  const out: Json = {}
  if (b.startRow) out.startRow = b.startRow
  if (b.startColumn) out.startColumn = b.startColumn
  const rowData: Json[] = []
  let lastRow = -1
  for (let r = b.startRow; r < Math.min(b.endRow, sheet.rows.length); r++) {
    const row = sheet.rows[r]
    const values: Json[] = []
    let last = -1
    for (let c = b.startColumn; c < Math.min(b.endColumn, row?.cells.length ?? 0); c++) {
      const cell = row?.cells[c]
      const json = cell ? cellJson(recalc, sheet, r, c, cell) : {}
      values.push(json)
      if (Object.keys(json).length > 0) last = values.length - 1
    }
    values.length = last + 1
    rowData.push(values.length > 0 ? { values } : {})
    if (values.length > 0) lastRow = rowData.length - 1
  }
  rowData.length = lastRow + 1
  if (rowData.length > 0) out.rowData = rowData
  const rowMetadata: Json[] = []
  for (let r = b.startRow; r < b.endRow; r++) rowMetadata.push(dimensionJson(sheet.rows[r], 21, ss, locations))
  const columnMetadata: Json[] = []
  for (let c = b.startColumn; c < b.endColumn; c++) columnMetadata.push(dimensionJson(sheet.columns[c], 100, ss, locations))
  out.rowMetadata = rowMetadata
  out.columnMetadata = columnMetadata
  return out
}

/** The Spreadsheet resource (§2.1); grid data per requested range when asked. */
export function spreadsheetJson(
  ss: SpreadsheetData,
  options: {
    ranges?: string[]
    includeGridData?: boolean
    /** Who asks: what it may edit of the protected ranges shows. @default the owner */
    caller?: Caller
    /** The caller only views the file, so it may edit no protected range. */
    viewer?: boolean
  } = {},
): Json {
  const locations = locateMetadata(ss)
  const recalc = recalcOf(ss)
  const perSheet = new Map<SheetData, GridBounds[]>()
  for (const range of options.ranges ?? []) {
    const resolved = resolveRange(ss, range)
    const { rowCount, columnCount } = resolved.sheet.properties.gridProperties
    if (resolved.bounds && (resolved.bounds.startRow ?? 0) >= rowCount) {
      throw exceedsGridLimits(formatOpenRange(resolved.sheet.properties.title, resolved.bounds), rowCount, columnCount)
    }
    const list = perSheet.get(resolved.sheet) ?? []
    list.push(boundToGrid(resolved.bounds, rowCount, columnCount))
    perSheet.set(resolved.sheet, list)
  }
  const selected = options.ranges && options.ranges.length > 0 ? ss.sheets.filter((s) => perSheet.has(s)) : ss.sheets
  const sheets = selected.map((sheet) => {
    const out: Json = { properties: sheetPropertiesJson(sheet) }
    if (options.includeGridData) {
      const blocks = perSheet.get(sheet) ?? [
        boundToGrid(undefined, sheet.properties.gridProperties.rowCount, sheet.properties.gridProperties.columnCount),
      ]
      out.data = blocks.map((b) => gridDataJson(ss, sheet, b, locations, recalc))
    }
    // Keys in the order of the Sheet message, as Google writes them.
    if (sheet.merges.length > 0) out.merges = sheet.merges
    if (sheet.conditionalFormats.length > 0) out.conditionalFormats = sheet.conditionalFormats
    if (sheet.protectedRanges.length > 0)
      out.protectedRanges = sheet.protectedRanges.map((p) =>
        protectedRangeJson(p, callerCanEdit(ss, p, options.caller, options.viewer === true)),
      )
    if (sheet.basicFilter) out.basicFilter = sheet.basicFilter
    if (sheet.charts.length > 0) out.charts = sheet.charts
    const sheetMeta = sheet.metadataIds.flatMap((id) =>
      ss.metadata.has(id) ? [metadataJson(ss.metadata.get(id)!, locations.get(id)!)] : [],
    )
    if (sheetMeta.length > 0) out.developerMetadata = sheetMeta
    return out
  })
  const out: Json = {
    spreadsheetId: ss.spreadsheetId,
    properties: {
      title: ss.properties.title,
      locale: ss.properties.locale,
      autoRecalc: ss.properties.autoRecalc,
      timeZone: ss.properties.timeZone,
      defaultFormat: DEFAULT_FORMAT,
    },
    sheets,
  }
  const topMeta = ss.metadataIds.flatMap((id) => (ss.metadata.has(id) ? [metadataJson(ss.metadata.get(id)!, locations.get(id)!)] : []))
  if (topMeta.length > 0) out.developerMetadata = topMeta
  out.spreadsheetUrl = `https://docs.google.com/spreadsheets/d/${ss.spreadsheetId}/edit`
  return out
}
