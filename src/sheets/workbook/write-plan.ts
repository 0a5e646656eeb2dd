/**
 * A write to a workbook tab checked before anything changes, and pointed at where its rows are now when
 * the file changed since the read it was planned on (decisions/0003).
 */
import { TimelineSheetsError } from '../../errors.ts'
import { basisCells, locateRows, writableCells } from '../../core/row-identity.ts'
import type { SkippedRow, Snapshot, TabData, TabWrite } from '../port.ts'
import type { Book, BookSheet } from './book.ts'
import { cellAddress, isWritableValue } from './cells.ts'

export interface TabWritePlan {
  write: TabWrite
  sheet: BookSheet
  /** Last data row (of the basis, or of the tab as it is now once relocated): appends go right after it. */
  lastRow: number
  /** The last row the tab has (of the basis, or as it is now once relocated). */
  gridRowCount: number
  /** Rows to remove, descending. */
  deleteRows: number[]
}

/** Checks a write against the workbook and its basis before anything changes. */
export function planTabWrite(book: Book, write: TabWrite, basis: Snapshot, file: string): TabWritePlan {
  const where = `tab "${write.tab}" of ${file}`
  const sheet = book.sheets.find((candidate) => candidate.name === write.tab)
  if (sheet === undefined) {
    throw new TimelineSheetsError('TS_WORKBOOK', `Cannot write to ${where}: the tab does not exist`, {
      hint: 'Lay the workbook out first (an export does), or check the tab name in the config.',
    })
  }
  const basisTab = basis.tabs[write.tab]
  if (basisTab === undefined || !basisTab.exists) {
    throw new TimelineSheetsError('TS_WORKBOOK', `Cannot write to ${where}: the snapshot the write is based on did not read it`, {
      hint: 'This is a bug: read a tab before writing to it, and pass that snapshot as the basis.',
    })
  }
  if (basisTab.headerOnly === true) {
    throw new TimelineSheetsError('TS_INTERNAL', `Cannot write to ${where}: only its header was read`, {
      hint: 'Read the whole tab before planning writes to its rows.',
    })
  }
  const lastRow = basisTab.rows.length > 0 ? basisTab.rows.length + 1 : basisTab.header.length > 0 ? 1 : 0
  for (const update of write.updates ?? []) {
    if (!Number.isInteger(update.row) || update.row < 1 || !Number.isInteger(update.column) || update.column < 0) {
      throw badWrite(`an update addresses row ${update.row}, column ${update.column}`, where)
    }
    update.values.forEach((value, i) => {
      if (!isWritableValue(value)) throw badWrite(`${cellAddress(update.row, update.column + i + 1)} would get ${String(value)}`, where)
    })
  }
  for (const [i, row] of (write.appends ?? []).entries()) {
    row.forEach((value, j) => {
      if (!isWritableValue(value)) throw badWrite(`appended row ${i + 1}, cell ${j + 1} would get ${String(value)}`, where)
    })
  }
  const deleteRows = [...new Set(write.deleteRows ?? [])].sort((a, b) => b - a)
  for (const row of deleteRows) {
    if (!Number.isInteger(row) || row < 2 || row > lastRow) {
      throw badWrite(`row ${row} cannot be removed (the basis has data rows 2 to ${lastRow})`, where)
    }
  }
  return { write, sheet, lastRow, gridRowCount: basisTab.gridRowCount, deleteRows }
}

function badWrite(problem: string, where: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_WORKBOOK', `Refused a write to ${where}: ${problem}`, {
    hint: 'This is a bug in the caller: positions come from the snapshot that was read, values are text, finite numbers, booleans or null.',
  })
}

/**
 * Points every addressed row of a write at where that row is now, by content
 * (and Key), and drops the updates and removals of rows that a person changed
 * or removed since the basis was read; appends go after the rows as they are now.
 */
export function relocate(plan: TabWritePlan, basis: Snapshot, skipped: SkippedRow[], now: TabData): void {
  const basisTab = basis.tabs[plan.write.tab]!
  const rows = [...(plan.write.updates ?? []).map((u) => u.row), ...plan.deleteRows]
  const where = locateRows(basisTab, now, rows, plan.write.keyColumn)
  const skip = (row: number, reason: SkippedRow['reason']) => {
    if (!skipped.some((s) => s.tab === plan.write.tab && s.row === row)) skipped.push({ tab: plan.write.tab, row, reason })
  }
  const updates = (plan.write.updates ?? []).flatMap((u) => {
    const found = where.get(u.row)
    if (found?.kind === 'found') return [{ ...u, row: found.row }]
    if (found?.kind === 'changed') {
      // A person typed into this row: write only where they did not, never over what they typed.
      const columns = u.values.map((_, i) => u.column + i)
      if (writableCells(basisCells(basisTab, u.row), now.rows[found.row - 2] ?? [], columns)) return [{ ...u, row: found.row }]
      skip(u.row, 'changed')
      return []
    }
    skip(u.row, 'gone')
    return []
  })
  plan.deleteRows = plan.deleteRows
    .flatMap((r) => {
      // A row someone changed since the read is not removed.
      const found = where.get(r)
      if (found?.kind === 'found') return [found.row]
      skip(r, found?.kind === 'changed' ? 'changed' : 'gone')
      return []
    })
    .sort((a, b) => b - a)
  plan.write = { ...plan.write, updates }
  plan.lastRow = now.rows.length > 0 ? now.rows.length + 1 : now.header.length > 0 ? 1 : 0
  plan.gridRowCount = now.gridRowCount
}
