/**
 * Criteria of SUMIF(S) and COUNTIF(S): `"x"`, `"<>TRUE"`, `">="&C$4`, `"a*"`,
 * a number, a boolean. Text matches ignore case and take the `*` `?` `~`
 * wildcards. Equality criteria go through a per-range index, so a few hundred
 * SUMIFS over a 100,000-row column do not each scan it. Pure.
 */
import { compareScalars, compareWith, type ComparisonOp, type FormulaError, isError, type Scalar } from './formula-values.ts'
import { parseUserEntered } from './values.ts'

/** A compiled criterion: a test, and an index key when it is an equality the index can answer. */
export interface Criterion {
  test(v: Scalar): boolean
  /** The key of `indexOf` whose rows all match (and are the only ones that do). */
  key?: string
}

/** The index key of a value for equality criteria; undefined for blanks and errors. */
export function keyOf(v: Scalar): string | undefined {
  if (v === null || isError(v)) return undefined
  if (typeof v === 'number') return `n${v}`
  if (typeof v === 'boolean') return v ? 'bTRUE' : 'bFALSE'
  return `s${v.toLowerCase()}`
}

/** Value → positions, for one materialised range. */
export function buildIndex(values: readonly Scalar[]): Map<string, number[]> {
  const index = new Map<string, number[]>()
  values.forEach((v, i) => {
    const key = keyOf(v)
    if (key === undefined) return
    const list = index.get(key)
    if (list) list.push(i)
    else index.set(key, [i])
  })
  return index
}

function wildcardPattern(text: string): RegExp | undefined {
  if (!/[*?]/.test(text)) return undefined
  let source = ''
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (ch === '~' && i + 1 < text.length && '*?~'.includes(text[i + 1]!)) {
      source += `\\${text[++i]}`
    } else if (ch === '*') source += '.*'
    else if (ch === '?') source += '.'
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`, 'is')
}

function unescapeTildes(text: string): string {
  return text.replace(/~([*?~])/g, '$1')
}

/**
 * Compiles a criterion. A number or boolean matches equal values of that
 * type; text may start with an operator; the rest is a number (also a date or
 * a percentage, as typed), TRUE/FALSE, or text. `""` and `"="` match blanks,
 * `"<>"` anything not blank. `<>` matches everything that is not equal,
 * blanks and other types included; `<` `>` only compare like with like.
 */
export function compileCriterion(criterion: Scalar): Criterion | FormulaError {
  if (isError(criterion)) return criterion
  if (criterion === null) return { test: (v) => v === null || v === '' }
  if (typeof criterion === 'number' || typeof criterion === 'boolean') {
    const key = keyOf(criterion)!
    return { test: (v) => v === criterion, key }
  }
  const m = /^(<>|<=|>=|<|>|=)?([\s\S]*)$/.exec(criterion)!
  const op = (m[1] ?? '=') as ComparisonOp
  const operand = m[2]!
  if (operand === '') {
    if (op === '=') return { test: (v) => v === null || v === '' }
    if (op === '<>') return { test: (v) => v !== null && v !== '' }
    return { test: () => false }
  }
  const parsed = parseUserEntered(operand).value
  const typed = parsed?.numberValue ?? parsed?.boolValue
  if (typed !== undefined && parsed?.formulaValue === undefined) {
    const same = (v: Scalar) =>
      typeof v === typeof typed || (typeof typed === 'boolean' && typeof v === 'string' && v.toUpperCase() === String(typed).toUpperCase())
    const equal = (v: Scalar) =>
      v === typed || (typeof typed === 'boolean' && typeof v === 'string' && v.toUpperCase() === String(typed).toUpperCase())
    if (op === '=') return { test: equal, ...(typeof typed === 'number' ? { key: `n${typed}` } : {}) }
    if (op === '<>') return { test: (v) => !equal(v) }
    return { test: (v) => v !== null && !isError(v) && same(v) && typeof v !== 'string' && compareWith(op, compareScalars(v, typed)) }
  }
  const pattern = op === '=' || op === '<>' ? wildcardPattern(operand) : undefined
  if (pattern) {
    const matches = (v: Scalar) => typeof v === 'string' && pattern.test(v)
    return op === '=' ? { test: matches } : { test: (v) => !matches(v) }
  }
  const text = unescapeTildes(operand).toLowerCase()
  const equal = (v: Scalar) => typeof v === 'string' && v.toLowerCase() === text
  if (op === '=') return { test: equal, key: `s${text}` }
  if (op === '<>') return { test: (v) => !equal(v) }
  return { test: (v) => typeof v === 'string' && compareWith(op, compareScalars(v.toLowerCase(), text)) }
}

/** One criteria range with its criterion, already compiled. */
export interface CriteriaPair {
  values: readonly Scalar[]
  criterion: Criterion
  /** Lazily built equality index of `values`. */
  index: () => Map<string, number[]>
}

/** Positions matching every pair; the first pair with an equality key narrows the candidates through its index. */
export function matchingPositions(pairs: readonly CriteriaPair[], size: number): number[] {
  const keyed = pairs.find((p) => p.criterion.key !== undefined)
  const rest = pairs.filter((p) => p !== keyed)
  const out: number[] = []
  if (keyed) {
    for (const i of keyed.index().get(keyed.criterion.key!) ?? []) {
      if (rest.every((p) => p.criterion.test(p.values[i] ?? null))) out.push(i)
    }
    return out
  }
  for (let i = 0; i < size; i++) if (rest.every((p) => p.criterion.test(p.values[i] ?? null))) out.push(i)
  return out
}
