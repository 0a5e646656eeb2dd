/**
 * The elements of a worksheet around its rows — columns, views, protection,
 * conditional formats, data validations, the used range — read and put back
 * in the order SpreadsheetML requires. An element the tool does not set keeps
 * its text.
 */
import { columnIndex, columnName, type SheetFrame } from './sheet-xml.ts'
import { insertInOrder } from './styles.ts'
import { XmlPartError, elementContent, localName, startTagAttributes, topLevel, type XmlPiece } from './xml-parts.ts'
import { attributes, decodeXml, escapeXml, parseAttributes } from './xml-text.ts'

/** CT_Worksheet's sequence: where each element goes. */
const ORDER = [
  'sheetPr',
  'dimension',
  'sheetViews',
  'sheetFormatPr',
  'cols',
  'sheetData',
  'sheetCalcPr',
  'sheetProtection',
  'protectedRanges',
  'scenarios',
  'autoFilter',
  'sortState',
  'dataConsolidate',
  'customSheetViews',
  'mergeCells',
  'phoneticPr',
  'conditionalFormatting',
  'dataValidations',
  'hyperlinks',
  'printOptions',
  'pageMargins',
  'pageSetup',
  'headerFooter',
  'rowBreaks',
  'colBreaks',
  'customProperties',
  'cellWatches',
  'ignoredErrors',
  'smartTags',
  'drawing',
  'legacyDrawing',
  'legacyDrawingHF',
  'drawingHF',
  'picture',
  'oleObjects',
  'controls',
  'webPublishItems',
  'tableParts',
  'extLst',
]

/** A new tab's part before the layout: no rows, the page margins Excel writes. */
export const NEW_SHEET_FRAME: SheetFrame = {
  prefix:
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    '<dimension ref="A1"/><sheetFormatPr defaultRowHeight="15"/>',
  suffix: '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>',
}

/** A worksheet's elements before and after its rows. */
export class SheetParts {
  readonly #head: string
  readonly #before: XmlPiece[]
  readonly #after: XmlPiece[]
  readonly #tail: string

  constructor(frame: SheetFrame) {
    const root = /<([A-Za-z_][\w:.-]*)(?:[^>"']|"[^"]*"|'[^']*')*?>/.exec(
      frame.prefix.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, (text) => ' '.repeat(text.length)),
    )
    if (root === null || localName(root[1]!) !== 'worksheet') throw new XmlPartError('a tab part has no <worksheet> element')
    if (root[1]!.includes(':')) {
      throw new XmlPartError(
        'a tab part writes its elements with a namespace prefix, which this tool does not edit (save the workbook once in Excel or LibreOffice)',
      )
    }
    const headEnd = root.index + root[0].length
    this.#head = frame.prefix.slice(0, headEnd)
    this.#before = topLevel(frame.prefix.slice(headEnd))
    const end = frame.suffix.lastIndexOf('</')
    if (end < 0) throw new XmlPartError('a tab part is not closed')
    this.#after = topLevel(frame.suffix.slice(0, end))
    this.#tail = frame.suffix.slice(end)
  }

  #list(name: string): XmlPiece[] {
    return ORDER.indexOf(name) < ORDER.indexOf('sheetData') ? this.#before : this.#after
  }

  /** The first element of that name. */
  get(name: string): string | undefined {
    return this.#list(name).find((piece) => piece.name === name)?.xml
  }

  all(name: string): string[] {
    return this.#list(name)
      .filter((piece) => piece.name === name)
      .map((piece) => piece.xml)
  }

  /** Replaces every element of that name with `xml` (or removes them all), in its place in the order. */
  set(name: string, xml: string | undefined): void {
    this.setAll(name, xml === undefined ? [] : [xml])
  }

  setAll(name: string, elements: readonly string[]): void {
    const list = this.#list(name)
    const first = list.findIndex((piece) => piece.name === name)
    const kept = list.filter((piece) => piece.name !== name)
    const pieces = elements.map((xml) => ({ name, xml }))
    list.length = 0
    list.push(...kept)
    if (pieces.length === 0) return
    // Where the first one was (everything before it stays), else where the order puts it.
    if (first >= 0) list.splice(first, 0, ...pieces)
    else for (const piece of pieces) insertInOrder(list, piece, ORDER)
  }

  /** The text before `<sheetData>`. */
  prefix(): string {
    return this.#head + this.#before.map((piece) => piece.xml).join('')
  }

  /** The text after `</sheetData>`. */
  suffix(): string {
    return this.#after.map((piece) => piece.xml).join('') + this.#tail
  }
}

/** A `<col>` range and its attributes. */
interface ColumnRange {
  min: number
  max: number
  attributes: Map<string, string>
}

/** The `<cols>` element as a list of ranges, edited one column at a time. */
export class Columns {
  #ranges: ColumnRange[]

  constructor(xml: string | undefined) {
    this.#ranges = []
    if (xml === undefined) return
    for (const piece of topLevel(elementContent(xml))) {
      if (piece.name !== 'col') continue
      const parsed = parseAttributes(startTagAttributes(piece.xml))
      const min = Number(parsed.get('min'))
      const max = Number(parsed.get('max') ?? min)
      parsed.delete('min')
      parsed.delete('max')
      if (Number.isInteger(min) && Number.isInteger(max) && min >= 1 && max >= min) this.#ranges.push({ min, max, attributes: parsed })
    }
    this.#ranges.sort((a, b) => a.min - b.min)
  }

  /** The attributes of 1-based column `column` (empty when no range covers it). */
  get(column: number): ReadonlyMap<string, string> {
    return this.#ranges.find((range) => range.min <= column && column <= range.max)?.attributes ?? new Map()
  }

  /** The format of 1-based column `column`, when it has one. */
  style(column: number): number | undefined {
    const style = this.get(column).get('style')
    return style === undefined ? undefined : Number(style)
  }

  /** Sets attributes of one column (undefined removes one), splitting the range that covered it. */
  set(column: number, patch: Record<string, string | undefined>): void {
    const at = this.#ranges.findIndex((range) => range.min <= column && column <= range.max)
    let own: ColumnRange
    if (at < 0) {
      // Excel writes a width with every column it describes; 9.140625 is its default one.
      own = { min: column, max: column, attributes: new Map([['width', '9.140625']]) }
      this.#ranges.push(own)
      this.#ranges.sort((a, b) => a.min - b.min)
    } else {
      const range = this.#ranges[at]!
      const pieces: ColumnRange[] = []
      if (range.min < column) pieces.push({ min: range.min, max: column - 1, attributes: new Map(range.attributes) })
      own = { min: column, max: column, attributes: new Map(range.attributes) }
      pieces.push(own)
      if (column < range.max) pieces.push({ min: column + 1, max: range.max, attributes: new Map(range.attributes) })
      this.#ranges.splice(at, 1, ...pieces)
    }
    for (const [name, value] of Object.entries(patch)) {
      if (value === undefined) own.attributes.delete(name)
      else own.attributes.set(name, value)
    }
  }

  toXml(): string | undefined {
    if (this.#ranges.length === 0) return undefined
    const cols = this.#ranges.map((range) => `<col${attributes([['min', range.min], ['max', range.max], ...range.attributes])}/>`)
    return `<cols>${cols.join('')}</cols>`
  }
}

/** A data validation as written. */
export interface Validation {
  attributes: Map<string, string>
  formula1: string | undefined
  xml: string
}

export function readValidations(parts: SheetParts): Validation[] {
  const element = parts.get('dataValidations')
  if (element === undefined) return []
  return topLevel(elementContent(element))
    .filter((piece) => piece.name === 'dataValidation')
    .map((piece) => {
      const formula = topLevel(elementContent(piece.xml)).find((child) => child.name === 'formula1')
      return {
        attributes: parseAttributes(startTagAttributes(piece.xml)),
        formula1: formula === undefined ? undefined : decodeXml(elementContent(formula.xml)),
        xml: piece.xml,
      }
    })
}

export function writeValidations(parts: SheetParts, validations: readonly Validation[]): void {
  parts.set(
    'dataValidations',
    validations.length === 0
      ? undefined
      : `<dataValidations count="${validations.length}">${validations.map((v) => v.xml).join('')}</dataValidations>`,
  )
}

/** A validation element from its attributes and first formula. */
export function validationXml(values: ReadonlyArray<readonly [string, string | number | undefined]>, formula1: string): string {
  return `<dataValidation${attributes(values)}><formula1>${escapeXml(formula1)}</formula1></dataValidation>`
}

/** The one-column range `X2:X9` a validation covers, when its `sqref` is that. */
export function singleColumnRange(sqref: string | undefined): { column: number; top: number; bottom: number } | undefined {
  const match = sqref === undefined ? null : /^\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?$/.exec(sqref.trim())
  if (match === null) return undefined
  const [, left, top, right, bottom] = match
  if (right !== undefined && right !== left) return undefined
  return { column: columnIndex(left!), top: Number(top), bottom: Number(bottom ?? top) }
}

/** The last row and column `<dimension>` gives (0 when there is none). */
export function dimension(parts: SheetParts): { rows: number; columns: number } {
  const ref = parseAttributes(startTagAttributes(parts.get('dimension') ?? '<dimension/>')).get('ref') ?? ''
  const match = /(?:^|:)\$?([A-Z]{1,3})\$?(\d+)$/.exec(ref)
  return match === null ? { rows: 0, columns: 0 } : { rows: Number(match[2]), columns: columnIndex(match[1]!) + 1 }
}

export function setDimension(parts: SheetParts, rows: number, columns: number): void {
  const ref = rows <= 1 && columns <= 1 ? 'A1' : `A1:${columnName(Math.max(columns, 1) - 1)}${Math.max(rows, 1)}`
  parts.set('dimension', `<dimension ref="${ref}"/>`)
}
