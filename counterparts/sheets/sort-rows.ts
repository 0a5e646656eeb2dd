/**
 * sortRange over the model: rows of a range ordered by their computed values
 * as Google orders them (numbers, then text, then booleans, blanks last). A
 * sort over every column moves whole rows, so their metadata and sizes go
 * with them.
 */
import type { GridBounds } from './a1.ts'
import { effectiveValue, getCell, recalcOf, setCell } from './cells.ts'
import type { CellData, SheetData, SpreadsheetData } from './sheet-data.ts'
import { splice, type Tx } from './tx.ts'
import type { ExtendedValue } from './values.ts'

/** One sort key of sortRange. */
export interface SortSpec {
  dimensionIndex: number
  sortOrder: 'ASCENDING' | 'DESCENDING'
}

/** A blank formula result sorts as a blank. */
function present(v: ExtendedValue | undefined): ExtendedValue | undefined {
  return v && Object.keys(v).length > 0 ? v : undefined
}

function sortRank(v: ExtendedValue | undefined): number {
  if (!v) return 3
  if (v.numberValue !== undefined) return 0
  if (v.stringValue !== undefined || v.errorValue) return 1
  return 2
}

function compareValues(a: ExtendedValue | undefined, b: ExtendedValue | undefined): number {
  const ra = sortRank(a)
  const rb = sortRank(b)
  if (ra !== rb) return ra - rb
  if (ra === 0) return a!.numberValue! - b!.numberValue!
  if (ra === 1)
    return (a!.stringValue ?? a!.errorValue?.message ?? '').localeCompare(b!.stringValue ?? b!.errorValue?.message ?? '', 'en', {
      sensitivity: 'base',
    })
  if (ra === 2) return Number(a!.boolValue) - Number(b!.boolValue)
  return 0
}

/**
 * Sorts the rows of a bounded range (numbers, then text, then booleans,
 * blanks last whatever the order; later specs break ties; stable). When the
 * range spans every column the whole row moves, metadata and sizes included.
 */
export function sortRows(
  tx: Tx,
  ss: SpreadsheetData,
  sheet: SheetData,
  b: GridBounds,
  specs: readonly SortSpec[],
  movesRowMetadata = true,
): void {
  const recalc = recalcOf(ss)
  const width = sheet.properties.gridProperties.columnCount
  // A sort over every column moves whole rows, metadata included (undocumented; `movesRowMetadata` turns it off).
  const whole = movesRowMetadata && b.startColumn === 0 && b.endColumn >= width
  const indexes: number[] = []
  for (let r = b.startRow; r < b.endRow; r++) indexes.push(r)
  const keys = new Map(indexes.map((r) => [r, specs.map((s) => present(effectiveValue(recalc, sheet, r, s.dimensionIndex)))]))
  const sorted = [...indexes].sort((x, y) => {
    const kx = keys.get(x)!
    const ky = keys.get(y)!
    for (let i = 0; i < specs.length; i++) {
      const a = kx[i]
      const c = ky[i]
      // Blanks sink to the bottom in both orders.
      if (!a || !c) {
        if (!a && !c) continue
        return !a ? 1 : -1
      }
      const cmp = compareValues(a, c)
      if (cmp !== 0) return specs[i]!.sortOrder === 'DESCENDING' ? -cmp : cmp
    }
    return x - y
  })
  if (whole) {
    // Whole rows move without a cell write: the guard sees the range they move in.
    tx.guard?.cells(sheet, b.startRow, b.endRow, b.startColumn, b.endColumn)
    const moved = sorted.map((r) => sheet.rows[r])
    if (sheet.rows.length < b.endRow) {
      const old = sheet.rows.length
      sheet.rows.length = b.endRow
      tx.undo.push(() => {
        sheet.rows.length = old
      })
    }
    splice(tx, sheet.rows, b.startRow, b.endRow - b.startRow, moved)
    return
  }
  const slices = sorted.map((r) => {
    const out: (CellData | undefined)[] = []
    for (let c = b.startColumn; c < b.endColumn; c++) out.push(getCell(sheet, r, c))
    return out
  })
  slices.forEach((slice, i) => {
    slice.forEach((cell, j) => setCell(tx, sheet, b.startRow + i, b.startColumn + j, cell))
  })
}
