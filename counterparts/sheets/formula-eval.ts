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
import { formulaFunctions, type FunctionSpec } from './formula-functions.ts'
import { FormulaParseError, type Node, parseFormula, type RefSpec } from './formula-parse.ts'
import {
  type ArrayValue,
  arrayOf,
  compareScalars,
  compareWith,
  type ComparisonOp,
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
  toText,
  type Val,
} from './formula-values.ts'

export type { Here } from './formula-values.ts'
import type { SheetData, SpreadsheetData } from './sheet-data.ts'
import { serialFromEpochMs } from './serial.ts'
import type { ExtendedValue, NumberFormat } from './values.ts'

// Parsed trees by stored value: stored values are replaced, never changed, so the tree stays right.
const parsed = new WeakMap<ExtendedValue, Node | FormulaParseError>()

function treeOf(stored: ExtendedValue): Node | FormulaParseError {
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
const DATE_FORMAT: NumberFormat = { type: 'DATE', pattern: 'M/d/yyyy' }
const DATE_TIME_FORMAT: NumberFormat = { type: 'DATE_TIME', pattern: 'M/d/yyyy H:mm:ss' }

/** Wall-clock serial of `epochMs` in a CLDR zone (`Etc/GMT`, `Europe/Paris`) or a custom `GMT+01:00`. */
export function serialInZone(epochMs: number, timeZone: string): number {
  const custom = /^(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(timeZone)
  if (custom) {
    const offset = (Number(custom[2]) * 60 + Number(custom[3] ?? 0)) * (custom[1] === '-' ? -1 : 1)
    return serialFromEpochMs(epochMs + offset * 60_000)
  }
  try {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      })
        .formatToParts(new Date(epochMs))
        .map((p) => [p.type, p.value]),
    )
    const wall = Date.UTC(
      Number(parts.year),
      Number(parts.month) - 1,
      Number(parts.day),
      Number(parts.hour),
      Number(parts.minute),
      Number(parts.second),
      epochMs % 1000,
    )
    return serialFromEpochMs(wall)
  } catch {
    return serialFromEpochMs(epochMs)
  }
}

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

  /** The number format Sheets gives a formula's result when its cell has none: dates from DATE/TODAY, date-times from NOW, a date plus days stays a date. */
  inferredFormat(stored: ExtendedValue, sheet: SheetData, depth = 0): NumberFormat | undefined {
    const tree = treeOf(stored)
    return tree instanceof FormulaParseError ? undefined : this.formatOf(tree, sheet, depth)
  }

  private formatOf(node: Node, sheet: SheetData, depth: number): NumberFormat | undefined {
    if (depth > 20) return undefined
    const dateLike = (f: NumberFormat | undefined) => f !== undefined && (f.type === 'DATE' || f.type === 'DATE_TIME')
    switch (node.k) {
      case 'call':
        if (['TODAY', 'DATE', 'DATEVALUE'].includes(node.name)) return DATE_FORMAT
        if (node.name === 'NOW') return DATE_TIME_FORMAT
        if ((node.name === 'IF' || node.name === 'IFERROR') && node.args[node.name === 'IF' ? 1 : 0])
          return this.formatOf(node.args[node.name === 'IF' ? 1 : 0]!, sheet, depth + 1)
        if (['MIN', 'MAX'].includes(node.name) && node.args[0]) return this.formatOf(node.args[0], sheet, depth + 1)
        return undefined
      case 'ref': {
        const r = node.ref
        if (r.startRow === undefined || r.startColumn === undefined || r.endRow !== r.startRow + 1 || r.endColumn !== r.startColumn + 1)
          return undefined
        const target = r.sheet === undefined ? sheet : this.sheetNamed(r.sheet)
        const cell = target?.rows[r.startRow]?.cells[r.startColumn]
        if (!target || !cell) return undefined
        if (cell.userEnteredFormat?.numberFormat) return cell.userEnteredFormat.numberFormat
        return cell.userEnteredValue?.formulaValue !== undefined ? this.inferredFormat(cell.userEnteredValue, target, depth + 1) : undefined
      }
      case 'bin': {
        if (node.op !== '+' && node.op !== '-') return undefined
        const a = this.formatOf(node.a, sheet, depth + 1)
        const b = this.formatOf(node.b, sheet, depth + 1)
        // Date minus date is a number of days; date plus or minus days stays a date.
        if (dateLike(a) && dateLike(b)) return undefined
        return dateLike(a) ? a : node.op === '+' && dateLike(b) ? b : undefined
      }
      default:
        return undefined
    }
  }

  /** Sheets match sheet names in formulas without case. */
  sheetNamed(title: string): SheetData | undefined {
    return (
      this.ss.sheets.find((s) => s.properties.title === title) ??
      this.ss.sheets.find((s) => s.properties.title.toLowerCase() === title.toLowerCase())
    )
  }

  private resolve(spec: RefSpec, here: Here): RangeRef | FormulaError {
    const sheet = spec.sheet === undefined ? here.sheet : this.sheetNamed(spec.sheet)
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
        return this.resolve(node.ref, here)
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

/** What a subtree's memo key depends on. */
interface NodeInfo {
  text: string
  ownSheet: boolean
  relativeRow: boolean
  relativeColumn: boolean
}

const infos = new WeakMap<Node, NodeInfo>()

function infoOf(node: Node): NodeInfo {
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

/** Same-shape or one-cell-broadcast element-wise operation in a tight loop; undefined for other shapes. */
function elementwise(x: ArrayValue, y: ArrayValue, op: (p: Scalar, q: Scalar) => Scalar): ArrayValue | undefined {
  const xd = x.data
  const yd = y.data
  if (x.rows === y.rows && x.columns === y.columns) {
    const out: Scalar[] = new Array(xd.length)
    for (let i = 0; i < xd.length; i++) out[i] = op(xd[i] ?? null, yd[i] ?? null)
    return arrayOf(x.rows, x.columns, out)
  }
  if (y.rows === 1 && y.columns === 1) {
    const q = yd[0] ?? null
    const out: Scalar[] = new Array(xd.length)
    for (let i = 0; i < xd.length; i++) out[i] = op(xd[i] ?? null, q)
    return arrayOf(x.rows, x.columns, out)
  }
  if (x.rows === 1 && x.columns === 1) {
    const p = xd[0] ?? null
    const out: Scalar[] = new Array(yd.length)
    for (let i = 0; i < yd.length; i++) out[i] = op(p, yd[i] ?? null)
    return arrayOf(y.rows, y.columns, out)
  }
  return undefined
}

/** A computed value as an ExtendedValue; a blank result has no field. */
export function toExtended(v: Scalar): ExtendedValue {
  if (v === null) return {}
  if (typeof v === 'number')
    return Number.isFinite(v) ? { numberValue: v } : { errorValue: { type: 'NUM', message: 'Result was not a number.' } }
  if (typeof v === 'string') return { stringValue: v }
  if (typeof v === 'boolean') return { boolValue: v }
  return { errorValue: { type: v.type, message: v.message } }
}

const OP_NAMES: Record<string, string> = { '+': 'ADD', '-': 'MINUS', '*': 'MULTIPLY', '/': 'DIVIDE', '^': 'POW' }
const COMPARISON_NAMES: Record<string, string> = { '=': 'EQ', '<>': 'NE', '<': 'LT', '>': 'GT', '<=': 'LTE', '>=': 'GTE' }

/** One binary operator on two values; errors propagate left first. */
export function binary(op: string, x: Scalar, y: Scalar): Scalar {
  // The common cases of array arithmetic first: numbers, booleans and blanks.
  if (op === '*' || op === '+' || op === '-') {
    const a = typeof x === 'number' ? x : typeof x === 'boolean' || x === null ? Number(x) : undefined
    const b = typeof y === 'number' ? y : typeof y === 'boolean' || y === null ? Number(y) : undefined
    if (a !== undefined && b !== undefined) return op === '*' ? a * b : op === '+' ? a + b : a - b
  }
  if (typeof x === 'number' && typeof y === 'number') {
    switch (op) {
      case '=':
        return x === y
      case '<>':
        return x !== y
      case '<':
        return x < y
      case '>':
        return x > y
      case '<=':
        return x <= y
      case '>=':
        return x >= y
    }
  }
  if (isError(x)) return x
  if (isError(y)) return y
  if (op === '&') {
    const a = toText(x)
    const b = toText(y)
    return isError(a) ? a : isError(b) ? b : a + b
  }
  if (COMPARISON_NAMES[op]) {
    return compareWith(op as ComparisonOp, compareScalars(x, y))
  }
  const name = OP_NAMES[op]!
  const a = toNumber(x, name, 1)
  if (isError(a)) return a
  const b = toNumber(y, name, 2)
  if (isError(b)) return b
  switch (op) {
    case '+':
      return a + b
    case '-':
      return a - b
    case '*':
      return a * b
    case '/':
      return b === 0 ? new FormulaError('DIVIDE_BY_ZERO', 'Function DIVIDE parameter 2 cannot be zero.') : a / b
    default: {
      const r = a ** b
      return Number.isFinite(r) ? r : new FormulaError('NUM', 'Result was not a number.')
    }
  }
}
