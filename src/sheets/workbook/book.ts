/**
 * The package around the sheets: which tabs the workbook has and where each
 * one's part is (`xl/workbook.xml` and its relationships), its shared strings
 * and styles, and the few edits the tool makes to the package itself: a new
 * tab (its `<sheet>`, relationship and content type) and, when it rewrites a
 * sheet that held formulas, dropping Excel's calculation chain (which would
 * otherwise point at cells that no longer hold them; Excel rebuilds it).
 *
 * Longer than most files because the package parts it edits (workbook, relationships, content types, defined
 * names) refer to each other and change together.
 */
import { TimelineSheetsError } from '../../errors.ts'
import { setSheetNames, type SheetName } from './defined-names.ts'
import { richText } from './sheet-xml.ts'
import { Styles, DEFAULT_STYLES_XML } from './styles.ts'
import { XmlPartError, splitRoot, topLevel } from './xml-parts.ts'
import { escapeXml, ownText, parseAttributes } from './xml-text.ts'
import {
  compressPart,
  entryBytes,
  entryChunks,
  entryText,
  readZip,
  writeZip,
  type CompressedPart,
  type ZipArchive,
  type ZipEntry,
  type ZipItem,
} from './zip.ts'

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const RELATIONSHIPS_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
const WORKSHEET_TYPE = `${REL}/worksheet`
const WORKSHEET_CONTENT = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml'

/** One tab of the workbook. */
export interface BookSheet {
  name: string
  /** The zip entry of its worksheet part. */
  part: string
}

/** A workbook as read: its archive and the parts that say what is in it. */
export interface Book {
  archive: ZipArchive | undefined
  workbookPart: string
  workbookXml: string
  relsPart: string
  relsXml: string
  contentTypesXml: string
  sheets: BookSheet[]
  stylesPart: string | undefined
  sharedStringsPart: string | undefined
  calcChainPart: string | undefined
}

/** The parts of a workbook that does not exist yet; its tabs come from the layout. */
export function emptyBook(): Book {
  return {
    archive: undefined,
    workbookPart: 'xl/workbook.xml',
    workbookXml:
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${MAIN_NS}" xmlns:r="${RELATIONSHIPS_NS}">` +
      '<workbookPr/><bookViews><workbookView/></bookViews><sheets></sheets><calcPr calcId="191029"/></workbook>',
    relsPart: 'xl/_rels/workbook.xml.rels',
    relsXml:
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    contentTypesXml:
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
      '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
      '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>' +
      '</Types>',
    sheets: [],
    stylesPart: 'xl/styles.xml',
    sharedStringsPart: undefined,
    calcChainPart: undefined,
  }
}

/** The other parts a new workbook gets once, with the time it was made. */
function newPackageParts(created: Date): Array<[string, string]> {
  const when = created.toISOString().replace(/\.\d{3}Z$/, 'Z')
  return [
    [
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
        '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>' +
        '</Relationships>',
    ],
    [
      'docProps/core.xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ' +
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
        `<dc:creator>timeline-sheets</dc:creator><dcterms:created xsi:type="dcterms:W3CDTF">${when}</dcterms:created>` +
        `<dcterms:modified xsi:type="dcterms:W3CDTF">${when}</dcterms:modified></cp:coreProperties>`,
    ],
    [
      'docProps/app.xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">' +
        '<Application>timeline-sheets</Application></Properties>',
    ],
  ]
}

/** Reads the package structure of an .xlsx; the sheets' own parts are read only when asked for. */
export function openBook(bytes: Uint8Array, file: string): Book {
  const archive = readZip(bytes)
  const text = (name: string) => {
    const entry = findEntry(archive, name)
    return entry === undefined ? undefined : entryBytes(archive, entry).toString('utf8')
  }
  const contentTypesXml = text('[Content_Types].xml')
  if (contentTypesXml === undefined) throw new XmlPartError('it has no [Content_Types].xml, so it is no Office file')
  const rootRels = text('_rels/.rels')
  const officeDocument = rootRels === undefined ? undefined : relationships(rootRels).find((rel) => rel.type.endsWith('/officeDocument'))
  const workbookPart = officeDocument === undefined ? 'xl/workbook.xml' : resolveTarget('', officeDocument.target)
  const workbookXml = text(workbookPart)
  if (workbookXml === undefined) throw new XmlPartError(`it has no workbook part (${workbookPart}); it may be a Word or PowerPoint file`)
  const relsPart = relsPartOf(workbookPart)
  const relsXml =
    text(relsPart) ??
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>'
  const folder = workbookPart.slice(0, workbookPart.lastIndexOf('/') + 1)
  const rels = relationships(relsXml)
  const byId = new Map(rels.map((rel) => [rel.id, rel]))
  const partOf = (type: string) => {
    const rel = rels.find((candidate) => candidate.type.endsWith(`/${type}`))
    return rel === undefined ? undefined : partName(archive, resolveTarget(folder, rel.target))
  }

  const properties = /<(?:[\w.-]+:)?workbookPr\b((?:[^>"']|"[^"]*"|'[^']*')*)\/?>/.exec(workbookXml)
  const date1904 = properties === null ? undefined : parseAttributes(properties[1]!).get('date1904')
  if (date1904 === '1' || date1904 === 'true') {
    throw new TimelineSheetsError('TS_WORKBOOK', `The workbook ${file} uses the 1904 date system`, {
      hint: 'Turn off "Use 1904 date system" in Excel (File › Options › Advanced) or start from a new workbook.',
    })
  }

  const sheets: BookSheet[] = []
  for (const match of workbookXml.matchAll(/<(?:[\w.-]+:)?sheet\b((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/g)) {
    const attributes = parseAttributes(match[1]!)
    const name = attributes.get('name')
    const id = [...attributes].find(([key]) => key.endsWith(':id'))?.[1]
    const rel = id === undefined ? undefined : byId.get(id)
    // A chart sheet or dialog sheet is no worksheet: the tool never reads or writes it.
    if (name === undefined || rel === undefined || !rel.type.endsWith('/worksheet')) continue
    sheets.push({ name, part: partName(archive, resolveTarget(folder, rel.target)) })
  }
  return {
    archive,
    workbookPart,
    workbookXml,
    relsPart,
    relsXml,
    contentTypesXml,
    sheets,
    stylesPart: partOf('styles'),
    sharedStringsPart: partOf('sharedStrings'),
    calcChainPart: partOf('calcChain'),
  }
}

function findEntry(archive: ZipArchive, name: string): ZipEntry | undefined {
  const exact = archive.byName.get(name)
  if (exact !== undefined) return exact
  // Part names are case-insensitive in a package.
  const lower = name.toLowerCase()
  return archive.entries.find((entry) => entry.name.toLowerCase() === lower)
}

function partName(archive: ZipArchive, name: string): string {
  return findEntry(archive, name)?.name ?? name
}

/** The entry of a part, when it is in the archive. */
export function bookEntry(book: Book, part: string): ZipEntry | undefined {
  return book.archive === undefined ? undefined : findEntry(book.archive, part)
}

/** A part's text, when the archive has it. */
export function partText(book: Book, part: string): string | undefined {
  const entry = bookEntry(book, part)
  return entry === undefined ? undefined : entryBytes(book.archive!, entry).toString('utf8')
}

/** The parts a part refers to in its package (its drawing, comments, tables…), by relationship type's last word. */
export function relatedParts(book: Book, part: string): Array<{ type: string; part: string }> {
  const rels = partText(book, relsPartOf(part))
  if (rels === undefined) return []
  const folder = part.slice(0, part.lastIndexOf('/') + 1)
  return relationships(rels)
    .filter((rel) => !rel.external)
    .map((rel) => ({
      type: rel.type.slice(rel.type.lastIndexOf('/') + 1),
      part: partName(book.archive!, resolveTarget(folder, rel.target)),
    }))
}

/** A worksheet part's text, piece by piece. */
export function sheetText(book: Book, sheet: BookSheet): AsyncIterable<string> {
  return entryText(book.archive!, sheetEntry(book, sheet))
}

/** A worksheet part's bytes, piece by piece (UTF-8, undecoded). */
export function sheetBytes(book: Book, sheet: BookSheet): AsyncIterable<Uint8Array> {
  return entryChunks(book.archive!, sheetEntry(book, sheet))
}

function sheetEntry(book: Book, sheet: BookSheet): ZipEntry {
  const entry = bookEntry(book, sheet.part)
  if (entry === undefined) throw new XmlPartError(`its tab "${sheet.name}" has no part ${sheet.part}`)
  return entry
}

/** The workbook's styles; a new workbook's defaults when it has none. */
export function readStyles(book: Book): Styles {
  const entry = book.stylesPart === undefined ? undefined : bookEntry(book, book.stylesPart)
  return new Styles(entry === undefined ? DEFAULT_STYLES_XML : entryBytes(book.archive!, entry).toString('utf8'))
}

/** The shared string table, in order (empty when the workbook has none). */
export async function readSharedStrings(book: Book): Promise<string[]> {
  const entry = book.sharedStringsPart === undefined ? undefined : bookEntry(book, book.sharedStringsPart)
  if (entry === undefined) return []
  const strings: string[] = []
  const item = /<((?:[\w.-]+:)?)si\b((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g
  let buffer = ''
  for await (const chunk of entryText(book.archive!, entry)) {
    buffer += chunk
    let at = 0
    item.lastIndex = 0
    for (let match = item.exec(buffer); match !== null; match = item.exec(buffer)) {
      const contentStart = match.index + match[0].length
      if (match[3] === '/') {
        strings.push('')
        at = contentStart
        continue
      }
      const close = buffer.indexOf(`</${match[1]}si>`, contentStart)
      if (close < 0) break
      strings.push(ownText(richText(buffer.slice(contentStart, close), match[1])))
      at = close + match[1]!.length + 5
      item.lastIndex = at
    }
    buffer = buffer.slice(at)
  }
  return strings
}

interface Relationship {
  id: string
  type: string
  target: string
  external: boolean
}

function relationships(xml: string): Relationship[] {
  const out: Relationship[] = []
  for (const match of xml.matchAll(/<(?:[\w.-]+:)?Relationship\b((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/g)) {
    const attributes = parseAttributes(match[1]!)
    const id = attributes.get('Id')
    const type = attributes.get('Type')
    const target = attributes.get('Target')
    if (id !== undefined && type !== undefined && target !== undefined)
      out.push({ id, type, target, external: attributes.get('TargetMode') === 'External' })
  }
  return out
}

function relsPartOf(part: string): string {
  const slash = part.lastIndexOf('/')
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`
}

/** A relationship target as a zip entry name: relative to `folder`, or absolute from the package root. */
function resolveTarget(folder: string, target: string): string {
  const path = target.startsWith('/') ? target.slice(1) : folder + target
  const out: string[] = []
  for (const segment of path.split('/')) {
    if (segment === '..') out.pop()
    else if (segment !== '.' && segment !== '') out.push(segment)
  }
  return decodeURIComponentSafe(out.join('/'))
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Sheet names Excel accepts: 1 to 31 characters, none of `[]:*?/\`, no quote at either end. */
export function sheetNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty'
  if (name.length > 31) return 'Excel allows at most 31 characters'
  if (/[[\]:*?/\\]/.test(name)) return 'Excel does not allow any of [ ] : * ? / \\ in a tab name'
  if (name.startsWith("'") || name.endsWith("'")) return 'Excel does not allow a quote at its start or end'
  if (name.toLowerCase() === 'history') return 'Excel keeps the name History for itself'
  return undefined
}

/**
 * The edits of one save: worksheet parts written anew, tabs added, the styles part. Everything else of
 * the archive is copied entry by entry.
 */
export class BookChange {
  readonly book: Book
  readonly #parts = new Map<string, CompressedPart>()
  readonly #added: BookSheet[] = []
  #dropCalcChain = false
  #newStyles: string | undefined
  readonly #names: SheetName[] = []
  readonly #workbookEdits: Array<(workbookXml: string) => string> = []

  constructor(book: Book) {
    this.book = book
  }

  /** Adds a tab at the end (so the positions defined names refer to stay); returns where its part goes. */
  addSheet(name: string): BookSheet {
    const taken = new Set([
      ...(this.book.archive?.entries ?? []).map((entry) => entry.name.toLowerCase()),
      ...this.#added.map((sheet) => sheet.part.toLowerCase()),
    ])
    let n = 1
    while (taken.has(`xl/worksheets/sheet${n}.xml`)) n++
    const sheet = { name, part: `xl/worksheets/sheet${n}.xml` }
    this.#added.push(sheet)
    return sheet
  }

  get addedSheets(): readonly BookSheet[] {
    return this.#added
  }

  /** Sets the new content of a part. */
  setPart(part: CompressedPart): void {
    this.#parts.set(part.name, part)
  }

  /** Sets the styles part, adding it to the package when the workbook had none. */
  setStyles(part: CompressedPart): void {
    this.#parts.set(part.name, part)
    if (this.book.stylesPart === undefined) this.#newStyles = part.name
  }

  /** Sets a name local to a tab (print titles, the autofilter's range) in the workbook part. */
  setSheetName(name: SheetName): void {
    this.#names.push(name)
  }

  /** Edits the workbook part (before the names `setSheetName` sets): the defined names that follow moved rows. */
  editWorkbook(edit: (workbookXml: string) => string): void {
    this.#workbookEdits.push(edit)
  }

  /** A rewritten sheet held formulas: Excel's calculation chain may name cells that no longer hold one. */
  dropCalcChain(): void {
    if (this.book.calcChainPart !== undefined) this.#dropCalcChain = true
  }

  get changed(): boolean {
    return this.#parts.size > 0 || this.#added.length > 0 || this.#dropCalcChain
  }

  /** The new archive's bytes. */
  toBytes(now: Date = new Date()): Uint8Array {
    const book = this.book
    let workbookXml = book.workbookXml
    let relsXml = book.relsXml
    let contentTypesXml = book.contentTypesXml
    if (this.#added.length > 0) {
      const ids = new Set([...relsXml.matchAll(/\bId\s*=\s*["']([^"']*)["']/g)].map((match) => match[1]))
      const sheetIds = [...workbookXml.matchAll(/<(?:[\w.-]+:)?sheet\b[^>]*?\bsheetId\s*=\s*["'](\d+)["']/g)].map((match) =>
        Number(match[1]),
      )
      let sheetId = sheetIds.reduce((max, id) => Math.max(max, id), 0)
      const folder = book.workbookPart.slice(0, book.workbookPart.lastIndexOf('/') + 1)
      const relsPrefix = namespacePrefix(workbookXml, RELATIONSHIPS_NS)
      const root = splitRoot(workbookXml)
      let sheetElements = ''
      let relElements = ''
      let overrides = ''
      let rel = 1
      for (const sheet of this.#added) {
        while (ids.has(`rId${rel}`)) rel++
        ids.add(`rId${rel}`)
        sheetId++
        const idAttribute = relsPrefix === undefined ? `xmlns:r="${RELATIONSHIPS_NS}" r:id` : `${relsPrefix}:id`
        sheetElements += `<${root.prefix}sheet name="${escapeXml(sheet.name)}" sheetId="${sheetId}" ${idAttribute}="rId${rel}"/>`
        relElements += `<Relationship Id="rId${rel}" Type="${WORKSHEET_TYPE}" Target="${escapeXml(relativeTarget(folder, sheet.part))}"/>`
        overrides += `<Override PartName="/${escapeXml(sheet.part)}" ContentType="${WORKSHEET_CONTENT}"/>`
      }
      workbookXml = appendToChild(workbookXml, 'sheets', sheetElements, [
        'fileVersion',
        'fileSharing',
        'workbookPr',
        'workbookProtection',
        'bookViews',
      ])
      relsXml = appendToRoot(relsXml, relElements)
      contentTypesXml = appendToRoot(contentTypesXml, overrides)
    }
    for (const edit of this.#workbookEdits) workbookXml = edit(workbookXml)
    workbookXml = setSheetNames(workbookXml, this.#names)
    if (this.#newStyles !== undefined) {
      const ids = new Set([...relsXml.matchAll(/\bId\s*=\s*["']([^"']*)["']/g)].map((match) => match[1]))
      let rel = 1
      while (ids.has(`rId${rel}`)) rel++
      const folder = book.workbookPart.slice(0, book.workbookPart.lastIndexOf('/') + 1)
      relsXml = appendToRoot(
        relsXml,
        `<Relationship Id="rId${rel}" Type="${REL}/styles" Target="${escapeXml(relativeTarget(folder, this.#newStyles))}"/>`,
      )
      contentTypesXml = appendToRoot(
        contentTypesXml,
        `<Override PartName="/${escapeXml(this.#newStyles)}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>`,
      )
    }
    if (this.#dropCalcChain && book.calcChainPart !== undefined) {
      const target = book.calcChainPart
      relsXml = relsXml.replace(/<(?:[\w.-]+:)?Relationship\b(?:[^>"']|"[^"]*"|'[^']*')*?\/?>/g, (element) => {
        const attributes = parseAttributes(element)
        return attributes.get('Type')?.endsWith('/calcChain') === true ? '' : element
      })
      contentTypesXml = contentTypesXml.replace(/<(?:[\w.-]+:)?Override\b(?:[^>"']|"[^"]*"|'[^']*')*?\/?>/g, (element) =>
        parseAttributes(element).get('PartName')?.replace(/^\//, '').toLowerCase() === target.toLowerCase() ? '' : element,
      )
    }
    const parts = new Map(this.#parts)
    const set = (name: string, xml: string, original: string) => {
      if (xml !== original || book.archive === undefined) parts.set(name, compressPart(name, xml))
    }
    set(book.workbookPart, workbookXml, book.workbookXml)
    set(book.relsPart, relsXml, book.relsXml)
    set('[Content_Types].xml', contentTypesXml, book.contentTypesXml)
    const items: ZipItem[] = []
    const archive = book.archive
    if (archive === undefined) {
      // A new workbook: the package parts first, as Office writes them.
      const first = parts.get('[Content_Types].xml')!
      parts.delete('[Content_Types].xml')
      items.push({ part: first })
      for (const [name, xml] of newPackageParts(now)) items.push({ part: compressPart(name, xml) })
    } else {
      for (const entry of archive.entries) {
        if (this.#dropCalcChain && entry.name === book.calcChainPart) continue
        const replaced = parts.get(entry.name)
        if (replaced !== undefined) {
          items.push({ part: replaced })
          parts.delete(entry.name)
        } else {
          items.push({ copy: entry })
        }
      }
    }
    for (const part of parts.values()) items.push({ part })
    return writeZip(archive, items, now)
  }
}

/** The prefix a document binds to `uri` on its root element, when it does. */
function namespacePrefix(xml: string, uri: string): string | undefined {
  const root = /<[A-Za-z_][\w:.-]*((?:[^>"']|"[^"]*"|'[^']*')*?)\/?>/.exec(xml.replace(/^<\?[\s\S]*?\?>/, ''))
  if (root === null) return undefined
  for (const [name, value] of parseAttributes(root[1]!)) if (name.startsWith('xmlns:') && value === uri) return name.slice(6)
  return undefined
}

/** Adds `content` at the end of the root element's content. */
function appendToRoot(xml: string, content: string): string {
  const root = splitRoot(xml)
  return root.head + root.content + content + root.tail
}

/** Adds `content` at the end of the root's child `name`, creating the child (after the ones listed) when there is none. */
function appendToChild(xml: string, name: string, content: string, after: readonly string[]): string {
  const root = splitRoot(xml)
  const children = topLevel(root.content)
  const at = children.findIndex((piece) => piece.name === name)
  if (at >= 0) {
    const element = children[at]!.xml
    const selfClosing = /\/>$/.test(element) && !element.includes('</')
    children[at]!.xml = selfClosing
      ? `${element.slice(0, -2)}>${content}</${root.prefix}${name}>`
      : element.replace(/(<\/[\w:.-]+>)$/, `${content}$1`)
  } else {
    let index = 0
    children.forEach((piece, i) => {
      if (after.includes(piece.name)) index = i + 1
    })
    children.splice(index, 0, { name, xml: `<${root.prefix}${name}>${content}</${root.prefix}${name}>` })
  }
  return root.head + children.map((piece) => piece.xml).join('') + root.tail
}

function relativeTarget(folder: string, part: string): string {
  return part.startsWith(folder) ? part.slice(folder.length) : `/${part}`
}
