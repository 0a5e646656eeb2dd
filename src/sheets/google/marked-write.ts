/**
 * The write's side of row marks (row-marks.ts): rows the read saw through their marks are written through them,
 * with no read of their own; and the marks are made again, in the batchUpdate the write sends anyway, when the rows
 * to keep them on changed.
 */
import type { WriteReport } from '../port.ts'
import { MARKS_HOLD_FOR_MS, MARKS_PER_SHEET, marksStale, rebuildMarks } from './row-marks.ts'
import { structuralPart, type StructuralPart } from './structural.ts'
import { hasWork, type TabState, type Target, type WriteDeps } from './write-targets.ts'

/**
 * The rows of tabs without a Key that the read saw through their marks, not long ago: each is addressed through
 * its mark (and left out of the fresh read the other rows of such tabs need).
 */
export function markedTargets(deps: WriteDeps, tabs: readonly TabState[]): { t: TabState; target: Target }[] {
  const out: { t: TabState; target: Target }[] = []
  for (const t of tabs) {
    if (t.keyColumn !== undefined) continue
    const seen = deps.seenMarks(t.basis)
    if (!seen || deps.now() - seen.at > MARKS_HOLD_FOR_MS) continue
    for (const target of t.targets.values()) {
      const id = target.row >= 2 && hasWork(target) ? seen.byRow.get(target.row) : undefined
      if (id === undefined) continue
      target.mark = id
      const columnCount = deps.columnCount(t.write.tab) ?? target.cells.length
      target.echo = { title: t.write.tab, row: target.row, columnCount, cells: [...target.cells] }
      out.push({ t, target })
    }
  }
  return out
}

/**
 * The parts that make a tab's marks again, after its new rows: for each tab written with `rowsToRevisit` whose
 * marks no longer sit on exactly those rows and the rows appended. A refusal (no room, a row gone) drops them from
 * their batch, which is sent again without them: marks only save requests later.
 */
export function* markParts(deps: WriteDeps, tabs: readonly TabState[], appended: WriteReport['appended']): Generator<StructuralPart> {
  for (const t of tabs) {
    const keep = t.write.rowsToRevisit
    if (!keep || t.keyColumn !== undefined) continue
    const seen = deps.seenMarks(t.basis)
    const hinted = deps.markedTab(t.write.tab)
    const sheetId = t.sheetId ?? seen?.sheetId ?? hinted?.sheetId
    if (sheetId === undefined) continue
    const added = appended[t.write.tab]
    const last = t.basis.rows.length + 1
    // New rows first (they are the latest periods), then the basis rows in the order given, as many as the budget holds.
    const newRows = Array.from({ length: Math.min(added?.count ?? 0, MARKS_PER_SHEET) }, (_, i) => added!.firstRow + i)
    const basisRows = [...new Set(keep)]
      .filter((row) => Number.isInteger(row) && row >= 2 && row <= last)
      .slice(0, MARKS_PER_SHEET - newRows.length)
    const usable = seen?.sheetId === sheetId ? seen : undefined
    if (!marksStale(usable, basisRows, newRows.length)) continue
    // New rows go after the last row, so the basis rows stay where they were; they sit where the basis showed them.
    const { requests, marked } = rebuildMarks(sheetId, [...newRows, ...basisRows], usable?.found ?? [])
    if (requests.length === 0) continue
    yield { ...structuralPart(t, requests), droppable: true, onApplied: () => deps.marksMade(t.write.tab, marked) }
  }
}
