/**
 * Row marks: row-located developer metadata kept between runs on the rows of a tab without a Key column that
 * every run writes again (the Approvals tab, `TabWrite.rowsToRevisit`). Google documents that row metadata stays
 * with its row when rows are inserted or deleted ("will remain associated at those locations as they move
 * around"); that a sort moves it too is undocumented and checked by `doctor --write-test`. A mark is a handle, not
 * an identity: the read that a write is planned on reads every mark's row through the mark, in the same request
 * as the tab, so it shows which row each mark sits on at that moment. The write then sends that row's values
 * through the mark (`values.batchUpdateByDataFilter`) with no read of its own, and a sort, insert or delete in
 * between still lands them on that row. A mark that sits on another row than it was made for is harmless: the
 * read says where it is.
 *
 * Google counts every character of a metadata's key and value against 30,000 a sheet, so a mark is four: the key
 * `ts:r` and no value, found by its `metadataId`, which the tool chooses (a random base and a counter) and keeps
 * in the backend's hints. Marks are made again all at once when the rows to keep them on change (new rows, rows
 * leaving the window), in the batchUpdate the write sends anyway, within `MARK_CHARS_PER_SHEET`. Pure builders and
 * readers.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { sameCells } from '../../core/row-identity.ts'
import type { CellValue, TabData } from '../port.ts'
import { parseRangeEcho } from './a1.ts'
import { cellFromApi } from './requests.ts'

/** The key of every mark; `:` is in no claim key (`ts` and base 36) nor in the anchors earlier versions left. */
export const MARK_KEY = 'ts:r'

/** Characters of marks kept on one sheet: a third of Google's 30,000, as claims keep, since others share the budget. */
export const MARK_CHARS_PER_SHEET = 10_000

/** Most marks on one sheet: each takes its key's characters. */
export const MARKS_PER_SHEET = Math.floor(MARK_CHARS_PER_SHEET / MARK_KEY.length)

/** Metadata ids are positive 32-bit integers. */
const MAX_ID = 2 ** 31 - 1

/**
 * How long the marks a read saw stand for where its rows are, for a write planned on it. The marks follow the rows
 * whatever the time; what this bounds is what no mark follows: a column a person inserts or moves, or a cell of the
 * tool's typed into, between the read and the write (`CONFIRMED_FOR_MS` in backend.ts bounds the same gap for a
 * tab list a layout plans on). Later, the write reads the rows again as it does for any tab without a Key.
 */
export const MARKS_HOLD_FOR_MS = 5_000

/** A tab the backend keeps marks on: its sheet, and the ids the last rebuild gave them (`base` … `base + count − 1`). */
export interface MarkedTab {
  sheetId: number
  base: number
  count: number
}

/** The filter that selects one mark's row. */
export function markFilter(id: number): sheets_v4.Schema$DataFilter {
  return { developerMetadataLookup: { metadataId: id, metadataKey: MARK_KEY, locationType: 'ROW' } }
}

/** The mark id a filter Google echoes looks up, if it is a mark's. */
export function markOfFilter(filter: sheets_v4.Schema$DataFilter | undefined): number | undefined {
  const lookup = filter?.developerMetadataLookup
  return lookup?.metadataKey === MARK_KEY && typeof lookup.metadataId === 'number' ? lookup.metadataId : undefined
}

/** The request that puts mark `id` on sheet row `row` (1-based). */
export function createMark(id: number, sheetId: number, row: number): sheets_v4.Schema$Request {
  return {
    createDeveloperMetadata: {
      developerMetadata: {
        metadataId: id,
        metadataKey: MARK_KEY,
        location: { dimensionRange: { sheetId, dimension: 'ROWS', startIndex: row - 1, endIndex: row } },
        visibility: 'DOCUMENT',
      },
    },
  }
}

/** What a read saw of a tab's marks: the mark on each row (1-based, as the read numbers them). */
export interface SeenMarks {
  sheetId: number
  /** When the read's answer came (the backend's clock). */
  at: number
  byRow: Map<number, number>
  /** Every mark the read found, usable or not: what a rebuild deletes. */
  found: number[]
  /** Marks the read could not use (on another tab, or where the tab's own range shows other cells). */
  unusable: boolean
}

/**
 * The marks a `values.batchGetByDataFilter` answer shows on `tab` (read with `markFilters`). A mark is used only
 * where it selected one row of this tab that holds, in the same answer, what the tab's own range showed there.
 */
export function seenMarks(ranges: readonly sheets_v4.Schema$MatchedValueRange[], tab: TabData, sheetId: number, at: number): SeenMarks {
  const rowsById = new Map<number, { title: string; row: number; cells: CellValue[] }[]>()
  for (const matched of ranges) {
    const range = matched.valueRange?.range
    if (typeof range !== 'string') continue
    for (const filter of matched.dataFilters ?? []) {
      const id = markOfFilter(filter)
      if (id === undefined) continue
      const echo = parseRangeEcho(range)
      const cells = (matched.valueRange?.values?.[0] ?? []).map(cellFromApi)
      // A range of more than one row is no row's: it stands as row 0, which no mark is used on.
      const row = echo.startRow === echo.endRow ? echo.startRow : 0
      rowsById.set(id, [...(rowsById.get(id) ?? []), { title: echo.title, row, cells }])
    }
  }
  const byRow = new Map<number, number>()
  let unusable = false
  for (const [id, rows] of rowsById) {
    const only = rows.length === 1 ? rows[0]! : undefined
    if (!only || only.title !== tab.title || only.row < 2 || byRow.has(only.row) || !sameCells(only.cells, tab.rows[only.row - 2] ?? [])) {
      unusable = true
      continue
    }
    byRow.set(only.row, id)
  }
  return { sheetId, at, byRow, found: [...rowsById.keys()], unusable }
}

/**
 * Whether the marks must be made again for a write that keeps them on `keep` (basis rows) and on `appended` new
 * rows: a row to keep without a mark, a mark on a row not to keep, an unusable mark, or new rows.
 */
export function marksStale(seen: SeenMarks | undefined, keep: readonly number[], appended: number): boolean {
  if (appended > 0 || !seen || seen.unusable) return true
  const wanted = new Set(keep)
  if (keep.some((row) => !seen.byRow.has(row))) return true
  return [...seen.byRow.keys()].some((row) => !wanted.has(row))
}

/**
 * The requests that make a sheet's marks again: the marks the read found deleted, then one on each row to keep (at
 * most `MARKS_PER_SHEET`, the first ones), with ids from a new random base. Returns the ids they take.
 */
export function rebuildMarks(
  sheetId: number,
  rows: readonly number[],
  found: readonly number[],
  random: () => number = Math.random,
): { requests: sheets_v4.Schema$Request[]; marked: MarkedTab } {
  const requests: sheets_v4.Schema$Request[] = found.map((id) => ({ deleteDeveloperMetadata: { dataFilter: markFilter(id) } }))
  const kept = rows.slice(0, MARKS_PER_SHEET)
  const base = 1 + Math.floor(random() * (MAX_ID - kept.length))
  kept.forEach((row, i) => requests.push(createMark(base + i, sheetId, row)))
  return { requests, marked: { sheetId, base, count: kept.length } }
}

/** The mark filters a read sends for a marked tab. */
export function markFilters(marked: MarkedTab): sheets_v4.Schema$DataFilter[] {
  return Array.from({ length: marked.count }, (_, i) => markFilter(marked.base + i))
}
