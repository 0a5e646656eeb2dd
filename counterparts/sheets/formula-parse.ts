/**
 * Parses a Sheets formula (en_US syntax: `,` between arguments, `;` between
 * rows of an array literal) into a tree. Pure. References keep their sheet
 * name as written; the evaluator resolves them against the spreadsheet.
 */
import { columnIndex } from './a1.ts'

/** A reference as written: zero-based, half-open; an undefined side is open (`A:A`, `A2:A`, `1:1`). */
export interface RefSpec {
  /** Sheet title as written (quotes removed); undefined = the formula's own sheet. */
  sheet?: string
  startRow?: number
  endRow?: number
  startColumn?: number
  endColumn?: number
  /** Sides written with `$` (absolute), which do not move when the formula is applied at an offset. */
  fixed?: { startRow?: true; endRow?: true; startColumn?: true; endColumn?: true }
}

export type BinaryOp = '+' | '-' | '*' | '/' | '^' | '&' | '=' | '<>' | '<' | '>' | '<=' | '>='

/** A parsed formula. */
export type Node =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'err'; code: string }
  | { k: 'ref'; ref: RefSpec }
  | { k: 'name'; name: string }
  | { k: 'neg'; a: Node }
  | { k: 'pos'; a: Node }
  | { k: 'pct'; a: Node }
  | { k: 'bin'; op: BinaryOp; a: Node; b: Node }
  /** An omitted argument (`IF(A1,,2)`) is undefined. */
  | { k: 'call'; name: string; args: (Node | undefined)[] }
  | { k: 'arr'; rows: Node[][] }

/** Thrown for text that is not a formula; the cell then reads `#ERROR!` ("Formula parse error."). */
export class FormulaParseError extends Error {}

type Token =
  | { t: 'num'; v: number }
  | { t: 'str'; v: string }
  | { t: 'err'; code: string }
  | { t: 'ref'; ref: RefSpec }
  | { t: 'func'; name: string }
  | { t: 'name'; name: string }
  | { t: 'op'; v: string }

const ERROR_LITERALS = ['#N/A', '#REF!', '#VALUE!', '#DIV/0!', '#NAME?', '#NUM!', '#NULL!', '#ERROR!']

interface Endpoint {
  column?: number
  row?: number
  fixedColumn: boolean
  fixedRow: boolean
  end: number
}

/** Reads `$A$1`, `A`, `$1` at `i`; undefined when nothing there. */
function readEndpoint(text: string, i: number): Endpoint | undefined {
  const m = /(\$?)([A-Za-z]{1,3})?(\$?)(\d+)?/y
  m.lastIndex = i
  const found = m.exec(text)
  if (!found || found[0] === '' || (found[2] === undefined && found[4] === undefined)) return undefined
  // `A$` without digits is not an endpoint; a `$` before digits alone (`$2`) marks the row.
  if (found[2] !== undefined && found[3] === '$' && found[4] === undefined) return undefined
  const letters = found[2]
  const out: Endpoint = {
    end: i + found[0].length,
    fixedColumn: letters !== undefined && found[1] === '$',
    fixedRow: letters === undefined ? found[1] === '$' : found[3] === '$',
  }
  if (letters !== undefined) {
    const column = columnIndex(letters)
    if (column === undefined) return undefined
    out.column = column
  }
  if (found[4] !== undefined) {
    const row = Number(found[4]) - 1
    if (row < 0) return undefined
    out.row = row
  }
  return out
}

const IDENT_CHAR = /[\p{L}\p{N}_.]/u

/** Reads `A1`, `A1:B2`, `A:A`, `A2:A`, `1:2`, `A2:2` at `i` (after any sheet prefix). */
function readArea(text: string, i: number): { ref: RefSpec; end: number } | undefined {
  const first = readEndpoint(text, i)
  if (!first) return undefined
  const kind = (e: Endpoint) => (e.column !== undefined && e.row !== undefined ? 'cell' : e.column !== undefined ? 'col' : 'row')
  let end = first.end
  let second: Endpoint | undefined
  if (text[end] === ':') {
    second = readEndpoint(text, end + 1)
    if (second) end = second.end
  }
  const next = text[end]
  if (next !== undefined && (IDENT_CHAR.test(next) || next === '(' || next === '!')) return undefined
  const k1 = kind(first)
  const k2 = second ? kind(second) : undefined
  if (!second && k1 !== 'cell') return undefined
  const valid = !second || k1 === k2 || (k1 === 'cell' && k2 !== undefined) || (k1 === 'col' && k2 === 'cell')
  if (!valid) return undefined
  const ref: RefSpec = {}
  const fixed: NonNullable<RefSpec['fixed']> = {}
  // One axis: the two ends sorted (corners written reversed are put back), each keeping its `$`.
  const axis = (
    a: number | undefined,
    fa: boolean,
    b: number | undefined,
    fb: boolean,
    start: 'startRow' | 'startColumn',
    stop: 'endRow' | 'endColumn',
  ) => {
    if (a !== undefined && b !== undefined) {
      const [lo, flo, hi, fhi] = a <= b ? [a, fa, b, fb] : [b, fb, a, fa]
      ref[start] = lo
      ref[stop] = hi + 1
      if (flo) fixed[start] = true
      if (fhi) fixed[stop] = true
    } else if (a !== undefined) {
      ref[start] = a
      if (fa) fixed[start] = true
    } else if (b !== undefined) {
      ref[start] = b
      if (fb) fixed[start] = true
    }
  }
  const s = second ?? first
  if (k1 === 'cell' && !second) {
    axis(first.row, first.fixedRow, first.row, first.fixedRow, 'startRow', 'endRow')
    axis(first.column, first.fixedColumn, first.column, first.fixedColumn, 'startColumn', 'endColumn')
  } else {
    // `A2:A` runs to the last row and `A2:2` to the last column: the missing end stays open.
    axis(first.row, first.fixedRow, k1 === 'cell' && k2 === 'col' ? undefined : s.row, s.fixedRow, 'startRow', 'endRow')
    axis(first.column, first.fixedColumn, k1 === 'cell' && k2 === 'row' ? undefined : s.column, s.fixedColumn, 'startColumn', 'endColumn')
  }
  if (Object.keys(fixed).length > 0) ref.fixed = fixed
  return { ref, end }
}

/** Reads a sheet-qualified or plain reference at `i`. */
function readRef(text: string, i: number): { ref: RefSpec; end: number } | undefined {
  if (text[i] === "'") {
    let title = ''
    let j = i + 1
    for (; j < text.length; j++) {
      if (text[j] === "'") {
        if (text[j + 1] === "'") {
          title += "'"
          j++
          continue
        }
        break
      }
      title += text[j]
    }
    if (j >= text.length || text[j + 1] !== '!') return undefined
    const area = readArea(text, j + 2)
    return area ? { ref: { sheet: title, ...area.ref }, end: area.end } : undefined
  }
  const ident = /[\p{L}_][\p{L}\p{N}_.]*!/uy
  ident.lastIndex = i
  const sheet = ident.exec(text)
  if (sheet) {
    const area = readArea(text, i + sheet[0].length)
    return area ? { ref: { sheet: sheet[0].slice(0, -1), ...area.ref }, end: area.end } : undefined
  }
  return readArea(text, i)
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const ch = text[i]!
    if (/\s/.test(ch)) {
      i++
      continue
    }
    if (ch === '"') {
      let j = i + 1
      let s = ''
      for (; j < text.length; j++) {
        if (text[j] === '"') {
          if (text[j + 1] === '"') {
            s += '"'
            j++
            continue
          }
          break
        }
        s += text[j]
      }
      if (j >= text.length) throw new FormulaParseError('unterminated string')
      tokens.push({ t: 'str', v: s })
      i = j + 1
      continue
    }
    if (ch === '#') {
      const upper = text.slice(i).toUpperCase()
      const code = ERROR_LITERALS.find((e) => upper.startsWith(e))
      if (!code) throw new FormulaParseError('bad error literal')
      tokens.push({ t: 'err', code })
      i += code.length
      continue
    }
    // A reference first: `1:2`, `A1`, `Sheet1!A:A`, `'My tab'!B2`.
    if (/[A-Za-z$'\d\p{L}_]/u.test(ch)) {
      const ref = readRef(text, i)
      if (ref) {
        tokens.push({ t: 'ref', ref: ref.ref })
        i = ref.end
        continue
      }
    }
    const num = /(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/y
    num.lastIndex = i
    const n = num.exec(text)
    if (n) {
      tokens.push({ t: 'num', v: Number(n[0]) })
      i += n[0].length
      continue
    }
    const word = /[\p{L}_][\p{L}\p{N}_.]*/uy
    word.lastIndex = i
    const w = word.exec(text)
    if (w) {
      let j = i + w[0].length
      while (j < text.length && /\s/.test(text[j]!)) j++
      if (text[j] === '(') tokens.push({ t: 'func', name: w[0].toUpperCase() })
      else tokens.push({ t: 'name', name: w[0] })
      i += w[0].length
      continue
    }
    const two = text.slice(i, i + 2)
    if (two === '<>' || two === '<=' || two === '>=') {
      tokens.push({ t: 'op', v: two })
      i += 2
      continue
    }
    if ('+-*/^&=<>%(),;{}'.includes(ch)) {
      tokens.push({ t: 'op', v: ch })
      i++
      continue
    }
    throw new FormulaParseError(`unexpected ${ch}`)
  }
  return tokens
}

/** Parses a formula (with or without its leading `=`). Throws `FormulaParseError`. */
export function parseFormula(formula: string): Node {
  const tokens = tokenize(formula.startsWith('=') ? formula.slice(1) : formula)
  let pos = 0
  const isOp = (v: string) => {
    const t = tokens[pos]
    return t !== undefined && t.t === 'op' && t.v === v
  }
  const expect = (v: string) => {
    if (!isOp(v)) throw new FormulaParseError(`expected ${v}`)
    pos++
  }
  const comparison = (): Node => {
    let a = concat()
    for (;;) {
      const t = tokens[pos]
      if (t?.t !== 'op' || !['=', '<>', '<', '>', '<=', '>='].includes(t.v)) return a
      pos++
      a = { k: 'bin', op: t.v as BinaryOp, a, b: concat() }
    }
  }
  const concat = (): Node => {
    let a = additive()
    while (isOp('&')) {
      pos++
      a = { k: 'bin', op: '&', a, b: additive() }
    }
    return a
  }
  const additive = (): Node => {
    let a = multiplicative()
    while (isOp('+') || isOp('-')) {
      const op = (tokens[pos] as { v: '+' | '-' }).v
      pos++
      a = { k: 'bin', op, a, b: multiplicative() }
    }
    return a
  }
  const multiplicative = (): Node => {
    let a = power()
    while (isOp('*') || isOp('/')) {
      const op = (tokens[pos] as { v: '*' | '/' }).v
      pos++
      a = { k: 'bin', op, a, b: power() }
    }
    return a
  }
  const power = (): Node => {
    let a = unary()
    while (isOp('^')) {
      pos++
      a = { k: 'bin', op: '^', a, b: unary() }
    }
    return a
  }
  // Negation binds tighter than ^, as in every spreadsheet: -2^2 is 4.
  const unary = (): Node => {
    if (isOp('-')) {
      pos++
      return { k: 'neg', a: unary() }
    }
    if (isOp('+')) {
      pos++
      return { k: 'pos', a: unary() }
    }
    let a = primary()
    while (isOp('%')) {
      pos++
      a = { k: 'pct', a }
    }
    return a
  }
  const argument = (): Node | undefined => (isOp(',') || isOp(')') ? undefined : comparison())
  const primary = (): Node => {
    const t = tokens[pos]
    if (!t) throw new FormulaParseError('unexpected end')
    pos++
    switch (t.t) {
      case 'num':
        return { k: 'num', v: t.v }
      case 'str':
        return { k: 'str', v: t.v }
      case 'err':
        return { k: 'err', code: t.code }
      case 'ref':
        return { k: 'ref', ref: t.ref }
      case 'name': {
        const upper = t.name.toUpperCase()
        if (upper === 'TRUE' || upper === 'FALSE') return { k: 'bool', v: upper === 'TRUE' }
        return { k: 'name', name: t.name }
      }
      case 'func': {
        expect('(')
        const args: (Node | undefined)[] = []
        if (!isOp(')')) {
          for (;;) {
            args.push(argument())
            if (isOp(',')) {
              pos++
              continue
            }
            break
          }
        }
        expect(')')
        return { k: 'call', name: t.name, args }
      }
      case 'op':
        if (t.v === '(') {
          const inner = comparison()
          expect(')')
          return inner
        }
        if (t.v === '{') {
          const rows: Node[][] = [[]]
          for (;;) {
            rows[rows.length - 1]!.push(comparison())
            if (isOp(',')) {
              pos++
              continue
            }
            if (isOp(';')) {
              pos++
              rows.push([])
              continue
            }
            break
          }
          expect('}')
          if (rows.some((r) => r.length !== rows[0]!.length)) throw new FormulaParseError('ragged array literal')
          return { k: 'arr', rows }
        }
        throw new FormulaParseError(`unexpected ${t.v}`)
    }
  }
  if (tokens.length === 0) throw new FormulaParseError('empty')
  const tree = comparison()
  if (pos !== tokens.length) throw new FormulaParseError('trailing tokens')
  return tree
}
