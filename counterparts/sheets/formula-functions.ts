/**
 * The functions the formula evaluator knows, with Google Sheets' semantics.
 * Any other name reads `#NAME?` ("Unknown function"), as Google answers a name
 * it does not know; the README lists the common ones deliberately left out.
 */
import { buildIndex, compileCriterion, type CriteriaPair, matchingPositions } from './formula-criteria.ts'
import {
  type Evaluator,
  FormulaError,
  type Here,
  isArray,
  isError,
  isRange,
  type Scalar,
  toBoolean,
  toNumber,
  toText,
  type Val,
} from './formula-values.ts'
import { partsFromSerial, serialFromParts } from './serial.ts'
import { formatDateTime, formatNumberPattern } from './values.ts'

/** What a function is called with. */
export interface CallContext {
  recalc: Evaluator
  here: Here
  /** True inside SUMPRODUCT and ARRAYFORMULA. */
  arrays: boolean
  name: string
}

/** How a parameter is taken: `value` = one value (intersected, or lifted over arrays in array context); `any` = as evaluated (a range stays a range). */
export type ParameterKind = 'value' | 'any'

export interface FunctionSpec {
  min: number
  max: number
  takes: ParameterKind | ((index: number) => ParameterKind)
  /** Evaluate the arguments in array context (SUMPRODUCT, ARRAYFORMULA). */
  arrays?: boolean
  call(ctx: CallContext, args: Val[]): Val
}

const fn = (min: number, max: number, takes: FunctionSpec['takes'], call: FunctionSpec['call'], arrays?: boolean): FunctionSpec => ({
  min,
  max,
  takes,
  call,
  ...(arrays ? { arrays } : {}),
})

/** Every value of an argument: a range or array cell by cell (`fromRange` true), a scalar as itself. */
function eachValue(
  ctx: CallContext,
  v: Val,
  visit: (value: Scalar, fromRange: boolean) => FormulaError | undefined,
): FormulaError | undefined {
  if (isRange(v) || isArray(v)) {
    for (const x of ctx.recalc.toArray(v).data) {
      const stop = visit(x, true)
      if (stop) return stop
    }
    return undefined
  }
  return visit(v, false)
}

/** Numbers of SUM-like arguments: in ranges only numbers count; direct arguments are coerced (TRUE = 1, "3" = 3). */
function numbersOf(ctx: CallContext, args: Val[], visit: (n: number) => void): FormulaError | undefined {
  for (const [i, arg] of args.entries()) {
    const error = eachValue(ctx, arg, (value, fromRange) => {
      if (isError(value)) return value
      if (fromRange) {
        if (typeof value === 'number') visit(value)
        return undefined
      }
      if (value === null) return undefined
      const n = toNumber(value, ctx.name, i + 1)
      if (isError(n)) return n
      visit(n)
      return undefined
    })
    if (error) return error
  }
  return undefined
}

function num(ctx: CallContext, v: Val, param: number): number | FormulaError {
  return toNumber(v as Scalar, ctx.name, param)
}

function int(ctx: CallContext, v: Val, param: number): number | FormulaError {
  const n = num(ctx, v, param)
  return isError(n) ? n : Math.trunc(n)
}

function text(v: Val): string | FormulaError {
  return toText(v as Scalar)
}

/** Round half away from zero, as Sheets does, without binary artefacts (1.005 → 1.01). */
function roundTo(value: number, places: number, mode: 'half' | 'up' | 'down'): number {
  const factor = 10 ** places
  const scaled = Number((Math.abs(value) * factor).toPrecision(15))
  const whole = mode === 'half' ? Math.round(scaled) : mode === 'up' ? Math.ceil(scaled) : Math.floor(scaled)
  return (Math.sign(value) * whole) / factor
}

function rounding(mode: 'half' | 'up' | 'down'): FunctionSpec {
  return fn(1, 2, 'value', (ctx, [x, places]) => {
    const v = num(ctx, x!, 1)
    if (isError(v)) return v
    const p = places === undefined ? 0 : int(ctx, places, 2)
    if (isError(p)) return p
    return roundTo(v, p, mode)
  })
}

function sizeError(name: string): FormulaError {
  return new FormulaError('VALUE', `Array arguments to ${name} are of different size.`)
}

/** SUMIFS/COUNTIFS over (range, criterion) pairs; `sum` undefined counts. */
function conditional(ctx: CallContext, sum: Val | undefined, pairs: [Val, Val][]): Val {
  const arrays = pairs.map(([range]) => (isRange(range) || isArray(range) ? ctx.recalc.toArray(range) : undefined))
  if (arrays.some((a) => a === undefined))
    return new FormulaError('VALUE', `Function ${ctx.name} parameter ${sum === undefined ? 1 : 2} expects a range.`)
  const first = arrays[0]!
  const sumArray = sum === undefined ? undefined : isRange(sum) || isArray(sum) ? ctx.recalc.toArray(sum) : undefined
  if (sum !== undefined && !sumArray) return new FormulaError('VALUE', `Function ${ctx.name} parameter 1 expects a range.`)
  const sizes = [...arrays, ...(sumArray ? [sumArray] : [])]
  if (sizes.some((a) => a!.rows !== first.rows || a!.columns !== first.columns)) return sizeError(ctx.name)
  const compiled: CriteriaPair[] = []
  for (const [i, [, criterion]] of pairs.entries()) {
    const c = compileCriterion(ctx.recalc.toScalar(criterion, ctx.here))
    if (isError(c)) return c
    const values = arrays[i]!.data
    compiled.push({ values, criterion: c, index: () => ctx.recalc.indexOf(values, buildIndex) })
  }
  const positions = matchingPositions(compiled, first.data.length)
  if (!sumArray) return positions.length
  let total = 0
  for (const p of positions) {
    const v = sumArray.data[p] ?? null
    if (isError(v)) return v
    if (typeof v === 'number') total += v
  }
  return total
}

function pairsOf(args: Val[]): [Val, Val][] {
  const out: [Val, Val][] = []
  for (let i = 0; i + 1 < args.length; i += 2) out.push([args[i]!, args[i + 1]!])
  return out
}

/** Whether a format pattern shows a date or time (TEXT decides how to render by its pattern). */
function isDatePattern(pattern: string): boolean {
  const bare = pattern.replace(/"[^"]*"|\\./g, '')
  return /[dyhs]|am\/pm|a\/p|\[[hms]+\]/i.test(bare) || (/m/i.test(bare) && !/[0#?]/.test(bare))
}

function textOf(_ctx: CallContext, x: Val): string | FormulaError {
  return text(x)
}

function find(ctx: CallContext, needle: Val, haystack: Val, start: Val | undefined, caseless: boolean): Val {
  const n = text(needle)
  const h = text(haystack)
  if (isError(n)) return n
  if (isError(h)) return h
  const s = start === undefined ? 1 : int(ctx, start, 3)
  if (isError(s)) return s
  if (s < 1 || s > h.length + (n === '' ? 1 : 0))
    return new FormulaError(
      'VALUE',
      `Function ${ctx.name} parameter 3 value is ${s}. It should be greater than or equal to 1 and less than or equal to ${h.length}.`,
    )
  let at: number
  if (caseless) {
    const hasWildcards = /(^|[^~])[*?]/.test(n)
    if (hasWildcards) {
      let source = ''
      for (let i = 0; i < n.length; i++) {
        const ch = n[i]!
        if (ch === '~' && i + 1 < n.length) source += n[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        else if (ch === '*') source += '.*'
        else if (ch === '?') source += '.'
        else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')
      }
      const m = new RegExp(source, 'is').exec(h.slice(s - 1))
      at = m ? m.index + s - 1 : -1
    } else at = h.toLowerCase().indexOf(n.replace(/~([*?~])/g, '$1').toLowerCase(), s - 1)
  } else at = h.indexOf(n, s - 1)
  if (at < 0)
    return new FormulaError('VALUE', `${ctx.name} evaluates to an out of bounds range. It was not possible to find '${n}' in '${h}'.`)
  return at + 1
}

function datePart(part: 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second'): FunctionSpec {
  return fn(1, 1, 'value', (ctx, [x]) => {
    const n = num(ctx, x!, 1)
    if (isError(n)) return n
    if (n < 0) return new FormulaError('NUM', `Function ${ctx.name} parameter 1 value is negative. It should be positive or zero.`)
    return partsFromSerial(n)[part]
  })
}

/** The function table: names as Sheets spells them. */
export const formulaFunctions: Record<string, FunctionSpec> = {
  SUM: fn(1, Infinity, 'any', (ctx, args) => {
    let total = 0
    return numbersOf(ctx, args, (n) => (total += n)) ?? total
  }),
  MIN: fn(1, Infinity, 'any', (ctx, args) => {
    let best = Infinity
    return numbersOf(ctx, args, (n) => (best = Math.min(best, n))) ?? (best === Infinity ? 0 : best)
  }),
  MAX: fn(1, Infinity, 'any', (ctx, args) => {
    let best = -Infinity
    return numbersOf(ctx, args, (n) => (best = Math.max(best, n))) ?? (best === -Infinity ? 0 : best)
  }),
  AVERAGE: fn(1, Infinity, 'any', (ctx, args) => {
    let total = 0
    let count = 0
    const error = numbersOf(ctx, args, (n) => {
      total += n
      count++
    })
    if (error) return error
    return count === 0 ? new FormulaError('DIVIDE_BY_ZERO', 'Evaluation of function AVERAGE caused a divide by zero error.') : total / count
  }),
  COUNT: fn(1, Infinity, 'any', (ctx, args) => {
    let count = 0
    for (const arg of args)
      eachValue(
        ctx,
        arg,
        (v, fromRange) =>
          void ((typeof v === 'number' || (!fromRange && typeof v === 'string' && !isError(toNumber(v, 'COUNT', 1)))) && count++),
      )
    return count
  }),
  COUNTA: fn(1, Infinity, 'any', (ctx, args) => {
    let count = 0
    for (const arg of args) eachValue(ctx, arg, (v) => void (v !== null && count++))
    return count
  }),
  SUMPRODUCT: fn(
    1,
    Infinity,
    'any',
    (ctx, args) => {
      const arrays = args.map((a) => ctx.recalc.toArray(a))
      const first = arrays[0]!
      for (const a of arrays) {
        if (a.rows !== first.rows || a.columns !== first.columns) {
          return new FormulaError(
            'VALUE',
            `SUMPRODUCT has mismatched range sizes. Expected row count: ${first.rows}. column count: ${first.columns}. Actual row count: ${a.rows}, column count: ${a.columns}.`,
          )
        }
      }
      let total = 0
      const size = first.data.length
      for (let i = 0; i < size; i++) {
        let product = 1
        for (const a of arrays) {
          const v = a.data[i] ?? null
          if (isError(v)) return v
          // Text and blanks count as 0; booleans as 1 and 0.
          product *= typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : 0
        }
        total += product
      }
      return total
    },
    true,
  ),
  SUMIFS: fn(3, Infinity, 'any', (ctx, [sum, ...rest]) =>
    rest.length % 2 === 0
      ? conditional(ctx, sum!, pairsOf(rest))
      : new FormulaError(
          'N_A',
          `Wrong number of arguments to SUMIFS. Expected an odd number of arguments, but got ${rest.length + 1} arguments.`,
        ),
  ),
  COUNTIFS: fn(2, Infinity, 'any', (ctx, args) =>
    args.length % 2 === 0
      ? conditional(ctx, undefined, pairsOf(args))
      : new FormulaError(
          'N_A',
          `Wrong number of arguments to COUNTIFS. Expected an even number of arguments, but got ${args.length} arguments.`,
        ),
  ),
  SUMIF: fn(2, 3, 'any', (ctx, [range, criterion, sum]) => conditional(ctx, sum ?? range!, [[range!, criterion!]])),
  COUNTIF: fn(2, 2, 'any', (ctx, [range, criterion]) => conditional(ctx, undefined, [[range!, criterion!]])),
  IF: fn(2, 3, 'value', (_ctx, [condition, then, otherwise]) => {
    const c = toBoolean(condition as Scalar, 'IF', 1)
    if (isError(c)) return c
    return c ? then! : otherwise === undefined ? false : otherwise
  }),
  IFERROR: fn(1, 2, 'value', (_ctx, [value, alternative]) => (isError(value) ? (alternative ?? null) : value!)),
  IFNA: fn(2, 2, 'value', (_ctx, [value, alternative]) => (isError(value) && value.type === 'N_A' ? alternative! : value!)),
  AND: fn(1, Infinity, 'any', (ctx, args) => logical(ctx, args, (a, b) => a && b, true)),
  OR: fn(1, Infinity, 'any', (ctx, args) => logical(ctx, args, (a, b) => a || b, false)),
  NOT: fn(1, 1, 'value', (_ctx, [x]) => {
    const b = toBoolean(x as Scalar, 'NOT', 1)
    return isError(b) ? b : !b
  }),
  TRUE: fn(0, 0, 'value', () => true),
  FALSE: fn(0, 0, 'value', () => false),
  MOD: fn(2, 2, 'value', (ctx, [a, b]) => {
    const x = num(ctx, a!, 1)
    if (isError(x)) return x
    const y = num(ctx, b!, 2)
    if (isError(y)) return y
    if (y === 0) return new FormulaError('DIVIDE_BY_ZERO', 'Function MOD parameter 2 cannot be zero.')
    return x - y * Math.floor(x / y)
  }),
  INT: fn(1, 1, 'value', (ctx, [x]) => {
    const n = num(ctx, x!, 1)
    return isError(n) ? n : Math.floor(n)
  }),
  ABS: fn(1, 1, 'value', (ctx, [x]) => {
    const n = num(ctx, x!, 1)
    return isError(n) ? n : Math.abs(n)
  }),
  ROUND: rounding('half'),
  ROUNDUP: rounding('up'),
  ROUNDDOWN: rounding('down'),
  TODAY: fn(0, 0, 'value', (ctx) => Math.floor(ctx.recalc.now())),
  NOW: fn(0, 0, 'value', (ctx) => ctx.recalc.now()),
  DATE: fn(3, 3, 'value', (ctx, [y, m, d]) => {
    const year = int(ctx, y!, 1)
    if (isError(year)) return year
    const month = int(ctx, m!, 2)
    if (isError(month)) return month
    const day = int(ctx, d!, 3)
    if (isError(day)) return day
    if (year < 0 || year >= 10_000)
      return new FormulaError(
        'NUM',
        `Function DATE parameter 1 value is ${year}. It should be greater than or equal to 0 and less than 10000.`,
      )
    // Years 0–1899 are read as 1900–3799; months and days past their range roll over.
    const rolled = new Date(Date.UTC(year < 1900 ? year + 1900 : year, month - 1, day))
    const exact = serialFromParts(rolled.getUTCFullYear(), rolled.getUTCMonth() + 1, rolled.getUTCDate())
    if (exact < 0) return new FormulaError('NUM', 'DATE evaluates to an out of range value.')
    return exact
  }),
  WEEKDAY: fn(1, 2, 'value', (ctx, [date, type]) => {
    const n = num(ctx, date!, 1)
    if (isError(n)) return n
    if (n < 0) return new FormulaError('NUM', 'Function WEEKDAY parameter 1 value is negative. It should be positive or zero.')
    const t = type === undefined ? 1 : int(ctx, type, 2)
    if (isError(t)) return t
    const sunday0 = partsFromSerial(Math.floor(n)).weekday
    if (t === 1) return sunday0 + 1
    if (t === 2) return ((sunday0 + 6) % 7) + 1
    if (t === 3) return (sunday0 + 6) % 7
    return new FormulaError('NUM', `Function WEEKDAY parameter 2 value is ${t}. Valid values are 1, 2 and 3.`)
  }),
  YEAR: datePart('year'),
  MONTH: datePart('month'),
  DAY: datePart('day'),
  HOUR: datePart('hour'),
  MINUTE: datePart('minute'),
  SECOND: datePart('second'),
  LEFT: fn(1, 2, 'value', (ctx, [x, count]) => slice(ctx, x!, count, (t, n) => t.slice(0, n))),
  RIGHT: fn(1, 2, 'value', (ctx, [x, count]) => slice(ctx, x!, count, (t, n) => (n === 0 ? '' : t.slice(-n)))),
  MID: fn(3, 3, 'value', (ctx, [x, start, count]) => {
    const t = textOf(ctx, x!)
    if (isError(t)) return t
    const s = int(ctx, start!, 2)
    if (isError(s)) return s
    const n = int(ctx, count!, 3)
    if (isError(n)) return n
    if (s < 1) return new FormulaError('VALUE', `Function MID parameter 2 value is ${s}. It should be greater than or equal to 1.`)
    if (n < 0) return new FormulaError('VALUE', `Function MID parameter 3 value is ${n}. It should be greater than or equal to 0.`)
    return t.slice(s - 1, s - 1 + n)
  }),
  LEN: fn(1, 1, 'value', (ctx, [x]) => {
    const t = textOf(ctx, x!)
    return isError(t) ? t : t.length
  }),
  FIND: fn(2, 3, 'value', (ctx, [needle, haystack, start]) => find(ctx, needle!, haystack!, start, false)),
  SEARCH: fn(2, 3, 'value', (ctx, [needle, haystack, start]) => find(ctx, needle!, haystack!, start, true)),
  TRIM: fn(1, 1, 'value', (ctx, [x]) => {
    const t = textOf(ctx, x!)
    return isError(t) ? t : t.replace(/ +/g, ' ').trim()
  }),
  LOWER: fn(1, 1, 'value', (ctx, [x]) => {
    const t = textOf(ctx, x!)
    return isError(t) ? t : t.toLowerCase()
  }),
  UPPER: fn(1, 1, 'value', (ctx, [x]) => {
    const t = textOf(ctx, x!)
    return isError(t) ? t : t.toUpperCase()
  }),
  CONCATENATE: fn(1, Infinity, 'any', (ctx, args) => {
    let out = ''
    for (const arg of args) {
      const error = eachValue(ctx, arg, (v) => {
        const t = toText(v)
        if (isError(t)) return t
        out += t
        return undefined
      })
      if (error) return error
    }
    return out
  }),
  CONCAT: fn(2, 2, 'value', (_ctx, [a, b]) => {
    const x = toText(a as Scalar)
    const y = toText(b as Scalar)
    return isError(x) ? x : isError(y) ? y : x + y
  }),
  TEXT: fn(2, 2, 'value', (ctx, [x, pattern]) => {
    const p = text(pattern!)
    if (isError(p)) return p
    if (typeof x === 'string') {
      const n = toNumber(x, 'TEXT', 1)
      if (isError(n)) return x
      return isDatePattern(p) ? formatDateTime(n, p) : formatNumberPattern(n, p)
    }
    const n = num(ctx, x!, 1)
    if (isError(n)) return n
    return isDatePattern(p) ? formatDateTime(n, p) : formatNumberPattern(n, p)
  }),
  VALUE: fn(1, 1, 'value', (_ctx, [x]) => {
    if (typeof x === 'string') {
      const n = toNumber(x, 'VALUE', 1)
      return isError(n) ? new FormulaError('VALUE', `VALUE parameter '${x}' cannot be parsed to number.`) : n
    }
    return toNumber(x as Scalar, 'VALUE', 1)
  }),
  N: fn(1, 1, 'value', (_ctx, [x]) => (isError(x) ? x : typeof x === 'number' ? x : typeof x === 'boolean' ? Number(x) : 0)),
  ISNUMBER: fn(1, 1, 'value', (_ctx, [x]) => typeof x === 'number'),
  ISTEXT: fn(1, 1, 'value', (_ctx, [x]) => typeof x === 'string'),
  ISLOGICAL: fn(1, 1, 'value', (_ctx, [x]) => typeof x === 'boolean'),
  ISBLANK: fn(1, 1, 'value', (_ctx, [x]) => x === null),
  ISERROR: fn(1, 1, 'value', (_ctx, [x]) => isError(x)),
  ISNA: fn(1, 1, 'value', (_ctx, [x]) => isError(x) && x.type === 'N_A'),
  ROW: fn(0, 1, 'any', (ctx, [ref]) =>
    ref === undefined
      ? ctx.here.row + 1
      : isRange(ref)
        ? ref.startRow + 1
        : isError(ref)
          ? ref
          : new FormulaError('VALUE', 'Function ROW parameter 1 expects a range.'),
  ),
  COLUMN: fn(0, 1, 'any', (ctx, [ref]) =>
    ref === undefined
      ? ctx.here.column + 1
      : isRange(ref)
        ? ref.startColumn + 1
        : isError(ref)
          ? ref
          : new FormulaError('VALUE', 'Function COLUMN parameter 1 expects a range.'),
  ),
  ARRAYFORMULA: fn(1, 1, 'any', (_ctx, [x]) => x!, true),
}

function slice(ctx: CallContext, x: Val, count: Val | undefined, take: (t: string, n: number) => string): Val {
  const t = textOf(ctx, x)
  if (isError(t)) return t
  const n = count === undefined ? 1 : int(ctx, count, 2)
  if (isError(n)) return n
  if (n < 0) return new FormulaError('VALUE', `Function ${ctx.name} parameter 2 value is negative. It should be positive or zero.`)
  return take(t, n)
}

/** AND / OR: booleans and numbers count, text and blanks inside ranges are skipped, text given directly is an error. */
function logical(ctx: CallContext, args: Val[], combine: (a: boolean, b: boolean) => boolean, start: boolean): Val {
  let result = start
  let seen = false
  for (const [i, arg] of args.entries()) {
    const error = eachValue(ctx, arg, (v, fromRange) => {
      if (isError(v)) return v
      if (v === null || (fromRange && typeof v === 'string')) return undefined
      const b = toBoolean(v, ctx.name, i + 1)
      if (isError(b)) return b
      result = combine(result, b)
      seen = true
      return undefined
    })
    if (error) return error
  }
  return seen ? result : new FormulaError('VALUE', `${ctx.name} has no valid input data.`)
}
