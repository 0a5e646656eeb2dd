/**
 * The layout the Google backend gives its tabs, as pure
 * request builders: given the specs and what the spreadsheet holds now, the
 * `spreadsheets.batchUpdate` requests that bring it there. Each request is
 * either naturally idempotent (formats, validation, hidden, frozen) or added
 * only when missing (tabs, protections, status colours, header names), so a
 * repeated layout writes nothing new.
 *
 * Longer than most files because each layout feature is a request builder that first compares with what the
 * spreadsheet holds, and they share the sheet's ids and ranges.
 */
import { createHash } from 'node:crypto'
import type { sheets_v4 } from '@googleapis/sheets'
import { STATUS_RULES, statusRuleFormula, type StatusRule } from '../../core/status.ts'
import { summaryCells, summaryShape, type SummaryCell } from '../../core/summary.ts'
import { TimelineSheetsError } from '../../errors.ts'
import type { CellValue, ColumnKind, ColumnSpec, LayoutOptions, TabSpec } from '../port.ts'
import type { SummarySpec } from '../../core/sheet.ts'
import { columnLetters, quoteTitle } from './a1.ts'

/** Key of the spreadsheet-level developer metadata holding the hash of the applied layout. */
export const LAYOUT_METADATA_KEY = 'timeline-sheets:layout'

/** Bumped when the requests below change, so existing spreadsheets are laid out again. */
const LAYOUT_VERSION = 3

/** Field mask of the one `spreadsheets.get` that layout and sheet-id lookups cost. */
export const LAYOUT_FIELDS =
  'properties.timeZone,sheets(properties(sheetId,title,gridProperties),protectedRanges,conditionalFormats,basicFilter.range,charts.chartId),' +
  'developerMetadata'

const DESCRIPTION_PREFIX = 'timeline-sheets: '

/** Hash of what the layout depends on; equal hashes mean nothing to write. */
export function layoutHash(tabs: TabSpec[], options: LayoutOptions): string {
  return createHash('sha256')
    .update(JSON.stringify({ version: LAYOUT_VERSION, tabs, timeZone: options.timeZone }))
    .digest('hex')
    .slice(0, 32)
}

/** One tab as `spreadsheets.get` shows it. */
export interface SheetState {
  sheetId: number
  title: string
  rowCount: number
  columnCount: number
  frozenRowCount: number
  protectedRanges: sheets_v4.Schema$ProtectedRange[]
  conditionalFormats: sheets_v4.Schema$ConditionalFormatRule[]
  /** The tab has a basic filter (a manager's criteria in it are kept). */
  basicFilter?: boolean
  /** Ids of the charts drawn on the tab. */
  chartIds?: number[]
}

export interface SpreadsheetState {
  timeZone: string | undefined
  sheets: SheetState[]
  layoutMetadata: { metadataId: number; value: string } | undefined
}

/** Reads the answer of the layout `spreadsheets.get` (fields `LAYOUT_FIELDS`). */
export function readSpreadsheetState(data: sheets_v4.Schema$Spreadsheet): SpreadsheetState {
  const sheets: SheetState[] = []
  for (const sheet of data.sheets ?? []) {
    const p = sheet.properties
    if (!p || typeof p.title !== 'string') continue
    sheets.push({
      // proto3 JSON omits a sheetId of 0.
      sheetId: p.sheetId ?? 0,
      title: p.title,
      rowCount: p.gridProperties?.rowCount ?? 0,
      columnCount: p.gridProperties?.columnCount ?? 0,
      frozenRowCount: p.gridProperties?.frozenRowCount ?? 0,
      protectedRanges: sheet.protectedRanges ?? [],
      conditionalFormats: sheet.conditionalFormats ?? [],
      basicFilter: sheet.basicFilter != null,
      chartIds: (sheet.charts ?? []).flatMap((c) => (typeof c.chartId === 'number' ? [c.chartId] : [])),
    })
  }
  const meta = (data.developerMetadata ?? []).find((m) => m.metadataKey === LAYOUT_METADATA_KEY)
  return {
    timeZone: data.properties?.timeZone ?? undefined,
    sheets,
    layoutMetadata:
      meta && typeof meta.metadataId === 'number' ? { metadataId: meta.metadataId, value: meta.metadataValue ?? '' } : undefined,
  }
}

/** True when the spreadsheet already has this layout: every tab exists and the stored hash matches. */
export function layoutIsCurrent(tabs: TabSpec[], options: LayoutOptions, state: SpreadsheetState): boolean {
  const titles = new Set(state.sheets.map((s) => s.title))
  return state.layoutMetadata?.value === layoutHash(tabs, options) && tabs.every((t) => titles.has(t.title))
}

/**
 * The tab Google made with a new spreadsheet (`Sheet1`, id 0, whatever the locale calls it), when the tool is
 * setting the spreadsheet up: none of its tabs exist yet and that tab is the only one, with no protection,
 * colours, filter or chart. Whether it is empty too only a read of its values can say (the caller's).
 */
export function defaultTabCandidate(tabs: TabSpec[], state: SpreadsheetState): SheetState | undefined {
  const only = state.sheets.length === 1 ? state.sheets[0] : undefined
  if (only === undefined || only.sheetId !== 0) return undefined
  if (tabs.some((t) => t.title === only.title)) return undefined
  if (only.protectedRanges.length > 0 || only.conditionalFormats.length > 0 || only.basicFilter || (only.chartIds?.length ?? 0) > 0) {
    return undefined
  }
  return only
}

/** A sheet id for a new tab, derived from its title so plans are reproducible; never one in use. */
export function newSheetId(title: string, used: ReadonlySet<number>): number {
  let id = createHash('sha256').update(title).digest().readUInt32BE(0) & 0x7fffffff
  while (used.has(id) || id === 0) id = (id + 1) & 0x7fffffff
  return id
}

/**
 * Number format per column kind. Durations are TIME cells with an elapsed pattern: there is no DURATION type.
 * `zone` is appended to date-times as quoted literal text, so a reader sees which clock the times are on.
 */
export function numberFormatFor(kind: ColumnKind, zone?: string): sheets_v4.Schema$NumberFormat | undefined {
  switch (kind) {
    case 'text':
      return { type: 'TEXT' }
    case 'date':
      return { type: 'DATE', pattern: 'yyyy-mm-dd' }
    case 'time':
      return { type: 'TIME', pattern: 'hh:mm' }
    case 'datetime':
      return { type: 'DATE_TIME', pattern: zone ? `yyyy-mm-dd hh:mm" ${zone.replaceAll('"', '')}"` : 'yyyy-mm-dd hh:mm' }
    case 'duration':
      return { type: 'TIME', pattern: '[h]:mm' }
    case 'number':
      // Counts: Google's bare NUMBER shows 925 as 925.00.
      return { type: 'NUMBER', pattern: '0' }
    case 'checkbox':
      return undefined
  }
}

/** A `RRGGBB` colour as Google's 0–1 components. */
export function googleColor(hex: string): sheets_v4.Schema$Color {
  const part = (i: number) => Math.round((parseInt(hex.slice(i, i + 2), 16) / 255) * 1000) / 1000
  return { red: part(0), green: part(2), blue: part(4) }
}

/**
 * The conditional-format rule colouring the rows whose status cell starts with the rule's word. Its range
 * is whole rows from the header down (`statusRange`), so rows the tool inserts under the header stay in it.
 */
export function statusFormatRule(
  rule: StatusRule,
  statusColumn: number,
  range: sheets_v4.Schema$GridRange,
): sheets_v4.Schema$ConditionalFormatRule {
  const formula = statusRuleFormula(rule.word, statusColumn, (range.startRowIndex ?? 0) + 1)
  return {
    ranges: [range],
    booleanRule: {
      condition: { type: 'CUSTOM_FORMULA', values: [{ userEnteredValue: formula }] },
      format: { backgroundColor: googleColor(rule.fill), textFormat: { foregroundColor: googleColor(rule.font) } },
    },
  }
}

/** Ours: the word rules (`=LEFT($K1,8)="Conflict"`), and the `SEARCH` rules versions before the words added. */
const OUR_STATUS_FORMULA = /^=LEFT\(\$[A-Z]+\d+,\d+\)="[A-Za-z]+"$|^=ISNUMBER\(SEARCH\("(conflict|error)",\$[A-Z]+2\)\)$/

function isOurStatusRule(rule: sheets_v4.Schema$ConditionalFormatRule): boolean {
  const condition = rule.booleanRule?.condition
  const formula = condition?.values?.[0]?.userEnteredValue ?? ''
  return condition?.type === 'CUSTOM_FORMULA' && OUR_STATUS_FORMULA.test(formula)
}

/** The parts of a rule that say what it does, to compare what is there with what is wanted (colours as Google rounds them). */
function ruleEssence(rule: sheets_v4.Schema$ConditionalFormatRule): string {
  const b = rule.booleanRule
  const color = (c: sheets_v4.Schema$Color | undefined) => [c?.red, c?.green, c?.blue].map((v) => Math.round((v ?? 0) * 100))
  const format = b?.format
  return JSON.stringify([
    b?.condition?.values?.[0]?.userEnteredValue,
    color(format?.backgroundColor),
    color(format?.textFormat?.foregroundColor),
  ])
}

/** What the cells of one column carry in every data row: number format, wrap, checkbox or dropdown. */
export interface ColumnCellFormat {
  numberFormat?: sheets_v4.Schema$NumberFormat
  wrapStrategy?: 'WRAP'
  dataValidation?: sheets_v4.Schema$DataValidationRule
}

/** Per column header name, what a data row's cells carry in one tab; rows the tool adds get the same. */
export type RowFormats = Record<string, ColumnCellFormat>

/** The parts of a cell a `ColumnCellFormat` sets (and clears, where it has none). */
export const ROW_FORMAT_FIELDS = 'userEnteredFormat.numberFormat,userEnteredFormat.wrapStrategy,dataValidation'

export interface LayoutPlan {
  requests: sheets_v4.Schema$Request[]
  createdTabs: string[]
  /** Column positions per tab after the layout (header names → 0-based index). */
  columns: Map<string, Map<string, number>>
  /** Sheet ids per tab after the layout. */
  sheetIds: Map<string, number>
  /** What each tab's data rows carry, by column name. */
  rowFormats: Map<string, RowFormats>
  /**
   * What each tab this layout adds holds once it is applied, as a read would show it: its header and no row (a
   * Summary, which the layout fills, is not listed).
   */
  created: Map<string, CreatedTab>
}

/** A tab as the layout that added it left it. */
export interface CreatedTab {
  header: string[]
  rowCount: number
  columnCount: number
}

/**
 * The batchUpdate requests that give `tabs` their layout. `headers` holds row
 * 1 of each existing tab: columns are found there by name (managers may have
 * moved them), and names missing from it are added after the last one, never
 * written over another column's header.
 */
export function planLayout(
  tabs: TabSpec[],
  options: LayoutOptions,
  state: SpreadsheetState,
  headers: ReadonlyMap<string, CellValue[]>,
  /** The empty default tab to delete (`defaultTabCandidate`, its values read empty), after the new tabs exist. */
  removeTab?: number,
): LayoutPlan {
  const requests: sheets_v4.Schema$Request[] = []
  const createdTabs: string[] = []
  const columns = new Map<string, Map<string, number>>()
  const sheetIds = new Map<string, number>()
  const rowFormats = new Map<string, RowFormats>()
  const created = new Map<string, CreatedTab>()
  const byTitle = new Map(state.sheets.map((s) => [s.title, s]))
  const used = new Set(state.sheets.map((s) => s.sheetId))
  for (const s of state.sheets) sheetIds.set(s.title, s.sheetId)

  // Pass 1: tabs, grid size and header names, so dropdowns can refer to any tab.
  const perTab: { spec: TabSpec; sheetId: number; existing: SheetState | undefined; width: number }[] = []
  for (const spec of tabs) {
    const existing = byTitle.get(spec.title)
    const header = existing ? (headers.get(spec.title) ?? []) : []
    const positions = new Map<string, number>()
    header.forEach((cell, i) => {
      if (typeof cell === 'string' && cell.trim() !== '' && !positions.has(cell.trim())) positions.set(cell.trim(), i)
    })
    let next = lastNonEmpty(header) + 1
    const missing: { name: string; index: number }[] = []
    for (const column of spec.columns) {
      if (positions.has(column.name)) continue
      positions.set(column.name, next)
      missing.push({ name: column.name, index: next })
      next++
    }
    let width = next
    for (const i of positions.values()) width = Math.max(width, i + 1)
    // A Summary owns its first columns and enough rows for its tables and the chart below them.
    const rows = spec.summary ? summaryRowCount(spec.summary) : 0
    if (spec.summary) width = Math.max(width, summaryShape(spec.summary).width)
    let sheetId: number
    if (existing) {
      sheetId = existing.sheetId
      if (existing.columnCount < width) {
        requests.push({ appendDimension: { sheetId, dimension: 'COLUMNS', length: width - existing.columnCount } })
      }
      if (existing.rowCount < rows) requests.push({ appendDimension: { sheetId, dimension: 'ROWS', length: rows - existing.rowCount } })
      if (existing.frozenRowCount !== 1) {
        requests.push({
          updateSheetProperties: {
            properties: { sheetId, gridProperties: { frozenRowCount: 1 } },
            fields: 'gridProperties.frozenRowCount',
          },
        })
      }
    } else {
      sheetId = newSheetId(spec.title, used)
      used.add(sheetId)
      createdTabs.push(spec.title)
      const grid = { rowCount: Math.max(1000, rows), columnCount: Math.max(width, spec.summary ? 26 : 1) }
      requests.push({ addSheet: { properties: { sheetId, title: spec.title, gridProperties: { ...grid, frozenRowCount: 1 } } } })
      // A new tab's header is every column in order (no existing header to find names in).
      if (!spec.summary) created.set(spec.title, { header: missing.map((m) => m.name), ...grid })
    }
    sheetIds.set(spec.title, sheetId)
    columns.set(spec.title, positions)
    for (const run of contiguousRuns(missing)) {
      requests.push({
        updateCells: {
          range: { sheetId, startRowIndex: 0, endRowIndex: 1, startColumnIndex: run.start, endColumnIndex: run.start + run.names.length },
          rows: [{ values: run.names.map((name) => ({ userEnteredValue: { stringValue: name } })) }],
          fields: 'userEnteredValue',
        },
      })
    }
    perTab.push({ spec, sheetId, existing, width })
  }

  // Pass 2: formats, validation, visibility, protection, colours.
  for (const { spec, sheetId, existing, width } of perTab) {
    const positions = columns.get(spec.title)!
    const protections = new Map(
      (existing?.protectedRanges ?? []).filter((p) => p.description?.startsWith(DESCRIPTION_PREFIX)).map((p) => [p.description!, p]),
    )
    const protect = (description: string, range: sheets_v4.Schema$GridRange) => {
      const full = `${DESCRIPTION_PREFIX}${description}`
      const found = protections.get(full)
      if (found && sameRange(found.range ?? {}, range)) return
      if (found?.protectedRangeId != null) requests.push({ deleteProtectedRange: { protectedRangeId: found.protectedRangeId } })
      requests.push({ addProtectedRange: { protectedRange: { range, description: full, warningOnly: true } } })
    }
    requests.push({
      repeatCell: {
        range: { sheetId, startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: width },
        cell: { userEnteredFormat: { textFormat: { bold: true } } },
        fields: 'userEnteredFormat.textFormat.bold',
      },
    })
    if (spec.readOnly) protect(`${spec.title}`, { sheetId })
    else protect(`${spec.title} header`, { sheetId, startRowIndex: 0, endRowIndex: 1 })
    const formats: RowFormats = {}
    rowFormats.set(spec.title, formats)
    for (const column of spec.columns) {
      const index = positions.get(column.name)!
      const body = { sheetId, startRowIndex: 1, startColumnIndex: index, endColumnIndex: index + 1 }
      const format = numberFormatFor(column.kind, column.showZone ? options.timeZone : undefined)
      const formatFields = [
        format ? 'userEnteredFormat.numberFormat' : undefined,
        column.wrap ? 'userEnteredFormat.wrapStrategy' : undefined,
      ].filter((f): f is string => f !== undefined)
      if (formatFields.length > 0) {
        requests.push({
          repeatCell: {
            range: body,
            cell: { userEnteredFormat: { ...(format ? { numberFormat: format } : {}), ...(column.wrap ? { wrapStrategy: 'WRAP' } : {}) } },
            fields: formatFields.join(','),
          },
        })
      }
      const rule = validationFor(column, spec.title, columns)
      if (rule) requests.push({ setDataValidation: { range: body, rule } })
      formats[column.name] = {
        ...(format ? { numberFormat: format } : {}),
        ...(column.wrap ? { wrapStrategy: 'WRAP' as const } : {}),
        ...(rule ? { dataValidation: rule } : {}),
      }
      const dimension: sheets_v4.Schema$DimensionProperties = {}
      const dimensionFields: string[] = []
      if (column.hidden) {
        dimension.hiddenByUser = true
        dimensionFields.push('hiddenByUser')
      }
      if (column.width !== undefined) {
        // Room for the zone name the number format adds (about 7 px a character).
        dimension.pixelSize = column.width + (column.showZone ? 7 * (options.timeZone.length + 1) : 0)
        dimensionFields.push('pixelSize')
      }
      if (dimensionFields.length > 0) {
        requests.push({
          updateDimensionProperties: {
            range: { sheetId, dimension: 'COLUMNS', startIndex: index, endIndex: index + 1 },
            properties: dimension,
            fields: dimensionFields.join(','),
          },
        })
      }
      if (column.protected && !spec.readOnly)
        protect(`${spec.title} / ${column.name}`, { sheetId, startColumnIndex: index, endColumnIndex: index + 1 })
    }
    if (spec.summary) {
      const activities = columns.get(spec.summary.activities)
      const columnOf = (name: string) => {
        const index = activities?.get(name)
        if (index === undefined) {
          throw new TimelineSheetsError(
            'TS_SHEET_LAYOUT',
            `The ${spec.title} tab sums column "${name}" of "${spec.summary!.activities}", which is not laid out in the same call`,
            { hint: 'This is a bug in the tab specification: lay out the Activities tab together with its Summary.' },
          )
        }
        return columnLetters(index)
      }
      requests.push(...summaryRequests(spec.summary, sheetId, summaryCells(spec.summary, columnOf), existing?.chartIds ?? []))
    }
    // Only when there is none: a filter a manager set (criteria, sort) stays as they left it.
    if (spec.filter && !existing?.basicFilter) requests.push({ setBasicFilter: { filter: { range: { sheetId } } } })
    if (spec.statusColumn !== undefined) {
      const statusIndex = positions.get(spec.statusColumn)
      if (statusIndex === undefined) {
        throw new TimelineSheetsError(
          'TS_SHEET_LAYOUT',
          `The status column "${spec.statusColumn}" of the tab "${spec.title}" is not one of its columns`,
          {
            hint: 'This is a bug in the tab specification: statusColumn must name a column of the same tab.',
          },
        )
      }
      // The core's rules (status.ts), one per word; ours are recognised by their formula, a manager's own rules stay.
      const ours = (existing?.conditionalFormats ?? []).map((rule, i) => ({ rule, i })).filter(({ rule }) => isOurStatusRule(rule))
      const wanted = STATUS_RULES.map((rule) => statusFormatRule(rule, statusIndex, statusRange(sheetId, width)))
      const rangesMatch = ours.every(({ rule }) => rule.ranges?.length === 1 && sameRange(rule.ranges[0]!, statusRange(sheetId, width)))
      const current = ours.map(({ rule }) => ruleEssence(rule))
      if (!(rangesMatch && current.length === wanted.length && wanted.every((rule, i) => ruleEssence(rule) === current[i]))) {
        for (const { i } of [...ours].reverse()) requests.push({ deleteConditionalFormatRule: { sheetId, index: i } })
        wanted.forEach((rule, i) => requests.push({ addConditionalFormatRule: { index: i, rule } }))
      }
    }
  }

  if (removeTab !== undefined) requests.push({ deleteSheet: { sheetId: removeTab } })
  if (state.timeZone !== options.timeZone) {
    requests.push({ updateSpreadsheetProperties: { properties: { timeZone: options.timeZone }, fields: 'timeZone' } })
  }
  const hash = layoutHash(tabs, options)
  requests.push(
    state.layoutMetadata
      ? {
          updateDeveloperMetadata: {
            dataFilters: [{ developerMetadataLookup: { metadataId: state.layoutMetadata.metadataId } }],
            developerMetadata: { metadataValue: hash },
            fields: 'metadataValue',
          },
        }
      : {
          createDeveloperMetadata: {
            developerMetadata: {
              metadataKey: LAYOUT_METADATA_KEY,
              metadataValue: hash,
              location: { spreadsheet: true },
              visibility: 'DOCUMENT',
            },
          },
        },
  )
  return { requests, createdTabs, columns, sheetIds, rowFormats, created }
}

/** From the header row down: insertions at row 2 (the first rows of an empty tab) fall inside it, never before it. */
function statusRange(sheetId: number, width: number): sheets_v4.Schema$GridRange {
  return { sheetId, startColumnIndex: 0, endColumnIndex: width }
}

function validationFor(
  column: ColumnSpec,
  tab: string,
  columns: ReadonlyMap<string, ReadonlyMap<string, number>>,
): sheets_v4.Schema$DataValidationRule | undefined {
  if (column.kind === 'checkbox') return { condition: { type: 'BOOLEAN' }, strict: true }
  if (!column.dropdown) return undefined
  const target = columns.get(column.dropdown.tab)?.get(column.dropdown.column)
  if (target === undefined) {
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `The dropdown of "${tab}" / "${column.name}" refers to "${column.dropdown.tab}" / "${column.dropdown.column}", which is not laid out in the same call`,
      { hint: 'Lay out the tab that feeds a dropdown together with the tab that uses it.' },
    )
  }
  const letters = columnLetters(target)
  return {
    condition: { type: 'ONE_OF_RANGE', values: [{ userEnteredValue: `=${quoteTitle(column.dropdown.tab)}!$${letters}$2:$${letters}` }] },
    showCustomUi: true,
    // A warning, not a block: managers may type a new combination.
    strict: false,
  }
}

function sameRange(a: sheets_v4.Schema$GridRange, b: sheets_v4.Schema$GridRange): boolean {
  const keys = ['startRowIndex', 'endRowIndex', 'startColumnIndex', 'endColumnIndex'] as const
  // A start of 0 and no start are the same edge (proto3 JSON leaves zeros out).
  const at = (r: sheets_v4.Schema$GridRange, k: (typeof keys)[number]) => r[k] ?? (k.startsWith('start') ? 0 : undefined)
  return (a.sheetId ?? 0) === (b.sheetId ?? 0) && keys.every((k) => at(a, k) === at(b, k))
}

function lastNonEmpty(row: CellValue[]): number {
  for (let i = row.length - 1; i >= 0; i--) if (row[i] !== null && row[i] !== '') return i
  return -1
}

function contiguousRuns(cells: { name: string; index: number }[]): { start: number; names: string[] }[] {
  const runs: { start: number; names: string[] }[] = []
  for (const cell of cells) {
    const last = runs[runs.length - 1]
    if (last && last.start + last.names.length === cell.index) last.names.push(cell.name)
    else runs.push({ start: cell.index, names: [cell.name] })
  }
  return runs
}

/** Rows a Summary needs: its tables, then room for the chart under them. */
function summaryRowCount(spec: SummarySpec): number {
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
