/**
 * The values a formula computes with, and Sheets' coercions between them:
 * blanks, numbers, text, booleans, errors, arrays and (unmaterialised) ranges.
 * Pure.
 */
import type { SheetData } from './sheet-data.ts'
import { ERROR_CODES, formatAutomatic, parseUserEntered } from './values.ts'

/** Google's ErrorValue types (the `errorValue.type` of an ExtendedValue). */
export type ErrorType = 'ERROR' | 'NULL_VALUE' | 'DIVIDE_BY_ZERO' | 'VALUE' | 'REF' | 'NAME' | 'NUM' | 'N_A'

/** An error value: its type and the message Sheets shows on hover. */
export class FormulaError {
  readonly type: ErrorType
  readonly message: string
  constructor(type: ErrorType, message: string) {
    this.type = type
    this.message = message
  }
  get code(): string {
    return ERROR_CODES[this.type]!
  }
}

/** The error a literal such as `#N/A` written in a formula stands for. */
export function errorOfCode(code: string): FormulaError {
  const type = (Object.keys(ERROR_CODES) as ErrorType[]).find((t) => ERROR_CODES[t] === code) ?? 'ERROR'
  const messages: Partial<Record<ErrorType, string>> = {
    N_A: 'Error',
    REF: 'Reference does not exist.',
    DIVIDE_BY_ZERO: 'Error',
    VALUE: 'Error',
    NAME: 'Error',
    NUM: 'Error',
    NULL_VALUE: 'Error',
  }
  return new FormulaError(type, messages[type] ?? 'Error')
}

/** A single value; `null` is a blank (an empty cell, or an omitted IFERROR alternative). */
export type Scalar = number | string | boolean | FormulaError | null

/** An array value, row-major. */
export interface ArrayValue {
  kind: 'array'
  rows: number
  columns: number
  data: Scalar[]
}

/** A reference resolved against the spreadsheet and bounded to its grid (possibly empty). */
export interface RangeRef {
  kind: 'range'
  sheet: SheetData
  startRow: number
  endRow: number
  startColumn: number
  endColumn: number
}

/** What an expression evaluates to before it lands in a cell. */
export type Val = Scalar | ArrayValue | RangeRef

export function isRange(v: Val): v is RangeRef {
  return typeof v === 'object' && v !== null && (v as { kind?: string }).kind === 'range'
}

export function isArray(v: Val): v is ArrayValue {
  return typeof v === 'object' && v !== null && (v as { kind?: string }).kind === 'array'
}

export function isError(v: unknown): v is FormulaError {
  return v instanceof FormulaError
}

export function arrayOf(rows: number, columns: number, data: Scalar[]): ArrayValue {
  return { kind: 'array', rows, columns, data }
}

/**
 * Coerces for arithmetic (`fn` names the operation in the message, as Sheets
 * does: `Function MULTIPLY parameter 2 expects number values. But 'x' is a text
 * and cannot be coerced to a number.`). Blank is 0, TRUE 1; text that reads as
 * a number or a date counts as that number.
 */
export function toNumber(v: Scalar, fn: string, param: number): number | FormulaError {
  if (v === null) return 0
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (v instanceof FormulaError) return v
  const parsed = v.trim() === '' ? undefined : parseUserEntered(v.trim()).value
  if (parsed?.numberValue !== undefined && !v.trim().startsWith('=') && !v.trim().startsWith('+')) return parsed.numberValue
  return new FormulaError(
    'VALUE',
    `Function ${fn} parameter ${param} expects number values. But '${v}' is a text and cannot be coerced to a number.`,
  )
}

/** Coerces to text as `&` and text functions do: numbers in their plain form, TRUE/FALSE, blank as "". */
export function toText(v: Scalar): string | FormulaError {
  if (v === null) return ''
  if (typeof v === 'string') return v
  if (typeof v === 'number') return formatAutomatic(v)
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE'
  return v
}

/** Coerces to a boolean for IF, AND, OR, NOT: numbers are TRUE unless 0; text is an error unless "TRUE"/"FALSE". */
export function toBoolean(v: Scalar, fn: string, param: number): boolean | FormulaError {
  if (v === null) return false
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0
  if (v instanceof FormulaError) return v
  const upper = v.trim().toUpperCase()
  if (upper === 'TRUE') return true
  if (upper === 'FALSE') return false
  return new FormulaError(
    'VALUE',
    `Function ${fn} parameter ${param} expects boolean values. But '${v}' is a text and cannot be coerced to a boolean.`,
  )
}

function typeRank(v: number | string | boolean): number {
  return typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2
}

/**
 * Compares two values as `=`, `<` and friends do: a blank takes the other
 * side's type (0, "" or FALSE); text compares without case; across types
 * numbers < text < booleans. Errors are the caller's business.
 */
export function compareScalars(a: number | string | boolean | null, b: number | string | boolean | null): number {
  const blankAs = (other: number | string | boolean | null): number | string | boolean =>
    typeof other === 'string' ? '' : typeof other === 'boolean' ? false : 0
  const x = a === null ? blankAs(b) : a
  const y = b === null ? blankAs(a) : b
  const rx = typeRank(x)
  const ry = typeRank(y)
  if (rx !== ry) return rx - ry
  if (typeof x === 'number') return x === y ? 0 : x < (y as number) ? -1 : 1
  if (typeof x === 'boolean') return Number(x) - Number(y)
  const lx = (x as string).toLowerCase()
  const ly = (y as string).toLowerCase()
  return lx === ly ? 0 : lx < ly ? -1 : 1
}

/** The cell a formula is evaluated for, and how far it was moved from where it was written (conditional rules). */
export interface Here {
  sheet: SheetData
  row: number
  column: number
  shiftRows: number
  shiftColumns: number
}

/** What a function may ask of the evaluation it runs in (formula-eval.ts's `Recalc`). */
export interface Evaluator {
  now(): number
  indexOf(values: readonly Scalar[], build: (values: readonly Scalar[]) => Map<string, number[]>): Map<string, number[]>
  toArray(v: Val): ArrayValue
  toScalar(v: Val, here: Here): Scalar
}

/** A comparison operator of a formula or a criterion (`">=5"`). */
export type ComparisonOp = '=' | '<>' | '<' | '>' | '<=' | '>='

/** Whether `cmp` (a `compareScalars` result) satisfies `op`. */
export function compareWith(op: ComparisonOp, cmp: number): boolean {
  switch (op) {
    case '=':
      return cmp === 0
    case '<>':
      return cmp !== 0
    case '<':
      return cmp < 0
    case '>':
      return cmp > 0
    case '<=':
      return cmp <= 0
    case '>=':
      return cmp >= 0
  }
}
