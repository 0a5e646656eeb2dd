/**
 * Evaluates formulas at read time, as Google Sheets computes them: references
 * to any tab (`'Sync log'!A2`, `Activities!$A$2:$A`, `A:A`, `A2:A`), array
 * arithmetic and comparisons inside SUMPRODUCT and ARRAYFORMULA, implicit
 * intersection elsewhere, booleans as 1/0, errors that propagate.
 *
 * One `Recalc` lives for one read: it memoises every formula cell and every
 * range it materialises, so a Summary tab of a few hundred formulas over a
 * 100,000-row tab reads each column once. Any change to the spreadsheet is
 * seen by the next read, which makes a new `Recalc`.
 */
import { inferredFormat, serialInZone } from './formula-dates.ts'
import { formulaFunctions, type FunctionSpec } from './formula-functions.ts'
import { binary, elementwise, toExtended } from './formula-operators.ts'
import { FormulaParseError, type Node, parseFormula } from './formula-parse.ts'
import { infoOf, resolveRef, sheetNamed, treeOf } from './formula-trees.ts'
import {
  type ArrayValue,
  arrayOf,
  errorOfCode,
  type Evaluator,
  FormulaError,
  type Here,
  isArray,
  isError,
  isRange,
  type RangeRef,
  type Scalar,
  toNumber,
  type Val,
} from './formula-values.ts'
import type { SheetData, SpreadsheetData } from './sheet-data.ts'
import type { ExtendedValue, NumberFormat } from './values.ts'

export type { Here } from './formula-values.ts'

function sizeOf(v: Val): { rows: number; columns: number } {
  if (isRange(v)) return { rows: v.endRow - v.startRow, columns: v.endColumn - v.startColumn }
  if (isArray(v)) return { rows: v.rows, columns: v.columns }
  return { rows: 1, columns: 1 }
}

/** True for a range or array of more than one cell. */
export function isMulti(v: Val): boolean {
  const { rows, columns } = sizeOf(v)
  return (isRange(v) || isArray(v)) && rows * columns !== 1
}

const CIRCULAR = () => new FormulaError('REF', 'Circular dependency detected. To resolve with iterative calculation, see File > Settings.')
const NO_ARRAY_VALUE = () => new FormulaError('VALUE', 'An array value could not be found.')

/** The evaluation of one read. */
export class Recalc implements Evaluator {
  readonly ss: SpreadsheetData
  private readonly clock: () => number
  private readonly memo = new Map<SheetData, Map<number, Scalar>>()
  private readonly active = new Set<string>()
  private readonly ranges = new Map<string, Scalar[]>()
  private readonly indexes = new WeakMap<readonly Scalar[], Map<string, number[]>>()
  private readonly arrays = new Map<string, ArrayValue>()
  private readonly numericArrays = new WeakMap<ArrayValue, boolean>()
  private nowSerial: number | undefined

  constructor(ss: SpreadsheetData, clock: () => number) {
    this.ss = ss
    this.clock = clock
  }

  /** NOW() in the spreadsheet's time zone, fixed for the whole read. */
  now(): number {
    this.nowSerial ??= serialInZone(this.clock(), this.ss.properties.timeZone)
    return this.nowSerial
  }

  /** The value of a cell as formulas see it: blank is null, formulas computed. */
  cellValue(sheet: SheetData, row: number, column: number): Scalar {
    const stored = sheet.rows[row]?.cells[column]?.userEnteredValue
    if (!stored) return null
    if (stored.numberValue !== undefined) return stored.numberValue
    if (stored.stringValue !== undefined) return stored.stringValue
    if (stored.boolValue !== undefined) return stored.boolValue
    if (stored.errorValue) return new FormulaError(stored.errorValue.type as FormulaError['type'], stored.errorValue.message)
    if (stored.formulaValue === undefined) return null
    let perSheet = this.memo.get(sheet)
    if (!perSheet) {
      perSheet = new Map()
      this.memo.set(sheet, perSheet)
    }
    const key = row * 20_000 + column
    const known = perSheet.get(key)
    if (known !== undefined || perSheet.has(key)) return known ?? null
    const id = `${sheet.properties.sheetId}:${key}`
    if (this.active.has(id)) return CIRCULAR()
    this.active.add(id)
    let value: Scalar
    try {
      value = this.evaluateStored(stored, { sheet, row, column, shiftRows: 0, shiftColumns: 0 })
    } finally {
      this.active.delete(id)
    }
    perSheet.set(key, value)
    return value
  }

  /** Evaluates a stored formula for `here`; a multi-cell result shows its top-left value (spilling is not modelled). */
  evaluateStored(stored: ExtendedValue, here: Here): Scalar {
    const tree = treeOf(stored)
    if (tree instanceof FormulaParseError) return new FormulaError('ERROR', 'Formula parse error.')
    return this.topLeft(this.evaluate(tree, here, false))
  }

  /** Evaluates formula text as if in `here` (conditional and filter rules). */
  evaluateText(formula: string, here: Here): Scalar {
    let tree: Node
    try {
      tree = parseFormula(formula)
    } catch (error) {
      if (!(error instanceof FormulaParseError)) throw error
      return new FormulaError('ERROR', 'Formula parse error.')
    }
    return this.topLeft(this.evaluate(tree, here, false))
  }

  private topLeft(v: Val): Scalar {
    if (isRange(v)) return v.endRow > v.startRow && v.endColumn > v.startColumn ? this.cellValue(v.sheet, v.startRow, v.startColumn) : null
    if (isArray(v)) return v.data[0] ?? null
    return v
  }

  /** The number format Sheets gives a formula's result when its cell has none (formula-dates.ts). */
  inferredFormat(stored: ExtendedValue, sheet: SheetData, depth = 0): NumberFormat | undefined {
    return inferredFormat(this.ss, stored, sheet, depth)
  }

  /** Sheets match sheet names in formulas without case. */
  sheetNamed(title: string): SheetData | undefined {
    return sheetNamed(this.ss, title)
  }

  /** The values of a range, row-major; formula cells computed top to bottom, so chains stay shallow. */
  values(range: RangeRef): Scalar[] {
    const key = `${range.sheet.properties.sheetId}:${range.startRow}:${range.endRow}:${range.startColumn}:${range.endColumn}`
    const known = this.ranges.get(key)
    if (known) return known
    const out: Scalar[] = []
    const rows = range.sheet.rows
    for (let r = range.startRow; r < range.endRow; r++) {
      const row = rows[r]
      for (let c = range.startColumn; c < range.endColumn; c++) out.push(row && row.cells[c] ? this.cellValue(range.sheet, r, c) : null)
    }
    this.ranges.set(key, out)
    return out
  }

  /** An equality index of a materialised range (for SUMIFS/COUNTIFS). */
  indexOf(values: readonly Scalar[], build: (values: readonly Scalar[]) => Map<string, number[]>): Map<string, number[]> {
    let index = this.indexes.get(values)
    if (!index) {
      index = build(values)
      this.indexes.set(values, index)
    }
    return index
  }

  /** A range, array or scalar as an array. */
  toArray(v: Val): ArrayValue {
    if (isArray(v)) return v
    if (isRange(v)) return arrayOf(v.endRow - v.startRow, v.endColumn - v.startColumn, this.values(v))
    return arrayOf(1, 1, [v])
  }

  /** A value where one value is wanted: a one-cell range is its cell; a row or column range meets the formula's row or column (implicit intersection). */
  toScalar(v: Val, here: Here): Scalar {
    if (isArray(v)) return v.data[0] ?? null
    if (!isRange(v)) return v
    const rows = v.endRow - v.startRow
    const columns = v.endColumn - v.startColumn
    if (rows === 1 && columns === 1) return this.cellValue(v.sheet, v.startRow, v.startColumn)
    if (columns === 1 && here.row >= v.startRow && here.row < v.endRow) return this.cellValue(v.sheet, here.row, v.startColumn)
    if (rows === 1 && here.column >= v.startColumn && here.column < v.endColumn) return this.cellValue(v.sheet, v.startRow, here.column)
    return NO_ARRAY_VALUE()
  }

  /**
   * Evaluates a tree; `arrays` is true inside SUMPRODUCT and ARRAYFORMULA,
   * where operators work element by element. Array results are memoised per
   * read by the subtree's text and what it depends on (the sheet for plain
   * references, the row and column for relative ones), so the same
   * `(Activities!$E$2:$E-Activities!$D$2:$D)` in 300 formulas is computed once.
   */
  evaluate(node: Node, here: Here, arrays: boolean): Val {
    if (!arrays || node.k === 'num' || node.k === 'str' || node.k === 'bool' || node.k === 'ref' || node.k === 'err')
      return this.compute(node, here, arrays)
    const info = infoOf(node)
    let key = info.text
    if (info.ownSheet) key += `|s${here.sheet.properties.sheetId}`
    if (info.relativeRow) key += `|r${here.row}:${here.shiftRows}`
    if (info.relativeColumn) key += `|c${here.column}:${here.shiftColumns}`
    // A subtree that moves with both the row and the column is the formula's own: nobody else will ask for it.
    if (info.relativeRow && info.relativeColumn) return this.compute(node, here, arrays)
    const known = this.arrays.get(key)
    if (known) return known
    const value = this.compute(node, here, arrays)
    if (isArray(value)) this.arrays.set(key, value)
    return value
  }

  private compute(node: Node, here: Here, arrays: boolean): Val {
    switch (node.k) {
      case 'num':
        return node.v
      case 'str':
        return node.v
      case 'bool':
        return node.v
      case 'err':
        return errorOfCode(node.code)
      case 'ref':
        return resolveRef(this.ss, node.ref, here)
      case 'name':
        return new FormulaError('NAME', `Unknown range name: '${node.name}'.`)
      case 'arr': {
        const data = node.rows.flatMap((row) => row.map((cell) => this.toScalar(this.evaluate(cell, here, false), here)))
        return arrayOf(node.rows.length, node.rows[0]?.length ?? 0, data)
      }
      case 'neg':
      case 'pos':
      case 'pct': {
        const name = node.k === 'neg' ? 'UMINUS' : node.k === 'pos' ? 'UPLUS' : 'UNARY_PERCENT'
        const apply = (x: Scalar): Scalar => {
          const n = toNumber(x, name, 1)
          if (isError(n)) return n
          return node.k === 'neg' ? -n : node.k === 'pos' ? (typeof x === 'string' ? x : n) : n / 100
        }
        return this.lift([this.evaluate(node.a, here, arrays)], here, arrays, ([x]) => apply(x!))
      }
      case 'bin': {
        const a = this.evaluate(node.a, here, arrays)
        const b = this.evaluate(node.b, here, arrays)
        const op = node.op
        if (arrays && (isMulti(a) || isMulti(b))) {
          const x = this.toArray(a)
          const y = this.toArray(b)
          const fast = elementwise(x, y, (p, q) => binary(op, p, q))
          if (fast) return fast
        }
        return this.lift([a, b], here, arrays, ([x, y]) => binary(op, x!, y!))
      }
      case 'call':
        return this.call(node, here, arrays)
    }
  }

  /**
   * Applies a scalar operation to its operands: element by element (with
   * broadcasting) in array context, after implicit intersection elsewhere.
   */
  lift(operands: readonly Val[], here: Here, arrays: boolean, op: (values: Scalar[]) => Scalar): Val {
    if (!arrays || !operands.some(isMulti)) return op(operands.map((v) => this.toScalar(v, here)))
    const arrs = operands.map((v) => this.toArray(v))
    const rows = Math.max(...arrs.map((a) => a.rows))
    const columns = Math.max(...arrs.map((a) => a.columns))
    const data: Scalar[] = new Array(rows * columns)
    const na = new FormulaError('N_A', 'Array arguments are of different size.')
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        const args: Scalar[] = []
        let missing = false
        for (const a of arrs) {
          const ar = a.rows === 1 ? 0 : r
          const ac = a.columns === 1 ? 0 : c
          if (ar >= a.rows || ac >= a.columns) {
            missing = true
            break
          }
          args.push(a.data[ar * a.columns + ac] ?? null)
        }
        data[r * columns + c] = missing ? na : op(args)
      }
    }
    return arrayOf(rows, columns, data)
  }

  private call(node: Extract<Node, { k: 'call' }>, here: Here, arrays: boolean): Val {
    const spec: FunctionSpec | undefined = formulaFunctions[node.name]
    if (!spec) return new FormulaError('NAME', `Unknown function: '${node.name.toLowerCase()}'.`)
    const count = node.args.length === 1 && node.args[0] === undefined ? 0 : node.args.length
    if (count < spec.min || count > spec.max) {
      const expected =
        spec.min === spec.max ? `${spec.min}` : spec.max === Infinity ? `at least ${spec.min}` : `between ${spec.min} and ${spec.max}`
      return new FormulaError(
        'N_A',
        `Wrong number of arguments to ${node.name}. Expected ${expected} arguments, but got ${count} arguments.`,
      )
    }
    const inner = arrays || spec.arrays === true
    if (node.name === 'SUMPRODUCT' && count === 1) {
      const fused = this.sumOfProducts(node.args[0]!, here)
      if (fused !== undefined) return fused
    }
    const args = node.args.slice(0, count).map((a) => (a === undefined ? null : this.evaluate(a, here, inner)))
    const takes = (i: number) => (typeof spec.takes === 'function' ? spec.takes(i) : spec.takes)
    const ctx = { recalc: this, here, arrays: inner, name: node.name }
    const valueIndexes = args.map((_, i) => i).filter((i) => takes(i) === 'value')
    if (valueIndexes.length === 0) return spec.call(ctx, args)
    // Scalar parameters: lifted over arrays in array context, intersected elsewhere.
    if (inner && valueIndexes.some((i) => isMulti(args[i]!))) {
      const lifted = valueIndexes.map((i) => args[i]!)
      return this.lift(lifted, here, true, (values) => {
        const call = [...args]
        valueIndexes.forEach((i, j) => (call[i] = values[j]!))
        return this.toScalar(spec.call(ctx, call), here)
      })
    }
    const call = args.map((a, i) => (takes(i) === 'value' ? this.toScalar(a, here) : a))
    return spec.call(ctx, call)
  }

  /**
   * SUMPRODUCT of one product `(a)*(b)*(c)`, without building the product:
   * each factor is evaluated (and memoised) once, then one pass multiplies and
   * sums, left to right, stopping at the first error as the materialised
   * product would. Undefined when the factors' shapes need the general path.
   */
  private sumOfProducts(node: Node, here: Here): Val | undefined {
    if (node.k !== 'bin' || node.op !== '*') return undefined
    const factors: Node[] = []
    const flatten = (n: Node): void => {
      if (n.k === 'bin' && n.op === '*') {
        flatten(n.a)
        flatten(n.b)
      } else factors.push(n)
    }
    flatten(node)
    const arrs = factors.map((f) => this.toArray(this.evaluate(f, here, true)))
    const shaped = arrs.find((a) => a.rows * a.columns !== 1) ?? arrs[0]!
    if (arrs.some((a) => a.rows * a.columns !== 1 && (a.rows !== shaped.rows || a.columns !== shaped.columns))) return undefined
    const size = shaped.rows * shaped.columns
    const data = arrs.map((a) => a.data)
    const single = arrs.map((a) => a.rows * a.columns === 1)
    let total = 0
    if (arrs.every((a) => this.numeric(a))) {
      // Numbers, booleans and blanks only: no error can appear, so a zero ends the row early.
      for (let i = 0; i < size; i++) {
        let acc = asNumber(data[0]![single[0] ? 0 : i] ?? null)
        for (let k = 1; k < data.length && acc !== 0; k++) acc *= asNumber(data[k]![single[k] ? 0 : i] ?? null)
        total += acc
      }
      return total
    }
    for (let i = 0; i < size; i++) {
      let acc: Scalar = data[0]![single[0] ? 0 : i] ?? null
      for (let k = 1; k < data.length; k++) acc = binary('*', acc, data[k]![single[k] ? 0 : i] ?? null)
      if (isError(acc)) return acc
      total += typeof acc === 'number' ? acc : 0
    }
    return total
  }

  /** Whether an array holds only numbers, booleans and blanks (memoised per array). */
  private numeric(a: ArrayValue): boolean {
    let known = this.numericArrays.get(a)
    if (known === undefined) {
      known = a.data.every((v) => v === null || typeof v === 'number' || typeof v === 'boolean')
      this.numericArrays.set(a, known)
    }
    return known
  }

  /** The effective value of a formula cell as an ExtendedValue (`{}` for a blank result). */
  effective(sheet: SheetData, row: number, column: number): ExtendedValue {
    return toExtended(this.cellValue(sheet, row, column))
  }
}

function asNumber(v: Scalar): number {
  return typeof v === 'number' ? v : v === true ? 1 : 0
}
