/**
 * What `timeline-sheets doctor` asks of a target's spreadsheet: one look that never writes. Each backend
 * answers it its own way (Google: one `spreadsheets.get`; a workbook: the file system).
 */

export interface SpreadsheetFacts {
  /** The spreadsheet's title, or the workbook's file name. */
  title: string
  /** The spreadsheet's time zone (Google); a workbook has none. */
  timeZone: string | undefined
  /** True once timeline-sheets has laid the spreadsheet out (its first export). */
  laidOut: boolean
  /**
   * Whether the account may edit: `true` proven, `false` refused, `undefined` when nothing read-only can tell
   * (a Google spreadsheet the tool has not laid out yet: only a write would show it).
   */
  canEdit: boolean | undefined
  /** How the answer was reached, for the doctor's line: `the tool's protected header`, `file mode`. */
  editEvidence: string
}

/** One behaviour a write test tried, and what to do when it does not hold. */
export interface WriteTestFinding {
  name: string
  status: 'pass' | 'warn' | 'fail'
  detail: string
  fix?: string
}

export interface SpreadsheetProbe {
  readonly kind: 'google' | 'workbook'
  /** A spreadsheet URL or a file path. */
  describe(): string
  /** The account the spreadsheet must be shared with (a service account's e-mail), when known. */
  readonly principal: string | undefined
  /** Reads the facts; never writes. Throws the backend's error (403 not shared, 404 unknown id, a missing file's folder…). */
  inspect(): Promise<SpreadsheetFacts>
  /**
   * `doctor --write-test`: tries, in a scratch tab it removes afterwards, the service's behaviours the write
   * protocol relies on, and reports the metadata room of `tabs`. Absent where there is nothing to try (a workbook).
   */
  writeTest?(tabs: readonly string[]): Promise<WriteTestFinding[]>
}
