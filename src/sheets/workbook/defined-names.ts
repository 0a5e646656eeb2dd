/**
 * The built-in names of a tab in `xl/workbook.xml`: the rows printed on every page
 * (`_xlnm.Print_Titles`) and the range of its autofilter (`_xlnm._FilterDatabase`, which LibreOffice
 * reads to find the filter). A name is set in place; every other name of the workbook keeps its text.
 */
import { elementContent, splitRoot, startTagAttributes, topLevel, withContent } from './xml-parts.ts'
import { escapeXml, parseAttributes } from './xml-text.ts'

/** One name local to a tab: the tab by its title, the name, and its formula (`'Activities'!$1:$1`). */
export interface SheetName {
  sheet: string
  name: string
  formula: string
}

// CT_Workbook's sequence up to `definedNames`.
const BEFORE_DEFINED_NAMES = [
  'fileVersion',
  'fileSharing',
  'workbookPr',
  'workbookProtection',
  'bookViews',
  'sheets',
  'functionGroups',
  'externalReferences',
]

/** `'Tab name'!` for a formula. */
export function sheetReference(title: string): string {
  return `'${title.replaceAll("'", "''")}'!`
}

/** The workbook part with these names set (a name already equal leaves the text as it was). */
export function setSheetNames(workbookXml: string, names: readonly SheetName[]): string {
  if (names.length === 0) return workbookXml
  const root = splitRoot(workbookXml)
  const children = topLevel(root.content)
  const sheets = children.find((piece) => piece.name === 'sheets')
  // localSheetId is the tab's position among all <sheet> elements (chart sheets count too).
  const positions = new Map<string, number>()
  for (const [i, sheet] of topLevel(sheets === undefined ? '' : elementContent(sheets.xml))
    .filter((piece) => piece.name === 'sheet')
    .entries()) {
    const name = parseAttributes(startTagAttributes(sheet.xml)).get('name')
    if (name !== undefined) positions.set(name, i)
  }
  let at = children.findIndex((piece) => piece.name === 'definedNames')
  if (at < 0) {
    at = 0
    children.forEach((piece, i) => {
      if (BEFORE_DEFINED_NAMES.includes(piece.name)) at = i + 1
    })
    children.splice(at, 0, { name: 'definedNames', xml: `<${root.prefix}definedNames></${root.prefix}definedNames>` })
  }
  const element = children[at]!
  const items = topLevel(elementContent(element.xml))
  for (const { sheet, name, formula } of names) {
    const position = positions.get(sheet)
    if (position === undefined) continue
    const found = items.find((piece) => {
      if (piece.name !== 'definedName') return false
      const attributes = parseAttributes(startTagAttributes(piece.xml))
      return attributes.get('name') === name && attributes.get('localSheetId') === String(position)
    })
    const hidden = name === '_xlnm._FilterDatabase' ? ' hidden="1"' : ''
    if (found === undefined) {
      items.push({
        name: 'definedName',
        xml: `<${root.prefix}definedName name="${name}" localSheetId="${position}"${hidden}>${escapeXml(formula)}</${root.prefix}definedName>`,
      })
    } else if (elementContent(found.xml) !== escapeXml(formula)) {
      found.xml = withContent(found.xml, escapeXml(formula))
    }
  }
  children[at] = { name: 'definedNames', xml: withContent(element.xml, items.map((piece) => piece.xml).join('')) }
  return root.head + children.map((piece) => piece.xml).join('') + root.tail
}
