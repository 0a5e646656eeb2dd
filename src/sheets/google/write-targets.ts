/**
 * The rows a Google write addresses, gathered from its TabWrites and checked
 * against the basis before anything is sent; and the I/O the write needs.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { keyText } from '../../core/row-identity.ts'
import { InternalError, TimelineSheetsError } from '../../errors.ts'
import type { CellUpdate, CellValue, TabData, TabWrite } from '../port.ts'
import { a1Range } from './a1.ts'
import type { RowFormats } from './column-formats.ts'
import type { EncodedBody } from './gzip-requests.ts'
import { cellToApi } from './requests.ts'
import type { ClaimRef, ClaimValues, RowEcho } from './row-claims.ts'
import type { ProtectedArea } from './protected-rows.ts'
import type { MarkedTab, SeenMarks } from './row-marks.ts'

/** What a look after a lost answer says about a structural batchUpdate. */
export type StructuralOutcome = 'applied' | 'not-applied' | 'diverged'

/** The backend's I/O, as the write needs it. */
export interface WriteDeps {
  spreadsheetId: string
  api: sheets_v4.Sheets
  /** One call under the retry policy; a lost answer repeats it as it is. */
  call<T>(lane: 'read' | 'write', operation: string, request: () => Promise<{ data: T }>): Promise<T>
  /**
   * A `spreadsheets.batchUpdate` of a body `encodeBody` made (rows serialized once, for their size and to send)
   * that, after a lost answer, repeats only if `check` says it was not applied.
   */
  batchUpdate(body: EncodedBody, check: () => Promise<StructuralOutcome>, touched: readonly string[]): Promise<void>
  /** A body as the bytes it leaves as (compressed when the backend compresses), made before it is sent. */
  encodeBody(json: string | readonly string[]): Promise<EncodedBody>
  /** Whole tabs as a read returns them (values.batchGet). */
  readTabs(tabs: readonly string[]): Promise<Map<string, TabData>>
  /** Sheet ids of these tabs, learnt with one spreadsheets.get if one is not known. */
  sheetIds(tabs: readonly string[]): Promise<Map<string, number>>
  /** False while a tab's id comes from an earlier run's hints and Google has not shown it names that tab. */
  idConfirmed(tab: string): boolean
  confirmId(tab: string): void
  /** Grid columns of a tab as last seen, if known. */
  columnCount(tab: string): number | undefined
  setColumnCount(tab: string, count: number): void
  /** What the tab's data rows carry, by column name, if the layout is known. */
  rowFormats(tab: string): RowFormats | undefined
  maxPayloadBytes: number
  /** Characters of claims the write may keep on a sheet at once; lowered when Google finds no room (`claimRoomRefused`). */
  claimRoom(sheetId: number): number
  /** Google refused claims of `chars` characters on a sheet: its metadata budget is shorter than thought. */
  claimRoomRefused(tab: string, sheetId: number, chars: number): Promise<void>
  /** Values for claims; tests make them predictable. */
  claimValues?: ClaimValues
  /** The row marks the read that gave this tab saw (row-marks.ts), if it read them. */
  seenMarks(tab: TabData): SeenMarks | undefined
  /** The tab's marks as the backend last made them (or learnt from hints). */
  markedTab(tab: string): MarkedTab | undefined
  /** A write made a tab's marks again. */
  marksMade(tab: string, marked: MarkedTab): void
  /** The backend's clock. */
  now(): number
  /** The areas of the spreadsheet this account may not edit, as one `spreadsheets.get` shows them now. */
  protectedAreas(): Promise<ProtectedArea[]>
  /** The error for a write Google refused as protected that no row it can leave out explains. */
  protectedError(cause: unknown, areas: readonly ProtectedArea[], tabs: readonly string[]): TimelineSheetsError
}

/** A basis row the write addresses, and how it was found again. */
export interface Target {
  row: number
  cells: readonly CellValue[]
  key: string | undefined
  /** Its Key is on this basis row only: a row that still holds it after a person typed into it is still this row. */
  identifying: boolean
  updates: CellUpdate[]
  remove: boolean
  /**
   * Keyed tabs: the claim the value write goes through, and the row as read back through it. Marked rows of a tab
   * without a Key (row-marks.ts): the mark, and the row as the read showed it through the mark.
   */
  claim?: { ref: ClaimRef; row: number }
  accepted?: ClaimRef
  /** Marked rows: the id of the mark the value write goes through. */
  mark?: number
  echo?: RowEcho
  /** Positional (tabs without keyColumn, and header rows): the row it is now and what it holds. */
  now?: number
  nowCells?: readonly CellValue[]
  /** The values reached the row. */
  written?: boolean
}

export interface TabState {
  write: TabWrite
  basis: TabData
  keyColumn: number | undefined
  targets: Map<number, Target>
  basisKeys: Map<string, number>
  current?: TabData
  sheetId?: number
}

/** Whether a target still has something to write. */
export function hasWork(target: Target): boolean {
  return target.updates.length > 0 || target.remove
}

/** Data rows of a keyed tab that the write addresses: these are claimed. */
export function claimedTargets(t: TabState): Target[] {
  if (t.keyColumn === undefined) return []
  return [...t.targets.values()].filter((target) => target.row >= 2 && hasWork(target))
}

/** Rows written at a position a fresh read confirmed: every unmarked row of a tab without keyColumn, and header rows. */
export function positionalTargets(t: TabState): Target[] {
  return [...t.targets.values()].filter(
    (target) => hasWork(target) && target.mark === undefined && (t.keyColumn === undefined || target.row === 1),
  )
}

/** Checks every write against its basis before anything is sent, and gathers the rows each one addresses. */
export function planTabs(writes: readonly TabWrite[], basis: { tabs: Record<string, TabData> }): TabState[] {
  const seen = new Set<string>()
  const out: TabState[] = []
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
    if (data.headerOnly) {
      throw new TimelineSheetsError('TS_INTERNAL', `Cannot write to the tab "${write.tab}": only its header was read`, {
        hint: 'Read the whole tab before planning writes to its rows.',
      })
    }
    if (write.keyColumn !== undefined && (!Number.isInteger(write.keyColumn) || write.keyColumn < 0)) {
      throw new TimelineSheetsError('TS_INTERNAL', `Invalid key column ${write.keyColumn} for "${write.tab}"`, {
        hint: 'The key column is a 0-based index, as read.',
      })
    }
    const basisKeys = new Map<string, number>()
    if (write.keyColumn !== undefined) {
      for (const cells of data.rows) {
        const key = keyText(cells, write.keyColumn)
        if (key !== undefined) basisKeys.set(key, (basisKeys.get(key) ?? 0) + 1)
      }
    }
    const t: TabState = { write, basis: data, keyColumn: write.keyColumn, targets: new Map(), basisKeys }
    const targetOf = (row: number): Target => {
      let target = t.targets.get(row)
      if (!target) {
        const cells = row === 1 ? data.header : (data.rows[row - 2] ?? [])
        const key = row === 1 ? undefined : keyText(cells, write.keyColumn)
        target = { row, cells, key, identifying: key !== undefined && basisKeys.get(key) === 1, updates: [], remove: false }
        t.targets.set(row, target)
      }
      return target
    }
    for (const update of write.updates ?? []) {
      if (!Number.isInteger(update.row) || update.row < 1 || !Number.isInteger(update.column) || update.column < 0) {
        throw new TimelineSheetsError('TS_INTERNAL', `Invalid cell address row ${update.row}, column ${update.column} in "${write.tab}"`, {
          hint: 'Rows are 1-based sheet rows and columns 0-based indexes, as read.',
        })
      }
      update.values.forEach((value, i) => cellToApi(value, () => a1Range(write.tab, update.row, update.column + i, 1, 1)))
      if (update.values.length > 0) targetOf(update.row).updates.push(update)
    }
    const lastRow = Math.max(data.gridRowCount, data.rows.length + 1)
    for (const row of write.deleteRows ?? []) {
      if (!Number.isInteger(row) || row < 2 || row > lastRow) {
        throw new TimelineSheetsError('TS_INTERNAL', `Cannot remove row ${row} of "${write.tab}": rows 2…${lastRow} exist`, {
          hint: 'Row numbers must come from the snapshot the write is based on; row 1 is the header.',
        })
      }
      targetOf(row).remove = true
    }
    for (const [i, row] of (write.appends ?? []).entries())
      row.forEach((value, j) => cellToApi(value, () => `${write.tab} appended row ${i + 1}, cell ${j + 1}`))
    out.push(t)
  }
  return out
}

/** Columns a write needs beyond the grid as last seen (0: none, or the width is not known). */
export function needsColumns(deps: WriteDeps, t: TabState): number {
  const known = deps.columnCount(t.write.tab)
  if (known === undefined) return 0
  let width = 0
  for (const update of t.write.updates ?? []) width = Math.max(width, update.column + update.values.length)
  for (const row of t.write.appends ?? []) width = Math.max(width, row.length)
  return Math.max(0, width - known)
}

/** Thrown when a tab id no longer names that tab: the caller learns the ids again and starts over. */
export class StaleSheetIdError extends InternalError {
  readonly code = 'TS_SHEETS_API'
  readonly convertedBy =
    'write (sheets/google/backend.ts): learns the tab ids again and starts over, or says the tabs changed during the run'
  readonly tab: string
  constructor(tab: string) {
    super(`The sheet id known for "${tab}" no longer names that tab`)
    this.tab = tab
  }
}
