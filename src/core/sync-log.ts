/** One Sync log row per run: when, which run, what it did, and what needs a person. */
import { SYNC_LOG_COLUMN } from './columns.ts'
import { wallSecondsAt } from './wall-clock.ts'
import { wallSecondsToSerial } from './serial.ts'
import type { CellValue } from './sheet.ts'
import { runStatusWord, type RunResult } from './status.ts'

export interface RunCounts {
  created: number
  updated: number
  deleted: number
  conflicts: number
  invalid: number
  /** Rows edited in the sheet that an export left for the next import. */
  waiting: number
  /** Server writes that failed (import, undo): they make the run's word an Error. */
  failed?: number
}

export interface SyncLogEntry {
  when: Date
  timeZone: string
  runId: string
  command: string
  result: RunResult
  counts: RunCounts
  message: string
}

/** Cells in the Sync log tab's column order (see columns.ts). */
export function syncLogRow(entry: SyncLogEntry): CellValue[] {
  const c = SYNC_LOG_COLUMN
  const cells: Record<string, CellValue> = {
    [c.when]: wallSecondsToSerial(wallSecondsAt(entry.timeZone, Math.floor(entry.when.getTime() / 1000))),
    [c.run]: entry.runId,
    [c.command]: entry.command,
    // The Status vocabulary, so the same colour rules apply (status.ts).
    [c.result]: runStatusWord(entry.result, entry.counts),
    [c.created]: entry.counts.created,
    [c.updated]: entry.counts.updated,
    [c.deleted]: entry.counts.deleted,
    [c.conflicts]: entry.counts.conflicts,
    [c.invalid]: entry.counts.invalid,
    [c.message]: entry.message,
  }
  return Object.values(c).map((name) => cells[name] ?? null)
}

/** The counts of a run in a line, for the run history. */
export function summaryLine(counts: RunCounts): string {
  return `created ${counts.created}, updated ${counts.updated}, deleted ${counts.deleted}, conflicts ${counts.conflicts}, invalid ${counts.invalid}`
}
