/**
 * spreadsheets.get / create / batchUpdate and developerMetadata.search over
 * the model (reference/sheets-api.md §2, §6). Output follows proto3 JSON:
 * defaults omitted, sheetId 0 left out of ranges, ids typed as Google types them.
 */
import { boundToGrid, formatOpenRange, type GridBounds } from './a1.ts'
import type { Recalc } from './formula-eval.ts'
import { badRequest, exceedsGridLimits, invalidArgument, SheetsApiError } from './google-errors.ts'
import { effectiveValue, getCell, recalcOf, setCell } from './cells.ts'
import { assertCellLimit, checkDimensionRange, deleteDimension, insertDimension, resizeGrid, setDimensionProps } from './grid-shape.ts'
import {
  locateMetadata,
  locateMetadataId,
  metadataCandidates,
  dropMetadata,
  putMetadata,
  replaceMetadata,
  type MetadataLocation,
} from './metadata-index.ts'
import type { CellData, DeveloperMetadataRecord, GridRange, SheetData, SpreadsheetData } from './sheet-data.ts'
import { boundsOfGridRange, gridRangeOf, resolveRange, sheetById } from './sheet-lookup.ts'
import { type SortSpec, sortRows } from './sort-rows.ts'
import { beginTx, commitTx, rollback, setKey, splice } from './tx.ts'
import { type Applier, type Ctx, dimensionOf, gridBoundsOf, type Json, requireFields, sheetOrThrow } from './request-support.ts'
import { basicFilterAppliers } from './basic-filter.ts'
import { chartAppliers } from './charts.ts'
import { conditionalFormatAppliers } from './conditional-formats.ts'
import { mergeAppliers } from './merges.ts'
import { metadataUsage, overBudget, overBudgetMessage } from './metadata-budget.ts'
import { newSheet, type SheetsStore } from './store.ts'
import { formatValue, MAX_CELL_CHARS, NUMBER_FORMAT_TYPES } from './values.ts'

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
export function spreadsheetJson(ss: SpreadsheetData, options: { ranges?: string[]; includeGridData?: boolean } = {}): Json {
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
    if (sheet.protectedRanges.length > 0) out.protectedRanges = sheet.protectedRanges.map((p) => protectedRangeJson(p))
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

function protectedRangeJson(p: SheetData['protectedRanges'][number]): Json {
  const out: Json = { protectedRangeId: p.protectedRangeId, range: p.range }
  if (p.description) out.description = p.description
  if (p.warningOnly) out.warningOnly = true
  out.requestingUserCanEdit = true
  if (p.editors !== undefined) out.editors = p.editors
  return out
}

// ------------------------------------------------------------- batchUpdate

/** Every request name of the Request union, so unknown names and unimplemented ones differ. */
const KNOWN_REQUESTS = new Set([
  'updateSpreadsheetProperties',
  'updateSheetProperties',
  'updateDimensionProperties',
  'updateNamedRange',
  'repeatCell',
  'addNamedRange',
  'deleteNamedRange',
  'addSheet',
  'deleteSheet',
  'autoFill',
  'cutPaste',
  'copyPaste',
  'mergeCells',
  'unmergeCells',
  'updateBorders',
  'updateCells',
  'addFilterView',
  'appendCells',
  'clearBasicFilter',
  'deleteDimension',
  'deleteEmbeddedObject',
  'deleteFilterView',
  'duplicateFilterView',
  'duplicateSheet',
  'findReplace',
  'insertDimension',
  'insertRange',
  'moveDimension',
  'updateEmbeddedObjectPosition',
  'pasteData',
  'textToColumns',
  'updateFilterView',
  'deleteRange',
  'appendDimension',
  'addConditionalFormatRule',
  'updateConditionalFormatRule',
  'deleteConditionalFormatRule',
  'sortRange',
  'setDataValidation',
  'setBasicFilter',
  'addProtectedRange',
  'updateProtectedRange',
  'deleteProtectedRange',
  'autoResizeDimensions',
  'addChart',
  'updateChartSpec',
  'updateBanding',
  'addBanding',
  'deleteBanding',
  'createDeveloperMetadata',
  'updateDeveloperMetadata',
  'deleteDeveloperMetadata',
  'randomizeRange',
  'addDimensionGroup',
  'deleteDimensionGroup',
  'updateDimensionGroup',
  'trimWhitespace',
  'deleteDuplicates',
  'updateEmbeddedObjectBorder',
  'addSlicer',
  'updateSlicerSpec',
  'addDataSource',
  'updateDataSource',
  'deleteDataSource',
  'refreshDataSource',
  'cancelDataSourceRefresh',
  'addTable',
  'updateTable',
  'deleteTable',
])

function getPath(obj: unknown, path: readonly string[]): unknown {
  let v = obj
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Json)[key]
  }
  return v
}

/** Per top-level cell field, what an old value became under one request's mask and source. */
type MaskMemo = Map<string, Map<unknown, unknown>>

/** A field mask split once per request (a request applies it to every cell of its range). */
interface CellMask {
  all: boolean
  byTop: Map<string, string[][]>
  /** The one field when the mask is a single top-level field. */
  whole: string | undefined
}

function compileMask(paths: readonly string[]): CellMask {
  const byTop = new Map<string, string[][]>()
  for (const path of paths) {
    const keys = path.split('.')
    const list = byTop.get(keys[0]!) ?? []
    list.push(keys)
    byTop.set(keys[0]!, list)
  }
  const only = byTop.size === 1 ? [...byTop.values()][0]! : undefined
  const whole = only?.length === 1 && only[0]!.length === 1 ? only[0]![0] : undefined
  return { all: paths.includes('*'), byTop, whole }
}

const VALIDATION_MASK = compileMask(['dataValidation'])

/**
 * Copies the masked paths from `source` into a copy of `target` (absent in
 * source = cleared). Stored cells are replaced, never changed in place, so the
 * parts off the masked paths are shared, not cloned, and each object on a path
 * is copied before it changes. With a memo (one request applying one source to
 * many cells, as repeatCell does), cells that held the same object get the same
 * new one: a format over 100,000 rows costs one object per distinct old format.
 */
function mergeMasked<T extends object>(target: T, source: unknown, mask: CellMask, memo?: MaskMemo): T {
  if (mask.all) return { ...((source ?? {}) as object) } as T
  const out: Json = { ...(target as Json) }
  if (mask.whole !== undefined) {
    // One whole top-level field (`userEnteredValue` of a value write): the source's, shared, or none.
    const value = source !== null && typeof source === 'object' ? (source as Json)[mask.whole] : undefined
    if (value === undefined) delete out[mask.whole]
    else out[mask.whole] = value
    return out as T
  }
  for (const [top, list] of mask.byTop) {
    const old = out[top]
    const known = memo?.get(top)
    let value: unknown
    if (known?.has(old)) value = known.get(old)
    else {
      const holder: Json = { [top]: old }
      for (const keys of list) setPath(holder, keys, getPath(source, keys))
      value = holder[top]
      if (memo) memo.set(top, (known ?? new Map()).set(old, value))
    }
    if (value === undefined) delete out[top]
    else out[top] = value
  }
  return out as T
}

/** Sets (or, for undefined, clears) one path of `root`, copying every object on the way before it changes. */
function setPath(root: Json, keys: readonly string[], value: unknown): void {
  let node = root
  for (const key of keys.slice(0, -1)) {
    const next: unknown = node[key]
    if (next === null || typeof next !== 'object') {
      if (value === undefined) return
      node[key] = {}
    } else {
      node[key] = { ...(next as Json) }
    }
    node = node[key] as Json
  }
  const last = keys[keys.length - 1]!
  if (value === undefined) delete node[last]
  else node[last] = value
}

function checkNumberFormatType(cell: unknown, index: number, requestPath: string): void {
  const type = getPath(cell, ['userEnteredFormat', 'numberFormat', 'type'])
  if (type !== undefined && !(NUMBER_FORMAT_TYPES as readonly unknown[]).includes(type)) {
    const field = `requests[${index}].${requestPath}.user_entered_format.number_format.type`
    const description = `Invalid value at '${field}' (type.googleapis.com/google.apps.sheets.v4.NumberFormat.Type), "${String(type)}"`
    throw badRequest(description, field, description)
  }
}

function applyCellMask(ctx: Ctx, sheet: SheetData, r: number, c: number, source: unknown, mask: CellMask, memo?: MaskMemo): void {
  checkCellChars(source)
  const old = getCell(sheet, r, c) ?? {}
  const next = mergeMasked(old, source, mask, memo) as CellData & Json
  // A stored cell holds no empty field (this is the only way cells are stored), so only the fields the mask
  // wrote can be empty: checking those alone keeps a 100,000-row write from walking every field of every cell.
  if (mask.all) {
    for (const key in next) if (isEmptyField(next[key])) delete next[key]
  } else if (mask.whole !== undefined) {
    if (isEmptyField(next[mask.whole])) delete next[mask.whole]
  } else {
    for (const key of mask.byTop.keys()) if (isEmptyField(next[key])) delete next[key]
  }
  setCell(ctx.tx, sheet, r, c, hasField(next) ? next : undefined)
}

/** The 50,000 characters a cell holds count for a value or formula set through CellData as through the values methods. */
function checkCellChars(source: unknown): void {
  const value = (source as { userEnteredValue?: { stringValue?: unknown; formulaValue?: unknown } } | undefined)?.userEnteredValue
  const text = value?.stringValue ?? value?.formulaValue
  if (typeof text === 'string' && text.length > MAX_CELL_CHARS)
    throw invalidArgument(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`)
}

function isEmptyField(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && !hasField(value))
}

function hasField(value: object): boolean {
  for (const _ in value) return true
  return false
}

function reindex(ctx: Ctx): void {
  ctx.ss.sheets.forEach((s, i) => {
    if (s.properties.index !== i) setKey(ctx.tx, s.properties, 'index', i)
  })
}

function newMetadataId(ctx: Ctx): number {
  let id = ctx.store.randomId()
  while (ctx.ss.metadata.has(id) || id === 0) id = ctx.store.randomId()
  return id
}

function matchesLookup(record: DeveloperMetadataRecord, location: MetadataLocation, lookup: Json): boolean {
  if (lookup.metadataId !== undefined && lookup.metadataId !== record.metadataId) return false
  if (lookup.metadataKey !== undefined && lookup.metadataKey !== record.metadataKey) return false
  if (lookup.metadataValue !== undefined && lookup.metadataValue !== record.metadataValue) return false
  if (lookup.visibility !== undefined && lookup.visibility !== record.visibility) return false
  if (lookup.locationType !== undefined && lookup.locationType !== location.locationType) return false
  const where = lookup.metadataLocation as Json | undefined
  if (where) {
    const exact = lookup.locationMatchingStrategy === 'EXACT_LOCATION'
    if (where.locationType !== undefined && where.locationType !== location.locationType) return false
    // Spreadsheet metadata intersects no other location, and no other location intersects it.
    if (where.spreadsheet === true) return location.locationType === 'SPREADSHEET'
    if (location.locationType === 'SPREADSHEET') return false
    if (typeof where.sheetId === 'number') {
      if ((location.sheetId ?? 0) !== where.sheetId) return false
      // INTERSECTING (the default): the sheet's rows and columns lie inside the sheet.
      return exact ? location.locationType === 'SHEET' : true
    }
    const range = where.dimensionRange as Json | undefined
    if (range) {
      if ((location.sheetId ?? 0) !== ((range.sheetId as number | undefined) ?? 0)) return false
      const dimension = range.dimension === 'COLUMNS' ? 'COLUMN' : 'ROW'
      const start = (range.startIndex as number | undefined) ?? 0
      const end = (range.endIndex as number | undefined) ?? Infinity
      const index = location.index ?? -1
      if (exact) return location.locationType === dimension && index === start && end === start + 1
      // A row intersects every column and the sheet it is on (and a column every row), as Google's example says.
      if (location.locationType === 'SHEET') return true
      if (location.locationType !== dimension) return true
      return index >= start && index < end
    }
  }
  return true
}

/** The metadata ids a DataFilter selects (lookup, a1Range or gridRange). Lookups by key go through the index. */
export function filterMetadata(ss: SpreadsheetData, filter: Json): number[] {
  const out: number[] = []
  const lookup = filter.developerMetadataLookup as Json | undefined
  let area: { sheetId: number; bounds: GridBounds } | undefined
  if (typeof filter.a1Range === 'string') {
    const resolved = resolveRange(ss, filter.a1Range)
    const g = resolved.sheet.properties.gridProperties
    area = { sheetId: resolved.sheet.properties.sheetId, bounds: boundToGrid(resolved.bounds, g.rowCount, g.columnCount) }
  } else if (filter.gridRange) {
    const { sheet, bounds } = gridBoundsOf(ss, filter.gridRange as GridRange)
    area = { sheetId: sheet.properties.sheetId, bounds }
  }
  if (!lookup && !area) return out
  const candidates =
    lookup && typeof lookup.metadataId === 'number'
      ? [lookup.metadataId]
      : metadataCandidates(
          ss,
          typeof lookup?.metadataKey === 'string' ? lookup.metadataKey : undefined,
          typeof lookup?.metadataValue === 'string' ? lookup.metadataValue : undefined,
        )
  for (const id of candidates) {
    const record = ss.metadata.get(id)
    const location = record ? locateMetadataId(ss, id) : undefined
    if (!record || !location) continue
    if (lookup && !matchesLookup(record, location, lookup)) continue
    if (area) {
      if (location.sheetId !== area.sheetId) continue
      const index = location.index ?? -1
      if (location.locationType === 'ROW' && (index < area.bounds.startRow || index >= area.bounds.endRow)) continue
      if (location.locationType === 'COLUMN' && (index < area.bounds.startColumn || index >= area.bounds.endColumn)) continue
      if (location.locationType !== 'ROW' && location.locationType !== 'COLUMN') continue
    }
    out.push(id)
  }
  return out
}

const APPLIERS: Record<string, Applier> = {
  ...mergeAppliers,
  ...basicFilterAppliers,
  ...conditionalFormatAppliers,
  ...chartAppliers,
  addSheet(ctx, body) {
    const props = (body.properties ?? {}) as Json
    const titles = new Set(ctx.ss.sheets.map((s) => s.properties.title.toLowerCase()))
    let title = props.title as string | undefined
    if (title === undefined) {
      let n = ctx.ss.sheets.length + 1
      while (titles.has(`sheet${n}`)) n++
      title = `Sheet${n}`
    }
    if (titles.has(title.toLowerCase()))
      throw invalidArgument(`A sheet with the name "${title}" already exists. Please enter another name.`)
    let sheetId = props.sheetId as number | undefined
    if (sheetId !== undefined && sheetById(ctx.ss, sheetId)) throw invalidArgument(`Sheet with id ${sheetId} already exists.`)
    if (sheetId === undefined) {
      do sheetId = ctx.store.randomId()
      while (sheetById(ctx.ss, sheetId))
    }
    const grid = (props.gridProperties ?? {}) as Json
    const index = Math.min(typeof props.index === 'number' ? props.index : ctx.ss.sheets.length, ctx.ss.sheets.length)
    const sheet = newSheet(
      sheetId,
      title,
      index,
      (grid.rowCount as number) || 1000,
      (grid.columnCount as number) || 26,
      props.hidden === true,
    )
    if (typeof grid.frozenRowCount === 'number' && grid.frozenRowCount > 0)
      sheet.properties.gridProperties.frozenRowCount = grid.frozenRowCount
    if (typeof grid.frozenColumnCount === 'number' && grid.frozenColumnCount > 0)
      sheet.properties.gridProperties.frozenColumnCount = grid.frozenColumnCount
    if (props.tabColorStyle !== undefined) sheet.properties.tabColorStyle = props.tabColorStyle
    splice(ctx.tx, ctx.ss.sheets, index, 0, [sheet])
    reindex(ctx)
    assertCellLimit(ctx.ss, ctx.store.options.cellLimit)
    return { addSheet: { properties: sheetPropertiesJson(sheet) } }
  },
  deleteSheet(ctx, body) {
    const sheet = sheetOrThrow(ctx.ss, body.sheetId)
    if (ctx.ss.sheets.length === 1) throw invalidArgument("You can't remove all the sheets in a document.")
    if (ctx.ss.sheets.filter((s) => !s.properties.hidden && s !== sheet).length === 0)
      throw invalidArgument("You can't remove all the sheets in a document.")
    for (const [id, holder] of ctx.ss.metadataIndex.holders)
      if (holder.locationType !== 'SPREADSHEET' && holder.sheet === sheet) dropMetadata(ctx.tx, ctx.ss, id)
    splice(ctx.tx, ctx.ss.sheets, ctx.ss.sheets.indexOf(sheet), 1, [])
    reindex(ctx)
    return undefined
  },
  updateSheetProperties(ctx, body) {
    const props = (body.properties ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, props.sheetId)
    const paths = requireFields(body.fields)
    const all = paths.includes('*')
    const has = (p: string) => all || paths.includes(p) || paths.some((x) => p.startsWith(`${x}.`))
    const grid = (props.gridProperties ?? {}) as Json
    if (has('title')) {
      const title = props.title
      if (typeof title !== 'string' || title === '') throw invalidArgument('Sheet title must not be empty.')
      if (ctx.ss.sheets.some((s) => s !== sheet && s.properties.title.toLowerCase() === title.toLowerCase())) {
        throw invalidArgument(`A sheet with the name "${title}" already exists. Please enter another name.`)
      }
      setKey(ctx.tx, sheet.properties, 'title', title)
    }
    if (has('hidden')) {
      const hidden = props.hidden === true
      if (hidden && ctx.ss.sheets.every((s) => s === sheet || s.properties.hidden))
        throw invalidArgument("You can't hide all the sheets in a document.")
      setKey(ctx.tx, sheet.properties, 'hidden', hidden ? true : undefined)
    }
    if (has('tabColorStyle')) setKey(ctx.tx, sheet.properties, 'tabColorStyle', props.tabColorStyle)
    if (has('rightToLeft')) setKey(ctx.tx, sheet.properties, 'rightToLeft', props.rightToLeft === true ? true : undefined)
    const g = sheet.properties.gridProperties
    const rowCount = has('gridProperties.rowCount') && typeof grid.rowCount === 'number' ? grid.rowCount : g.rowCount
    const columnCount = has('gridProperties.columnCount') && typeof grid.columnCount === 'number' ? grid.columnCount : g.columnCount
    if (rowCount !== g.rowCount || columnCount !== g.columnCount) {
      if (rowCount < 1 || columnCount < 1) throw invalidArgument("You can't delete all the rows on the sheet.")
      resizeGrid(ctx.tx, ctx.ss, sheet, rowCount, columnCount, ctx.store.options.cellLimit)
    }
    for (const key of ['frozenRowCount', 'frozenColumnCount', 'hideGridlines'] as const) {
      if (!has(`gridProperties.${key}`)) continue
      const value = grid[key]
      if (key === 'frozenRowCount' && typeof value === 'number' && value >= sheet.properties.gridProperties.rowCount) {
        throw invalidArgument("You can't freeze all visible rows on the sheet.")
      }
      if (key === 'frozenColumnCount' && typeof value === 'number' && value >= sheet.properties.gridProperties.columnCount) {
        throw invalidArgument("You can't freeze all visible columns on the sheet.")
      }
      setKey(ctx.tx, sheet.properties, 'gridProperties', { ...sheet.properties.gridProperties, [key]: value || undefined })
    }
    if (has('index') && typeof props.index === 'number') {
      const from = ctx.ss.sheets.indexOf(sheet)
      // "Before the move" indexes: moving to from or from + 1 changes nothing.
      let to = Math.min(props.index, ctx.ss.sheets.length)
      if (to > from) to--
      if (to !== from) {
        splice(ctx.tx, ctx.ss.sheets, from, 1, [])
        splice(ctx.tx, ctx.ss.sheets, to, 0, [sheet])
        reindex(ctx)
      }
    }
    return undefined
  },
  updateSpreadsheetProperties(ctx, body) {
    const props = (body.properties ?? {}) as Json
    const paths = requireFields(body.fields)
    for (const key of ['title', 'locale', 'timeZone', 'autoRecalc'] as const) {
      if ((paths.includes('*') || paths.includes(key)) && typeof props[key] === 'string')
        setKey(ctx.tx, ctx.ss.properties, key, props[key] as string)
    }
    return undefined
  },
  insertDimension(ctx, body) {
    const range = (body.range ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, range.sheetId)
    const dimension = dimensionOf(range.dimension)
    const { start, end } = checkDimensionRange(range.startIndex, range.endIndex)
    const count = dimension === 'ROWS' ? sheet.properties.gridProperties.rowCount : sheet.properties.gridProperties.columnCount
    if (body.inheritFromBefore === true && start === 0)
      throw invalidArgument(`Cannot inherit from before the first ${dimension === 'ROWS' ? 'row' : 'column'}.`)
    if (start > count)
      throw exceedsGridLimits(
        formatOpenRange(
          sheet.properties.title,
          dimension === 'ROWS' ? { startRow: start, endRow: end } : { startColumn: start, endColumn: end },
        ),
        sheet.properties.gridProperties.rowCount,
        sheet.properties.gridProperties.columnCount,
      )
    insertDimension(ctx.tx, ctx.ss, sheet, dimension, start, end - start, body.inheritFromBefore === true, ctx.store.options.cellLimit)
    return undefined
  },
  deleteDimension(ctx, body) {
    const range = (body.range ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, range.sheetId)
    const dimension = dimensionOf(range.dimension)
    const { start, end } = checkDimensionRange(range.startIndex, range.endIndex)
    const g = sheet.properties.gridProperties
    const count = dimension === 'ROWS' ? g.rowCount : g.columnCount
    const noun = dimension === 'ROWS' ? 'row' : 'column'
    if (end > count)
      throw invalidArgument(
        `Cannot delete a ${noun} that doesn't exist. Tried to delete ${noun} index ${end - 1} but there are only ${count} ${noun}s.`,
      )
    if (start === 0 && end === count) throw invalidArgument(`You can't delete all the ${noun}s on the sheet.`)
    const frozen = (dimension === 'ROWS' ? g.frozenRowCount : g.frozenColumnCount) ?? 0
    if (frozen > 0 && start <= frozen && end === count)
      throw invalidArgument(`Sorry, it is not possible to delete all non-frozen ${noun}s.`)
    deleteDimension(ctx.tx, ctx.ss, sheet, dimension, start, end)
    return undefined
  },
  appendDimension(ctx, body) {
    const sheet = sheetOrThrow(ctx.ss, body.sheetId)
    const dimension = dimensionOf(body.dimension)
    const length = body.length
    if (typeof length !== 'number' || length < 1) throw invalidArgument('length must be positive')
    const g = sheet.properties.gridProperties
    setKey(
      ctx.tx,
      sheet.properties,
      'gridProperties',
      dimension === 'ROWS' ? { ...g, rowCount: g.rowCount + length } : { ...g, columnCount: g.columnCount + length },
    )
    assertCellLimit(ctx.ss, ctx.store.options.cellLimit)
    return undefined
  },
  updateDimensionProperties(ctx, body) {
    const range = (body.range ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, range.sheetId)
    const dimension = dimensionOf(range.dimension)
    const g = sheet.properties.gridProperties
    const count = dimension === 'ROWS' ? g.rowCount : g.columnCount
    const start = (range.startIndex as number | undefined) ?? 0
    const end = Math.min((range.endIndex as number | undefined) ?? count, count)
    if (start >= count)
      throw invalidArgument(
        `Invalid dimension range: startIndex ${start} is beyond the ${count} ${dimension === 'ROWS' ? 'rows' : 'columns'} of the sheet.`,
      )
    const paths = requireFields(body.fields).filter((p) => p !== 'developerMetadata')
    const fields = paths.includes('*') ? ['hiddenByUser', 'pixelSize'] : paths
    setDimensionProps(ctx.tx, sheet, dimension, start, end, (body.properties ?? {}) as Json, fields)
    return undefined
  },
  repeatCell(ctx, body, index) {
    checkNumberFormatType(body.cell, index, 'repeat_cell.cell')
    const paths = compileMask(requireFields(body.fields))
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange | undefined)
    const memo: MaskMemo = new Map()
    for (let r = bounds.startRow; r < bounds.endRow; r++) {
      for (let c = bounds.startColumn; c < bounds.endColumn; c++) applyCellMask(ctx, sheet, r, c, body.cell ?? {}, paths, memo)
    }
    return undefined
  },
  updateCells(ctx, body, index) {
    const rows = (body.rows ?? []) as { values?: unknown[] }[]
    rows.forEach((row) => (row.values ?? []).forEach((cell) => checkNumberFormatType(cell, index, 'update_cells.rows.values')))
    const paths = compileMask(requireFields(body.fields))
    if (body.range) {
      const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange)
      for (let r = bounds.startRow; r < bounds.endRow; r++) {
        for (let c = bounds.startColumn; c < bounds.endColumn; c++) {
          applyCellMask(ctx, sheet, r, c, rows[r - bounds.startRow]?.values?.[c - bounds.startColumn] ?? {}, paths)
        }
      }
      return undefined
    }
    const start = (body.start ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, start.sheetId, 'grid')
    const r0 = (start.rowIndex as number | undefined) ?? 0
    const c0 = (start.columnIndex as number | undefined) ?? 0
    const g = sheet.properties.gridProperties
    if (r0 >= g.rowCount || c0 >= g.columnCount)
      throw exceedsGridLimits(
        formatOpenRange(sheet.properties.title, { startRow: r0, endRow: r0 + 1, startColumn: c0, endColumn: c0 + 1 }),
        g.rowCount,
        g.columnCount,
      )
    rows.forEach((row, i) => {
      if (r0 + i >= g.rowCount)
        throw invalidArgument(`Attempting to write row: ${r0 + i}, beyond the last requested row of: ${g.rowCount - 1}`)
      ;(row.values ?? []).forEach((cell, j) => {
        if (c0 + j >= g.columnCount)
          throw invalidArgument(`Attempting to write column: ${c0 + j}, beyond the last requested column of: ${g.columnCount - 1}`)
        applyCellMask(ctx, sheet, r0 + i, c0 + j, cell, paths)
      })
    })
    return undefined
  },
  setDataValidation(ctx, body) {
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange | undefined)
    const rule = body.rule ? { dataValidation: body.rule } : {}
    const memo: MaskMemo = new Map()
    for (let r = bounds.startRow; r < bounds.endRow; r++) {
      for (let c = bounds.startColumn; c < bounds.endColumn; c++) applyCellMask(ctx, sheet, r, c, rule, VALIDATION_MASK, memo)
    }
    return undefined
  },
  addProtectedRange(ctx, body) {
    const spec = (body.protectedRange ?? {}) as Json
    const { sheet, open } = gridBoundsOf(ctx.ss, spec.range as GridRange | undefined)
    const whole = Object.keys(open).length === 0
    if (whole && sheet.protectedRanges.some((p) => Object.keys(boundsOfGridRange(p.range)).length === 0)) {
      throw invalidArgument(`Sheet "${sheet.properties.title}" already has sheet protection.`)
    }
    const protectedRangeId = typeof spec.protectedRangeId === 'number' ? spec.protectedRangeId : ctx.store.randomId()
    const range = gridRangeOf(sheet.properties.sheetId, open)
    const stored = {
      protectedRangeId,
      range,
      ...(typeof spec.description === 'string' && spec.description ? { description: spec.description } : {}),
      ...(spec.warningOnly === true ? { warningOnly: true } : {}),
      requestingUserCanEdit: true,
      editors: spec.warningOnly === true ? {} : { users: [ctx.ss.ownerEmail] },
    }
    setKey(ctx.tx, sheet, 'protectedRanges', [...sheet.protectedRanges, stored])
    const reply: Json = { protectedRangeId, range }
    if (stored.description) reply.description = stored.description
    if (stored.warningOnly) reply.warningOnly = true
    reply.requestingUserCanEdit = true
    reply.editors = {}
    return { addProtectedRange: { protectedRange: reply } }
  },
  deleteProtectedRange(ctx, body) {
    for (const sheet of ctx.ss.sheets) {
      const kept = sheet.protectedRanges.filter((p) => p.protectedRangeId !== body.protectedRangeId)
      if (kept.length !== sheet.protectedRanges.length) {
        setKey(ctx.tx, sheet, 'protectedRanges', kept)
        return undefined
      }
    }
    throw invalidArgument(`No protected range with id: ${String(body.protectedRangeId)}`)
  },
  createDeveloperMetadata(ctx, body) {
    const spec = (body.developerMetadata ?? {}) as Json
    if (typeof spec.metadataKey !== 'string' || spec.metadataKey === '')
      throw invalidArgument('Developer metadata must have a metadataKey.')
    if (spec.visibility !== 'DOCUMENT' && spec.visibility !== 'PROJECT')
      throw invalidArgument('Developer metadata must specify a visibility.')
    let metadataId = spec.metadataId as number | undefined
    if (metadataId !== undefined && ctx.ss.metadata.has(metadataId))
      throw invalidArgument(`Developer metadata with id ${metadataId} already exists.`)
    metadataId ??= newMetadataId(ctx)
    const record: DeveloperMetadataRecord = {
      metadataId,
      metadataKey: spec.metadataKey,
      visibility: spec.visibility,
      ...(typeof spec.metadataValue === 'string' ? { metadataValue: spec.metadataValue } : {}),
    }
    const location = (spec.location ?? {}) as Json
    let where: MetadataLocation
    if (location.spreadsheet === true) {
      putMetadata(ctx.tx, ctx.ss, record, { locationType: 'SPREADSHEET' })
      where = { locationType: 'SPREADSHEET' }
    } else if (typeof location.sheetId === 'number') {
      const sheet = sheetOrThrow(ctx.ss, location.sheetId)
      putMetadata(ctx.tx, ctx.ss, record, { locationType: 'SHEET', sheet })
      where = { locationType: 'SHEET', sheetId: sheet.properties.sheetId }
    } else if (location.dimensionRange) {
      const range = location.dimensionRange as Json
      const sheet = sheetOrThrow(ctx.ss, range.sheetId)
      const dimension = dimensionOf(range.dimension)
      const { start, end } = checkDimensionRange(range.startIndex, range.endIndex)
      if (end - start !== 1) throw invalidArgument('Developer metadata can only be associated with a single row or column.')
      const count = dimension === 'ROWS' ? sheet.properties.gridProperties.rowCount : sheet.properties.gridProperties.columnCount
      if (start >= count)
        throw invalidArgument(
          `Invalid dimension range: index ${start} is beyond the ${count} ${dimension === 'ROWS' ? 'rows' : 'columns'} of the sheet.`,
        )
      const locationType = dimension === 'ROWS' ? 'ROW' : 'COLUMN'
      putMetadata(ctx.tx, ctx.ss, record, { locationType, sheet, index: start })
      where = { locationType, sheetId: sheet.properties.sheetId, index: start }
    } else {
      throw invalidArgument('Developer metadata must specify a location.')
    }
    return { createDeveloperMetadata: { developerMetadata: metadataJson(record, where) } }
  },
  updateDeveloperMetadata(ctx, body) {
    const paths = requireFields(body.fields)
    const spec = (body.developerMetadata ?? {}) as Json
    const ids = new Set(((body.dataFilters ?? []) as Json[]).flatMap((f) => filterMetadata(ctx.ss, f)))
    const updated: Json[] = []
    for (const id of ids) {
      const record = ctx.ss.metadata.get(id)!
      const next = { ...record }
      if (paths.includes('metadataKey') && typeof spec.metadataKey === 'string') next.metadataKey = spec.metadataKey
      if (paths.includes('metadataValue')) {
        if (typeof spec.metadataValue === 'string') next.metadataValue = spec.metadataValue
        else delete next.metadataValue
      }
      if (paths.includes('visibility') && (spec.visibility === 'DOCUMENT' || spec.visibility === 'PROJECT'))
        next.visibility = spec.visibility
      replaceMetadata(ctx.tx, ctx.ss, next)
      updated.push(metadataJson(next, locateMetadataId(ctx.ss, id)!))
    }
    return { updateDeveloperMetadata: updated.length > 0 ? { developerMetadata: updated } : {} }
  },
  deleteDeveloperMetadata(ctx, body) {
    const ids = filterMetadata(ctx.ss, (body.dataFilter ?? {}) as Json)
    if (ids.length === 0 && ctx.store.options.undocumented.emptyFilter === 'refused')
      throw invalidArgument('No developer metadata matches the data filter.')
    const deleted = ids.map((id) => metadataJson(ctx.ss.metadata.get(id)!, locateMetadataId(ctx.ss, id)!))
    for (const id of ids) dropMetadata(ctx.tx, ctx.ss, id)
    return { deleteDeveloperMetadata: deleted.length > 0 ? { deletedDeveloperMetadata: deleted } : {} }
  },
  sortRange(ctx, body) {
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange | undefined)
    const specs = ((body.sortSpecs ?? []) as Json[]).map((s) => ({
      dimensionIndex: (s.dimensionIndex as number | undefined) ?? 0,
      sortOrder: s.sortOrder === 'DESCENDING' ? 'DESCENDING' : 'ASCENDING',
    })) as SortSpec[]
    if (specs.length === 0) specs.push({ dimensionIndex: bounds.startColumn, sortOrder: 'ASCENDING' })
    sortRows(ctx.tx, ctx.ss, sheet, bounds, specs, ctx.store.options.undocumented.sortMovesRowMetadata)
    return undefined
  },
}

/** Request names the fake implements. */
export const IMPLEMENTED_REQUESTS: readonly string[] = Object.keys(APPLIERS)

/**
 * spreadsheets.batchUpdate: applies requests in order, each seeing the ones
 * before; any failure rolls everything back and is prefixed
 * `Invalid requests[i].<name>: ` (§6.1).
 */
export function batchUpdate(store: SheetsStore, ss: SpreadsheetData, body: Json): Json {
  const requests = body.requests
  if (!Array.isArray(requests) || requests.length === 0) throw invalidArgument('Must specify at least one request.')
  // JSON-shape errors come before anything is applied, as the API parses the whole body first.
  requests.forEach((request, i) => {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      const description = `Invalid value at 'requests[${i}]' (type.googleapis.com/google.apps.sheets.v4.BatchUpdateSpreadsheetRequest.Request), ${JSON.stringify(request)}`
      throw badRequest(description, `requests[${i}]`, description)
    }
    for (const key of Object.keys(request)) {
      if (!KNOWN_REQUESTS.has(key)) {
        const description = `Invalid JSON payload received. Unknown name "${key}" at 'requests[${i}]': Cannot find field.`
        throw badRequest(description, `requests[${i}]`, description)
      }
    }
    if (Object.keys(request).length !== 1) throw invalidArgument(`Invalid requests[${i}]: Exactly one kind of request must be set.`)
  })
  const tx = beginTx()
  const ctx: Ctx = { store, ss, tx }
  const replies: Json[] = []
  // Only a batch that adds or changes metadata can pass the storage limit.
  const metadataAt = requests.findIndex((r: Json) => 'createDeveloperMetadata' in r || 'updateDeveloperMetadata' in r)
  const usageBefore = metadataAt >= 0 ? metadataUsage(ss) : undefined
  try {
    requests.forEach((request: Json, i) => {
      const name = Object.keys(request)[0]!
      const applier = APPLIERS[name]
      if (!applier) throw invalidArgument(`Invalid requests[${i}].${name}: this request is not implemented by the Sheets fake.`)
      try {
        replies.push(applier(ctx, (request[name] ?? {}) as Json, i) ?? {})
      } catch (error) {
        if (error instanceof SheetsApiError && !error.message.startsWith('Invalid value at') && !error.message.startsWith('Invalid JSON')) {
          throw error.prefixed(`Invalid requests[${i}].${name}: `)
        }
        throw error
      }
    })
    const over = usageBefore && overBudget(usageBefore, metadataUsage(ss), store.options.metadataLimits)
    if (over) {
      const name = Object.keys(requests[metadataAt] as Json)[0]!
      throw invalidArgument(`Invalid requests[${metadataAt}].${name}: ${overBudgetMessage(over)}`)
    }
  } catch (error) {
    rollback(tx)
    throw error
  }
  commitTx(tx, ss)
  const out: Json = { spreadsheetId: ss.spreadsheetId, replies }
  if (body.includeSpreadsheetInResponse === true) {
    out.updatedSpreadsheet = spreadsheetJson(ss, {
      ranges: (body.responseRanges as string[] | undefined) ?? [],
      includeGridData: body.responseIncludeGridData === true,
    })
  }
  return out
}

/** developerMetadata.search (§6.4): filters ORed, each match lists the filters it matched. */
export function searchDeveloperMetadata(ss: SpreadsheetData, body: Json): Json {
  const filters = (body.dataFilters ?? []) as Json[]
  const matched = new Map<number, Json[]>()
  for (const filter of filters) {
    for (const id of filterMetadata(ss, filter)) {
      const list = matched.get(id) ?? []
      list.push(filter)
      matched.set(id, list)
    }
  }
  if (matched.size === 0) return {}
  return {
    matchedDeveloperMetadata: [...matched].map(([id, dataFilters]) => ({
      developerMetadata: metadataJson(ss.metadata.get(id)!, locateMetadataId(ss, id)!),
      dataFilters,
    })),
  }
}

/** spreadsheets.create (§2.5): honours title, locale, timeZone and the given sheets. */
export function createFromBody(store: SheetsStore, body: Json): SpreadsheetData {
  const props = (body.properties ?? {}) as Json
  const sheets = ((body.sheets ?? []) as Json[]).map((s, i) => {
    const p = (s.properties ?? {}) as Json
    const g = (p.gridProperties ?? {}) as Json
    return {
      title: typeof p.title === 'string' ? p.title : `Sheet${i + 1}`,
      ...(typeof p.sheetId === 'number' && p.sheetId >= 0 ? { sheetId: p.sheetId } : {}),
      ...(typeof g.rowCount === 'number' ? { rowCount: g.rowCount } : {}),
      ...(typeof g.columnCount === 'number' ? { columnCount: g.columnCount } : {}),
      ...(p.hidden === true ? { hidden: true } : {}),
    }
  })
  const ss = store.createSpreadsheet({
    ...(typeof props.title === 'string' ? { title: props.title } : {}),
    ...(typeof props.locale === 'string' ? { locale: props.locale } : {}),
    ...(typeof props.timeZone === 'string' ? { timeZone: props.timeZone } : {}),
    sheets,
  })
  try {
    assertCellLimit(ss, store.options.cellLimit)
  } catch (error) {
    store.spreadsheets.delete(ss.spreadsheetId)
    throw error
  }
  return ss
}
