/**
 * An incremental export needs two columns of every row (Key and Base: which
 * rows exist, which look restored from a copy) and every cell only of the rows
 * it is about to write. At 100,000 rows the whole tab is about 20 MB of JSON;
 * those two columns are a fifth of it, and the rows to write come whole by
 * position in a second request. This assembles such an answer into a tab
 * marked `partial`, or says it cannot (the caller then reads the whole tab):
 * only when every row that shows a wanted Key was read whole there, still
 * holding that Key, can the plan see all it needs
 * (decisions/0008-what-an-incremental-run-touches.md).
 */
import { keyText } from '../../core/row-identity.ts'
import type { CellValue, TabData } from '../port.ts'
import type { RowEcho } from './row-claims.ts'

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
  /** The rows read whole for each wanted Key, by Key. */
  whole: ReadonlyMap<string, readonly RowEcho[]>
}

/** The columns' answer as rows of cells (trailing empties trimmed, as Google trims), or undefined when row 1 moved. */
function columnRows(answer: Omit<PartialAnswer, 'whole'>): CellValue[][] | undefined {
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
  return rows
}

/** Sheet rows of the wanted Keys the columns show, by Key; undefined when one shows on two rows (only the whole tab shows what the plan needs). */
export function rowsOfKeys(answer: Omit<PartialAnswer, 'whole'>): Map<string, number> | undefined {
  const rows = columnRows(answer)
  if (!rows) return undefined
  const keyAt = answer.columns[answer.keyColumn]!
  const wanted = new Set(answer.keys)
  const out = new Map<string, number>()
  for (let i = 0; i < rows.length; i++) {
    const key = keyText(rows[i]!, keyAt)
    if (key === undefined || !wanted.has(key)) continue
    if (out.has(key)) return undefined
    out.set(key, i + 2)
  }
  return out
}

/** The tab as the plan may see it, or undefined when the answer does not show all it needs. */
export function assemblePartialTab(answer: PartialAnswer): TabData | undefined {
  const rows = columnRows(answer)
  const wanted = rowsOfKeys(answer)
  if (!rows || !wanted) return undefined
  const keyAt = answer.columns[answer.keyColumn]!
  for (const [key, row] of wanted) {
    // A row read whole elsewhere, or no longer holding its Key there: the rows moved between the two reads.
    const found = answer.whole.get(key) ?? []
    if (found.length !== 1) return undefined
    const echo = found[0]!
    if (echo.title !== answer.title || echo.row !== row || keyText(echo.cells, keyAt) !== key) return undefined
    rows[row - 2] = [...echo.cells]
  }
  return { title: answer.title, exists: true, header: [...answer.header], rows, gridRowCount: answer.gridRowCount, partial: true }
}

/** A header row's names; a cell that is not text names nothing. */
export function headerNames(cells: readonly CellValue[]): (string | null)[] {
  return cells.map((cell) => (typeof cell === 'string' ? cell : null))
}
