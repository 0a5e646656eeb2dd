/**
 * Finding a row again. A write is planned on a read (its basis) and names rows
 * by the position they had there; by the time it is applied a person may have
 * sorted, inserted, deleted or typed. This decides, from the basis and what
 * the tab holds now, where each addressed row is now — or that it must be left
 * alone. Pure: the workbook backend runs it on the file it is about to save,
 * the Google backend on the rows it read back through their anchors.
 *
 * The rule (decisions/0003-rows-that-move.md): a row is the one that holds
 * exactly the cells the basis showed; failing that, the one row that holds
 * its Key, when the tab has a Key column and the basis had that Key on one
 * row only — a person may have typed into it, and only the cells they did not
 * change may be written. Identical rows are interchangeable, so they are
 * matched one to one, nearest first.
 */
import type { CellValue, TabData } from './sheet.ts'

export type RowWhereabouts =
  | { kind: 'found'; row: number }
  /**
   * The row is there — its Key, on one row in the basis and one row now, says so — but a person changed
   * some of its cells since the read. A write may still set cells that hold what the basis showed
   * (`writableCells`); it must never overwrite one they changed.
   */
  | { kind: 'changed'; row: number }
  /** No row holds those cells any more (deleted, cleared, its Key pasted over). */
  | { kind: 'gone' }

/** Whether every cell a write sets (`columns`) still holds, in `now`, what it held in `basis`. */
export function writableCells(basis: readonly CellValue[], now: readonly CellValue[], columns: Iterable<number>): boolean {
  for (const column of columns) if (normalise(basis[column]) !== normalise(now[column])) return false
  return true
}

/** The cells of basis row `row` (1-based); `[]` for a blank or missing row. */
export function basisCells(tab: TabData, row: number): readonly CellValue[] {
  return tab.rows[row - 2] ?? []
}

/** Whether two rows as read hold the same cells (trailing empties and `""`/`null` alike). */
export function sameCells(a: readonly CellValue[], b: readonly CellValue[]): boolean {
  const length = Math.max(a.length, b.length)
  for (let i = 0; i < length; i++) if (normalise(a[i]) !== normalise(b[i])) return false
  return true
}

function normalise(value: CellValue | undefined): CellValue {
  return value === undefined || value === '' ? null : value
}

/** A row's identity text for indexing: its cells with empties normalised. */
export function rowSignature(cells: readonly CellValue[]): string {
  let end = cells.length
  while (end > 0 && normalise(cells[end - 1]) === null) end--
  const parts: string[] = []
  for (let i = 0; i < end; i++) {
    const v = normalise(cells[i])
    parts.push(v === null ? '' : `${typeof v === 'string' ? 's' : typeof v === 'number' ? 'n' : 'b'}${String(v)}`)
  }
  // JSON keeps separators inside text from making two rows look alike.
  return JSON.stringify(parts)
}

/** The Key text of a row, trimmed; undefined when there is none. */
export function keyText(cells: readonly CellValue[], keyColumn: number | undefined): string | undefined {
  if (keyColumn === undefined) return undefined
  const value = cells[keyColumn]
  if (typeof value !== 'string') return undefined
  const trimmed = value.trim()
  return trimmed === '' ? undefined : trimmed
}

/**
 * Where each of `rows` (1-based basis rows) is in `current`. Rows the basis
 * shows blank are found only at the same position and only while still blank.
 */
export function locateRows(basis: TabData, current: TabData, rows: readonly number[], keyColumn?: number): Map<number, RowWhereabouts> {
  const out = new Map<number, RowWhereabouts>()
  const unique = [...new Set(rows)].sort((a, b) => a - b)

  // Keys held by exactly one basis row identify rows; a Key on several rows identifies none of them.
  const basisKeyCount = new Map<string, number>()
  if (keyColumn !== undefined) {
    for (const cells of basis.rows) {
      const key = keyText(cells, keyColumn)
      if (key !== undefined) basisKeyCount.set(key, (basisKeyCount.get(key) ?? 0) + 1)
    }
  }

  // Built only when some row is not where the basis saw it: a write on an untouched tab costs one comparison a row.
  let index: { bySignature: Map<string, number[]>; byKey: Map<string, number[]> } | undefined
  const indexed = () => (index ??= indexRows(current, keyColumn))

  const claimed = new Set<number>()
  for (const row of unique) {
    const expect = basisCells(basis, row)
    if (expect.length === 0) {
      const now = current.rows[row - 2]
      out.set(
        row,
        (now === undefined || now.length === 0) && row <= Math.max(current.gridRowCount, current.rows.length + 1)
          ? { kind: 'found', row }
          : { kind: 'gone' },
      )
      continue
    }
    const here = current.rows[row - 2]
    if (here !== undefined && !claimed.has(row) && sameCells(here, expect)) {
      claimed.add(row)
      out.set(row, { kind: 'found', row })
      continue
    }
    const candidates = (indexed().bySignature.get(rowSignature(expect)) ?? []).filter((r) => !claimed.has(r))
    if (candidates.length > 0) {
      // Identical rows are interchangeable: the nearest to where it was.
      const nearest = candidates.reduce((best, r) => (Math.abs(r - row) < Math.abs(best - row) ? r : best))
      claimed.add(nearest)
      out.set(row, { kind: 'found', row: nearest })
      continue
    }
    const key = keyText(expect, keyColumn)
    const identifying = key !== undefined && basisKeyCount.get(key) === 1
    const holding = identifying ? (indexed().byKey.get(key) ?? []).filter((r) => !claimed.has(r)) : []
    if (holding.length === 1) {
      claimed.add(holding[0]!)
      out.set(row, { kind: 'changed', row: holding[0]! })
    } else {
      out.set(row, { kind: 'gone' })
    }
  }
  return out
}

function indexRows(current: TabData, keyColumn: number | undefined): { bySignature: Map<string, number[]>; byKey: Map<string, number[]> } {
  const bySignature = new Map<string, number[]>()
  const byKey = new Map<string, number[]>()
  current.rows.forEach((cells, i) => {
    if (cells.length === 0) return
    const row = i + 2
    const signature = rowSignature(cells)
    const same = bySignature.get(signature)
    if (same) same.push(row)
    else bySignature.set(signature, [row])
    const key = keyText(cells, keyColumn)
    if (key !== undefined) {
      const list = byKey.get(key)
      if (list) list.push(row)
      else byKey.set(key, [row])
    }
  })

  return { bySignature, byKey }
}
