/**
 * The layout the Google backend gives its tabs, as one pure plan: given the specs, what the spreadsheet holds
 * now (`layout-state.ts`) and each existing tab's header row, the `spreadsheets.batchUpdate` requests that bring
 * it there — tabs, grid sizes, header names, column formats and widths, protections, filters, then the Summary
 * (`summary-layout.ts`) and the status colours (`status-colours.ts`). Each request is either naturally
 * idempotent (formats, validation, hidden, frozen) or added only when missing (tabs, protections, status
 * colours, header names), so a repeated layout writes nothing new.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { summaryShape } from '../../core/summary.ts'
import type { CellValue, LayoutOptions, TabSpec } from '../port.ts'
import { numberFormatFor, validationFor, type RowFormats } from './column-formats.ts'
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
    if (spec.summary) requests.push(...summaryLayoutRequests(spec.title, spec.summary, sheetId, columns, existing?.chartIds ?? []))
    // Only when there is none: a filter a manager set (criteria, sort) stays as they left it.
    if (spec.filter && !existing?.basicFilter) requests.push({ setBasicFilter: { filter: { range: { sheetId } } } })
    requests.push(...statusColourRequests(spec, positions, sheetId, width, existing))
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
