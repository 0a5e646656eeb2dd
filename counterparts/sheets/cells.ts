/**
 * One cell of the model: reading it, replacing it through a transaction, and
 * its computed value. Rows are per-sheet arrays of sparse cell arrays
 * (100,000 × 12 stays cheap), so a write past the end grows only the row it
 * touches.
 */
import { Recalc } from './formula-eval.ts'
import type { CellData, SheetData, SpreadsheetData } from './sheet-data.ts'
import { setKey, type Tx } from './tx.ts'
import type { ExtendedValue } from './values.ts'

export function getCell(sheet: SheetData, row: number, column: number): CellData | undefined {
  return sheet.rows[row]?.cells[column]
}

/** Replaces a cell (undefined removes it). */
export function setCell(tx: Tx, sheet: SheetData, row: number, column: number, cell: CellData | undefined): void {
  tx.guard?.cells(sheet, row, row + 1, column, column + 1)
  let rowData = sheet.rows[row]
  if (!rowData) {
    if (cell === undefined) return
    rowData = { cells: [] }
    tx.created.add(rowData)
    if (row >= sheet.rows.length) {
      const oldLength = sheet.rows.length
      sheet.rows[row] = rowData
      tx.undo.push(() => {
        sheet.rows.length = oldLength
      })
    } else {
      setKey(tx, sheet.rows, row, rowData)
    }
  }
  if (cell === undefined && rowData.cells[column] === undefined) return
  if (tx.created.has(rowData)) {
    rowData.cells[column] = cell
    return
  }
  if (column >= rowData.cells.length) {
    const r = rowData
    const oldLength = r.cells.length
    r.cells[column] = cell
    tx.undo.push(() => {
      r.cells.length = oldLength
    })
  } else {
    setKey(tx, rowData.cells, column, cell)
  }
}

/** Whether a cell has a value (formatting, notes and validation alone do not count, §4.3). */
export function hasValue(cell: CellData | undefined): boolean {
  return cell?.userEnteredValue !== undefined
}

/** A fresh evaluation for one read: formulas are computed when read, so every change is seen by the next read. */
export function recalcOf(ss: SpreadsheetData): Recalc {
  return new Recalc(ss, ss.clock)
}

/** The cell's computed value: its stored value, or its formula's result (`{}` when blank). */
export function effectiveValue(recalc: Recalc, sheet: SheetData, row: number, column: number): ExtendedValue | undefined {
  const stored = getCell(sheet, row, column)?.userEnteredValue
  if (!stored || stored.formulaValue === undefined) return stored
  return recalc.effective(sheet, row, column)
}
