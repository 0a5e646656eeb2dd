/**
 * A person at the spreadsheet, for tests: sorts, inserts and deletes rows,
 * types into cells, pastes blocks and reads a tab the way it looks. Goes
 * through the same store and model as the API (so metadata moves with rows,
 * USER_ENTERED parsing applies), but counts no requests and spends no quota.
 */
import { boundToGrid, parseArea } from './a1.ts'
import { deleteDimension, insertDimension } from './grid-shape.ts'
import type { SheetData, SpreadsheetData } from './sheet-data.ts'
import { gridRangeOf, sheetByTitle } from './sheet-lookup.ts'
import { protectedRangeAppliers } from './protected-ranges.ts'
import { editGuardFor } from './protection-rules.ts'
import { sortRows } from './sort-rows.ts'
import { beginTx, commitTx, rollback, type Tx } from './tx.ts'
import type { SheetsStore, SpreadsheetInit } from './store.ts'
import { readBlock } from './values-ops.ts'
import { writeInput } from './values-ops.ts'
import { type Scalar, trimBlock, type ValueRenderOption } from './values.ts'

/** What a manager can do; rows are 1-based as on screen. */
export interface Manager {
  /** Creates a spreadsheet and returns its id. */
  createSpreadsheet(init?: SpreadsheetInit): string
  /** Sorts the tab by one column (0-based), leaving `headerRows` rows (default 1) in place, as "Sort sheet" with a frozen header does. */
  sortTab(
    spreadsheetId: string,
    tab: string,
    columnIndex: number,
    order?: 'ASCENDING' | 'DESCENDING',
    options?: { headerRows?: number },
  ): void
  /** Inserts `count` empty rows before sheet row `beforeRow`. */
  insertRows(spreadsheetId: string, tab: string, beforeRow: number, count?: number): void
  /** Deletes `count` rows starting at sheet row `firstRow`. */
  deleteRows(spreadsheetId: string, tab: string, firstRow: number, count?: number): void
  /** Types into one cell: `2026-03-02`, `3/2/2026`, `13:45`, `1:45 PM`, `=D2-C2`, `'0042`; `''` or null empties it. */
  editCell(spreadsheetId: string, tab: string, a1: string, typed: string | number | boolean | null): void
  /** Pastes a block whose top-left is `a1`, typed as a person would (or stored as-is with `{ raw: true }`); null skips a cell. */
  pasteBlock(
    spreadsheetId: string,
    tab: string,
    a1: string,
    rows: (string | number | boolean | null)[][],
    options?: { raw?: boolean },
  ): void
  /** Reads the whole tab trimmed like values.get; default as a person sees it (FORMATTED_VALUE). */
  readTab(spreadsheetId: string, tab: string, render?: ValueRenderOption): Scalar[][]
  /**
   * Protects an area of a tab ("Protect range" in the UI: `A2:L40`, `3:9`, or the whole tab without `a1`) and
   * returns its id. Without `warningOnly` its editors are this manager, the owner and `editors`.
   */
  protectRange(
    spreadsheetId: string,
    tab: string,
    a1: string | undefined,
    options?: { description?: string; warningOnly?: boolean; editors?: string[] },
  ): number
}

/** Who a manager is. */
export interface ManagerOptions {
  /**
   * The manager's Google account (a token subject): the protected ranges it is no editor of refuse its edits, as
   * the API refuses a caller's. @default the spreadsheet's owner, who may edit every protected range
   */
  as?: string
}

/** Creates a manager acting on `store`. */
export function createManager(store: SheetsStore, options: ManagerOptions = {}): Manager {
  const locate = (spreadsheetId: string, tab: string): { ss: SpreadsheetData; sheet: SheetData } => {
    const ss = store.spreadsheets.get(spreadsheetId)
    if (!ss) throw new Error(`No spreadsheet ${spreadsheetId}`)
    const sheet = sheetByTitle(ss, tab)
    if (!sheet) throw new Error(`No tab ${tab} in ${spreadsheetId}`)
    return { ss, sheet }
  }
  const change = (ss: SpreadsheetData, run: (tx: Tx) => void) => {
    const tx = beginTx(editGuardFor(ss, options.as))
    try {
      run(tx)
      commitTx(tx, ss)
    } catch (error) {
      rollback(tx)
      throw error
    }
  }
  const cellAt = (a1: string): { row: number; column: number } => {
    const b = parseArea(a1)
    if (!b || b.startRow === undefined || b.startColumn === undefined) throw new Error(`Not a cell: ${a1}`)
    return { row: b.startRow, column: b.startColumn }
  }
  return {
    createSpreadsheet: (init) => store.createSpreadsheet(init).spreadsheetId,
    sortTab(spreadsheetId, tab, columnIndex, order = 'ASCENDING', options = {}) {
      const { ss, sheet } = locate(spreadsheetId, tab)
      const g = sheet.properties.gridProperties
      const b = boundToGrid({ startRow: options.headerRows ?? 1 }, g.rowCount, g.columnCount)
      change(ss, (tx) =>
        sortRows(tx, ss, sheet, b, [{ dimensionIndex: columnIndex, sortOrder: order }], store.options.undocumented.sortMovesRowMetadata),
      )
    },
    insertRows(spreadsheetId, tab, beforeRow, count = 1) {
      const { ss, sheet } = locate(spreadsheetId, tab)
      change(ss, (tx) => insertDimension(tx, ss, sheet, 'ROWS', beforeRow - 1, count, beforeRow > 1, store.options.cellLimit))
    },
    deleteRows(spreadsheetId, tab, firstRow, count = 1) {
      const { ss, sheet } = locate(spreadsheetId, tab)
      change(ss, (tx) => deleteDimension(tx, ss, sheet, 'ROWS', firstRow - 1, firstRow - 1 + count))
    },
    editCell(spreadsheetId, tab, a1, typed) {
      const { ss, sheet } = locate(spreadsheetId, tab)
      const { row, column } = cellAt(a1)
      change(ss, (tx) => writeInput(tx, ss, sheet, row, column, typed ?? '', 'USER_ENTERED'))
    },
    pasteBlock(spreadsheetId, tab, a1, rows, options = {}) {
      const { ss, sheet } = locate(spreadsheetId, tab)
      const { row, column } = cellAt(a1)
      change(ss, (tx) =>
        rows.forEach((line, i) =>
          line.forEach((value, j) => {
            if (value !== null) writeInput(tx, ss, sheet, row + i, column + j, value, options.raw ? 'RAW' : 'USER_ENTERED')
          }),
        ),
      )
    },
    protectRange(spreadsheetId, tab, a1, protection = {}) {
      const { ss, sheet } = locate(spreadsheetId, tab)
      const open = a1 === undefined ? {} : parseArea(a1)
      if (!open) throw new Error(`Not a range: ${a1}`)
      const protectedRange = {
        range: gridRangeOf(sheet.properties.sheetId, open),
        ...(protection.description ? { description: protection.description } : {}),
        ...(protection.warningOnly ? { warningOnly: true } : {}),
        ...(protection.editors ? { editors: { users: protection.editors } } : {}),
      }
      let id = 0
      change(ss, (tx) => {
        const reply = protectedRangeAppliers.addProtectedRange!({ store, ss, tx, caller: options.as }, { protectedRange }, 0) as {
          addProtectedRange: { protectedRange: { protectedRangeId: number } }
        }
        id = reply.addProtectedRange.protectedRange.protectedRangeId
      })
      return id
    },
    readTab(spreadsheetId, tab, render = 'FORMATTED_VALUE') {
      const { ss, sheet } = locate(spreadsheetId, tab)
      const g = sheet.properties.gridProperties
      return trimBlock(
        readBlock(ss, sheet, boundToGrid(undefined, g.rowCount, g.columnCount), {
          valueRenderOption: render,
          dateTimeRenderOption: 'SERIAL_NUMBER',
        }),
      )
    },
  }
}
