/**
 * The spreadsheet as the pure core sees it: cells, tab layouts, what a read
 * returns and what a write asks for. Backends (src/sheets) implement these
 * shapes; the core and the engine only ever speak them.
 *
 * Row identity (decisions/0003-rows-that-move.md): a position in a read is
 * where a row *was*. A write names rows by the position they had in the read
 * it is based on (its basis), and the backend finds each such row again when
 * the write is applied — wherever sorting, inserting or deleting moved it —
 * and writes to it only while it still holds what the basis showed.
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
  /** What a manager should know to fill the column in, shown on its header cell. */
  note?: string
  /** Date-times shown with the spreadsheet's time zone name, where a backend's number format can say it (Sync log). */
  showZone?: boolean
}

export interface TabSpec {
  title: string
  columns: ColumnSpec[]
  /** The whole tab is tool-written (Sync log, other timelines). */
  readOnly?: boolean
  /**
   * With `readOnly`: managers may not edit the tab at all, not even after a warning (the Approved tab, whose rows
   * are a record payroll relies on, decisions/0026). Google protects it whole with the tool's account and the
   * owner as its only editors; the workbook locks it under sheet protection even where `protect` is off.
   */
  closed?: boolean
  /** Column whose text drives conditional row colours (`conflict`, `error`, `ok`…). */
  statusColumn?: string
  /** Managers sort and filter this tab: it gets a filter over its columns when it has none. */
  filter?: boolean
  /**
   * A report of formulas over another tab (the Summary, src/core/summary.ts), written with the layout and
   * only then; such a tab has no columns of its own.
   */
  summary?: SummarySpec
}

/** What the Summary tab shows; its cells come from `summaryCells` (src/core/summary.ts). */
export interface SummarySpec {
  /** Title of the Activities tab it sums. */
  activities: string
  /** Values of the User column, one row each. */
  people: string[]
  /** Clients (level 1) and `Client, Project` (level 2), one row each. */
  groups: { name: string; level: 1 | 2 }[]
  /** Weeks shown, up to the week of the latest Date. */
  weeks: number
  /**
   * The target's Approvals tab, when it has one: the Summary then shows each person's approved and open hours per
   * week too. Absent otherwise, so the layout (and its hash) of a target without approvals stays as it was.
   */
  approvals?: { tab: string }
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
  /**
   * True when only the header was read (`ReadOptions.headerOnly`): `rows` is empty whatever the tab
   * holds, so nothing may be written to its rows on this basis.
   */
  headerOnly?: boolean
  /**
   * True when only some columns of most rows were read (`ReadOptions.rowsToWrite.columns`): the rows that
   * show one of its keys are whole, every other row holds only those columns. Nothing may be planned on
   * any other row, and a caller that needs them reads the tab again without `columns`.
   */
  partial?: boolean
}

export interface Snapshot {
  tabs: Record<string, TabData>
}

/**
 * A run of cells in one row, starting at `column` (0-based). `row` is the
 * 1-based sheet row the row had in the basis; the backend writes to that row
 * wherever it is now, and only while it still holds what the basis showed.
 */
export interface CellUpdate {
  row: number
  column: number
  values: CellValue[]
}

export interface TabWrite {
  tab: string
  /**
   * 0-based column (as in the basis header) whose text identifies a row: the
   * Key. Rows are then found again by it as well as by their content, and a
   * backend that can anchor rows (Google: developer metadata) anchors the rows
   * it appends with it. Only a Key that one row of the basis holds counts.
   */
  keyColumn?: number
  /** Cells to set, in rows addressed as in the basis (see `CellUpdate`). */
  updates?: CellUpdate[]
  /** Rows to add after the last data row; they carry the tab's column formats, checkboxes and dropdowns. */
  appends?: CellValue[][]
  /**
   * Basis rows (1-based, as read) to remove, each only while it still holds
   * what the basis showed. Both backends empty the row in place: no other row
   * moves, so nothing a manager built points at another activity, and on
   * Google a row deletion is positional while a person may be sorting at that
   * very moment (decisions/0030).
   */
  deleteRows?: number[]
  /**
   * On a tab without `keyColumn`: the basis rows (1-based, as read) that later runs will write again, the rows
   * `appends` adds counting too. A backend that can tie a handle to a row that moves with it (Google: row-located
   * developer metadata, read with the tab) keeps one on these rows and on no other row of the tab, so a later
   * write planned on a read that saw the handles needs no read of its own. Other backends ignore it.
   */
  rowsToRevisit?: readonly number[]
  /**
   * The tab is closed to everyone but the tool and the spreadsheet's owner (`TabSpec.closed`), and its every cell
   * is drawn again from the tool's own record by each run that writes it: a backend may write its rows where the
   * basis showed them, with no read of its own to confirm them first. An owner's edit in between is drawn over.
   */
  closed?: boolean
}
