/**
 * The one narrow spreadsheet interface the sync engine talks to. Two backends
 * implement it: Google Sheets (src/sheets/google) and a local .xlsx workbook
 * (src/sheets/workbook). Row identity is the Key column, never the position:
 * positions in this interface are only ever relative to the snapshot the
 * caller read, and are resolved by the backend in the same write.
 */

/**
 * A cell as read or written. `null` is an empty cell. Dates, times and durations are serial numbers.
 * Reads never return `""`: an empty cell before the last non-empty one is `null` (Google's `""` maps
 * to `null`). Writing `null` or `""` empties the cell (Google: send `""`, as its `null` means "leave as is").
 */
export type CellValue = string | number | boolean | null

export type ColumnKind =
  /** Free text: written so it can never become a formula or a number. */
  | 'text'
  /** Serial day number, shown as a date (`yyyy-mm-dd`). */
  | 'date'
  /** Fraction of a day, shown as `hh:mm` (or `hh:mm:ss` when seconds matter). */
  | 'time'
  /** Serial date and time. */
  | 'datetime'
  /** Fraction of a day, shown as elapsed `[h]:mm`. */
  | 'duration'
  /** Boolean, shown as a checkbox. */
  | 'checkbox'
  | 'number'

export interface ColumnSpec {
  /** Header text, also how the engine finds the column (never by position). */
  name: string
  kind: ColumnKind
  /** Pixel width hint. */
  width?: number
  /** Hidden from managers (Key, Base). */
  hidden?: boolean
  /** Tool-owned: protected with a warning for people who edit it (Status, Key, Base). */
  protected?: boolean
  /** Dropdown fed from another tab's column; a warning, not a block. */
  dropdown?: { tab: string; column: string }
  /** Wrap long text (Notes). */
  wrap?: boolean
}

export interface TabSpec {
  title: string
  columns: ColumnSpec[]
  /** The whole tab is tool-written (Sync log, other timelines). */
  readOnly?: boolean
  /** Column whose text drives conditional row colours (`conflict`, `error`, `ok`…). */
  statusColumn?: string
}

export interface LayoutOptions {
  /** IANA zone the spreadsheet shows local times in. */
  timeZone: string
}

export interface LayoutReport {
  createdTabs: string[]
  /** True when anything (tabs, header, formats, validation…) was written. */
  changed: boolean
}

export interface TabData {
  title: string
  /** False when the tab does not exist (the other fields are then empty). */
  exists: boolean
  /** Row 1 as read, trailing empty cells trimmed. */
  header: CellValue[]
  /**
   * Rows 2… as read, trimmed the way Google trims: trailing empty rows are
   * dropped, an empty row before the last non-empty one is `[]`, trailing
   * empty cells of a row are dropped. `rows[i]` is sheet row `i + 2`.
   * Formulas are returned as their text (`=A2+1`), so the engine can refuse
   * a formula where a value belongs.
   */
  rows: CellValue[][]
  /** Rows in the grid (Google) or in use (workbook); for growth and bounds. */
  gridRowCount: number
}

export interface Snapshot {
  tabs: Record<string, TabData>
}

/** A run of cells in one row, starting at `column` (0-based), in sheet row `row` (1-based, as read). */
export interface CellUpdate {
  row: number
  column: number
  values: CellValue[]
}

export interface TabWrite {
  tab: string
  /** Cells to set, addressed as in the snapshot that was read. */
  updates?: CellUpdate[]
  /** Rows to add after the last row of the snapshot (before any removal shifts them). */
  appends?: CellValue[][]
  /** Sheet rows (1-based, as read) to remove. Removed after updates land. */
  deleteRows?: number[]
}

export interface WriteReport {
  /** Where appended rows landed after the whole write, per tab: first sheet row and count. */
  appended: Record<string, { firstRow: number; count: number }>
}

export interface RequestCounts {
  reads: number
  writes: number
}

export interface Spreadsheet {
  /** `google` or `workbook`. */
  readonly kind: 'google' | 'workbook'
  /** Human-readable location: a spreadsheet URL or a file path. */
  describe(): string
  /**
   * Makes the tabs exist with their header and layout (frozen protected
   * header, hidden protected columns, number formats, checkboxes, dropdowns,
   * status colours) and sets the time zone. Idempotent.
   */
  ensureLayout(tabs: TabSpec[], options: LayoutOptions): Promise<LayoutReport>
  /** Reads the given tabs in one go (Google: one values.batchGet). */
  read(tabs: string[]): Promise<Snapshot>
  /**
   * Applies updates, appends and removals, all addressed relative to `basis`
   * (the snapshot the caller read). Google: one values.batchUpdate (split only
   * to stay under ~2 MB) plus at most one spreadsheets.batchUpdate for grid
   * growth and row removal.
   */
  write(writes: TabWrite[], basis: Snapshot): Promise<WriteReport>
  /** Requests made so far (Google API calls, or workbook loads and saves). */
  requestCounts(): RequestCounts
  /**
   * Backend facts worth keeping between runs (Google: the tab ids that row
   * removal and growth need), so a later run spends no request to learn them
   * again. Opaque to the engine, which stores and hands them back as they are.
   */
  exportHints?(): Record<string, unknown>
  /** Takes hints from an earlier run; stale hints must only ever cost a request, never a wrong write. */
  importHints?(hints: Record<string, unknown>): void
}
