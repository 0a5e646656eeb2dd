/**
 * Row anchors (decisions/0003-rows-that-move.md): row-located developer
 * metadata that moves with its row when people sort, insert or delete rows.
 * A permanent anchor's value is the row's Key; a claim is a temporary anchor
 * on a row that has none of its own, valid for one write. Pure builders of
 * the filters and requests, and readers of what Google echoes.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { CellValue } from '../port.ts'
import { parseRangeEcho } from './a1.ts'
import { cellFromApi } from './requests.ts'

/** Metadata key of a row's permanent anchor; the value is the row's Key. */
export const ROW_ANCHOR_KEY = 'timeline-sheets:row'

/** Metadata key of a claim: a temporary anchor for one write, deleted when the write is done. */
export const ROW_CLAIM_KEY = 'timeline-sheets:claim'

/** Names the anchors of one row: unique per tab for a row the write can address. */
export interface AnchorRef {
  metadataKey: typeof ROW_ANCHOR_KEY | typeof ROW_CLAIM_KEY
  value: string
}

/**
 * The DataFilter that selects the row(s) anchored by `ref`. It names no tab:
 * a lookup by key and value is the documented core of the API, while how a
 * sheet location matches its rows is not spelled out. A copy of the tab that
 * carried the anchors along would be selected too, so a write goes through a
 * filter only after a read through it showed exactly one row, in the right tab.
 */
export function anchorFilter(ref: AnchorRef): sheets_v4.Schema$DataFilter {
  return { developerMetadataLookup: { metadataKey: ref.metadataKey, metadataValue: ref.value, locationType: 'ROW' } }
}

/** The request that anchors sheet row `row` (1-based) of a tab. */
export function createAnchor(ref: AnchorRef, sheetId: number, row: number): sheets_v4.Schema$Request {
  return {
    createDeveloperMetadata: {
      developerMetadata: {
        metadataKey: ref.metadataKey,
        metadataValue: ref.value,
        location: { dimensionRange: { sheetId, dimension: 'ROWS', startIndex: row - 1, endIndex: row } },
        visibility: 'DOCUMENT',
      },
    },
  }
}

/** The request that deletes the anchors a filter selects (none: nothing happens). */
export function deleteAnchors(filter: sheets_v4.Schema$DataFilter): sheets_v4.Schema$Request {
  return { deleteDeveloperMetadata: { dataFilter: filter } }
}

/** The request that gives the anchors `from` selects the key and value of `to` (none: nothing happens). */
export function renameAnchor(from: AnchorRef, to: AnchorRef): sheets_v4.Schema$Request {
  return {
    updateDeveloperMetadata: {
      dataFilters: [anchorFilter(from)],
      developerMetadata: { metadataKey: to.metadataKey, metadataValue: to.value },
      fields: 'metadataKey,metadataValue',
    },
  }
}

/** The anchor a filter looks up, read back from the filter Google echoes; undefined for other filters. */
export function refOfFilter(filter: sheets_v4.Schema$DataFilter): AnchorRef | undefined {
  const lookup = filter.developerMetadataLookup
  const key = lookup?.metadataKey
  if ((key !== ROW_ANCHOR_KEY && key !== ROW_CLAIM_KEY) || typeof lookup?.metadataValue !== 'string') return undefined
  return { metadataKey: key, value: lookup.metadataValue }
}

/** `metadataKey \u0000 value`: one map key per anchor. */
export function refId(ref: AnchorRef): string {
  return `${ref.metadataKey}\u0000${ref.value}`
}

/** One row a data-filter read returned: where it is now and what it holds. */
export interface RowEcho {
  title: string
  /** 1-based sheet row, now. */
  row: number
  /** Columns in the grid: the width a value write through the anchor may use. */
  columnCount: number
  /** Its cells as read (FORMULA rendering, trailing empties trimmed). */
  cells: CellValue[]
}

/**
 * Reads `values.batchGetByDataFilter`'s answer into the rows each anchor
 * selected, by anchor; a row selected twice (two anchors with the same value
 * on one row) counts once. Ranges that are not single rows are left out.
 */
export function rowsByAnchor(valueRanges: readonly sheets_v4.Schema$MatchedValueRange[]): Map<string, RowEcho[]> {
  const out = new Map<string, RowEcho[]>()
  for (const matched of valueRanges) {
    const range = matched.valueRange?.range
    if (typeof range !== 'string') continue
    const echo = parseRangeEcho(range)
    if (echo.startRow !== echo.endRow || echo.startColumn !== 0) continue
    const cells = (matched.valueRange?.values?.[0] ?? []).map(cellFromApi)
    const row: RowEcho = { title: echo.title, row: echo.startRow, columnCount: echo.endColumn + 1, cells }
    for (const filter of matched.dataFilters ?? []) {
      const ref = refOfFilter(filter)
      if (!ref) continue
      const list = out.get(refId(ref)) ?? []
      if (!list.some((r) => r.title === row.title && r.row === row.row)) list.push(row)
      out.set(refId(ref), list)
    }
  }
  return out
}
