/**
 * Turns decisions into cell writes. Pure: positions come from the snapshot
 * the plan was made on, and only the tool's own columns are ever written, so
 * columns managers added and cells they did not ask us to change stay as
 * they are. Status texts are written only when they change, so an unchanged
 * sheet costs no write at all.
 */
import { ACTIVITY_COLUMN, type HeaderLayout } from './columns.ts'
import type { Decision } from './plan.ts'
import { unchangedSinceWritten } from './row-judge.ts'
import { newReadMemo, readRow, type ReadMemo } from './row-read.ts'
import { cellsToRestore } from './row-outcome.ts'
import { activityToCells, cellsToRow, cellUpdatesFor } from './row-write.ts'
import type { ReadContext } from './row-context.ts'
import type { CellUpdate, CellValue, TabData, TabWrite } from './sheet.ts'
import { readColumnsOf, rowDigest } from './written-rows.ts'
import { saysStatus, statusText, type Status } from './status.ts'
import type { DayStart } from './day-start.ts'

export interface ActivityWritesContext {
  tab: TabData
  layout: HeaderLayout
  timeZone: string
  /** The hour the target's days start at (day-start.ts); midnight when absent. */
  dayStart?: DayStart
  /** Local date stamped on Status texts (`Done (2026-11-22): …`), so an old status reads as old. */
  today: string
}

/** A row the export writes whole: its Key, its cells in the header's order, and the fingerprint in its Base cell. */
export interface WrittenRow {
  key: string
  row: CellValue[]
  fingerprint: string
}

/**
 * Digests rows written whole (`writtenRowDigest`) under one layout, zone and users. Apart from the plan: the
 * export digests them while its write is under way, and a dry run not at all.
 */
export function writtenDigester(layout: HeaderLayout, ctx: ReadContext): (written: WrittenRow) => number | null {
  const memo = newReadMemo()
  const columns = readColumnsOf(layout)
  return ({ row, fingerprint }) => writtenRowDigest(row, fingerprint, layout, ctx, memo, columns)
}

export interface ActivityWrites {
  write: TabWrite
  /** Key → fingerprint to remember; `null` forgets the key. */
  base: Map<string, string | null>
  /** Rows written whole, whose digests to keep once the write landed (`writtenDigester`). */
  toDigest: WrittenRow[]
  counts: { appended: number; updated: number; removed: number; marked: number; statuses: number; refreshed: number }
}

const C = ACTIVITY_COLUMN

export function activityWrites(decisions: readonly Decision[], ctx: ActivityWritesContext): ActivityWrites {
  const updates: CellUpdate[] = []
  const appends: CellValue[][] = []
  const deleteRows: number[] = []
  const base = new Map<string, string | null>()
  const toDigest: WrittenRow[] = []
  const counts = { appended: 0, updated: 0, removed: 0, marked: 0, statuses: 0, refreshed: 0 }
  const statusIndex = ctx.layout.index[C.status]
  const currentStatus = (rowNumber: number): CellValue | undefined =>
    statusIndex === undefined ? null : ctx.tab.rows[rowNumber - 2]?.[statusIndex]
  const stamped = (status: Status) => statusText(status, ctx.today)
  const setStatus = (rowNumber: number, status: Status, restore: Partial<Record<string, CellValue>> = {}) => {
    // The date differs every day: compare the word and the reason, not the date.
    if (saysStatus(currentStatus(rowNumber), status)) return
    updates.push(...cellUpdatesFor(rowNumber, { [C.status]: stamped(status), ...restore }, ctx.layout))
    counts.statuses++
  }

  for (const d of decisions) {
    // Tool cells someone typed over (Duration) are put back on a row the export does not rewrite anyway.
    if (d.notices?.length && 'rowNumber' in d && d.rowNumber !== undefined && d.kind !== 'export-update' && d.kind !== 'export-remove') {
      const said = d.notices.map((n) => `${n.message}.`).join(' ')
      const reason = d.kind === 'noop' && d.sheet === 'unchanged' ? said : `${d.reason} ${said}`
      setStatus(d.rowNumber, { word: d.word, reason }, cellsToRestore(d.notices))
      if (d.kind === 'noop' || d.kind === 'conflict' || d.kind === 'invalid') continue
    }
    switch (d.kind) {
      case 'export-update': {
        const cells = activityToCells(d.activity, d.user, ctx.timeZone, stamped(statusOf(d)), d.fingerprint, ctx.dayStart)
        updates.push(...cellUpdatesFor(d.rowNumber, changedCells(ctx.tab.rows[d.rowNumber - 2] ?? [], cells, ctx.layout), ctx.layout))
        base.set(d.key, d.fingerprint)
        // A cell left as it was because it reads the same may differ in kind: then the row is read in full next time.
        toDigest.push({ key: d.key, row: cellsToRow(cells, ctx.layout), fingerprint: d.fingerprint })
        counts.updated++
        break
      }
      case 'export-append': {
        const status = d.sheet === 'missing' && d.server !== 'added' ? stamped(statusOf(d)) : ''
        const row = cellsToRow(activityToCells(d.activity, d.user, ctx.timeZone, status, d.fingerprint, ctx.dayStart), ctx.layout)
        appends.push(row)
        base.set(d.key, d.fingerprint)
        toDigest.push({ key: d.key, row, fingerprint: d.fingerprint })
        counts.appended++
        break
      }
      case 'export-remove':
        deleteRows.push(d.rowNumber)
        base.set(d.key, null)
        counts.removed++
        break
      case 'export-mark-deleted':
        setStatus(d.rowNumber, { word: 'Deleted', reason: 'Deleted on the server. Delete this row when you no longer need it.' })
        base.set(d.key, null)
        counts.marked++
        break
      case 'refresh-base':
        if (d.rowNumber !== undefined) {
          const baseIndex = ctx.layout.index[C.base]
          const cell = baseIndex === undefined ? null : ctx.tab.rows[d.rowNumber - 2]?.[baseIndex]
          if (cell !== d.fingerprint) {
            updates.push(...cellUpdatesFor(d.rowNumber, { [C.base]: d.fingerprint }, ctx.layout))
            counts.refreshed++
          }
        }
        base.set(d.key, d.fingerprint)
        break
      case 'conflict':
      case 'invalid':
        if (d.rowNumber !== undefined) setStatus(d.rowNumber, statusOf(d))
        break
      case 'noop':
        // Only an edit waiting for import gets a word; in-step rows are left alone.
        if (d.rowNumber !== undefined && d.sheet !== 'unchanged') setStatus(d.rowNumber, statusOf(d))
        break
      case 'forget':
        base.set(d.key, null)
        break
      default:
        // Import decisions are applied by the importer, not by an export.
        break
    }
  }
  return { write: { tab: ctx.tab.title, updates, appends, deleteRows }, base, toDigest, counts }
}

/**
 * The digest to remember of a row the tool writes (`rowDigest`), or null when its cells do not read back as
 * written, unedited (`unchangedSinceWritten`): the few that do not (a time in an hour the clocks repeat, whose
 * cells alone read as the other instant) are judged with their server activity at every import, as a row without a digest is.
 * `row`: the cells in the header's order (`cellsToRow`); `columns`: `readColumnsOf(layout)`.
 */
function writtenRowDigest(
  row: readonly CellValue[],
  fingerprint: string,
  layout: HeaderLayout,
  ctx: ReadContext,
  memo: ReadMemo,
  columns: Int32Array,
): number | null {
  // As a read gives them back: a spreadsheet keeps no empty text, so an empty cell reads as no value.
  const asRead = row.includes('') ? row.map((cell) => (cell === '' ? null : cell)) : row
  const reading = readRow(asRead, layout, ctx, memo)
  return unchangedSinceWritten(reading, { get: () => fingerprint }) ? rowDigest(asRead, columns) : null
}

/**
 * The cells of `wanted` that differ from the row as read: only those are written, so a cell a person
 * types into while the run writes is overwritten only when the run really had to change that very cell.
 */
export function changedCells(
  current: readonly CellValue[],
  wanted: Partial<Record<string, CellValue>>,
  layout: HeaderLayout,
): Partial<Record<string, CellValue>> {
  const out: Partial<Record<string, CellValue>> = {}
  for (const [name, value] of Object.entries(wanted)) {
    const i = layout.index[name]
    if (i === undefined || value === undefined) continue
    if (normalise(current[i]) !== normalise(value)) out[name] = value
  }
  return out
}

/** What a decision's row Status says: its word and its reason. */
export function statusOf(d: Decision): Status {
  return { word: d.word, reason: d.reason }
}

/**
 * Makes a whole tool-written tab hold exactly `desired` (data rows), with the
 * fewest cell writes: changed rows are rewritten, missing rows appended,
 * surplus rows removed. Used for the Allowed tags and read-only timeline tabs.
 */
export function rewriteTab(tab: TabData, desired: readonly CellValue[][], width: number): TabWrite {
  const updates: CellUpdate[] = []
  const shared = Math.min(tab.rows.length, desired.length)
  for (let i = 0; i < shared; i++) {
    const want = pad(desired[i]!, width)
    const have = pad(tab.rows[i] ?? [], width)
    if (!sameRow(want, have)) updates.push({ row: i + 2, column: 0, values: want })
  }
  const appends = desired.slice(shared).map((row) => pad(row, width))
  const deleteRows = Array.from({ length: Math.max(0, tab.rows.length - desired.length) }, (_, i) => desired.length + i + 2)
  return { tab: tab.title, updates, appends, deleteRows }
}

export function isEmptyWrite(write: TabWrite): boolean {
  return !write.updates?.length && !write.appends?.length && !write.deleteRows?.length
}

function pad(row: readonly CellValue[], width: number): CellValue[] {
  return Array.from({ length: width }, (_, i) => normalise(row[i]))
}

function normalise(value: CellValue | undefined): CellValue {
  return value === undefined || value === '' ? null : value
}

function sameRow(a: readonly CellValue[], b: readonly CellValue[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}
