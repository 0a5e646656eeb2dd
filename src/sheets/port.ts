/**
 * The one narrow spreadsheet interface the sync engine talks to. Two backends
 * implement it: Google Sheets (src/sheets/google) and a local .xlsx workbook
 * (src/sheets/workbook). Positions in this interface are only ever relative
 * to the snapshot the caller read; the backend finds each addressed row again
 * when it writes, and leaves alone a row a person changed meanwhile
 * (decisions/0003-rows-that-move.md).
 */

export type { CellUpdate, CellValue, ColumnKind, ColumnSpec, Snapshot, TabData, TabSpec, TabWrite } from '../core/sheet.ts'
import type { Snapshot, TabSpec, TabWrite } from '../core/sheet.ts'

export interface LayoutOptions {
  /** IANA zone the spreadsheet shows local times in. */
  timeZone: string
}

export interface LayoutReport {
  createdTabs: string[]
  /** True when anything (tabs, header, formats, validation…) was written. */
  changed: boolean
}

export interface WriteReport {
  /** Where appended rows landed after the whole write, per tab: first sheet row and count. */
  appended: Record<string, { firstRow: number; count: number }>
  /**
   * Basis rows the write left alone because they no longer hold what the basis
   * showed (a person edited them since the read) or can no longer be found
   * (deleted, or their Key pasted elsewhere). Nothing was written to them; the
   * caller says so and leaves them for the next run.
   */
  skipped: SkippedRow[]
}

export interface SkippedRow {
  tab: string
  /** The row as the basis numbered it. */
  row: number
  /**
   * `changed`, `gone`: a person edited or removed it meanwhile. `protected`: it lies in a range the spreadsheet
   * protects against the tool's account (Google refused the write into it).
   */
  reason: 'changed' | 'gone' | 'protected'
  /** With `protected`: the range, as a person finds it (`"March approved" ('Activities'!A2:L40)`). */
  protectedBy?: string
}

/** What a read may leave out or take along, so a run reads only what its plan needs. */
export interface ReadOptions {
  /**
   * The caller has not seen this spreadsheet before (a target's first run): its tabs may well not exist yet. A
   * backend whose read of a missing tab fails (Google) lists the tabs first instead of after the failure.
   */
  tabsMayBeMissing?: boolean
  /**
   * Tabs of which only the header row is needed (a run that has nothing to plan on their rows). A backend
   * may still return every row; one that returns only the header marks the tab `headerOnly`.
   */
  headerOnly?: readonly string[]
  /**
   * Keys (in `keyColumn` of `tab`) of the rows the caller expects to write next. A backend that confirms
   * rows before it writes them (Google: read back through their row anchors) may confirm these in the
   * same request as the read, so a write on this snapshot right after it needs no read of its own.
   */
  rowsToWrite?: {
    tab: string
    keys: readonly string[]
    /**
     * Header names of the columns the caller needs on every row (`key` holds `keys`); every other cell it
     * needs only on the rows of `keys`. A backend may then read just these columns and those rows whole,
     * and mark the tab `partial`.
     */
    everyRow?: { key: string; others: readonly string[] }
  }
}

export interface RequestCounts {
  reads: number
  writes: number
}

export interface Spreadsheet {
  /** The config's `spreadsheet.kind` that selected this backend (`google`, `workbook`, …); the engine never branches on it. */
  readonly kind: string
  /** Human-readable location: a spreadsheet URL or a file path. */
  describe(): string
  /**
   * Makes the tabs exist with their header and layout (frozen protected
   * header, hidden protected columns, number formats, checkboxes, dropdowns,
   * status colours) and sets the time zone. Idempotent.
   */
  ensureLayout(tabs: TabSpec[], options: LayoutOptions): Promise<LayoutReport>
  /** Reads the given tabs in one go (Google: one values.batchGet, or one values.batchGetByDataFilter with `rowsToWrite`). */
  read(tabs: string[], options?: ReadOptions): Promise<Snapshot>
  /**
   * Applies updates, appends and removals addressed relative to `basis` (the
   * snapshot the caller read, and planned on). Each addressed row is found
   * again when the write is applied: it is the row that holds exactly the
   * cells the basis showed at that position (and, with `keyColumn`, that Key),
   * wherever it is now. A row that no longer holds them was edited or removed
   * by a person meanwhile: it is left alone and reported in `skipped`, so a
   * manager's sorting, inserting, deleting or typing during a run never makes
   * a write land on another row or overwrite what they typed.
   *
   * How close to the write each backend can look is its own limit, stated in
   * decisions/0003-rows-that-move.md: the workbook compares in the same step as
   * it saves; Google compares through one read just before the write and
   * addresses rows by developer metadata, which moves with them.
   */
  write(writes: TabWrite[], basis: Snapshot): Promise<WriteReport>
  /** Requests made so far (Google API calls, or workbook loads and saves). */
  requestCounts(): RequestCounts
  /**
   * A short text that changes whenever anything in the spreadsheet changes, learnt at a cost that does not grow
   * with the sheet (Google: the Drive file's version, one request; a workbook: the file's stamp, no read). What
   * `sync --watch` asks each interval to tell an untouched spreadsheet (decisions/0016). Absent: the backend
   * cannot tell, and every interval runs.
   */
  changeMark?(): Promise<string>
  /** Network requests one `changeMark` makes (Google 1, a workbook 0), for what a watch reports it cost. */
  readonly changeMarkRequests?: number
  /**
   * The mark the spreadsheet showed right after this backend's own last write, when the backend knows it exactly
   * (a workbook: the file it saved); undefined when its writes cannot be told from a person's made meanwhile
   * (Google), or when it wrote nothing.
   */
  markAfterOwnWrite?(): string | undefined
  /**
   * Backend facts worth keeping between runs (Google: the tab ids that row
   * removal and growth need), so a later run spends no request to learn them
   * again. Opaque to the engine, which stores and hands them back as they are.
   */
  exportHints?(): Record<string, unknown>
  /** Takes hints from an earlier run; stale hints must only ever cost a request, never a wrong write. */
  importHints?(hints: Record<string, unknown>): void
}
