/**
 * A worksheet part as a stream of rows: the text before `<sheetData>`, each
 * `<row>` element as its own piece of text, and the text after. Reading a tab
 * and rewriting one both go through it, so neither ever holds the sheet's
 * whole XML, and a row nobody touches can be passed on as the text it was.
 *
 * Longer than most files because the streaming reader and the row and cell parsers share one grammar of
 * SpreadsheetML.
 */
import { decodeCellText, decodeXml, parseAttributes } from './xml-text.ts'
import { InternalError } from '../../errors.ts'

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
export async function scanSheet(
  chunks: AsyncIterable<string>,
  onRow: RowSink,
  hooks: ScanHooks = {},
): Promise<SheetFrame & { stopped: boolean }> {
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
export class SheetFormatError extends InternalError {
  readonly code = 'TS_WORKBOOK'
  readonly convertedBy = 'reading and writing (sheets/workbook/backend.ts): each read, layout and write of the workbook names the file'
}

/** One `<c>` element of a row as written. */
export interface RawCell {
  /** 0-based column. */
  column: number
  /** The attributes as written (between `<c` and `>`), with `r` among them. */
  attributes: string
  /** The content between `<c …>` and `</c>`; undefined for `<c …/>`. */
  inner: string | undefined
  /** The `t` attribute. */
  type: string | undefined
  /** The `s` attribute. */
  style: number | undefined
  /** The namespace prefix of the row's elements (`''` almost always). */
  prefix: string
}

export interface RawRow {
  /** 1-based row number. */
  number: number
  /** The attributes of `<row …>` as written. */
  attributes: string
  cells: RawCell[]
}

/**
 * Splits a `<row>` element into its cells; `previous` numbers a row without an `r` attribute. Scanned by
 * hand rather than by regular expressions: at 100,000 rows this is most of what reading a tab costs.
 */
export function parseRow(xml: string, previous: number): RawRow {
  const nameEnd = nameEndAt(xml, 1)
  const qualified = xml.slice(1, nameEnd)
  const colon = qualified.indexOf(':')
  const prefix = colon < 0 ? '' : qualified.slice(0, colon + 1)
  const tagEnd = tagEndAt(xml, 0)
  if (xml.charCodeAt(0) !== 60 || qualified.slice(colon + 1) !== 'row' || tagEnd < 0) {
    throw new SheetFormatError(`a row does not start as one: ${JSON.stringify(xml.slice(0, 40))}`)
  }
  const selfClosing = xml.charCodeAt(tagEnd - 1) === 47
  const attributes = xml.slice(nameEnd, selfClosing ? tagEnd - 1 : tagEnd)
  const numbered = attributeValue(attributes, 'r')
  const number = numbered === undefined ? previous + 1 : Number(numbered)
  if (!Number.isSafeInteger(number) || number < 1 || number > MAX_ROWS)
    throw new SheetFormatError(`a row has the number ${numbered ?? number}`)
  const cells: RawCell[] = []
  if (selfClosing) return { number, attributes, cells }
  const cellOpen = `<${prefix}c`
  const cellClose = `</${prefix}c>`
  let column = -1
  let at = tagEnd + 1
  for (;;) {
    const lt = xml.indexOf(cellOpen, at)
    if (lt < 0) break
    const after = xml.charCodeAt(lt + cellOpen.length)
    if (!(after === 32 || after === 62 || after === 47 || after === 9 || after === 10 || after === 13)) {
      at = lt + cellOpen.length
      continue
    }
    const end = tagEndAt(xml, lt)
    if (end < 0) throw new SheetFormatError('a cell is not closed')
    const empty = xml.charCodeAt(end - 1) === 47
    const cellAttributes = xml.slice(lt + cellOpen.length, empty ? end - 1 : end)
    let inner: string | undefined
    if (empty) {
      at = end + 1
    } else {
      const close = xml.indexOf(cellClose, end)
      if (close < 0) throw new SheetFormatError('a cell is not closed')
      inner = xml.slice(end + 1, close)
      at = close + cellClose.length
    }
    if (findCellAttributes(xml, lt + cellOpen.length, empty ? end - 1 : end)) {
      column = found[0]! < 0 ? column + 1 : referenceColumnAt(xml, found[0]!, found[1]!)
      cells.push({
        column,
        attributes: cellAttributes,
        inner,
        type: found[4]! < 0 ? undefined : cellType(xml, found[4]!, found[5]!),
        style: found[2]! < 0 ? undefined : styleAt(xml, found[2]!, found[3]!),
        prefix,
      })
      continue
    }
    const reference = attributeValue(cellAttributes, 'r')
    column = reference === undefined ? column + 1 : referenceColumn(reference)
    const style = attributeValue(cellAttributes, 's')
    cells.push({
      column,
      attributes: cellAttributes,
      inner,
      type: attributeValue(cellAttributes, 't'),
      style: style === undefined ? undefined : Number(style),
      prefix,
    })
  }
  return { number, attributes, cells }
}

/** Where the values of a cell's `r`, `s` and `t` attributes start and end (pairs; -1 when absent). */
const found = new Int32Array(6)

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13
}

/**
 * Reads a cell's attributes between `from` and `to` in one pass, into `found`. False when they are not
 * plain `name="value"` pairs: the caller then searches for each as before.
 */
function findCellAttributes(xml: string, from: number, to: number): boolean {
  found.fill(-1)
  let i = from
  for (;;) {
    while (i < to && isSpace(xml.charCodeAt(i))) i++
    if (i >= to) return true
    const nameStart = i
    while (i < to && xml.charCodeAt(i) !== 61 /* = */ && !isSpace(xml.charCodeAt(i))) i++
    const nameEnd = i
    while (i < to && isSpace(xml.charCodeAt(i))) i++
    if (i >= to || xml.charCodeAt(i) !== 61) return false
    i++
    while (i < to && isSpace(xml.charCodeAt(i))) i++
    const quote = xml.charCodeAt(i)
    if (i >= to || (quote !== 34 && quote !== 39)) return false
    const close = xml.indexOf(quote === 34 ? '"' : "'", i + 1)
    if (close < 0 || close >= to) return false
    if (nameEnd - nameStart === 1) {
      const name = xml.charCodeAt(nameStart)
      const slot = name === 114 /* r */ ? 0 : name === 115 /* s */ ? 2 : name === 116 /* t */ ? 4 : -1
      if (slot >= 0 && found[slot]! < 0) {
        found[slot] = i + 1
        found[slot + 1] = close
      }
    }
    i = close + 1
  }
}

/** 0-based column of the reference between `start` and `end` of `xml`, as `referenceColumn` reads it. */
function referenceColumnAt(xml: string, start: number, end: number): number {
  let index = 0
  for (let i = start; i < end; i++) {
    const code = xml.charCodeAt(i) | 32
    if (code === (36 | 32)) continue
    if (code < 97 || code > 122) break
    index = index * 26 + (code - 96)
  }
  return index - 1
}

/** A style index as `Number` reads it; digits are read in place. */
function styleAt(xml: string, start: number, end: number): number {
  if (end <= start || end - start > 9) return Number(xml.slice(start, end))
  let value = 0
  for (let i = start; i < end; i++) {
    const digit = xml.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return Number(xml.slice(start, end))
    value = value * 10 + digit
  }
  return value
}

const CELL_TYPES = ['inlineStr', 's', 'b', 'str', 'e', 'n', 'd']

/** The `t` attribute's value; the types SpreadsheetML knows are shared, not cut out each time. */
function cellType(xml: string, start: number, end: number): string {
  for (const type of CELL_TYPES) if (type.length === end - start && xml.startsWith(type, start)) return type
  return xml.slice(start, end)
}

/** The end of an element name starting at `start`. */
function nameEndAt(text: string, start: number): number {
  let i = start
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 32 || code === 62 || code === 47 || code === 9 || code === 10 || code === 13) break
  }
  return i
}

/** The value of attribute `name` in a start tag's attribute text (undecoded; these are names and numbers). */
export function attributeValue(attributes: string, name: string): string | undefined {
  const start = attributeAt(attributes, name, 0, attributes.length)
  if (start < 0) return undefined
  const close = attributes.indexOf(attributes[start - 1]!, start)
  return close < 0 ? undefined : attributes.slice(start, close)
}

/**
 * Where the value of attribute `name` starts (just after its opening quote) in `text` between `from` and
 * `to` (a start tag's attributes); -1 when it has none.
 */
function attributeAt(text: string, name: string, from: number, to: number): number {
  let at = from
  for (;;) {
    const found = text.indexOf(name, at)
    if (found < 0 || found >= to) return -1
    at = found + name.length
    const before = text.charCodeAt(found - 1)
    if (found === from || !(before === 32 || before === 9 || before === 10 || before === 13)) continue
    let i = at
    while (text.charCodeAt(i) === 32) i++
    if (text.charCodeAt(i) !== 61 /* = */) continue
    i++
    while (text.charCodeAt(i) === 32) i++
    const quote = text.charCodeAt(i)
    if (quote !== 34 && quote !== 39) continue
    return i + 1
  }
}

/** 0-based column of a reference such as `AB12` or `$AB$12`. */
function referenceColumn(reference: string): number {
  let index = 0
  for (let i = 0; i < reference.length; i++) {
    const code = reference.charCodeAt(i) | 32
    if (code === (36 | 32)) continue
    if (code < 97 || code > 122) break
    index = index * 26 + (code - 96)
  }
  return index - 1
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
  const known = COLUMN_NAMES[index]
  if (known !== undefined) return known
  let name = ''
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name
  if (index >= 0 && index < 1024) COLUMN_NAMES[index] = name
  return name
}

/** Names of the columns asked for so far: every cell written needs one. */
const COLUMN_NAMES: string[] = []

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

export function cellContent(cell: RawCell): CellContent {
  const inner = cell.inner
  const content: CellContent = { type: cell.type, style: cell.style, value: undefined, formula: undefined, inline: undefined }
  if (inner === undefined || inner === '') return content
  const p = cell.prefix
  // Most cells hold only a value or only one plain inline text: read them without searching for each element.
  if (p === '' && inner.charCodeAt(0) === 60 /* < */) {
    if (inner.startsWith('<v>') && inner.endsWith('</v>') && inner.indexOf('<', 3) === inner.length - 4) {
      content.value = inner.slice(3, -4)
      return content
    }
    if (cell.type === 'inlineStr') {
      const start = inner.startsWith(PLAIN_TEXT) ? PLAIN_TEXT.length : inner.startsWith(SPACED_TEXT) ? SPACED_TEXT.length : -1
      if (start > 0 && inner.endsWith(TEXT_END) && inner.indexOf('<', start) === inner.length - TEXT_END.length) {
        content.inline = decodeCellText(inner.slice(start, -TEXT_END.length))
        return content
      }
    }
  }
  const value = element(inner, `${p}v`)
  if (value !== undefined) content.value = value.content
  const formula = element(inner, `${p}f`)
  if (formula !== undefined) content.formula = { text: formula.content, attributes: formula.attributes }
  if (cell.type === 'inlineStr') {
    const inline = element(inner, `${p}is`)
    if (inline !== undefined) content.inline = richText(inline.content, p)
  }
  return content
}

const PLAIN_TEXT = '<is><t>'
const SPACED_TEXT = '<is><t xml:space="preserve">'
const TEXT_END = '</t></is>'

/** The first element named `name` in `xml`: its attribute text and raw content (`''` when self-closing). */
function element(xml: string, name: string, from = 0): { attributes: string; content: string; end: number } | undefined {
  const open = `<${name}`
  let at = from
  for (;;) {
    const lt = xml.indexOf(open, at)
    if (lt < 0) return undefined
    const after = xml.charCodeAt(lt + open.length)
    if (!(after === 32 || after === 62 || after === 47 || after === 9 || after === 10 || after === 13)) {
      at = lt + open.length
      continue
    }
    const end = tagEndAt(xml, lt)
    if (end < 0) return undefined
    if (xml.charCodeAt(end - 1) === 47) return { attributes: xml.slice(lt + open.length, end - 1), content: '', end: end + 1 }
    const close = xml.indexOf(`</${name}>`, end)
    if (close < 0) return undefined
    return { attributes: xml.slice(lt + open.length, end), content: xml.slice(end + 1, close), end: close + name.length + 3 }
  }
}

const PHONETIC = /<(?:[A-Za-z_][\w.-]*:)?rPh\b[\s\S]*?<\/(?:[A-Za-z_][\w.-]*:)?rPh>/g

/** The text of a string item (`<si>` or `<is>` content): its runs joined, phonetic guides left out. */
export function richText(inner: string, prefix = ''): string {
  const body = inner.includes('rPh') ? inner.replace(PHONETIC, '') : inner
  const name = `${prefix}t`
  let text = ''
  for (let run = element(body, name); run !== undefined; run = element(body, name, run.end)) text += run.content
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
const FORMULA_TOKEN =
  /"(?:[^"]|"")*"|'(?:[^']|'')*'|\[[^\]]*\]|(?<![\w.$])(\$?)([A-Za-z]{1,3})(\$?)(\d{1,7})(?![\w(!.])|(?<![\w.$])(\$?)(\d{1,7}):(\$?)(\d{1,7})(?![\w(])|(?<![\w.$])(\$?)([A-Za-z]{1,3}):(\$?)([A-Za-z]{1,3})(?![\w(])/g

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
