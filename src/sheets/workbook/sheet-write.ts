/**
 * Rewrites a worksheet part row by row, from the old part's text to the new
 * part's compressor: rows removed, rows renumbered, cells set, rows added, and
 * (for the layout) cells restyled. A row nothing happens to is passed on as
 * the text it was. Whatever else a row holds — styles of cells, formulas,
 * heights — is kept; a shared formula is written out per cell, so removing or
 * overwriting its first cell cannot break the others.
 *
 * Longer than most files because row renumbering, cell setting and shared-formula handling act on the same
 * streamed row and must agree.
 */
import type { CellValue } from '../port.ts'
import {
  attributeAt,
  cellContent,
  columnName,
  formulaText,
  nameEndAt,
  parseRow,
  scanSheet,
  sharedFormula,
  shiftFormula,
  tagEndAt,
  type RawCell,
  type RawRow,
} from './sheet-xml.ts'
import { NEW_SHEET_FRAME } from './sheet-parts.ts'
import type { SharedFormulas } from './tab-read.ts'
import { escapeCellText, escapeXml } from './xml-text.ts'
import { PIECE, type PartCompressor } from './zip.ts'

/** A formula the tool writes (the Summary), without its `=`; Excel and LibreOffice compute it when the file opens. */
export interface FormulaCell {
  formula: string
}

/** What happens to one row (numbered as the sheet is before the rewrite). */
export interface RowChange {
  /** Cells to set, by 0-based column (a hole leaves the cell alone); `null` and `''` empty the cell. */
  cells: ReadonlyArray<CellValue | FormulaCell | undefined>
  /** Empty every other cell of the row first (an appended row landing where leftovers were). */
  clear?: boolean
}

export interface SheetRewrite {
  /** Changes by row number as the sheet is before the rewrite. */
  rows: ReadonlyMap<number, RowChange>
  /** Rows to remove, numbered as before the rewrite. */
  remove: ReadonlySet<number>
  /** The format a cell the rewrite creates gets in a column: the column's own (as Excel gives a typed cell). */
  columnStyle(column: number): number | undefined
  /** A new format for a cell (by its row before the rewrite and its column), or undefined to keep the one it has. */
  restyle?: (row: number, column: number, style: number | undefined) => number | undefined
  /**
   * The height (points) a row the rewrite sets cells in needs, from the texts it then holds by column (null:
   * a text this writer cannot see, such as a shared string) and the height it had; undefined: the default.
   */
  rowHeight?: (texts: ReadonlyArray<string | null | undefined>, current: number | undefined) => number | undefined
  /** The text before the rows (up to but not including `<sheetData>`), from the old one; runs before any row is built. */
  prefix(old: string): string
  /** The text after `</sheetData>`, from the old one and the last row number the rewritten sheet has. */
  suffix(old: string, lastRow: number): string
}

export interface RewriteResult {
  /** Last row number in the rewritten sheet. */
  lastRow: number
  /** Whether the old sheet held any formula (Excel's calculation chain may point at one the rewrite removed). */
  hadFormulas: boolean
}

/** Rewrites the sheet whose text `source` gives (undefined: a new, empty sheet) into `out`. */
export async function rewriteSheet(
  source: AsyncIterable<string> | undefined,
  rewrite: SheetRewrite,
  out: PartCompressor,
): Promise<RewriteResult> {
  const pending = [...rewrite.rows.keys()].sort((a, b) => a - b)
  const removed = [...rewrite.remove].sort((a, b) => a - b)
  let nextPending = 0
  let removedBelow = 0
  let lastRow = 0
  let hadFormulas = false
  let previous = 0
  const formulas: SharedFormulas = new Map()
  // Rows are handed over synchronously; they wait here until the piece of the old sheet is done.
  const batch: string[] = []
  let batched = 0
  const emit = (xml: string, number: number) => {
    if (xml === '') return
    if (number > lastRow) lastRow = number
    batch.push(xml)
    batched += xml.length
  }
  const flush = async () => {
    if (batch.length === 0) return
    const text = batch.join('')
    batch.length = 0
    batched = 0
    await out.write(text)
  }
  const removedUpTo = (row: number) => {
    while (removedBelow < removed.length && removed[removedBelow]! < row) removedBelow++
    return removedBelow
  }
  // Rows the rewrite sets that the old sheet has no element for, up to (not including) `row`.
  const newRowsBefore = (row: number, limit = Number.POSITIVE_INFINITY) => {
    while (nextPending < pending.length && pending[nextPending]! < row && batched < limit) {
      const number = pending[nextPending++]!
      if (rewrite.remove.has(number)) continue
      const target = number - removedUpTo(number)
      emit(newRow(number, target, rewrite.rows.get(number)!, rewrite), target)
    }
    return nextPending < pending.length && pending[nextPending]! < row
  }

  let suffix = NEW_SHEET_FRAME.suffix
  if (source === undefined) {
    await out.write(`${rewrite.prefix(NEW_SHEET_FRAME.prefix)}<sheetData>`)
  } else {
    const frame = await scanSheet(
      source,
      (xml) => {
        const numbered = ROW_NUMBER.exec(xml.slice(0, xml.indexOf('>') + 1))
        const number = numbered === null ? previous + 1 : Number(numbered[1])
        previous = number
        if (!hadFormulas && (xml.includes('<f') || xml.includes(':f'))) hadFormulas = true
        newRowsBefore(number)
        const change = rewrite.rows.get(number)
        if (change !== undefined && pending[nextPending] === number) nextPending++
        const shared = xml.includes('t="shared"') || xml.includes("t='shared'")
        if (rewrite.remove.has(number)) {
          // Its shared formulas' first cells still give the others their formula.
          if (shared) for (const cell of parseRow(xml, number - 1).cells) rememberShared(cell, number, formulas)
          return
        }
        const target = number - removedUpTo(number)
        if (change === undefined && rewrite.restyle === undefined && !shared && numbered !== null) {
          emit(target === number ? xml : renumberRow(xml, number, target), target)
        } else {
          emit(buildRow(parseRow(xml, number - 1), target, change, rewrite, formulas), target)
        }
        return undefined
      },
      { onPrefix: (prefix) => batch.push(`${rewrite.prefix(prefix)}<sheetData>`), afterChunk: flush },
    )
    suffix = frame.suffix
  }
  // Appended rows come last, handed on in pieces small enough to die young (PIECE).
  while (newRowsBefore(Number.POSITIVE_INFINITY, PIECE)) await flush()
  await flush()
  await out.write(`</sheetData>${rewrite.suffix(suffix, lastRow)}`)
  return { lastRow, hadFormulas }
}

const ROW_NUMBER = /\br\s*=\s*["'](\d+)["']/

/**
 * A row element numbered `target` instead of `from`: the row's and its cells' references, and an array
 * formula's range; formulas keep their text. Only inside tags: text content is never touched.
 */
export function renumberRow(xml: string, from: number, target: number): string {
  const plain = xml.startsWith('<row') && !xml.includes('<f') && !xml.includes(':f')
  return plain ? renumberPlainRow(xml, from, target) : renumberAnyRow(xml, from, target)
}

/**
 * The common row: no prefix, no formula. Text holds no `<` and no other element of a row starts with `<c`,
 * so its cells are found by searching for that alone; every other tag holds nothing to move.
 */
function renumberPlainRow(xml: string, from: number, target: number): string {
  let out = ''
  let copied = 0
  let tag = 0
  let nameEnd = 4
  for (;;) {
    const end = tagEndAt(xml, tag)
    if (end < 0) return renumberAnyRow(xml, from, target)
    const value = attributeAt(xml, 'r', nameEnd, end)
    if (value >= 0) {
      const close = xml.indexOf(xml[value - 1]!, value)
      let digits = close
      if (tag === 0) digits = value
      else while (digits > value && isDigit(xml.charCodeAt(digits - 1))) digits--
      if (digits < close || tag === 0) {
        out += xml.slice(copied, digits) + target
        copied = close
      }
    }
    tag = xml.indexOf('<c', end)
    if (tag < 0) break
    nameEnd = tag + 2
    if (!isTagNameEnd(xml.charCodeAt(nameEnd))) return renumberAnyRow(xml, from, target)
  }
  return copied === 0 ? xml : out + xml.slice(copied)
}

function isTagNameEnd(code: number): boolean {
  return code === 32 || code === 62 || code === 47 || code === 9 || code === 10 || code === 13
}

function renumberAnyRow(xml: string, from: number, target: number): string {
  const pieces: string[] = []
  let copied = 0
  let at = 0
  for (;;) {
    const lt = xml.indexOf('<', at)
    if (lt < 0) break
    const next = xml.charCodeAt(lt + 1)
    // An end tag, a comment or a processing instruction: nothing to renumber.
    if (next === 47 || next === 33 || next === 63) {
      at = lt + 2
      continue
    }
    const nameEnd = nameEndAt(xml, lt + 1)
    // The local name, past a prefix; searched within the name only (a row holds many tags).
    let localStart = lt + 1
    for (let i = nameEnd - 1; i > lt; i--) {
      if (xml.charCodeAt(i) === 58 /* : */) {
        localStart = i + 1
        break
      }
    }
    const local = nameEnd - localStart === 1 ? xml[localStart] : nameEnd - localStart === 3 ? xml.slice(localStart, nameEnd) : ''
    const name = local === 'f' ? 'ref' : local === 'row' || local === 'c' ? 'r' : undefined
    // Any other element's tag holds nothing to move, and no `<` in its attributes: the next `<` is the next tag.
    if (name === undefined) {
      at = nameEnd
      continue
    }
    const end = tagEndAt(xml, lt)
    if (end < 0) break
    const value = attributeAt(xml, name, nameEnd, end)
    if (value >= 0) {
      const close = xml.indexOf(xml[value - 1]!, value)
      const old = xml.slice(value, close)
      const moved = local === 'row' ? String(target) : local === 'c' ? withRow(old, target) : moveRows(old, target - from)
      pieces.push(xml.slice(copied, value), moved)
      copied = close
    }
    at = end + 1
  }
  if (copied === 0) return xml
  pieces.push(xml.slice(copied))
  return pieces.join('')
}

/** A cell reference with its trailing row number (if any) replaced: `AB12` → `AB9`. */
function withRow(reference: string, row: number): string {
  let digits = reference.length
  while (digits > 0 && isDigit(reference.charCodeAt(digits - 1))) digits--
  return digits === reference.length ? reference : reference.slice(0, digits) + row
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

/** A range such as `A5:C5` moved down by `shift` rows (absolute rows too: the cells themselves moved). */
function moveRows(ref: string, shift: number): string {
  return ref.replace(/([A-Za-z]{1,3}\$?)(\d+)/g, (_whole, column: string, row: string) => `${column}${Number(row) + shift}`)
}

function rememberShared(cell: RawCell, row: number, formulas: SharedFormulas): void {
  const content = cellContent(cell)
  if (content.formula === undefined) return
  const shared = sharedFormula(content.formula.attributes)
  const text = formulaText(content.formula.text)
  if (shared !== undefined && text !== '') formulas.set(shared.group, { text, row, column: cell.column })
}

const STYLE_ATTRIBUTE = /\s+s\s*=\s*["'](\d+)["']/
const REFERENCE_ATTRIBUTE = /\s+r\s*=\s*["'][^"']*["']/

/** A row element built from its cells as they were and the change. */
function buildRow(row: RawRow, target: number, change: RowChange | undefined, rewrite: SheetRewrite, formulas: SharedFormulas): string {
  const set = change?.cells
  const out: string[] = []
  const written = new Set<number>()
  const newCell = (column: number) => {
    const value = set![column]!
    const base = rewrite.columnStyle(column)
    const style = rewrite.restyle?.(row.number, column, base) ?? base
    out.push(cellXml(column, target, style, value))
    written.add(column)
  }
  const newColumns: number[] = []
  if (set !== undefined) for (let column = 0; column < set.length; column++) if (set[column] !== undefined) newColumns.push(column)
  let nextNew = 0
  for (const cell of row.cells) {
    while (nextNew < newColumns.length && newColumns[nextNew]! < cell.column) {
      const column = newColumns[nextNew++]!
      if (!row.cells.some((existing) => existing.column === column)) newCell(column)
    }
    if (written.has(cell.column)) continue
    const style = STYLE_ATTRIBUTE.exec(cell.attributes)
    const current = style === null ? undefined : Number(style[1])
    const restyled = rewrite.restyle?.(row.number, cell.column, current)
    const newStyle = restyled ?? current
    const value = set?.[cell.column]
    if (value !== undefined) {
      if (shouldRemember(cell)) rememberShared(cell, row.number, formulas)
      out.push(cellXml(cell.column, target, newStyle, value))
      written.add(cell.column)
    } else if (change?.clear === true) {
      if (shouldRemember(cell)) rememberShared(cell, row.number, formulas)
      if (newStyle !== undefined && newStyle !== 0) out.push(`<c r="${columnName(cell.column)}${target}" s="${newStyle}"/>`)
      written.add(cell.column)
    } else {
      out.push(keptCell(cell, row.number, target, newStyle, formulas))
      written.add(cell.column)
    }
  }
  for (; nextNew < newColumns.length; nextNew++) {
    const column = newColumns[nextNew]!
    if (!written.has(column)) newCell(column)
  }
  let attributes = row.attributes.replace(REFERENCE_ATTRIBUTE, '').replace(/\s+spans\s*=\s*["'][^"']*["']/, '')
  if (set !== undefined && rewrite.rowHeight !== undefined)
    attributes = withRowHeight(attributes, change?.clear === true ? [] : row.cells, set, rewrite.rowHeight)
  if (out.length === 0 && attributes.trim() === '') return ''
  const cells = out.join('')
  return cells === '' ? `<row r="${target}"${attributes}/>` : `<row r="${target}"${attributes}>${cells}</row>`
}

/** A row the old sheet has no element for, as `buildRow` builds it from no cells: a first export's every row. */
function newRow(number: number, target: number, change: RowChange, rewrite: SheetRewrite): string {
  const set = change.cells
  let cells = ''
  let count = 0
  for (let column = 0; column < set.length; column++) {
    const value = set[column]
    if (value === undefined) continue
    count++
    const base = rewrite.columnStyle(column)
    cells += cellXml(column, target, rewrite.restyle?.(number, column, base) ?? base, value)
  }
  let attributes = ''
  if (rewrite.rowHeight !== undefined) {
    const texts: Array<string | undefined> = []
    for (let column = 0; column < set.length; column++) {
      const value = set[column]
      if (value !== undefined) texts[column] = typeof value === 'string' ? value : undefined
    }
    const height = rewrite.rowHeight(texts, undefined)
    if (height !== undefined) attributes = ` ht="${height}"`
  }
  if (count === 0 && attributes === '') return ''
  return cells === '' ? `<row r="${target}"${attributes}/>` : `<row r="${target}"${attributes}>${cells}</row>`
}

const HEIGHT_ATTRIBUTE = /\s+ht\s*=\s*["']([^"']*)["']/
const CUSTOM_HEIGHT = /\s+customHeight\s*=\s*["'](1|true)["']/

/**
 * A row's attributes with the height its wrapped texts need, so they do not spill over the rows below
 * (neither Excel nor LibreOffice fits a row's height when it opens a file). A height a person set stays.
 */
function withRowHeight(
  attributes: string,
  kept: readonly RawCell[],
  set: ReadonlyArray<CellValue | FormulaCell | undefined>,
  rowHeight: NonNullable<SheetRewrite['rowHeight']>,
): string {
  if (CUSTOM_HEIGHT.test(attributes)) return attributes
  const texts: Array<string | null | undefined> = []
  for (const cell of kept)
    texts[cell.column] = cell.type === 'inlineStr' ? (cellContent(cell).inline ?? '') : cell.type === 's' ? null : undefined
  set.forEach((value, column) => {
    if (value !== undefined) texts[column] = typeof value === 'string' ? value : undefined
  })
  const current = HEIGHT_ATTRIBUTE.exec(attributes)
  const height = rowHeight(texts, current === null ? undefined : Number(current[1]))
  const without = attributes.replace(HEIGHT_ATTRIBUTE, '')
  return height === undefined ? without : `${without} ht="${height}"`
}

function shouldRemember(cell: RawCell): boolean {
  return cell.inner !== undefined && cell.inner.includes('shared')
}

/** A cell kept as it was: its reference (and format) updated, a shared formula written out as its own. */
function keptCell(cell: RawCell, oldRow: number, target: number, style: number | undefined, formulas: SharedFormulas): string {
  let attributes = cell.attributes.replace(REFERENCE_ATTRIBUTE, '').replace(STYLE_ATTRIBUTE, '')
  attributes = ` r="${columnName(cell.column)}${target}"${style === undefined ? '' : ` s="${style}"`}${attributes}`
  let inner = cell.inner
  if (inner !== undefined && /<(?:[\w.-]+:)?f\b/.test(inner)) {
    const content = cellContent(cell)
    const shared = content.formula === undefined ? undefined : sharedFormula(content.formula.attributes)
    if (shared !== undefined) {
      const text = formulaText(content.formula!.text)
      let formula = text
      if (text !== '') formulas.set(shared.group, { text, row: oldRow, column: cell.column })
      else {
        const first = formulas.get(shared.group)
        formula = first === undefined ? '' : shiftFormula(first.text, oldRow - first.row, cell.column - first.column)
      }
      inner = inner.replace(
        /<((?:[\w.-]+:)?)f\b(?:[^>"']|"[^"]*"|'[^']*')*?(?:\/>|>[\s\S]*?<\/(?:[\w.-]+:)?f>)/,
        formula === '' ? '' : `<$1f>${escapeXml(formula)}</$1f>`,
      )
    } else if (target !== oldRow) {
      inner = inner.replace(
        /(<(?:[\w.-]+:)?f\b[^>]*?\bref\s*=\s*["'])([^"']*)/,
        (_whole, start: string, ref: string) =>
          `${start}${ref.replace(/([A-Za-z]{1,3}\$?)(\d+)/g, (_w, column: string, row: string) => `${column}${Number(row) + target - oldRow}`)}`,
      )
    }
  }
  return inner === undefined ? `<c${attributes}/>` : `<c${attributes}>${inner}</c>`
}

/** A cell as the tool writes it: text as an inline string (never a formula), numbers, booleans; empty: only its format. */
export function cellXml(column: number, row: number, style: number | undefined, value: CellValue | FormulaCell): string {
  const reference = `${columnName(column)}${row}`
  const s = style === undefined || style === 0 ? '' : ` s="${style}"`
  if (value === null || value === '') return s === '' ? '' : `<c r="${reference}"${s}/>`
  // No cached value: the application computes it on opening (the workbook asks for a full calculation then).
  if (typeof value === 'object') return `<c r="${reference}"${s}><f>${escapeXml(value.formula)}</f></c>`
  if (typeof value === 'string') {
    const space = /^\s|\s$|\n/.test(value) ? ' xml:space="preserve"' : ''
    return `<c r="${reference}"${s} t="inlineStr"><is><t${space}>${escapeCellText(value)}</t></is></c>`
  }
  if (typeof value === 'boolean') return `<c r="${reference}"${s} t="b"><v>${value ? 1 : 0}</v></c>`
  return `<c r="${reference}"${s}><v>${numberText(value)}</v></c>`
}

/** A number as `<v>` text: the shortest form that reads back as the same double. */
function numberText(value: number): string {
  return Object.is(value, -0) ? '0' : String(value)
}
