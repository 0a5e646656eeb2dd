/**
 * Pure builders for the Sheets API requests the Google backend sends: what a
 * read asks for, how a write becomes one structural batchUpdate plus value
 * ranges, how value ranges are split to stay under the payload limit, and how
 * a repeated structural write is recognised as already applied.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { TimelineSheetsError } from '../../errors.ts'
import type { CellValue, Snapshot, TabData, TabWrite } from '../port.ts'
import { a1Range, columnLetters, quoteTitle } from './a1.ts'

/** Query of the one `values.batchGet` a read costs: whole tabs, formulas as text, dates as serials. */
export function batchGetParams(spreadsheetId: string, tabs: string[]): sheets_v4.Params$Resource$Spreadsheets$Values$Batchget {
  return {
    spreadsheetId,
    ranges: tabs.map(quoteTitle),
    majorDimension: 'ROWS',
    valueRenderOption: 'FORMULA',
    dateTimeRenderOption: 'SERIAL_NUMBER',
  }
}

/** A cell as Google returned it under FORMULA rendering; `""` is an empty cell. */
export function cellFromApi(value: unknown): CellValue {
  if (value === '' || value === null || value === undefined) return null
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  return String(value)
}

/**
 * A cell as sent with `valueInputOption: RAW`. `null` means "empty" in the
 * port but "leave untouched" to Google, so it becomes `""`, which clears.
 */
export function cellToApi(value: CellValue, where: string): string | number | boolean {
  if (value === null) return ''
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new TimelineSheetsError('TS_VALIDATION', `Cannot write ${String(value)} to ${where}: not a finite number`, {
      hint: 'This is a bug in the caller: dates, times and durations must be finite serial numbers.',
    })
  }
  return value
}

/** Google's trimming: trailing empty cells of a row and trailing empty rows go. */
export function trimRows(rows: CellValue[][]): CellValue[][] {
  const out = rows.map((row) => {
    let end = row.length
    while (end > 0 && (row[end - 1] === null || row[end - 1] === '')) end--
    return row.slice(0, end).map((cell) => (cell === '' ? null : cell))
  })
  while (out.length > 0 && out[out.length - 1]!.length === 0) out.pop()
  return out
}

/** New 1-based row of `row` after removing `sortedDeletes` (ascending), or `undefined` when it is removed. */
export function remapRow(row: number, sortedDeletes: readonly number[]): number | undefined {
  let shift = 0
  for (const deleted of sortedDeletes) {
    if (deleted === row) return undefined
    if (deleted < row) shift++
    else break
  }
  return row - shift
}

/** What one tab's write turns into. */
export interface TabWritePlan {
  tab: string
  /** Distinct rows to delete, ascending, as read. */
  deletes: number[]
  /** Rows added to the grid (appendDimension) before the deletes. */
  growRows: number
  growColumns: number
  /** Grid rows before and after the structural part, for recognising a repeat. */
  gridBefore: number
  gridAfter: number
  appended: { firstRow: number; count: number } | undefined
}

export interface WritePlan {
  /** Requests for the one `spreadsheets.batchUpdate` (empty: none is sent). */
  structural: sheets_v4.Schema$Request[]
  /** Value ranges for `values.batchUpdate`, in final (post-removal) rows. */
  values: sheets_v4.Schema$ValueRange[]
  tabs: TabWritePlan[]
  /** Tabs whose grid changes but whose sheet id was not known: look them up and plan again. */
  missingSheetIds: string[]
}

export interface PlanWriteContext {
  /** Sheet ids by title; needed for tabs whose grid changes (else listed in `missingSheetIds`). */
  sheetIds: ReadonlyMap<string, number>
  /** Known column counts by title (from the last read); unknown means no column growth. */
  columnCounts: ReadonlyMap<string, number>
}

/**
 * Turns writes addressed relative to `basis` into one structural batchUpdate
 * and absolute value ranges. Order of the structural part: grow first (adds at
 * the end, so no position moves, and a tab never runs out of non-frozen rows),
 * then delete rows in descending order (each delete leaves the rows above it
 * where `basis` saw them). Updates and appends are remapped to the rows they
 * hold after the deletes; updates to deleted rows are dropped.
 */
export function planWrite(writes: TabWrite[], basis: Snapshot, context: PlanWriteContext): WritePlan {
  const structural: sheets_v4.Schema$Request[] = []
  const deletions: sheets_v4.Schema$Request[] = []
  const values: sheets_v4.Schema$ValueRange[] = []
  const tabs: TabWritePlan[] = []
  const missingSheetIds: string[] = []
  const seen = new Set<string>()
  for (const write of writes) {
    if (seen.has(write.tab)) {
      throw new TimelineSheetsError('TS_INTERNAL', `Two writes address the tab "${write.tab}" in one call`, {
        hint: 'Merge them into one TabWrite: positions of the second would not account for the first.',
      })
    }
    seen.add(write.tab)
    const data = basis.tabs[write.tab]
    if (!data || !data.exists) {
      throw new TimelineSheetsError('TS_SHEET_LAYOUT', `Cannot write to the tab "${write.tab}": it was not in the snapshot read before`, {
        hint: 'Create the tabs first (ensureLayout), then read them, then write.',
      })
    }
    const deletes = [...new Set(write.deleteRows ?? [])].sort((a, b) => a - b)
    for (const row of deletes) {
      if (!Number.isInteger(row) || row < 2 || row > data.gridRowCount) {
        throw new TimelineSheetsError('TS_INTERNAL', `Cannot delete row ${row} of "${write.tab}": rows 2…${data.gridRowCount} exist`, {
          hint: 'Row numbers must come from the snapshot the write is based on; row 1 is the header.',
        })
      }
    }
    const lastDataRow = data.rows.length + 1
    const appends = write.appends ?? []
    const appendFirst = lastDataRow + 1 - deletes.filter((row) => row <= lastDataRow).length
    let lastRowNeeded = appends.length > 0 ? appendFirst + appends.length - 1 : 0
    let lastColumnNeeded = 0
    for (const update of write.updates ?? []) {
      if (!Number.isInteger(update.row) || update.row < 1 || !Number.isInteger(update.column) || update.column < 0) {
        throw new TimelineSheetsError('TS_INTERNAL', `Invalid cell address row ${update.row}, column ${update.column} in "${write.tab}"`, {
          hint: 'Rows are 1-based sheet rows and columns 0-based indexes, as read.',
        })
      }
      if (update.values.length === 0) continue
      const row = remapRow(update.row, deletes)
      if (row === undefined) continue
      lastRowNeeded = Math.max(lastRowNeeded, row)
      lastColumnNeeded = Math.max(lastColumnNeeded, update.column + update.values.length)
      const where = `${write.tab}!${columnLetters(update.column)}${update.row}`
      values.push({
        range: a1Range(write.tab, row, update.column, 1, update.values.length),
        majorDimension: 'ROWS',
        values: [update.values.map((cell) => cellToApi(cell, where))],
      })
    }
    if (appends.length > 0) {
      const width = Math.max(1, ...appends.map((row) => row.length))
      lastColumnNeeded = Math.max(lastColumnNeeded, width)
      values.push({
        range: a1Range(write.tab, appendFirst, 0, appends.length, width),
        majorDimension: 'ROWS',
        values: appends.map((row, i) => row.map((cell) => cellToApi(cell, `${write.tab} appended row ${i + 1}`))),
      })
    }
    const gridAfterDeletes = data.gridRowCount - deletes.length
    const growRows = Math.max(0, lastRowNeeded - gridAfterDeletes)
    const knownColumns = context.columnCounts.get(write.tab)
    const growColumns = knownColumns === undefined ? 0 : Math.max(0, lastColumnNeeded - knownColumns)
    if (growRows > 0 || growColumns > 0 || deletes.length > 0) {
      const known = context.sheetIds.get(write.tab)
      if (known === undefined) missingSheetIds.push(write.tab)
      const sheetId = known ?? -1
      if (growRows > 0) structural.push({ appendDimension: { sheetId, dimension: 'ROWS', length: growRows } })
      if (growColumns > 0) structural.push({ appendDimension: { sheetId, dimension: 'COLUMNS', length: growColumns } })
      for (const run of descendingRuns(deletes)) {
        deletions.push({
          deleteDimension: { range: { sheetId, dimension: 'ROWS', startIndex: run.first - 1, endIndex: run.last } },
        })
      }
    }
    tabs.push({
      tab: write.tab,
      deletes,
      growRows,
      growColumns,
      gridBefore: data.gridRowCount,
      gridAfter: data.gridRowCount + growRows - deletes.length,
      appended: appends.length > 0 ? { firstRow: appendFirst, count: appends.length } : undefined,
    })
  }
  return { structural: [...structural, ...deletions], values, tabs, missingSheetIds }
}

/** Consecutive runs of rows, last run first, so each delete leaves the earlier rows in place. */
export function descendingRuns(sortedRows: readonly number[]): { first: number; last: number }[] {
  const runs: { first: number; last: number }[] = []
  for (const row of sortedRows) {
    const current = runs[runs.length - 1]
    if (current && current.last + 1 === row) current.last = row
    else runs.push({ first: row, last: row })
  }
  return runs.reverse()
}

/** Google recommends at most about 2 MB per request. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 2_000_000

/**
 * Groups value ranges into requests of at most `maxBytes` of JSON each. A
 * range that alone is too big is cut into runs of rows; a single row that is
 * too big is sent on its own (Google's hard limit is 10 MB).
 */
export function splitValueRanges(
  ranges: sheets_v4.Schema$ValueRange[],
  maxBytes: number = DEFAULT_MAX_PAYLOAD_BYTES,
): sheets_v4.Schema$ValueRange[][] {
  const pieces: { range: sheets_v4.Schema$ValueRange; bytes: number }[] = []
  for (const range of ranges) {
    for (const piece of cutRows(range, maxBytes)) pieces.push({ range: piece, bytes: jsonBytes(piece) })
  }
  const batches: sheets_v4.Schema$ValueRange[][] = []
  let current: sheets_v4.Schema$ValueRange[] = []
  let size = 0
  for (const piece of pieces) {
    if (current.length > 0 && size + piece.bytes > maxBytes) {
      batches.push(current)
      current = []
      size = 0
    }
    current.push(piece.range)
    size += piece.bytes + 1
  }
  if (current.length > 0) batches.push(current)
  return batches
}

function cutRows(range: sheets_v4.Schema$ValueRange, maxBytes: number): sheets_v4.Schema$ValueRange[] {
  const rows = range.values ?? []
  if (rows.length <= 1 || jsonBytes(range) <= maxBytes) return [range]
  const parsed = /^(.*)!([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(range.range ?? '')
  if (!parsed) return [range]
  const [, title, startColumn, startRow, endColumn] = parsed
  const out: sheets_v4.Schema$ValueRange[] = []
  let chunk: unknown[][] = []
  let chunkStart = Number(startRow)
  let chunkBytes = 0
  const flush = () => {
    if (chunk.length === 0) return
    const end = `${endColumn ?? startColumn}${chunkStart + chunk.length - 1}`
    out.push({ range: `${title}!${startColumn}${chunkStart}:${end}`, majorDimension: range.majorDimension ?? 'ROWS', values: chunk })
    chunkStart += chunk.length
    chunk = []
    chunkBytes = 0
  }
  for (const row of rows as unknown[][]) {
    const bytes = jsonBytes(row) + 1
    if (chunk.length > 0 && chunkBytes + bytes + 200 > maxBytes) flush()
    chunk.push(row)
    chunkBytes += bytes
  }
  flush()
  return out
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8')
}

/** What a re-read says about a structural batchUpdate whose answer was lost (5xx, dropped connection). */
export type StructuralOutcome = 'applied' | 'not-applied' | 'diverged'

/**
 * Decides whether a structural batchUpdate (atomic on Google's side) already
 * happened, by comparing a fresh read of the tabs it touched with `basis`:
 * the grid size and the rows either still look like the basis, or like the
 * basis minus the deleted rows. Anything else means someone else changed the
 * tab meanwhile, and repeating a positional delete would hit the wrong rows.
 */
export function structuralOutcome(plan: TabWritePlan[], basis: Snapshot, current: Snapshot): StructuralOutcome {
  let applied = true
  let untouched = true
  for (const tab of plan) {
    if (tab.deletes.length === 0 && tab.growRows === 0 && tab.growColumns === 0) continue
    const before = basis.tabs[tab.tab]
    const now = current.tabs[tab.tab]
    if (!before || !now || !now.exists) return 'diverged'
    const sameRows = (a: CellValue[][], b: CellValue[][]) => JSON.stringify(trimRows(a)) === JSON.stringify(trimRows(b))
    const expectedAfter = removeRows(before, tab.deletes)
    const looksApplied = now.gridRowCount === tab.gridAfter && sameRows([now.header, ...now.rows], expectedAfter)
    const looksUntouched = now.gridRowCount === tab.gridBefore && sameRows([now.header, ...now.rows], [before.header, ...before.rows])
    applied &&= looksApplied
    untouched &&= looksUntouched
  }
  // Both can hold only when every deleted row was an empty trailing row and
  // the growth equals the deletes: the two states are then the same.
  if (applied) return 'applied'
  if (untouched) return 'not-applied'
  return 'diverged'
}

function removeRows(tab: TabData, deletes: readonly number[]): CellValue[][] {
  const drop = new Set(deletes)
  return [tab.header, ...tab.rows.filter((_, i) => !drop.has(i + 2))]
}
