/**
 * Transactions over the in-memory model: every mutation of a spreadsheet goes
 * through a `Tx` that records how to undo it, so a batchUpdate that fails at
 * request 7 rolls back requests 0–6 (atomicity, §6.1), and a transaction that
 * commits with changes moves the file's Drive version on.
 */
import { recordChange } from './drive-version.ts'
import type { SheetData, SpreadsheetData } from './sheet-data.ts'

/** Undo log of one atomic operation. */
export interface Tx {
  undo: (() => void)[]
  /**
   * Objects this operation put into the model, whose removal its undo log already records. Changing one of
   * them needs no undo entry of its own: undoing its insertion drops it whole. A 100,000-row append then costs
   * one undo entry a row, not one a cell.
   */
  created: WeakSet<object>
  /**
   * Refuses what the caller may not change: the protected ranges it is no editor of (`protection.ts`). Absent
   * when the caller may change everything (the owner, or a change no caller makes).
   */
  guard?: EditGuard
}

/** What the model asks before it changes cells or moves rows and columns; each method throws to refuse. */
export interface EditGuard {
  /** Before cells in rows [startRow, endRow) and columns [startColumn, endColumn) change. */
  cells(sheet: SheetData, startRow: number, endRow: number, startColumn: number, endColumn: number): void
  /** Before rows or columns are inserted before index `start`. */
  insert(sheet: SheetData, dimension: 'ROWS' | 'COLUMNS', start: number): void
  /** Before rows or columns [start, end) are deleted. */
  remove(sheet: SheetData, dimension: 'ROWS' | 'COLUMNS', start: number, end: number): void
}

/** A fresh undo log; `guard` refuses the changes its caller may not make. */
export function beginTx(guard?: EditGuard): Tx {
  return guard ? { undo: [], created: new WeakSet(), guard } : { undo: [], created: new WeakSet() }
}

/**
 * Ends an operation that succeeded: if it changed anything, the file's Drive version moves on (by one: Google
 * documents only that it grows with every change) and its modification time is now (files.get may show it later:
 * `drive-version.ts`).
 */
export function commitTx(tx: Tx, ss: SpreadsheetData): void {
  if (tx.undo.length === 0) return
  recordChange(ss)
  tx.undo.length = 0
}

/** Undoes everything a failed operation did, newest first. */
export function rollback(tx: Tx): void {
  for (let i = tx.undo.length - 1; i >= 0; i--) tx.undo[i]!()
  tx.undo.length = 0
}

/** Sets `obj[key]` (undefined deletes it) and records how to put it back. */
export function setKey<T extends object, K extends keyof T>(tx: Tx, obj: T, key: K, value: T[K] | undefined): void {
  const had = Object.hasOwn(obj, key)
  const old = obj[key]
  if (value === undefined) delete obj[key]
  else obj[key] = value
  tx.undo.push(() => {
    if (had) obj[key] = old
    else delete obj[key]
  })
}

function spliceMany<T>(arr: T[], start: number, deleteCount: number, items: readonly T[]): T[] {
  const removed = arr.slice(start, start + deleteCount)
  const tail = arr.slice(start + deleteCount)
  arr.length = start
  for (const item of items) arr.push(item)
  for (const item of tail) arr.push(item)
  return removed
}

/** Splice that survives 100,000 items (no spread) and records its inverse. */
export function splice<T>(tx: Tx, arr: T[], start: number, deleteCount: number, items: readonly T[]): T[] {
  const removed = spliceMany(arr, start, deleteCount, items)
  tx.undo.push(() => {
    spliceMany(arr, start, items.length, removed)
  })
  return removed
}
