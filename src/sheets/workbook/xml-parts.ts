/**
 * Editing XML parts as text: finding an element, its children at the top
 * level, and putting one in its place. Everything not edited stays the text it
 * was, so a part the tool only adds to keeps the rest of its bytes.
 */
import { InternalError } from '../../errors.ts'

/** A piece of an element's content at the top level: an element (with its local name) or text between. */
export interface XmlPiece {
  /** Local name of the element; `''` for text, comments and processing instructions. */
  name: string
  xml: string
}

const TAG = /<(\/?)([A-Za-z_][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>/g

/** Splits a fragment of element content into its top-level elements and the text between them. */
export function topLevel(fragment: string): XmlPiece[] {
  const pieces: XmlPiece[] = []
  let depth = 0
  let start = 0
  let name = ''
  let textStart = 0
  TAG.lastIndex = 0
  for (let match = TAG.exec(fragment); match !== null; match = TAG.exec(fragment)) {
    const [whole, closing, qualified, , selfClosing] = match
    if (qualified === undefined) continue
    if (closing === '/') {
      depth--
      if (depth === 0) {
        pieces.push({ name, xml: fragment.slice(start, match.index + whole.length) })
        textStart = match.index + whole.length
      }
      if (depth < 0) throw new XmlPartError(`unexpected </${qualified}>`)
      continue
    }
    if (depth === 0) {
      if (match.index > textStart) pieces.push({ name: '', xml: fragment.slice(textStart, match.index) })
      start = match.index
      name = localName(qualified)
      if (selfClosing === '/') {
        pieces.push({ name, xml: whole })
        textStart = match.index + whole.length
        continue
      }
    }
    if (selfClosing !== '/') depth++
  }
  if (depth !== 0) throw new XmlPartError('an element is not closed')
  if (textStart < fragment.length) pieces.push({ name: '', xml: fragment.slice(textStart) })
  return pieces
}

export function localName(qualified: string): string {
  const colon = qualified.indexOf(':')
  return colon < 0 ? qualified : qualified.slice(colon + 1)
}

/** A part this tool cannot edit as XML. */
export class XmlPartError extends InternalError {
  readonly code = 'TS_WORKBOOK'
  readonly convertedBy = 'reading and writing (sheets/workbook/backend.ts): each read, layout and write of the workbook names the file'
}

/** The root element of a part: the text up to and including its start tag, its content, and its end tag with what follows. */
export interface RootSplit {
  head: string
  content: string
  tail: string
  /** Namespace prefix of the root element, with its colon (`''` for the default namespace). */
  prefix: string
}

export function splitRoot(xml: string): RootSplit {
  TAG.lastIndex = 0
  for (let match = TAG.exec(xml); match !== null; match = TAG.exec(xml)) {
    const [whole, closing, qualified, , selfClosing] = match
    if (qualified === undefined || closing === '/') continue
    const colon = qualified.indexOf(':')
    const prefix = colon < 0 ? '' : qualified.slice(0, colon + 1)
    const headEnd = match.index + whole.length
    if (selfClosing === '/')
      return {
        head: xml.slice(0, match.index) + whole.slice(0, -2) + '>',
        content: '',
        tail: `</${qualified}>` + xml.slice(headEnd),
        prefix,
      }
    const end = xml.lastIndexOf(`</${qualified}`)
    if (end < headEnd) throw new XmlPartError(`its <${qualified}> element is not closed`)
    return { head: xml.slice(0, headEnd), content: xml.slice(headEnd, end), tail: xml.slice(end), prefix }
  }
  throw new XmlPartError('it has no root element')
}

/** The attributes text of an element's start tag (`<a x="1">` → ` x="1"`). */
export function startTagAttributes(xml: string): string {
  const match = /^<[A-Za-z_][\w:.-]*((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/.exec(xml)
  return match?.[1] ?? ''
}

/** The content of an element given whole (`<a …>content</a>`); `''` for a self-closing one. */
export function elementContent(xml: string): string {
  const open = /^<[A-Za-z_][\w:.-]*(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>/.exec(xml)
  if (open === null || open[1] === '/') return ''
  const close = xml.lastIndexOf('</')
  return close < open[0].length ? '' : xml.slice(open[0].length, close)
}

/** Puts `children` inside the element `xml` in place of its content, keeping its start tag (made non-self-closing). */
export function withContent(xml: string, content: string): string {
  const open = /^<([A-Za-z_][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/.exec(xml)
  if (open === null) throw new XmlPartError('not an element')
  return `<${open[1]}${open[2]}>${content}</${open[1]}>`
}

/** Sets (or adds) one attribute in a start tag given as the element's text. */
export function withAttribute(xml: string, name: string, value: string): string {
  const open = /^<([A-Za-z_][\w:.-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?>)/.exec(xml)
  if (open === null) throw new XmlPartError('not an element')
  const pattern = new RegExp(`(\\s${name.replace(/[.:]/g, '\\$&')}\\s*=\\s*)("[^"]*"|'[^']*')`)
  const attributes = pattern.test(open[2]!) ? open[2]!.replace(pattern, `$1"${value}"`) : `${open[2]} ${name}="${value}"`
  return `<${open[1]}${attributes}${open[3]}${xml.slice(open[0].length)}`
}
