/**
 * Text in and out of SpreadsheetML, exactly: XML's own escapes and line-end
 * rule, and Excel's `_xHHHH_` escapes for characters XML 1.0 cannot hold.
 *
 * Excel writes a control character, U+FFFE/U+FFFF or a lone surrogate in cell
 * text as `_xHHHH_`, and a literal `_xHHHH_` typed by a person as
 * `_x005F_xHHHH_`; Excel and LibreOffice decode both, in shared and inline
 * strings. A carriage return is written as the character reference `&#13;`
 * (an XML reader turns a raw CR into LF): every reader keeps it, exceljs's
 * inline-string reader included, which does not decode `_xHHHH_`.
 */

// A lone surrogate, a control character XML 1.0 forbids (and CR, which an XML reader turns into LF),
// U+FFFE/U+FFFF, or a literal `_xHHHH_`.
const NEEDS_EXCEL_ESCAPE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\u0000-\u0008\u000b-\u000d\u000e-\u001f\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)/g

function excelEscape(c: string): string {
  return `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`
}

/** Text as Excel stores it in a `<t>` element: characters XML cannot hold, CR, and literal escapes, as `_xHHHH_`. */
export function excelEscapeText(text: string): string {
  return text.replace(NEEDS_EXCEL_ESCAPE, excelEscape)
}

// CR, LF and tab as references: an XML reader turns a raw CR into LF, and any of them into a space in an attribute.
const XML_ESCAPE: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\r': '&#13;',
  '\n': '&#10;',
  '\t': '&#9;',
}

const CELL_TEXT =
  /[&<>\r]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)/g

/** Cell text (`<t>`), escaped for XML and for Excel, in one pass. */
export function escapeCellText(text: string): string {
  return text.replace(CELL_TEXT, (c) => XML_ESCAPE[c] ?? excelEscape(c))
}

const ATTRIBUTE =
  /[&<>"\r\n\t]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** An attribute value (between double quotes) or a formula's text; characters XML cannot hold are dropped. */
export function escapeXml(text: string): string {
  return text.replace(ATTRIBUTE, (c) => XML_ESCAPE[c] ?? '')
}

const ENTITY = /&(?:#(\d+)|#x([0-9A-Fa-f]+)|(lt|gt|amp|quot|apos));/g
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

/** XML character data as a reader sees it: line ends normalised to LF, then references decoded. */
export function decodeXml(raw: string): string {
  let text = raw
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n')
  if (!text.includes('&')) return text
  return text.replace(ENTITY, (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED[name]!
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16)
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole
  })
}

/** An attribute value as a reader sees it (whitespace characters other than references become spaces). */
export function decodeAttribute(raw: string): string {
  return decodeXml(raw.replace(/[\r\n\t]/g, ' '))
}

const EXCEL_ESCAPE = /_x([0-9A-Fa-f]{4})_/g

/** Cell text with Excel's `_xHHHH_` escapes decoded (`_x005F_` is the underscore, so a literal escape survives). */
export function decodeExcelText(text: string): string {
  if (!text.includes('_x')) return text
  return text.replace(EXCEL_ESCAPE, (_whole, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}

/** The text of a `<t>` element's raw content. */
export function decodeCellText(raw: string): string {
  return decodeExcelText(decodeXml(raw))
}

const ATTRIBUTES = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g

/** The attributes of a start tag (or of the text between its name and `>`), decoded. */
export function parseAttributes(tag: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const match of tag.matchAll(ATTRIBUTES)) out.set(match[1]!, decodeAttribute(match[2] ?? match[3] ?? ''))
  return out
}

/** Serialises attributes in the given order, skipping undefined ones. */
export function attributes(values: ReadonlyArray<readonly [string, string | number | undefined]>): string {
  let out = ''
  for (const [name, value] of values) if (value !== undefined) out += ` ${name}="${escapeXml(String(value))}"`
  return out
}

/**
 * A copy of `text` that is no view of a longer string. V8 copies a cut shorter than 13 characters anyway;
 * a longer one is cut from a string of its own (appending makes one, cutting flattens it).
 */
export function ownText(text: string): string {
  return text.length < 13 ? text : (text + ' ').slice(0, -1)
}
