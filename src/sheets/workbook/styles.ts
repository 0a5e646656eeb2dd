/**
 * The workbook's styles part (`xl/styles.xml`), read for what the layout
 * checks (a cell format's number format, bold, wrap, locked) and added to
 * when the layout needs a format that is not there yet. Formats are only ever
 * appended: every style index already in the file keeps its meaning, so the
 * cells of managers' tabs look as they did. Nothing appended, nothing changes.
 *
 * Longer than most files because the styles part is one XML document with cross-references (fonts, fills,
 * number formats, cell formats) that must be appended to consistently.
 */
import { XmlPartError, elementContent, splitRoot, startTagAttributes, topLevel, withAttribute, type XmlPiece } from './xml-parts.ts'
import { escapeXml, parseAttributes } from './xml-text.ts'

/** What the layout sets on a cell format; anything not named stays as it is. */
export interface StylePatch {
  numFmt?: string
  bold?: true
  wrap?: true
  /** Text to the right edge, as numbers are (the Summary's column headings). */
  alignRight?: true
  locked?: boolean
}

/** Excel's built-in number formats that have a fixed code (ECMA-376 §18.8.30). */
const BUILTIN_FORMATS: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'mm-dd-yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
}

/** The first id Excel leaves to a workbook's own number formats. */
const FIRST_CUSTOM_FORMAT = 164

/** One list of the part (`numFmts`, `fonts`, `cellXfs`, `dxfs`): its items as written and the ones added. */
interface StyleList {
  items: string[]
  added: string[]
}

const LISTS = ['numFmts', 'fonts', 'cellXfs', 'dxfs'] as const
type ListName = (typeof LISTS)[number]
const ITEM: Record<ListName, string> = { numFmts: 'numFmt', fonts: 'font', cellXfs: 'xf', dxfs: 'dxf' }
/** Where each element of the part goes (CT_Stylesheet's sequence). */
const ORDER = ['numFmts', 'fonts', 'fills', 'borders', 'cellStyleXfs', 'cellXfs', 'cellStyles', 'dxfs', 'tableStyles', 'colors', 'extLst']

/** A new workbook's styles: one font, the two fills Excel requires, one border, the Normal style. */
export const DEFAULT_STYLES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<fonts count="1"><font><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '<dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/>' +
  '</styleSheet>'

export class Styles {
  readonly #xml: string
  readonly #prefix: string
  readonly #lists: Record<ListName, StyleList>
  readonly #formats = new Map<number, string>()
  readonly #derived = new Map<string, number>()

  constructor(xml: string) {
    this.#xml = xml
    const root = splitRoot(xml)
    this.#prefix = root.prefix
    const children = topLevel(root.content)
    const list = (name: ListName): StyleList => {
      const element = children.find((piece) => piece.name === name)
      const items =
        element === undefined
          ? []
          : topLevel(elementContent(element.xml))
              .filter((piece) => piece.name === ITEM[name])
              .map((piece) => piece.xml)
      return { items, added: [] }
    }
    this.#lists = { numFmts: list('numFmts'), fonts: list('fonts'), cellXfs: list('cellXfs'), dxfs: list('dxfs') }
    if (this.#lists.cellXfs.items.length === 0) throw new XmlPartError('its styles part has no cell formats')
    for (const item of this.#lists.numFmts.items) {
      const attributes = parseAttributes(startTagAttributes(item))
      const id = Number(attributes.get('numFmtId'))
      if (Number.isInteger(id)) this.#formats.set(id, attributes.get('formatCode') ?? '')
    }
  }

  /** Whether anything was appended since the part was read. */
  get changed(): boolean {
    return LISTS.some((name) => this.#lists[name].added.length > 0)
  }

  #all(name: ListName): string[] {
    const list = this.#lists[name]
    return list.added.length === 0 ? list.items : [...list.items, ...list.added]
  }

  #xf(index: number | undefined): Xf {
    const items = this.#all('cellXfs')
    return parseXf(items[index ?? 0] ?? items[0]!)
  }

  /** The number format code of cell format `index` (`General` when it has none). */
  numberFormat(index: number | undefined): string {
    const id = Number(this.#xf(index).attributes.get('numFmtId') ?? 0)
    return this.#formats.get(id) ?? BUILTIN_FORMATS[id] ?? 'General'
  }

  /** Whether cell format `index` locks its cells when the sheet is protected (the default). */
  locked(index: number | undefined): boolean {
    const value = this.#xf(index).protection.get('locked')
    return value === undefined || !isFalse(value)
  }

  wraps(index: number | undefined): boolean {
    const value = this.#xf(index).alignment.get('wrapText')
    return value !== undefined && !isFalse(value)
  }

  bold(index: number | undefined): boolean {
    const fontId = Number(this.#xf(index).attributes.get('fontId') ?? 0)
    const font = this.#all('fonts')[fontId] ?? ''
    const bold = /<(?:[\w.-]+:)?b(\s[^>]*)?\/?>/.exec(font)
    if (bold === null) return false
    const value = /\bval\s*=\s*["']([^"']*)["']/.exec(bold[1] ?? '')?.[1]
    return value === undefined || !isFalse(value)
  }

  /** The index of a cell format like `index` with `patch` applied: an existing one that matches, else one appended. */
  derive(index: number | undefined, patch: StylePatch): number {
    const memo = `${index ?? 0}|${patch.numFmt ?? ''}|${patch.bold ?? ''}|${patch.wrap ?? ''}|${patch.locked ?? ''}|${patch.alignRight ?? ''}`
    const known = this.#derived.get(memo)
    if (known !== undefined) return known
    const xf = this.#xf(index)
    if (patch.numFmt !== undefined) {
      xf.attributes.set('numFmtId', String(this.#formatId(patch.numFmt)))
      xf.attributes.set('applyNumberFormat', '1')
    }
    if (patch.bold === true && !this.bold(index)) {
      xf.attributes.set('fontId', String(this.#boldFont(Number(xf.attributes.get('fontId') ?? 0))))
      xf.attributes.set('applyFont', '1')
    }
    if (patch.wrap === true) {
      xf.alignment.set('wrapText', '1')
      xf.alignment.set('vertical', 'top')
      xf.attributes.set('applyAlignment', '1')
    }
    if (patch.alignRight === true) {
      xf.alignment.set('horizontal', 'right')
      xf.attributes.set('applyAlignment', '1')
    }
    if (patch.locked !== undefined) {
      // Locked is the default: leaving the attribute out matches the formats Excel and exceljs write.
      if (patch.locked) xf.protection.delete('locked')
      else xf.protection.set('locked', '0')
      xf.attributes.set('applyProtection', '1')
    }
    const wanted = canonical(xf)
    const items = this.#all('cellXfs')
    let found = items.findIndex((item) => canonical(parseXf(item)) === wanted)
    if (found < 0) {
      this.#lists.cellXfs.added.push(serialiseXf(xf, this.#prefix))
      found = items.length
    }
    this.#derived.set(memo, found)
    return found
  }

  #formatId(code: string): number {
    for (const [id, known] of this.#formats) if (known === code) return id
    for (const [id, known] of Object.entries(BUILTIN_FORMATS)) if (known === code) return Number(id)
    let id = FIRST_CUSTOM_FORMAT
    for (const known of this.#formats.keys()) if (known >= id) id = known + 1
    this.#formats.set(id, code)
    this.#lists.numFmts.added.push(`<${this.#prefix}numFmt numFmtId="${id}" formatCode="${escapeXml(code)}"/>`)
    return id
  }

  #boldFont(fontId: number): number {
    const fonts = this.#all('fonts')
    const base = fonts[fontId] ?? fonts[0] ?? `<${this.#prefix}font/>`
    // `b` is the first child of a font (CT_Font); a `<b val="0"/>` is replaced.
    const stripped = base.replace(/<(?:[\w.-]+:)?b(\s[^>]*)?\/>/, '')
    const open = /^<([\w:.-]+)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/.exec(stripped)!
    const bold = `<${open[1]}${open[2]}><${this.#prefix}b/>${open[3] === '/' ? '' : stripped.slice(open[0].length, stripped.lastIndexOf('</'))}</${open[1]}>`
    const found = fonts.indexOf(bold)
    if (found >= 0) return found
    this.#lists.fonts.added.push(bold)
    return fonts.length
  }

  /**
   * The index of a differential format (conditional formatting) with these colours (`RRGGBB` or
   * `AARRGGBB`): a font colour, bold, a solid fill; an existing equal one is reused.
   */
  differentialFormat(format: { font?: string; bold?: boolean; fill?: string }): number {
    const p = this.#prefix
    const argb = (colour: string) => (colour.length === 6 ? `FF${colour}` : colour).toUpperCase()
    const font =
      format.font === undefined && format.bold !== true
        ? ''
        : `<${p}font>${format.bold === true ? `<${p}b/>` : ''}${format.font === undefined ? '' : `<${p}color rgb="${argb(format.font)}"/>`}</${p}font>`
    // A dxf's solid fill takes its colour from bgColor (ECMA-376 §18.8.20).
    const fill =
      format.fill === undefined
        ? ''
        : `<${p}fill><${p}patternFill patternType="solid"><${p}bgColor rgb="${argb(format.fill)}"/></${p}patternFill></${p}fill>`
    const dxf = `<${p}dxf>${font}${fill}</${p}dxf>`
    const all = this.#all('dxfs')
    const found = all.indexOf(dxf)
    if (found >= 0) return found
    this.#lists.dxfs.added.push(dxf)
    return all.length
  }

  /** The part with what was appended; the very text it was read from when nothing was. */
  toXml(): string {
    if (!this.changed) return this.#xml
    const root = splitRoot(this.#xml)
    const children = topLevel(root.content)
    for (const name of LISTS) {
      const list = this.#lists[name]
      if (list.added.length === 0) continue
      const at = children.findIndex((piece) => piece.name === name)
      const count = String(list.items.length + list.added.length)
      if (at >= 0) {
        const element = children[at]!
        const content = elementContent(element.xml) + list.added.join('')
        const open = /^<([\w:.-]+)((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/.exec(element.xml)!
        children[at] = { name, xml: withAttribute(`<${open[1]}${open[2]}>${content}</${open[1]}>`, 'count', count) }
      } else {
        insertInOrder(
          children,
          { name, xml: `<${this.#prefix}${name} count="${count}">${list.added.join('')}</${this.#prefix}${name}>` },
          ORDER,
        )
      }
    }
    return root.head + children.map((piece) => piece.xml).join('') + root.tail
  }
}

/** Puts `piece` before the first sibling that comes after it in `order` (unknown siblings keep their place). */
export function insertInOrder(children: XmlPiece[], piece: XmlPiece, order: readonly string[]): void {
  const rank = order.indexOf(piece.name)
  const before = children.findIndex((child) => {
    const other = order.indexOf(child.name)
    return other > rank
  })
  if (before >= 0) children.splice(before, 0, piece)
  else children.push(piece)
}

interface Xf {
  name: string
  attributes: Map<string, string>
  alignment: Map<string, string>
  protection: Map<string, string>
  /** Children other than alignment and protection (an extLst), as written. */
  rest: string
}

function parseXf(xml: string): Xf {
  const open = /^<([\w:.-]+)/.exec(xml)
  const xf: Xf = {
    name: open?.[1] ?? 'xf',
    attributes: parseAttributes(startTagAttributes(xml)),
    alignment: new Map(),
    protection: new Map(),
    rest: '',
  }
  for (const child of topLevel(elementContent(xml))) {
    if (child.name === 'alignment') xf.alignment = parseAttributes(startTagAttributes(child.xml))
    else if (child.name === 'protection') xf.protection = parseAttributes(startTagAttributes(child.xml))
    else if (child.name !== '') xf.rest += child.xml
  }
  return xf
}

function sorted(map: Map<string, string>): string {
  return [...map]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')
}

function canonical(xf: Xf): string {
  return `${sorted(xf.attributes)}|${sorted(xf.alignment)}|${sorted(xf.protection)}|${xf.rest}`
}

function serialiseXf(xf: Xf, prefix: string): string {
  const attributes = (map: Map<string, string>) => [...map].map(([k, v]) => ` ${k}="${escapeXml(v)}"`).join('')
  let children = ''
  if (xf.alignment.size > 0) children += `<${prefix}alignment${attributes(xf.alignment)}/>`
  if (xf.protection.size > 0) children += `<${prefix}protection${attributes(xf.protection)}/>`
  children += xf.rest
  return children === '' ? `<${xf.name}${attributes(xf.attributes)}/>` : `<${xf.name}${attributes(xf.attributes)}>${children}</${xf.name}>`
}

function isFalse(value: string): boolean {
  return value === '0' || value === 'false'
}
