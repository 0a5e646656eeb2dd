/**
 * Rewrites a worksheet part row by row, from the old part's text to the new
 * part's compressor: cells set, rows emptied, rows added, and (for the layout)
 * cells restyled. Rows keep their numbers: a removed row is emptied in place
 * (decisions/0030). A row nothing happens to is passed on as the text it was.
 * Whatever else a row holds — styles of cells, formulas, heights — is kept; a
 * shared formula is written out per cell, so emptying or overwriting its first
 * cell cannot break the others.
 */
import type { CellValue } from '../port.ts'
import {
  cellContent,
  columnName,
  formulaText,
  parseRow,
  scanSheet,
  sharedFormula,
  shiftFormula,
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
  let nextPending = 0
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
  // Rows the rewrite sets that the old sheet has no element for, up to (not including) `row`.
  const newRowsBefore = (row: number, limit = Number.POSITIVE_INFINITY) => {
    while (nextPending < pending.length && pending[nextPending]! < row && batched < limit) {
      const number = pending[nextPending++]!
      emit(newRow(number, rewrite.rows.get(number)!, rewrite), number)
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
        if (change === undefined && rewrite.restyle === undefined && !shared && numbered !== null) {
          emit(xml, number)
        } else {
          emit(buildRow(parseRow(xml, number - 1), change, rewrite, formulas), number)
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
function buildRow(row: RawRow, change: RowChange | undefined, rewrite: SheetRewrite, formulas: SharedFormulas): string {
  const target = row.number
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
      out.push(keptCell(cell, row.number, newStyle, formulas))
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
function newRow(number: number, change: RowChange, rewrite: SheetRewrite): string {
  const set = change.cells
  let cells = ''
  let count = 0
  for (let column = 0; column < set.length; column++) {
    const value = set[column]
    if (value === undefined) continue
    count++
    const base = rewrite.columnStyle(column)
    cells += cellXml(column, number, rewrite.restyle?.(number, column, base) ?? base, value)
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
  return cells === '' ? `<row r="${number}"${attributes}/>` : `<row r="${number}"${attributes}>${cells}</row>`
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

/** A cell kept as it was: its reference (and format) written out, a shared formula written out as its own. */
function keptCell(cell: RawCell, row: number, style: number | undefined, formulas: SharedFormulas): string {
  let attributes = cell.attributes.replace(REFERENCE_ATTRIBUTE, '').replace(STYLE_ATTRIBUTE, '')
  attributes = ` r="${columnName(cell.column)}${row}"${style === undefined ? '' : ` s="${style}"`}${attributes}`
  let inner = cell.inner
  if (inner !== undefined && /<(?:[\w.-]+:)?f\b/.test(inner)) {
    const content = cellContent(cell)
    const shared = content.formula === undefined ? undefined : sharedFormula(content.formula.attributes)
    if (shared !== undefined) {
      const text = formulaText(content.formula!.text)
      let formula = text
      if (text !== '') formulas.set(shared.group, { text, row, column: cell.column })
      else {
        const first = formulas.get(shared.group)
        formula = first === undefined ? '' : shiftFormula(first.text, row - first.row, cell.column - first.column)
      }
      inner = inner.replace(
        /<((?:[\w.-]+:)?)f\b(?:[^>"']|"[^"]*"|'[^']*')*?(?:\/>|>[\s\S]*?<\/(?:[\w.-]+:)?f>)/,
        formula === '' ? '' : `<$1f>${escapeXml(formula)}</$1f>`,
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
