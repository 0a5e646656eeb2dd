/**
 * An incremental export needs two columns of every row (Key and Base: which
 * rows exist, which look restored from a copy) and every cell only of the rows
 * it is about to write. At 100,000 rows the whole tab is about 20 MB of JSON;
 * those two columns are a fifth of it, and the rows to write come whole through
 * their anchors in the same request. This assembles such an answer into a tab
 * marked `partial`, or says it cannot (the caller then reads the whole tab):
 * only when every row that shows a wanted Key is the one its anchor found can
 * the plan see all it needs (decisions/0008-what-an-incremental-run-touches.md).
 */
import { keyText } from '../../core/row-identity.ts'
import type { CellValue, TabData } from '../port.ts'
import type { RowEcho } from './row-anchors.ts'

/** The 0-based positions of `names` in `header`, or undefined when one is missing or named twice. */
export function columnPositions(header: readonly (string | null)[] | undefined, names: readonly string[]): number[] | undefined {
  if (!header) return undefined
  const out: number[] = []
  for (const name of names) {
    const at = header.indexOf(name)
    if (at < 0 || header.indexOf(name, at + 1) >= 0) return undefined
    out.push(at)
  }
  return out
}

export interface PartialAnswer {
  title: string
  /** Row 1 as this request read it. */
  header: readonly CellValue[]
  /** The positions read in full, as the request assumed them; the header must still show `names` there. */
  columns: readonly number[]
  names: readonly string[]
  /** Each read column from row 1 down, trailing empty cells trimmed (Google's trimming). */
  values: readonly (readonly CellValue[])[]
  gridRowCount: number
  /** Position of the Key column among `columns`. */
  keyColumn: number
  keys: readonly string[]
  /** The rows each wanted Key's anchor found, by Key. */
  anchored: ReadonlyMap<string, readonly RowEcho[]>
}

/** The tab as the plan may see it, or undefined when the answer does not show all it needs. */
export function assemblePartialTab(answer: PartialAnswer): TabData | undefined {
  const { header, columns, names } = answer
  if (columns.some((column, i) => header[column] !== names[i])) return undefined
  const rows: CellValue[][] = []
  answer.values.forEach((column, i) => {
    const at = columns[i]!
    for (let r = 1; r < column.length; r++) {
      const cell = column[r] ?? null
      if (cell === null) continue
      while (rows.length < r) rows.push([])
      const row = rows[r - 1]!
      while (row.length < at) row.push(null)
      row[at] = cell
    }
  })
  const keyAt = columns[answer.keyColumn]!
  const rowsOfKey = new Map<string, number[]>()
  const wanted = new Set(answer.keys)
  rows.forEach((cells, i) => {
    const key = keyText(cells, keyAt)
    if (key === undefined || !wanted.has(key)) return
    rowsOfKey.set(key, [...(rowsOfKey.get(key) ?? []), i + 2])
  })
  for (const [key, rowNumbers] of rowsOfKey) {
    // Two rows with one Key, or a row its anchor does not find: only the whole tab shows what the plan needs.
    const found = answer.anchored.get(key) ?? []
    if (rowNumbers.length !== 1 || found.length !== 1) return undefined
    const echo = found[0]!
    if (echo.title !== answer.title || echo.row !== rowNumbers[0] || keyText(echo.cells, keyAt) !== key) return undefined
    rows[echo.row - 2] = [...echo.cells]
  }
  return { title: answer.title, exists: true, header: [...header], rows, gridRowCount: answer.gridRowCount, partial: true }
}
