/**
 * The operators of a formula on computed values: one binary operator on two
 * scalars (errors propagate left first, blanks and booleans count as numbers
 * in arithmetic), the same element by element over arrays, and a computed
 * value written back as the ExtendedValue a read returns.
 */
import {
  type ArrayValue,
  arrayOf,
  compareScalars,
  compareWith,
  type ComparisonOp,
  FormulaError,
  isError,
  type Scalar,
  toNumber,
  toText,
} from './formula-values.ts'
import type { ExtendedValue } from './values.ts'

/** Same-shape or one-cell-broadcast element-wise operation in a tight loop; undefined for other shapes. */
export function elementwise(x: ArrayValue, y: ArrayValue, op: (p: Scalar, q: Scalar) => Scalar): ArrayValue | undefined {
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
