/**
 * What judging an Activities row yields: the activity it asks for (existing, new, deleted or discarded, with
 * the values ready to send), or the problems that refuse it, each naming the column at fault in a manager's
 * words, and the notices of tool-written cells to put back. It stands apart because the plans, the write-back,
 * the status words and every part of reading a row speak this vocabulary, while only the row modules make it.
 */
import type { CellValue } from './sheet.ts'
import type { ActivityInput } from './activity.ts'
import type { ActivityColumn } from './columns.ts'

export type RowProblemCode =
  | 'missing-value'
  | 'unparseable-date'
  | 'unparseable-time'
  | 'end-before-start'
  | 'nonexistent-time'
  | 'ambiguous-time'
  | 'no-tags'
  | 'too-many-tags'
  | 'tag-too-long'
  | 'tags-not-allowed'
  | 'unknown-user'
  | 'outside-target'
  | 'user-without-tags-timeline'
  | 'user-changed'
  | 'bad-key'
  | 'unknown-key'
  | 'duplicate-key'
  | 'formula'
  | 'error-value'
  | 'out-of-range'
  | 'bad-checkbox'
  | 'row-cleared'
  | 'unreadable'
  | 'notes-shortened'
  | 'approved-period'

/** One thing wrong (or doubtful) with a row, in the manager's words. */
export interface RowProblem {
  code: RowProblemCode
  severity: 'error' | 'warning'
  /** The column at fault; undefined for the row as a whole. */
  column: ActivityColumn | undefined
  /** `Start: "25:99" is not a time — type it like 13:45 or 1:45 PM`. */
  message: string
}

/**
 * A tool-written cell someone typed over. Not the manager's problem (the row
 * stays valid), but not ignored: the write-back puts `value` back and adds
 * `message` to the row's Status.
 */
export interface RowNotice {
  code: 'tool-cell-restored'
  column: ActivityColumn
  /** What the cell holds again once restored. */
  value: CellValue
  /** For the Status: `Duration is calculated by the tool; it was restored`. */
  message: string
}

/** The cells to write back for a row's notices, by column (empty when there is nothing to restore). */
export function cellsToRestore(notices: readonly RowNotice[] | undefined): Partial<Record<ActivityColumn, CellValue>> {
  const cells: Partial<Record<ActivityColumn, CellValue>> = {}
  for (const n of notices ?? []) cells[n.column] = n.value
  return cells
}

/** The values a row asks for, ready to send. */
export interface RowValues {
  user: string
  /** The Tags timeline the activity lives on (or would be created on). */
  timelineKey: string
  input: ActivityInput
  /** Fingerprint of these values (compare with Base). */
  fingerprint: string
}

/** A valid Activities row. */
export type SheetActivity =
  | {
      kind: 'existing'
      key: string
      entityId: number
      baseCell: string | undefined
      values: RowValues
      warnings: RowProblem[]
      notices?: RowNotice[]
    }
  | { kind: 'delete'; key: string; entityId: number; timelineKey: string; baseCell: string | undefined; warnings: RowProblem[] }
  /** `pending`: the mark an import wrote into the Key cell before creating the activity (decisions/0003). */
  | { kind: 'new'; values: RowValues; warnings: RowProblem[]; notices?: RowNotice[]; pending?: string }
  /** A new row with Delete ticked: nothing to create. */
  | { kind: 'discarded'; warnings: RowProblem[] }

/** `row: null` is a blank row. */
export type ParsedRow = { ok: true; row: SheetActivity | null } | { ok: false; key: string | undefined; problems: RowProblem[] }

/** The one empty list of problems most rows share: frozen, so no row can add to another's. */
export const NO_PROBLEMS: readonly RowProblem[] = Object.freeze([])

/** A problem whose message names its column first (`Start: …`); an error unless said otherwise. */
export function problem(
  code: RowProblemCode,
  column: ActivityColumn | undefined,
  message: string,
  severity: 'error' | 'warning' = 'error',
): RowProblem {
  return { code, severity, column, message: column ? `${column}: ${message}` : message }
}

/** A refused row: its Key, when it has one, and why. */
export function invalid(key: string | undefined, problems: RowProblem[]): ParsedRow {
  return { ok: false, key, problems }
}
