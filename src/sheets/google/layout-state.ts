/**
 * What the Google layout reads of a spreadsheet: the one `spreadsheets.get` it costs (`LAYOUT_FIELDS`), that
 * answer as a `SpreadsheetState`, and the judgements made on it before any request is planned — whether the
 * stored layout hash says there is nothing to write, whether the tab Google made with a new spreadsheet may go,
 * which sheet id a new tab gets, and whether a range the spreadsheet holds is the one wanted. Pure: the backend
 * sends the request, `layout.ts` plans from the state.
 */
import { createHash } from 'node:crypto'
import type { sheets_v4 } from '@googleapis/sheets'
import type { LayoutOptions, TabSpec } from '../port.ts'

/** Key of the spreadsheet-level developer metadata holding the hash of the applied layout. */
export const LAYOUT_METADATA_KEY = 'timeline-sheets:layout'

/** Bumped when the requests `planLayout` builds change, so existing spreadsheets are laid out again. */
const LAYOUT_VERSION = 3

/** Field mask of the one `spreadsheets.get` that layout and sheet-id lookups cost. */
export const LAYOUT_FIELDS =
  'properties.timeZone,sheets(properties(sheetId,title,gridProperties),protectedRanges,conditionalFormats,basicFilter.range,charts.chartId),' +
  'developerMetadata'

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

/** Whether a range the spreadsheet holds (a protection's, a colour rule's) covers the same cells as a wanted one. */
export function sameRange(a: sheets_v4.Schema$GridRange, b: sheets_v4.Schema$GridRange): boolean {
  const keys = ['startRowIndex', 'endRowIndex', 'startColumnIndex', 'endColumnIndex'] as const
  // A start of 0 and no start are the same edge (proto3 JSON leaves zeros out).
  const at = (r: sheets_v4.Schema$GridRange, k: (typeof keys)[number]) => r[k] ?? (k.startsWith('start') ? 0 : undefined)
  return (a.sheetId ?? 0) === (b.sheetId ?? 0) && keys.every((k) => at(a, k) === at(b, k))
}
