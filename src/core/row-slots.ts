/**
 * Where a row's cells sit: the columns a row is read by, as numbered slots, each slot's column index in a
 * header's layout (found once per layout), and whether a row's cells in some slots are all empty. It stands
 * apart because the row reader and the time cells both take a row's cells by slot, and a slot table is the
 * one way they agree on which cell is which.
 */
import type { CellValue } from './sheet.ts'
import type { HeaderLayout } from './columns.ts'
import { READ_COLUMNS } from './written-rows.ts'
import { isEmptyCell } from './cells.ts'

/**
 * The columns a row is read by, as slots of `columnsOf`'s table: a row reads a dozen cells, and a slot is an
 * index into a table found once per layout, where a column's name is a lookup by a varying name for every cell.
 */
export const S = { user: 0, date: 1, start: 2, end: 3, duration: 4, tags: 5, labels: 6, notes: 7, delete: 8, key: 9, base: 10 } as const
/** The columns a row is read from, by slot: the ones a digest of a row as written covers. */
const SLOT_COLUMNS = READ_COLUMNS
/** The slots a blank row has empty (Delete aside: a ticked row is never blank). */
export const VALUE_SLOTS = [S.user, S.date, S.start, S.end, S.tags, S.labels, S.notes, S.key] as const
/** The slots a cleared row has empty: every value a manager types, the Key kept. */
export const CLEARED_SLOTS = [S.user, S.date, S.start, S.end, S.tags, S.labels, S.notes] as const

/** Each slot's column index in the layout, −1 when the header lacks it. */
export function columnsOf(layout: HeaderLayout, memo: { columns?: { layout: HeaderLayout; index: Int32Array } } | undefined): Int32Array {
  if (memo?.columns?.layout === layout) return memo.columns.index
  const index = new Int32Array(SLOT_COLUMNS.length)
  SLOT_COLUMNS.forEach((column, slot) => (index[slot] = layout.index[column] ?? -1))
  if (memo) memo.columns = { layout, index }
  return index
}

/** True when every one of `slots` is empty in the row (a column the header lacks counts as empty). */
export function allEmpty(cells: readonly CellValue[], columns: Int32Array, slots: readonly number[]): boolean {
  for (const slot of slots) {
    const i = columns[slot]!
    if (!isEmptyCell(i < 0 ? undefined : cells[i])) return false
  }
  return true
}
