/**
 * Formula trees apart from evaluating them: the parsed tree of a stored value
 * (parsed once, kept while the value lives), a reference resolved to the range
 * it points at from the formula's cell, and what a subtree's references depend
 * on, which is what keys the evaluator's memo of array results.
 */
import { FormulaParseError, type Node, parseFormula, type RefSpec } from './formula-parse.ts'
import { FormulaError, type Here, type RangeRef } from './formula-values.ts'
import type { SheetData, SpreadsheetData } from './sheet-data.ts'
import type { ExtendedValue } from './values.ts'

// Parsed trees by stored value: stored values are replaced, never changed, so the tree stays right.
const parsed = new WeakMap<ExtendedValue, Node | FormulaParseError>()

/** The tree of a stored formula, or the error its text does not parse with. */
export function treeOf(stored: ExtendedValue): Node | FormulaParseError {
  let tree = parsed.get(stored)
  if (tree === undefined) {
    try {
      tree = parseFormula(stored.formulaValue!)
    } catch (error) {
      if (!(error instanceof FormulaParseError)) throw error
      tree = error
    }
    parsed.set(stored, tree)
  }
  return tree
}

/** Sheets match sheet names in formulas without case. */
export function sheetNamed(ss: SpreadsheetData, title: string): SheetData | undefined {
  return (
    ss.sheets.find((s) => s.properties.title === title) ?? ss.sheets.find((s) => s.properties.title.toLowerCase() === title.toLowerCase())
  )
}

/** A reference as the range it points at from `here`: relative parts move with the formula, and the range is cut at the grid's edge. */
export function resolveRef(ss: SpreadsheetData, spec: RefSpec, here: Here): RangeRef | FormulaError {
  const sheet = spec.sheet === undefined ? here.sheet : sheetNamed(ss, spec.sheet)
  if (!sheet) return new FormulaError('REF', `Unresolved sheet name '${spec.sheet}'.`)
  if (sheet.properties.sheetType !== 'GRID') return new FormulaError('REF', `Unresolved sheet name '${spec.sheet}'.`)
  const move = (value: number | undefined, fixed: boolean | undefined, by: number) => (value === undefined || fixed ? value : value + by)
  const startRow = move(spec.startRow, spec.fixed?.startRow, here.shiftRows)
  const endRow = move(spec.endRow, spec.fixed?.endRow, here.shiftRows)
  const startColumn = move(spec.startColumn, spec.fixed?.startColumn, here.shiftColumns)
  const endColumn = move(spec.endColumn, spec.fixed?.endColumn, here.shiftColumns)
  if ((startRow ?? 0) < 0 || (startColumn ?? 0) < 0) return new FormulaError('REF', 'Reference does not exist.')
  const { rowCount, columnCount } = sheet.properties.gridProperties
  const bounded = endRow !== undefined && endColumn !== undefined && startRow !== undefined && startColumn !== undefined
  // A reference that starts past the grid points at nothing; one that runs past it is cut at the edge.
  if (bounded && (startRow >= rowCount || startColumn >= columnCount)) return new FormulaError('REF', 'Reference does not exist.')
  const r0 = Math.min(startRow ?? 0, rowCount)
  const c0 = Math.min(startColumn ?? 0, columnCount)
  return {
    kind: 'range',
    sheet,
    startRow: r0,
    endRow: Math.max(r0, Math.min(endRow ?? rowCount, rowCount)),
    startColumn: c0,
    endColumn: Math.max(c0, Math.min(endColumn ?? columnCount, columnCount)),
  }
}

/** What a subtree's memo key depends on. */
export interface NodeInfo {
  text: string
  ownSheet: boolean
  relativeRow: boolean
  relativeColumn: boolean
}

const infos = new WeakMap<Node, NodeInfo>()

/** What a subtree's references depend on, worked out once per tree node. */
export function infoOf(node: Node): NodeInfo {
  let info = infos.get(node)
  if (info) return info
  info = { text: JSON.stringify(node), ownSheet: false, relativeRow: false, relativeColumn: false }
  const visit = (n: Node | undefined): void => {
    if (!n) return
    switch (n.k) {
      case 'ref': {
        const r = n.ref
        if (r.sheet === undefined) info!.ownSheet = true
        if ((r.startRow !== undefined && !r.fixed?.startRow) || (r.endRow !== undefined && !r.fixed?.endRow)) info!.relativeRow = true
        if ((r.startColumn !== undefined && !r.fixed?.startColumn) || (r.endColumn !== undefined && !r.fixed?.endColumn))
          info!.relativeColumn = true
        return
      }
      case 'neg':
      case 'pos':
      case 'pct':
        return visit(n.a)
      case 'bin':
        visit(n.a)
        return visit(n.b)
      case 'call':
        // ROW() and COLUMN() without a reference read where the formula is; implicit intersection does too.
        info!.relativeRow = true
        info!.relativeColumn = true
        info!.ownSheet = true
        return
      case 'arr':
        return n.rows.forEach((row) => row.forEach(visit))
      default:
        return
    }
  }
  visit(node)
  // Implicit intersection inside a subtree also reads the formula's position.
  infos.set(node, info)
  return info
}
