/**
 * A worksheet part as a stream of rows: the text before `<sheetData>`, each
 * `<row>` element as its own piece of text, and the text after. Reading a tab
 * and rewriting one both go through it, so neither ever holds the sheet's
 * whole XML, and a row nobody touches can be passed on as the text it was.
 */
import { decodeCellText, decodeXml, parseAttributes } from './xml-text.ts'

/** The parts of a worksheet around its rows. */
export interface SheetFrame {
  /** Everything before `<sheetData`: the XML declaration, `<worksheet …>` and the elements before the rows. */
  prefix: string
  /** Everything after the rows: the elements after `</sheetData>`, then `</worksheet>`. */
  suffix: string
}

/** Called with each `<row>` element's text; returning `true` stops the scan (the frame's suffix is then empty). */
export type RowSink = (xml: string) => boolean | void

export interface ScanHooks {
  /** Runs once the text before the rows is known, before the first row is handed over. */
  onPrefix?: (prefix: string) => void
  /** Runs after the rows of each piece were handed over (a writer flushes there). */
  afterChunk?: () => Promise<void>
}

/** Reads a worksheet's text piece by piece, handing over each row; returns the text around the rows. */
export async function scanSheet(chunks: AsyncIterable<string>, onRow: RowSink, hooks: ScanHooks = {}): Promise<SheetFrame & { stopped: boolean }> {
  const scanner = new SheetScanner(onRow, hooks.onPrefix)
  for await (const chunk of chunks) {
    if (scanner.feed(chunk)) return { ...scanner.frame(), stopped: true }
    if (hooks.afterChunk !== undefined) await hooks.afterChunk()
  }
  scanner.end()
  return { ...scanner.frame(), stopped: false }
}

class SheetScanner {
  #state: 'prefix' | 'rows' | 'suffix' = 'prefix'
  #buffer = ''
  #prefix: string[] = []
  #suffix: string[] = []
  #onRow: RowSink
  #rowOpen = ''
  #rowClose = ''
  #sheetDataClose = ''
  #onPrefix: ((prefix: string) => void) | undefined

  constructor(onRow: RowSink, onPrefix?: (prefix: string) => void) {
    this.#onRow = onRow
    this.#onPrefix = onPrefix
  }

  frame(): SheetFrame {
    return { prefix: this.#prefix.join(''), suffix: this.#suffix.join('') }
  }

  /** True when the sink asked to stop. */
  feed(chunk: string): boolean {
    this.#buffer = this.#buffer === '' ? chunk : this.#buffer + chunk
    if (this.#state === 'prefix') this.#inPrefix()
    if (this.#state === 'rows' && this.#inRows()) return true
    if (this.#state === 'suffix') {
      this.#suffix.push(this.#buffer)
      this.#buffer = ''
    }
    return false
  }

  end(): void {
    if (this.#state === 'prefix') throw new SheetFormatError('it has no <sheetData> element')
    if (this.#state === 'rows') throw new SheetFormatError('its <sheetData> element is not closed (the part is truncated)')
  }

  #inPrefix(): void {
    const found = /<((?:[A-Za-z_][\w.-]*:)?)sheetData\b/.exec(this.#buffer)
    if (found === null) {
      // Keep a tail that could be the start of the tag.
      const keep = Math.max(0, this.#buffer.length - 32)
      this.#prefix.push(this.#buffer.slice(0, keep))
      this.#buffer = this.#buffer.slice(keep)
      return
    }
    const close = this.#buffer.indexOf('>', found.index)
    if (close < 0) return
    this.#prefix.push(this.#buffer.slice(0, found.index))
    const ns = found[1]!
    this.#rowOpen = `<${ns}row`
    this.#rowClose = `</${ns}row>`
    const selfClosing = this.#buffer[close - 1] === '/'
    this.#buffer = this.#buffer.slice(close + 1)
    this.#onPrefix?.(this.#prefix.join(''))
    if (selfClosing) {
      this.#state = 'suffix'
    } else {
      this.#state = 'rows'
      this.#sheetDataClose = `</${ns}sheetData`
    }
  }

  /** True when the sink asked to stop. */
  #inRows(): boolean {
    const buffer = this.#buffer
    let at = 0
    for (;;) {
      const lt = buffer.indexOf('<', at)
      if (lt < 0) {
        at = buffer.length
        break
      }
      if (buffer.startsWith(this.#rowOpen, lt) && isNameEnd(buffer.charCodeAt(lt + this.#rowOpen.length))) {
        const tagEnd = tagEndAt(buffer, lt)
        if (tagEnd < 0) {
          at = lt
          break
        }
        let end: number
        if (buffer.charCodeAt(tagEnd - 1) === 47 /* / */) {
          end = tagEnd + 1
        } else {
          const close = buffer.indexOf(this.#rowClose, tagEnd)
          if (close < 0) {
            at = lt
            break
          }
          end = close + this.#rowClose.length
        }
        if (this.#onRow(buffer.slice(lt, end)) === true) {
          this.#buffer = ''
          return true
        }
        at = end
        continue
      }
      if (buffer.startsWith(this.#sheetDataClose, lt)) {
        const close = buffer.indexOf('>', lt)
        if (close < 0) {
          at = lt
          break
        }
        this.#state = 'suffix'
        this.#buffer = buffer.slice(close + 1)
        return false
      }
      if (buffer.startsWith('<!--', lt)) {
        const close = buffer.indexOf('-->', lt)
        if (close < 0) {
          at = lt
          break
        }
        at = close + 3
        continue
      }
      if (buffer.length - lt < this.#sheetDataClose.length + 1) {
        at = lt
        break
      }
      throw new SheetFormatError(`its <sheetData> holds something other than rows: ${JSON.stringify(buffer.slice(lt, lt + 40))}`)
    }
    this.#buffer = buffer.slice(at)
    return false
  }
}

function isNameEnd(code: number): boolean {
  // Whitespace, `>` or `/` after the name (NaN: the text ends there; the tag end search waits for more).
  return Number.isNaN(code) || code === 32 || code === 9 || code === 10 || code === 13 || code === 62 || code === 47
}

/** The index of the `>` that ends the tag starting at `start`, skipping quoted attribute values; -1 when not yet there. */
function tagEndAt(text: string, start: number): number {
  let quote = 0
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (quote !== 0) {
      if (code === quote) quote = 0
    } else if (code === 34 || code === 39) {
      quote = code
    } else if (code === 62) {
      return i
    }
  }
  return -1
}

/** A worksheet part this tool cannot read as SpreadsheetML. */
export class SheetFormatError extends Error {}

/** One `<c>` element of a row as written. */
export interface RawCell {
  /** 0-based column. */
  column: number
  /** The attributes as written (between `<c` and `>`), with `r` among them. */
  attributes: string
  /** The content between `<c …>` and `</c>`; undefined for `<c …/>`. */
  inner: string | undefined
}

export interface RawRow {
  /** 1-based row number. */
  number: number
  /** The attributes of `<row …>` as written. */
  attributes: string
  cells: RawCell[]
}

const CELL = /<(?:[A-Za-z_][\w.-]*:)?c\b((?:[^>"']|"[^"]*"|'[^']*')*?)(?:\/>|>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?c>)/g
const ROW_START = /^<(?:[A-Za-z_][\w.-]*:)?row\b((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/
const REFERENCE = /\br\s*=\s*["']\$?([A-Za-z]{1,3})\$?(\d+)["']/
const ROW_NUMBER = /\br\s*=\s*["'](\d+)["']/

/** Splits a `<row>` element into its cells; `previous` numbers a row without an `r` attribute. */
export function parseRow(xml: string, previous: number): RawRow {
  const start = ROW_START.exec(xml)
  if (start === null) throw new SheetFormatError(`a row does not start as one: ${JSON.stringify(xml.slice(0, 40))}`)
  const attributes = start[1]!
  const numbered = ROW_NUMBER.exec(attributes)
  const number = numbered === null ? previous + 1 : Number(numbered[1])
  if (!Number.isSafeInteger(number) || number < 1 || number > MAX_ROWS) throw new SheetFormatError(`a row has the number ${numbered?.[1] ?? number}`)
  const cells: RawCell[] = []
  let column = -1
  CELL.lastIndex = start[0].length
  for (let match = CELL.exec(xml); match !== null; match = CELL.exec(xml)) {
    const cellAttributes = match[1]!
    const reference = REFERENCE.exec(cellAttributes)
    column = reference === null ? column + 1 : columnIndex(reference[1]!)
    cells.push({ column, attributes: cellAttributes, inner: match[2] })
  }
  return { number, attributes, cells }
}

/** Excel's last row and column. */
export const MAX_ROWS = 1_048_576
export const MAX_COLUMNS = 16_384

/** 0-based column of `A`, `B`, … `XFD`. */
export function columnIndex(letters: string): number {
  let index = 0
  for (let i = 0; i < letters.length; i++) index = index * 26 + ((letters.charCodeAt(i) | 32) - 96)
  return index - 1
}

/** `A`, `B`, … `AA` for a 0-based column. */
export function columnName(index: number): string {
  let name = ''
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name
  return name
}

/** What a cell holds as written: its type attribute and the raw text of its parts. */
export interface CellContent {
  type: string | undefined
  style: number | undefined
  /** Raw `<v>` text (undecoded), undefined when absent. */
  value: string | undefined
  /** The `<f>` element, when there is one. */
  formula: { text: string; attributes: string } | undefined
  /** Inline string text, decoded. */
  inline: string | undefined
}

const TYPE = /\bt\s*=\s*["']([^"']*)["']/
const STYLE = /\bs\s*=\s*["'](\d+)["']/
const VALUE = /<(?:[A-Za-z_][\w.-]*:)?v(?:\s[^>]*)?>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?v>/
const FORMULA = /<(?:[A-Za-z_][\w.-]*:)?f\b((?:[^>"']|"[^"]*"|'[^']*')*?)(?:\/>|>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?f>)/
const INLINE = /<(?:[A-Za-z_][\w.-]*:)?is\b[^>]*>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?is>/

export function cellContent(cell: RawCell): CellContent {
  const type = TYPE.exec(cell.attributes)?.[1]
  const style = STYLE.exec(cell.attributes)
  const inner = cell.inner
  if (inner === undefined || inner === '') return { type, style: style === null ? undefined : Number(style[1]), value: undefined, formula: undefined, inline: undefined }
  const value = VALUE.exec(inner)?.[1]
  const formula = inner.includes('<f') || inner.includes(':f') ? FORMULA.exec(inner) : null
  const inline = type === 'inlineStr' ? INLINE.exec(inner) : null
  return {
    type,
    style: style === null ? undefined : Number(style[1]),
    value,
    formula: formula === null ? undefined : { text: formula[2] ?? '', attributes: formula[1]! },
    inline: inline === null ? undefined : richText(inline[1]!),
  }
}

const TEXT_RUN = /<(?:[A-Za-z_][\w.-]*:)?t(?:\s[^>]*)?(?:\/>|>([\s\S]*?)<\/(?:[A-Za-z_][\w.-]*:)?t>)/g
const PHONETIC = /<(?:[A-Za-z_][\w.-]*:)?rPh\b[\s\S]*?<\/(?:[A-Za-z_][\w.-]*:)?rPh>/g

/** The text of a string item (`<si>` or `<is>` content): its runs joined, phonetic guides left out. */
export function richText(inner: string): string {
  const body = inner.includes('rPh') ? inner.replace(PHONETIC, '') : inner
  let text = ''
  for (const match of body.matchAll(TEXT_RUN)) text += match[1] ?? ''
  return decodeCellText(text)
}

/** The text of a formula element's content. */
export function formulaText(raw: string): string {
  return decodeXml(raw)
}

/** The shared-formula attributes of an `<f>` element: `t="shared"`, its group and (on the first cell) its range. */
export function sharedFormula(attributes: string): { group: string; ref: string | undefined } | undefined {
  const parsed = parseAttributes(attributes)
  if (parsed.get('t') !== 'shared') return undefined
  const group = parsed.get('si')
  return group === undefined ? undefined : { group, ref: parsed.get('ref') }
}

// A cell reference not inside a string, a sheet name or a longer name (a function such as LOG10 is followed by `(`).
const FORMULA_TOKEN = /"(?:[^"]|"")*"|'(?:[^']|'')*'|\[[^\]]*\]|(?<![\w.$])(\$?)([A-Za-z]{1,3})(\$?)(\d{1,7})(?![\w(!.])|(?<![\w.$])(\$?)(\d{1,7}):(\$?)(\d{1,7})(?![\w(])|(?<![\w.$])(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})(?![\w(])/g

/** A formula moved by `rows` and `columns`, as Excel derives a shared formula's cells from its first cell. */
export function shiftFormula(formula: string, rows: number, columns: number): string {
  if (rows === 0 && columns === 0) return formula
  return formula.replace(FORMULA_TOKEN, (whole, ...groups: Array<string | undefined>) => {
    const [colAbs, col, rowAbs, row, r1Abs, r1, r2Abs, r2, c1Abs, c1, c2Abs, c2] = groups
    if (col !== undefined && row !== undefined) {
      const index = columnIndex(col)
      if (index >= MAX_COLUMNS) return whole
      const newColumn = colAbs === '$' ? col.toUpperCase() : columnName(index + columns)
      const newRow = rowAbs === '$' ? row : String(Number(row) + rows)
      return `${colAbs}${newColumn}${rowAbs}${newRow}`
    }
    if (r1 !== undefined && r2 !== undefined) {
      return `${r1Abs}${r1Abs === '$' ? r1 : Number(r1) + rows}:${r2Abs}${r2Abs === '$' ? r2 : Number(r2) + rows}`
    }
    if (c1 !== undefined && c2 !== undefined) {
      const move = (abs: string | undefined, letters: string) => (abs === '$' ? letters : columnName(columnIndex(letters) + columns))
      return `${c1Abs}${move(c1Abs, c1)}:${c2Abs}${move(c2Abs, c2)}`
    }
    return whole
  })
}
