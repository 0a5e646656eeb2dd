/**
 * Row claims (decisions/0003-rows-that-move.md): row-located developer
 * metadata, which Google documents as staying with its row when rows are
 * inserted or deleted, so a value write through it lands on that row wherever
 * the row is by then. That a sort moves it too is undocumented (`doctor
 * --write-test` checks it); a claim a sort left on another row fails its
 * read-back and is never written through.
 *
 * Google counts every character of a metadata's key and value against a budget
 * of 30,000 per sheet ("Metadata storage limits"), shared with every add-on
 * and script on the spreadsheet. So a claim is short (`ts` and the sheet id
 * in base 36 as key, three characters at most as value), lives for one write, and a
 * write claims its rows a chunk at a time. Pure builders of the filters and
 * requests, and readers of what Google echoes.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { CellValue } from '../port.ts'
import { parseRangeEcho } from './a1.ts'
import { cellFromApi } from './requests.ts'

/** Characters of claims a write keeps on one sheet at any moment: a third of Google's 30,000, as others share it. */
export const CLAIM_CHARS_PER_SHEET = 10_000

/** Most claims one round of a chunk makes: their counter takes two base-36 digits. */
export const CLAIMS_PER_ROUND = 36 * 36

/** Characters a claim's value takes at most (a round's letter and a two-digit counter): what a chunk reserves per row. */
export const CLAIM_VALUE_CHARS = 3

/** Keys of the row anchors earlier versions kept on every row; they are removed when a sheet's budget runs short. */
export const LEGACY_ANCHOR_KEYS: readonly string[] = ['timeline-sheets:row', 'timeline-sheets:claim']

/** Names one claim: unique per sheet while the write lasts. */
export interface ClaimRef {
  metadataKey: string
  value: string
}

/** The key every claim on one sheet carries, so one filter removes them all: `ts` and the sheet id in base 36. */
export function claimKey(sheetId: number): string {
  return `ts${sheetId.toString(36)}`
}

/** What a chunk reserves of a sheet's metadata room for one claim on it: its key and the longest value. */
export function claimReserve(sheetId: number): number {
  return claimKey(sheetId).length + CLAIM_VALUE_CHARS
}

/**
 * The DataFilter that selects the row(s) a claim sits on. It names no tab: a
 * lookup by key and value is the documented core of the API, while how a sheet
 * location matches its rows is not spelled out. A copy of the tab that carried
 * the claim along would be selected too, so a write goes through a filter only
 * after a read through it showed exactly one row, in the right tab.
 */
export function claimFilter(ref: ClaimRef): sheets_v4.Schema$DataFilter {
  return { developerMetadataLookup: { metadataKey: ref.metadataKey, metadataValue: ref.value, locationType: 'ROW' } }
}

/** The DataFilter that selects every claim on one sheet (this write's, and any a killed run left). */
export function sheetClaimsFilter(sheetId: number): sheets_v4.Schema$DataFilter {
  return { developerMetadataLookup: { metadataKey: claimKey(sheetId), locationType: 'ROW' } }
}

/** The request that claims sheet row `row` (1-based) of a tab. */
export function createClaim(ref: ClaimRef, sheetId: number, row: number): sheets_v4.Schema$Request {
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

/** The request that deletes the metadata a filter selects. */
export function deleteClaims(filter: sheets_v4.Schema$DataFilter): sheets_v4.Schema$Request {
  return { deleteDeveloperMetadata: { dataFilter: filter } }
}

/** The claim a filter looks up, read back from the filter Google echoes; undefined for other filters. */
export function refOfFilter(filter: sheets_v4.Schema$DataFilter): ClaimRef | undefined {
  const lookup = filter.developerMetadataLookup
  if (typeof lookup?.metadataKey !== 'string' || typeof lookup.metadataValue !== 'string') return undefined
  return { metadataKey: lookup.metadataKey, value: lookup.metadataValue }
}

/** `metadataKey \u0000 value`: one map key per claim. */
export function refId(ref: ClaimRef): string {
  return `${ref.metadataKey}\u0000${ref.value}`
}

/** Values for one write's claims, round by round. */
export interface ClaimValues {
  next(): string
  /** Starts a round: its claims may not share a value with the last round's, which its batch deletes. */
  round(): void
}

/**
 * A round's letter (base 36, starting at random and moving on each round, so a claim a killed run left behind is
 * unlikely to share a value) and a counter within the round. A value is unique among the claims that stand on a
 * sheet at once: a round's batch deletes the round's before it, and 36 rounds pass before a letter comes back.
 */
export function claimValues(random: () => number = Math.random): ClaimValues {
  let letter = Math.floor(random() * 36)
  let next = 0
  return {
    next: () => `${letter.toString(36)}${(next++).toString(36)}`,
    round: () => {
      letter = (letter + 1) % 36
      next = 0
    },
  }
}

/** One row a data-filter read returned: where it is now and what it holds. */
export interface RowEcho {
  title: string
  /** 1-based sheet row, now. */
  row: number
  /** Columns in the grid: the width a value write through the claim may use. */
  columnCount: number
  /** Its cells as read (FORMULA rendering, trailing empties trimmed). */
  cells: CellValue[]
}

/**
 * Reads `values.batchGetByDataFilter`'s answer into the rows each claim
 * selected, by claim; a row selected twice (two claims with the same value
 * on one row) counts once. Ranges that are not single rows are left out.
 */
export function rowsByClaim(valueRanges: readonly sheets_v4.Schema$MatchedValueRange[]): Map<string, RowEcho[]> {
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
