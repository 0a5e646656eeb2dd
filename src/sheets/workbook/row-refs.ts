/**
 * Cell references after rows were removed or inserted: what Excel does to everything that names cells
 * when a person deletes or inserts rows. A reference to a removed row is gone; a range loses its removed
 * rows and keeps the rest; a row inserted inside a range widens it; a row inserted above moves it down.
 * Columns never change. Pure: the worksheet parts that use it are in `row-tied-parts.ts`.
 */
import { MAX_ROWS } from './sheet-xml.ts'

/** Rows removed and inserted in one rewrite, both numbered as the sheet is before it. */
export interface RowMoves {
  /** Rows removed. */
  remove?: Iterable<number>
  /** `count` new rows go right above row `before` (they take its number and push it down). */
  insert?: ReadonlyArray<{ before: number; count: number }>
}

/** Where the rows of a sheet go. */
export interface RowShift {
  /** True when no row moves. */
  readonly identity: boolean
  /** The new number of a row; undefined when it is removed. */
  row(row: number): number | undefined
  /**
   * Where something that sits on a row (a picture's corner, a page break, a selection) goes: with its
   * row, or onto the row that takes a removed row's place.
   */
  edge(row: number): number
  /** A range of rows after the move; undefined when every row of it is removed. */
  range(top: number, bottom: number): { top: number; bottom: number } | undefined
}

/** The shift that `moves` make. */
export function rowShift(moves: RowMoves): RowShift {
  const removed = [...new Set(moves.remove ?? [])].filter((row) => Number.isInteger(row) && row >= 1).sort((a, b) => a - b)
  const removedSet = new Set(removed)
  const inserts = (moves.insert ?? []).filter((i) => i.count > 0).sort((a, b) => a.before - b.before)
  // How many removed rows are below `row` (that is, numbered less than it).
  const removedBelow = (row: number) => {
    let low = 0
    let high = removed.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (removed[middle]! < row) low = middle + 1
      else high = middle
    }
    return low
  }
  const insertedUpTo = (row: number) => {
    let total = 0
    for (const insert of inserts) {
      if (insert.before > row) break
      total += insert.count
    }
    return total
  }
  // The last row stays the last: a range to the end of the sheet still reaches it.
  const edge = (row: number) => (row >= MAX_ROWS ? row : Math.min(MAX_ROWS, row - removedBelow(row) + insertedUpTo(row)))
  const mapped = (row: number) => (removedSet.has(row) ? undefined : edge(row))
  return {
    identity: removed.length === 0 && inserts.length === 0,
    row: mapped,
    edge,
    range(top, bottom) {
      let first = top
      while (first <= bottom && removedSet.has(first)) first++
      let last = bottom
      while (last >= first && removedSet.has(last)) last--
      if (first > last) return undefined
      return { top: edge(first), bottom: edge(last) }
    },
  }
}

const CELL = /^(\$?)([A-Za-z]{1,3})(\$?)(\d+)$/
const ROWS = /^(\$?)(\d+)$/
const COLUMNS = /^\$?[A-Za-z]{1,3}$/

/**
 * One reference (`B7`, `$A$2:$L$90`, `3:5`, `A:C`) after the shift, keeping its `$` marks; undefined
 * when all its rows are removed. Text that is no reference is given back as it is.
 */
export function shiftRef(ref: string, shift: RowShift): string | undefined {
  if (shift.identity) return ref
  const colon = ref.indexOf(':')
  const [start, end] = colon < 0 ? [ref, undefined] : [ref.slice(0, colon), ref.slice(colon + 1)]
  if (end === undefined) {
    const cell = CELL.exec(start)
    if (cell === null) return ref
    const row = shift.row(Number(cell[4]))
    return row === undefined ? undefined : `${cell[1]}${cell[2]}${cell[3]}${row}`
  }
  if (COLUMNS.test(start) && COLUMNS.test(end)) return ref
  const a = CELL.exec(start) ?? ROWS.exec(start)
  const b = CELL.exec(end) ?? ROWS.exec(end)
  if (a === null || b === null || a.length !== b.length) return ref
  const rowOf = (m: RegExpExecArray) => Number(m[m.length - 1])
  const withRow = (m: RegExpExecArray, row: number) => (m.length === 5 ? `${m[1]}${m[2]}${m[3]}${row}` : `${m[1]}${row}`)
  const [topMatch, bottomMatch] = rowOf(a) <= rowOf(b) ? [a, b] : [b, a]
  const moved = shift.range(rowOf(topMatch), rowOf(bottomMatch))
  if (moved === undefined) return undefined
  const [first, second] = topMatch === a ? [moved.top, moved.bottom] : [moved.bottom, moved.top]
  return `${withRow(a, first)}:${withRow(b, second)}`
}

/** A space-separated list of references (`sqref`) after the shift; undefined when none is left. */
export function shiftSqref(sqref: string, shift: RowShift): string | undefined {
  if (shift.identity) return sqref
  const kept = sqref
    .trim()
    .split(/\s+/)
    .filter((ref) => ref !== '')
    .flatMap((ref) => {
      const moved = shiftRef(ref, shift)
      return moved === undefined ? [] : [moved]
    })
  return kept.length === 0 ? undefined : kept.join(' ')
}

// A quoted string, or a tab-qualified reference: `'Tab name'!$A$1:$B$2`, `Tab!3:5`. `[1]Tab!` names
// another workbook and `A:B!` a span of tabs: neither starts with what the pattern takes for a tab.
const QUALIFIED =
  /"(?:[^"]|"")*"|(?<![\p{L}\p{N}_.\\\]'])('(?:[^']|'')+'|[\p{L}_\\][\p{L}\p{N}_.\\]*)!(\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?|\$?\d+:\$?\d+|\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3})(?![\p{L}\p{N}_(!])/gu

/**
 * A formula (a defined name, a chart's series) with its references to tab `title` shifted; a reference whose
 * rows are all removed becomes `#REF!`, as Excel writes it. References to other tabs are left alone.
 */
export function shiftFormulaRefs(formula: string, title: string, shift: RowShift): string {
  if (shift.identity) return formula
  const wanted = title.toLowerCase()
  return formula.replace(QUALIFIED, (whole, sheet: string | undefined, ref: string | undefined) => {
    if (sheet === undefined || ref === undefined) return whole
    const name = sheet.startsWith("'") ? sheet.slice(1, -1).replaceAll("''", "'") : sheet
    if (name.toLowerCase() !== wanted) return whole
    return `${sheet}!${shiftRef(ref, shift) ?? '#REF!'}`
  })
}
