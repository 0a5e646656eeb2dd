/**
 * How a tool tab prints and filters: landscape, as wide as one page (as many pages down as it takes),
 * and on Activities an autofilter over the header and the data rows. The manager's other page settings
 * (paper size, margins, a filter they set on a column) stay.
 */
import type { SheetParts } from './sheet-parts.ts'
import { columnName } from './sheet-xml.ts'
import { elementContent, startTagAttributes, topLevel, withAttribute, withContent } from './xml-parts.ts'
import { parseAttributes } from './xml-text.ts'

/** Landscape, fit to one page wide; true when it changed. */
export function applyPrintSetup(parts: SheetParts): boolean {
  const before = `${parts.get('sheetPr') ?? ''}${parts.get('pageSetup') ?? ''}`
  const sheetPr = parts.get('sheetPr') ?? '<sheetPr/>'
  const children = topLevel(elementContent(sheetPr)).filter((piece) => piece.name !== '')
  const at = children.findIndex((piece) => piece.name === 'pageSetUpPr')
  const fit = withAttribute(at < 0 ? '<pageSetUpPr/>' : children[at]!.xml, 'fitToPage', '1')
  // pageSetUpPr is the last child CT_SheetPr has.
  if (at < 0) children.push({ name: 'pageSetUpPr', xml: fit })
  else children[at] = { name: 'pageSetUpPr', xml: fit }
  parts.set('sheetPr', withContent(sheetPr, children.map((piece) => piece.xml).join('')))
  let pageSetup = parts.get('pageSetup') ?? '<pageSetup/>'
  for (const [name, value] of [
    ['orientation', 'landscape'],
    ['fitToWidth', '1'],
    ['fitToHeight', '0'],
  ] as const)
    pageSetup = withAttribute(pageSetup, name, value)
  parts.set('pageSetup', pageSetup)
  return `${parts.get('sheetPr')}${parts.get('pageSetup')}` !== before
}

/** The autofilter's range: the header row down to the last row, over the tool's columns. */
export function filterRange(lastColumn: number, lastRow: number): string {
  return `A1:${columnName(lastColumn)}${Math.max(lastRow, 1)}`
}

/** Puts an autofilter over `ref`, keeping the column filters a manager set; true when it changed. */
export function applyAutoFilter(parts: SheetParts, ref: string): boolean {
  const current = parts.get('autoFilter')
  if (current !== undefined && parseAttributes(startTagAttributes(current)).get('ref') === ref) return false
  parts.set('autoFilter', withAttribute(current ?? '<autoFilter/>', 'ref', ref))
  return true
}

/** After rows were added or removed: the autofilter (when the tab has one) down to the new last row; its new range. */
export function extendAutoFilter(parts: SheetParts, lastRow: number): string | undefined {
  const current = parts.get('autoFilter')
  if (current === undefined) return undefined
  const ref = parseAttributes(startTagAttributes(current)).get('ref') ?? ''
  const match = /^\$?A\$?1:\$?([A-Z]{1,3})\$?\d+$/.exec(ref)
  if (match === null) return undefined
  const wanted = `A1:${match[1]}${Math.max(lastRow, 1)}`
  if (wanted !== ref) parts.set('autoFilter', withAttribute(current, 'ref', wanted))
  return wanted
}
