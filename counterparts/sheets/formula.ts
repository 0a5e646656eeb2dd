/**
 * A deliberately tiny formula evaluator: numbers, strings, booleans, same-sheet
 * A1 references, + - * / ^ & and parentheses. Enough for `=4/2`, `=D2-C2`,
 * `=+1`; anything else (functions, other sheets) is "unsupported" and the
 * caller keeps 0 as the effective value, because the sync tool only ever reads
 * formulas back as text.
 */
import { columnIndex } from './a1.ts'
import type { ExtendedValue } from './values.ts'

/** Reads the effective value of a cell on the formula's sheet (0-based). */
export type CellLookup = (row: number, column: number) => ExtendedValue | undefined

type Value = number | string | boolean | { error: string }

class Unsupported extends Error {}
class ParseError extends Error {}

type Token = { kind: 'num'; value: number } | { kind: 'str'; value: string } | { kind: 'ref'; row: number; column: number } | { kind: 'op'; value: string } | { kind: 'name'; value: string }

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const ch = text[i] as string
    if (ch === ' ') {
      i++
      continue
    }
    const num = /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i))
    if (num) {
      tokens.push({ kind: 'num', value: Number(num[0]) })
      i += num[0].length
      continue
    }
    if (ch === '"') {
      let j = i + 1
      let s = ''
      while (j < text.length) {
        if (text[j] === '"') {
          if (text[j + 1] === '"') {
            s += '"'
            j += 2
            continue
          }
          break
        }
        s += text[j]
        j++
      }
      if (j >= text.length) throw new ParseError('unterminated string')
      tokens.push({ kind: 'str', value: s })
      i = j + 1
      continue
    }
    const word = /^\$?[A-Za-z_][A-Za-z0-9_.]*\$?[0-9]*/.exec(text.slice(i))
    if (word) {
      const ref = /^\$?([A-Za-z]{1,3})\$?([0-9]+)$/.exec(word[0])
      const column = ref ? columnIndex(ref[1] as string) : undefined
      if (ref && column !== undefined) tokens.push({ kind: 'ref', row: Number(ref[2]) - 1, column })
      else tokens.push({ kind: 'name', value: word[0].toUpperCase() })
      i += word[0].length
      continue
    }
    if ('+-*/^&()!:,<>='.includes(ch)) {
      tokens.push({ kind: 'op', value: ch })
      i++
      continue
    }
    throw new ParseError(`unexpected ${ch}`)
  }
  return tokens
}

function toNumber(v: Value): number | { error: string } {
  if (typeof v === 'object') return v
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (v === '') return 0
  const n = Number(v)
  return Number.isFinite(n) ? n : { error: '#VALUE!' }
}

function fromCell(cell: ExtendedValue | undefined): Value {
  if (!cell) return ''
  if (cell.numberValue !== undefined) return cell.numberValue
  if (cell.stringValue !== undefined) return cell.stringValue
  if (cell.boolValue !== undefined) return cell.boolValue
  if (cell.errorValue) return { error: cell.errorValue.message }
  return ''
}

/**
 * Evaluates `formula` (with its leading `=`). Returns undefined when the
 * formula uses something this evaluator does not know.
 */
export function evaluateFormula(formula: string, lookup: CellLookup): ExtendedValue | undefined {
  let tokens: Token[]
  try {
    tokens = tokenize(formula.replace(/^=/, ''))
  } catch {
    return { errorValue: { type: 'ERROR', message: '#ERROR!' } }
  }
  let pos = 0
  const peek = () => tokens[pos]
  const isOp = (value: string) => {
    const t = tokens[pos]
    return t !== undefined && t.kind === 'op' && t.value === value
  }
  const arith = (a: Value, b: Value, f: (x: number, y: number) => number | { error: string }): Value => {
    const x = toNumber(a)
    if (typeof x === 'object') return x
    const y = toNumber(b)
    if (typeof y === 'object') return y
    return f(x, y)
  }
  const primary = (): Value => {
    const t = peek()
    if (!t) throw new ParseError('end')
    pos++
    if (t.kind === 'num' || t.kind === 'str') return t.value
    if (t.kind === 'ref') {
      if (isOp(':') || isOp('!')) throw new Unsupported()
      return fromCell(lookup(t.row, t.column))
    }
    if (t.kind === 'name') {
      if (t.value === 'TRUE' && !isOp('(')) return true
      if (t.value === 'FALSE' && !isOp('(')) return false
      throw new Unsupported()
    }
    if (t.value === '(') {
      const v = concat()
      if (!isOp(')')) throw new ParseError(')')
      pos++
      return v
    }
    throw new ParseError(t.value)
  }
  const unary = (): Value => {
    if (isOp('-')) {
      pos++
      return arith(0, unary(), (_, y) => -y)
    }
    if (isOp('+')) {
      pos++
      return unary()
    }
    const base = primary()
    if (isOp('^')) {
      pos++
      return arith(base, unary(), (x, y) => x ** y)
    }
    return base
  }
  const mul = (): Value => {
    let v = unary()
    while (isOp('*') || isOp('/')) {
      const op = (peek() as { value: string }).value
      pos++
      const r = unary()
      v = op === '*' ? arith(v, r, (x, y) => x * y) : arith(v, r, (x, y) => (y === 0 ? { error: '#DIV/0!' } : x / y))
    }
    return v
  }
  const add = (): Value => {
    let v = mul()
    while (isOp('+') || isOp('-')) {
      const op = (peek() as { value: string }).value
      pos++
      const r = mul()
      v = arith(v, r, op === '+' ? (x, y) => x + y : (x, y) => x - y)
    }
    return v
  }
  const concat = (): Value => {
    let v = add()
    while (isOp('&')) {
      pos++
      const r = add()
      if (typeof v === 'object') return v
      if (typeof r === 'object') return r
      v = `${typeof v === 'boolean' ? String(v).toUpperCase() : v}${typeof r === 'boolean' ? String(r).toUpperCase() : r}`
    }
    return v
  }
  try {
    const result = concat()
    if (pos !== tokens.length) return { errorValue: { type: 'ERROR', message: '#ERROR!' } }
    if (typeof result === 'object') return { errorValue: { type: result.error === '#DIV/0!' ? 'DIVIDE_BY_ZERO' : 'VALUE', message: result.error } }
    if (typeof result === 'number') return { numberValue: result }
    if (typeof result === 'boolean') return { boolValue: result }
    return { stringValue: result }
  } catch (error) {
    if (error instanceof Unsupported) return undefined
    return { errorValue: { type: 'ERROR', message: '#ERROR!' } }
  }
}
