/**
 * Everything in a workbook that names cells of a tab, moved with the tab's rows when a rewrite removes
 * rows (as Excel moves them when a person deletes rows): in the worksheet part its hyperlinks, merged
 * cells, data validations, conditional formats, autofilter, selection, page breaks, protected ranges
 * and ignored errors; in the package its cell notes (the comments part and their drawing in the legacy
 * VML part), the pictures and charts anchored to its cells, its tables, the series of charts that plot
 * its cells, and the workbook's defined names (print areas among them). Something that lay wholly on
 * removed rows goes with them; a range spanning them shrinks. Otherwise a link or a note a manager put
 * on a row would end up on another activity's row.
 */
import { partText, relatedParts, type Book, type BookChange, type BookSheet } from './book.ts'
import { shiftFormulaRefs, shiftRef, shiftSqref, type RowShift } from './row-refs.ts'
import type { SheetParts } from './sheet-parts.ts'
import { elementContent, startTagAttributes, withAttribute, withContent } from './xml-parts.ts'
import { decodeAttribute, decodeXml, escapeXml, parseAttributes } from './xml-text.ts'
import { compressPart } from './zip.ts'

/**
 * Shifts the elements of a worksheet part around its rows (whichever of them `parts` holds). A data
 * validation `keepValidation` picks keeps its range: the tool sets its own dropdowns' ranges from the
 * new last row itself.
 */
export function shiftSheetElements(
  parts: SheetParts,
  shift: RowShift,
  keepValidation: (attributes: ReadonlyMap<string, string>) => boolean = () => false,
): void {
  if (shift.identity) return
  const sqrefOf = (attribute: string) => (element: string) => shiftAttribute(element, attribute, (value) => shiftSqref(value, shift))
  editList(parts, 'mergeCells', 'mergeCell', (element) => {
    const moved = shiftAttribute(element, 'ref', (value) => shiftRef(value, shift))
    // A merge of a single cell merges nothing; Excel refuses one.
    const ref = moved === undefined ? undefined : attributeOf(moved, 'ref')
    return ref === undefined || !ref.includes(':') || /^([^:]+):\1$/.test(ref) ? undefined : moved
  })
  editList(parts, 'hyperlinks', 'hyperlink', (element) => shiftAttribute(element, 'ref', (value) => shiftRef(value, shift)))
  editList(parts, 'dataValidations', 'dataValidation', (element) =>
    keepValidation(parseAttributes(startTagAttributes(element))) ? element : sqrefOf('sqref')(element),
  )
  editList(parts, 'protectedRanges', 'protectedRange', sqrefOf('sqref'))
  editList(parts, 'ignoredErrors', 'ignoredError', sqrefOf('sqref'))
  parts.setAll(
    'conditionalFormatting',
    parts.all('conditionalFormatting').flatMap((element) => {
      const moved = sqrefOf('sqref')(element)
      return moved === undefined ? [] : [moved]
    }),
  )
  const filter = parts.get('autoFilter')
  if (filter !== undefined)
    parts.set(
      'autoFilter',
      shiftAttribute(filter, 'ref', (value) => shiftRef(value, shift)),
    )
  const views = parts.get('sheetViews')
  if (views !== undefined) parts.set('sheetViews', shiftViews(views, shift))
  const breaks = parts.get('rowBreaks')
  if (breaks !== undefined) parts.set('rowBreaks', shiftBreaks(breaks, shift))
  const extensions = parts.get('extLst')
  if (extensions !== undefined) parts.set('extLst', shiftExtensions(extensions, shift))
}

/**
 * Shifts the package parts that name cells of `sheet` and hands the changed ones to `change`; the
 * defined names follow through the workbook part's edit.
 */
export function shiftPackageParts(book: Book, sheet: BookSheet, shift: RowShift, change: BookChange): void {
  if (shift.identity || book.archive === undefined) return
  const set = (part: string, edit: (xml: string) => string) => {
    const text = partText(book, part)
    if (text === undefined) return
    const edited = edit(text)
    if (edited !== text) change.setPart(compressPart(part, edited))
  }
  for (const related of relatedParts(book, sheet.part)) {
    if (related.type === 'comments') set(related.part, (xml) => shiftComments(xml, shift))
    else if (related.type === 'vmlDrawing') set(related.part, (xml) => shiftVml(xml, shift))
    else if (related.type === 'drawing') set(related.part, (xml) => shiftDrawing(xml, shift))
    else if (related.type === 'table') set(related.part, (xml) => shiftTable(xml, shift))
  }
  // A chart on any tab may plot this tab's cells.
  const mentions = (xml: string) => xml.includes(sheet.name) || xml.includes(escapeXml(sheet.name))
  for (const entry of book.archive.entries) {
    if (/^xl\/charts\/chart[^/]*\.xml$/i.test(entry.name))
      set(entry.name, (xml) => (mentions(xml) ? shiftFormulaElements(xml, 'f', sheet.name, shift) : xml))
  }
  change.editWorkbook((xml) => shiftFormulaElements(xml, 'definedName', sheet.name, shift))
}

/** An element's start tag with attribute `name` shifted; undefined when the attribute names only removed cells. */
function shiftAttribute(element: string, name: string, move: (value: string) => string | undefined): string | undefined {
  const value = attributeOf(element, name)
  if (value === undefined) return element
  const moved = move(value)
  if (moved === undefined) return undefined
  return moved === value ? element : withAttribute(element, name, escapeXml(moved))
}

function attributeOf(element: string, name: string): string | undefined {
  const raw = parseAttributes(startTagAttributes(element)).get(name)
  return raw === undefined ? undefined : decodeAttribute(raw)
}

/** Edits each child `item` of the list element `list`, dropping the ones `edit` drops (and the list when none is left). */
function editList(parts: SheetParts, list: string, item: string, edit: (element: string) => string | undefined): void {
  const element = parts.get(list)
  if (element === undefined) return
  let count = 0
  const content = eachElement(elementContent(element), item, (child) => {
    const edited = edit(child)
    if (edited !== undefined) count++
    return edited
  })
  if (content === elementContent(element)) return
  if (count === 0) {
    parts.set(list, undefined)
    return
  }
  const listed = withContent(element, content)
  parts.set(list, attributeOf(listed, 'count') === undefined ? listed : withAttribute(listed, 'count', String(count)))
}

/** Replaces every element of local name `name` in `xml` (none nested in another of its name); undefined removes it. */
function eachElement(xml: string, name: string, edit: (element: string) => string | undefined): string {
  const pattern = new RegExp(`<((?:[\\w.-]+:)?)${name}\\b(?:[^>"']|"[^"]*"|'[^']*')*?(?:/>|>[\\s\\S]*?</\\1${name}\\s*>)`, 'g')
  return xml.replace(pattern, (element) => edit(element) ?? '')
}

/** The text of every element `name` in `xml`, edited as text (XML-decoded, re-escaped when it changed). */
function eachText(xml: string, name: string, edit: (text: string) => string): string {
  return eachElement(xml, name, (element) => {
    const raw = elementContent(element)
    if (raw.includes('<')) return element
    const text = decodeXml(raw)
    const edited = edit(text)
    return edited === text ? element : withContent(element, escapeXml(edited))
  })
}

function shiftFormulaElements(xml: string, name: string, title: string, shift: RowShift): string {
  return eachText(xml, name, (formula) => shiftFormulaRefs(formula, title, shift))
}

/** The selection and the pane's first cell stay on the rows they showed (a removed row: the one taking its place). */
function shiftViews(views: string, shift: RowShift): string {
  const cell = (value: string) =>
    value.replace(/^(\$?[A-Za-z]{1,3}\$?)(\d+)$/, (_w, column: string, row: string) => `${column}${shift.edge(Number(row))}`)
  let out = eachElement(views, 'pane', (element) => shiftAttribute(element, 'topLeftCell', cell))
  out = eachElement(out, 'selection', (element) => {
    let edited = shiftAttribute(element, 'activeCell', cell)!
    const active = attributeOf(edited, 'activeCell')
    edited = shiftAttribute(edited, 'sqref', (value) => shiftSqref(value, shift) ?? active ?? 'A1')!
    return edited
  })
  return out
}

/** A page break stays before the row that followed it; two that meet are one. */
function shiftBreaks(breaks: string, shift: RowShift): string {
  const seen = new Set<number>()
  let manual = 0
  const content = eachElement(elementContent(breaks), 'brk', (element) => {
    const id = Number(attributeOf(element, 'id') ?? Number.NaN)
    if (!Number.isInteger(id)) return element
    const moved = shift.edge(id + 1) - 1
    if (seen.has(moved)) return undefined
    seen.add(moved)
    const man = attributeOf(element, 'man')
    if (man === '1' || man === 'true') manual++
    return moved === id ? element : withAttribute(element, 'id', String(moved))
  })
  if (seen.size === 0) return breaks
  let out = withContent(breaks, content)
  if (attributeOf(out, 'count') !== undefined) out = withAttribute(out, 'count', String(seen.size))
  if (attributeOf(out, 'manualBreakCount') !== undefined) out = withAttribute(out, 'manualBreakCount', String(manual))
  return out
}

/** Excel 2010's conditional formats and validations (in the worksheet's extensions) name their cells in `<xm:sqref>`. */
function shiftExtensions(extensions: string, shift: RowShift): string {
  let out = extensions
  for (const name of ['conditionalFormatting', 'dataValidation']) {
    out = eachElement(out, name, (element) => {
      const sqref = /<((?:[\w.-]+:)?)sqref>([^<]*)<\/\1sqref>/.exec(element)
      if (sqref === null) return element
      const moved = shiftSqref(decodeXml(sqref[2]!), shift)
      if (moved === undefined) return undefined
      return element.replace(sqref[0], `<${sqref[1]}sqref>${escapeXml(moved)}</${sqref[1]}sqref>`)
    })
  }
  return out
}

/** A note goes with its cell's row. */
export function shiftComments(xml: string, shift: RowShift): string {
  return eachElement(xml, 'comment', (element) => shiftAttribute(element, 'ref', (value) => shiftRef(value, shift)))
}

/**
 * The legacy drawing of notes: a note's shape names its cell (`<x:Row>`, 0-based) and where its box is
 * drawn (`<x:Anchor>`: column, offset, row, offset of two corners). A note of a removed row goes; the
 * box moves with the rows. Other shapes (form controls) move with the rows too.
 */
export function shiftVml(xml: string, shift: RowShift): string {
  return eachElement(xml, 'shape', (shape) => {
    const row = /<((?:[\w.-]+:)?)Row>\s*(\d+)\s*<\/\1Row>/.exec(shape)
    let out = shape
    if (row !== null) {
      const moved = shift.row(Number(row[2]) + 1)
      if (moved === undefined) return undefined
      out = out.replace(row[0], `<${row[1]}Row>${moved - 1}</${row[1]}Row>`)
    }
    return out.replace(/(<((?:[\w.-]+:)?)Anchor>)([^<]*)(<\/\2Anchor>)/, (_w, open: string, _p: string, anchor: string, close: string) => {
      const numbers = anchor.split(',').map((part) => part.trim())
      if (numbers.length !== 8 || !numbers.every((part) => /^\d+$/.test(part))) return `${open}${anchor}${close}`
      for (const i of [2, 6]) {
        const from = Number(numbers[i])
        const to = shift.edge(from + 1) - 1
        if (to !== from && shift.row(from + 1) === undefined) numbers[i + 1] = '0'
        numbers[i] = String(to)
      }
      return `${open} ${numbers.join(', ')}${close}`
    })
  })
}

/**
 * Pictures and charts anchored to cells (`<xdr:from>`/`<xdr:to>`, rows 0-based): a corner on a removed row
 * goes to the top of the row taking its place. One that keeps its size (`editAs` oneCell or absolute) moves
 * its lower corner as far as its upper one.
 */
export function shiftDrawing(xml: string, shift: RowShift): string {
  let out = xml
  for (const anchor of ['twoCellAnchor', 'oneCellAnchor']) {
    out = eachElement(out, anchor, (element) => {
      const keepsSize = /\beditAs\s*=\s*["'](oneCell|absolute)["']/.test(startTagAttributes(element))
      let delta = 0
      return element.replace(
        /(<((?:[\w.-]+:)?)(from|to)>[\s\S]*?<\2row>)(\d+)(<\/\2row>\s*<\2rowOff>)(-?\d+)(<\/\2rowOff>)/g,
        (_w, before: string, _p: string, corner: string, row: string, middle: string, offset: string, after: string) => {
          const old = Number(row)
          let moved: number
          let newOffset = offset
          if (corner === 'to' && keepsSize) moved = old + delta
          else {
            moved = shift.edge(old + 1) - 1
            if (shift.row(old + 1) === undefined) newOffset = '0'
            if (corner === 'from') delta = moved - old
          }
          return `${before}${moved}${middle}${newOffset}${after}`
        },
      )
    })
  }
  return out
}

/** A table's range (and its filter's and sort's) loses the removed rows; one whose rows are all removed keeps its range. */
export function shiftTable(xml: string, shift: RowShift): string {
  let out = xml
  for (const name of ['table', 'autoFilter', 'sortState', 'sortCondition']) {
    out = out.replace(new RegExp(`<(?:[\\w.-]+:)?${name}\\b(?:[^>"']|"[^"]*"|'[^']*')*?/?>`, 'g'), (tag) => {
      return shiftAttribute(tag, 'ref', (value) => shiftRef(value, shift)) ?? tag
    })
  }
  return out
}
