/**
 * The layout the Google backend gives its tabs, as one pure plan: given the specs, what the spreadsheet holds
 * now (`layout-state.ts`) and each existing tab's header row, the `spreadsheets.batchUpdate` requests that bring
 * it there — tabs, grid sizes, header names, column formats and widths (`column-layout.ts`), protections,
 * filters, then the Summary (`summary-layout.ts`) and the status colours (`status-colours.ts`). Each request is
 * either naturally idempotent (formats, validation, hidden, frozen) or added only when missing (tabs,
 * protections, status colours, header names), so a repeated layout writes nothing new.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { summaryShape } from '../../core/summary.ts'
import type { CellValue, LayoutOptions, TabSpec } from '../port.ts'
import type { RowFormats } from './column-formats.ts'
import { columnLayout } from './column-layout.ts'
import { LAYOUT_METADATA_KEY, layoutHash, newSheetId, sameRange, type SheetState, type SpreadsheetState } from './layout-state.ts'
import { statusColourRequests } from './status-colours.ts'
import { summaryLayoutRequests, summaryRowCount } from './summary-layout.ts'

const DESCRIPTION_PREFIX = 'timeline-sheets: '

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
  const sheetIds = new Map(state.sheets.map((s) => [s.title, s.sheetId]))
  const rowFormats = new Map<string, RowFormats>()
  const created = new Map<string, CreatedTab>()
  const byTitle = new Map(state.sheets.map((s) => [s.title, s]))
  const used = new Set(state.sheets.map((s) => s.sheetId))

  // Pass 1: tabs, grid size and header names, so dropdowns can refer to any tab.
  const placed: PlacedTab[] = []
  for (const spec of tabs) {
    const existing = byTitle.get(spec.title)
    const tab = placeTab(spec, existing, existing ? (headers.get(spec.title) ?? []) : [], used)
    if (!existing) {
      used.add(tab.sheetId)
      createdTabs.push(spec.title)
    }
    if (tab.created) created.set(spec.title, tab.created)
    sheetIds.set(spec.title, tab.sheetId)
    columns.set(spec.title, tab.positions)
    requests.push(...tab.requests)
    placed.push(tab)
  }

  // Pass 2: formats, validation, visibility, protection, colours.
  for (const tab of placed) {
    const formatted = formatTab(tab, columns, options.timeZone)
    rowFormats.set(tab.spec.title, formatted.rowFormats)
    requests.push(...formatted.requests)
  }

  if (removeTab !== undefined) requests.push({ deleteSheet: { sheetId: removeTab } })
  if (state.timeZone !== options.timeZone) {
    requests.push({ updateSpreadsheetProperties: { properties: { timeZone: options.timeZone }, fields: 'timeZone' } })
  }
  requests.push(layoutMetadataRequest(state, layoutHash(tabs, options)))
  return { requests, createdTabs, columns, sheetIds, rowFormats, created }
}

/** A header name the tab lacks, at the 0-based column it is written to. */
interface HeaderCell {
  name: string
  index: number
}

/** Where a tab's columns go, and the grid they need. */
interface TabShape {
  /** Header name → 0-based index: where the header row has it, else after the row's last name. */
  positions: Map<string, number>
  /** The spec's columns the header row lacks, in spec order. */
  missing: HeaderCell[]
  /** Columns the tab needs: one past every position, and a Summary's own. */
  width: number
  /** Rows the tab needs: a Summary's; none for any other tab. */
  rows: number
}

/** The shape of a tab from its spec and its header row (empty for a tab this layout adds). */
function tabShape(spec: TabSpec, header: CellValue[]): TabShape {
  const positions = headerPositions(header)
  let next = lastNonEmpty(header) + 1
  const missing: HeaderCell[] = []
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
  return { positions, missing, width, rows }
}

/** The names of a header row at their first 0-based index, trimmed; blank and non-text cells name nothing. */
function headerPositions(header: CellValue[]): Map<string, number> {
  const positions = new Map<string, number>()
  header.forEach((cell, i) => {
    if (typeof cell === 'string' && cell.trim() !== '' && !positions.has(cell.trim())) positions.set(cell.trim(), i)
  })
  return positions
}

/** A tab after pass 1: where it is, and the requests that add or grow it and name its columns. */
interface PlacedTab {
  spec: TabSpec
  /** As the spreadsheet holds it; undefined when this layout adds the tab. */
  existing: SheetState | undefined
  sheetId: number
  positions: Map<string, number>
  width: number
  requests: sheets_v4.Schema$Request[]
  /** What a tab this layout adds holds once applied; a Summary, which the layout fills, has none. */
  created: CreatedTab | undefined
}

/** Pass 1 for one tab: an existing tab grows to its shape, a missing one is added with a sheet id not in `used`. */
function placeTab(spec: TabSpec, existing: SheetState | undefined, header: CellValue[], used: ReadonlySet<number>): PlacedTab {
  const shape = tabShape(spec, header)
  const sheetId = existing ? existing.sheetId : newSheetId(spec.title, used)
  const common = { spec, existing, sheetId, positions: shape.positions, width: shape.width }
  if (existing) {
    return {
      ...common,
      requests: [...existingGridRequests(existing, shape), ...headerNameRequests(sheetId, shape.missing)],
      created: undefined,
    }
  }
  const grid = newGrid(spec, shape)
  return {
    ...common,
    requests: [
      { addSheet: { properties: { sheetId, title: spec.title, gridProperties: { ...grid, frozenRowCount: 1 } } } },
      ...headerNameRequests(sheetId, shape.missing),
    ],
    // A new tab's header is every column in order (no existing header to find names in).
    created: spec.summary ? undefined : { header: shape.missing.map((m) => m.name), ...grid },
  }
}

/** What an existing tab lacks: the columns and rows of its shape, and a frozen header row. */
function existingGridRequests(existing: SheetState, shape: TabShape): sheets_v4.Schema$Request[] {
  const { sheetId } = existing
  const requests: sheets_v4.Schema$Request[] = []
  if (existing.columnCount < shape.width) {
    requests.push({ appendDimension: { sheetId, dimension: 'COLUMNS', length: shape.width - existing.columnCount } })
  }
  if (existing.rowCount < shape.rows)
    requests.push({ appendDimension: { sheetId, dimension: 'ROWS', length: shape.rows - existing.rowCount } })
  if (existing.frozenRowCount !== 1) {
    requests.push({
      updateSheetProperties: {
        properties: { sheetId, gridProperties: { frozenRowCount: 1 } },
        fields: 'gridProperties.frozenRowCount',
      },
    })
  }
  return requests
}

/** The grid of a tab this layout adds: at least 1000 rows, and a Summary at least 26 columns. */
function newGrid(spec: TabSpec, shape: TabShape): { rowCount: number; columnCount: number } {
  return { rowCount: Math.max(1000, shape.rows), columnCount: Math.max(shape.width, spec.summary ? 26 : 1) }
}

/** Writes the header names a tab lacks, one request per run of adjacent columns. */
function headerNameRequests(sheetId: number, missing: HeaderCell[]): sheets_v4.Schema$Request[] {
  return contiguousRuns(missing).map((run) => ({
    updateCells: {
      range: { sheetId, startRowIndex: 0, endRowIndex: 1, startColumnIndex: run.start, endColumnIndex: run.start + run.names.length },
      rows: [{ values: run.names.map((name) => ({ userEnteredValue: { stringValue: name } })) }],
      fields: 'userEnteredValue',
    },
  }))
}

/**
 * Pass 2 for one tab: its bold header, its protections, each column's layout, a Summary's contents, its filter and
 * status colours. Its columns are found by title in `columns`, the positions the plan reports.
 */
function formatTab(
  tab: PlacedTab,
  columns: ReadonlyMap<string, ReadonlyMap<string, number>>,
  timeZone: string,
): { requests: sheets_v4.Schema$Request[]; rowFormats: RowFormats } {
  const { spec, sheetId, existing, width } = tab
  const positions = columns.get(spec.title)!
  const held = heldProtections(existing)
  const requests: sheets_v4.Schema$Request[] = [
    boldHeaderRequest(sheetId, width),
    ...protectionRequests(held, tabProtection(spec, sheetId)),
  ]
  const rowFormats: RowFormats = {}
  for (const column of spec.columns) {
    const index = positions.get(column.name)!
    const layout = columnLayout(column, { tab: spec.title, sheetId, index }, columns, timeZone)
    requests.push(...layout.requests)
    rowFormats[column.name] = layout.cellFormat
    if (column.protected && !spec.readOnly) {
      requests.push(
        ...protectionRequests(held, {
          description: `${spec.title} / ${column.name}`,
          range: { sheetId, startColumnIndex: index, endColumnIndex: index + 1 },
        }),
      )
    }
  }
  if (spec.summary) requests.push(...summaryLayoutRequests(spec.title, spec.summary, sheetId, columns, existing?.chartIds ?? []))
  // Only when there is none: a filter a manager set (criteria, sort) stays as they left it.
  if (spec.filter && !existing?.basicFilter) requests.push({ setBasicFilter: { filter: { range: { sheetId } } } })
  requests.push(...statusColourRequests(spec, positions, sheetId, width, existing))
  return { requests, rowFormats }
}

function boldHeaderRequest(sheetId: number, width: number): sheets_v4.Schema$Request {
  return {
    repeatCell: {
      range: { sheetId, startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: width },
      cell: { userEnteredFormat: { textFormat: { bold: true } } },
      fields: 'userEnteredFormat.textFormat.bold',
    },
  }
}

/** A protection the layout wants: its description without our prefix, and the cells it covers. */
interface Protection {
  description: string
  range: sheets_v4.Schema$GridRange
  /**
   * Not a warning: only the range's editors may edit it. Google lists the caller who adds a range as its editor
   * (recorded answers, decisions/0021), and "owners of the spreadsheet can always edit protected ranges".
   */
  closed?: boolean
}

/** A read-only tab is protected whole (a closed one for the tool's account alone); any other tab, its header row. */
function tabProtection(spec: TabSpec, sheetId: number): Protection {
  return spec.readOnly
    ? { description: spec.title, range: { sheetId }, ...(spec.closed ? { closed: true } : {}) }
    : { description: `${spec.title} header`, range: { sheetId, startRowIndex: 0, endRowIndex: 1 } }
}

/** The protections of a tab that are ours (a manager's own are left alone), by description. */
function heldProtections(existing: SheetState | undefined): Map<string, sheets_v4.Schema$ProtectedRange> {
  return new Map(
    (existing?.protectedRanges ?? []).filter((p) => p.description?.startsWith(DESCRIPTION_PREFIX)).map((p) => [p.description!, p]),
  )
}

/**
 * Nothing when ours already covers the wanted cells as wanted; otherwise the protection is added, as a warning
 * only unless closed, after ours of the same description is deleted (its column moved, or it was the other kind).
 * A closed one names no editors: Google makes the caller (the tool's account) its editor.
 */
function protectionRequests(held: ReadonlyMap<string, sheets_v4.Schema$ProtectedRange>, wanted: Protection): sheets_v4.Schema$Request[] {
  const description = `${DESCRIPTION_PREFIX}${wanted.description}`
  const found = held.get(description)
  const closed = wanted.closed === true
  if (found && sameRange(found.range ?? {}, wanted.range) && (found.warningOnly !== true) === closed) return []
  return [
    ...(found?.protectedRangeId != null ? [{ deleteProtectedRange: { protectedRangeId: found.protectedRangeId } }] : []),
    { addProtectedRange: { protectedRange: { range: wanted.range, description, ...(closed ? {} : { warningOnly: true }) } } },
  ]
}

/** Stores the layout's hash, so a later run with the same specs and zone knows there is nothing to write. */
function layoutMetadataRequest(state: SpreadsheetState, hash: string): sheets_v4.Schema$Request {
  return state.layoutMetadata
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
      }
}

function lastNonEmpty(row: CellValue[]): number {
  for (let i = row.length - 1; i >= 0; i--) if (row[i] !== null && row[i] !== '') return i
  return -1
}

function contiguousRuns(cells: HeaderCell[]): { start: number; names: string[] }[] {
  const runs: { start: number; names: string[] }[] = []
  for (const cell of cells) {
    const last = runs[runs.length - 1]
    if (last && last.start + last.names.length === cell.index) last.names.push(cell.name)
    else runs.push({ start: cell.index, names: [cell.name] })
  }
  return runs
}
