/**
 * A workbook whose Activities tab holds everything that names cells, each on rows known by the text in
 * their column A (`row 2` … `row 13`), and a reader that says which of those rows each thing is on, from
 * the package's XML: so a test can check that every thing still sits on the same rows after a write.
 */
import { readFile } from 'node:fs/promises'
import ExcelJS from 'exceljs'
import './workbook-exceljs-text.ts'
import { zipText } from './xlsx-package.ts'
import { readZip } from '../../src/sheets/workbook/zip.ts'

export const LAST_ROW = 13

// A 1×1 PNG.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64')

/** Writes the workbook as exceljs (an Excel-style writer) saves it. */
export async function writeRowTiedWorkbook(file: string): Promise<void> {
  const book = new ExcelJS.Workbook()
  const tab = book.addWorksheet('Activities')
  tab.addRow(['Name', 'Start', 'End', 'Link', 'Merged', '', 'Picture'])
  for (let row = 2; row <= LAST_ROW; row++) tab.addRow([`row ${row}`, row, row + 1, `plain ${row}`])
  for (const row of [2, 5, 8, 13]) tab.getCell(`D${row}`).value = { text: `link ${row}`, hyperlink: `https://example.com/${row}` }
  for (const row of [3, 6, 13]) tab.getCell(`C${row}`).note = `note on row ${row}`
  tab.mergeCells('E4:F4')
  tab.mergeCells('E6:F8')
  tab.mergeCells('E10:F10')
  tab.getCell('B5').dataValidation = { type: 'list', allowBlank: true, formulae: ['"a,b"'] }
  tab.getCell('B9').dataValidation = { type: 'whole', operator: 'greaterThan', formulae: [0] }
  tab.addConditionalFormatting({
    ref: 'A6:A9',
    rules: [{ type: 'expression', priority: 1, formulae: ['LEN($A6)>3'], style: { font: { bold: true } } }],
  })
  tab.addConditionalFormatting({
    ref: 'C11',
    rules: [{ type: 'expression', priority: 2, formulae: ['$C11>1'], style: { font: { italic: true } } }],
  })
  tab.autoFilter = 'A1:D13'
  const image = book.addImage({ buffer: PIXEL as unknown as ExcelJS.Buffer, extension: 'png' })
  // 0-based: from row 9 (sheet row 10) to row 11 (sheet row 12).
  tab.addImage(image, { tl: { col: 6, row: 9 }, br: { col: 8, row: 11 } } as unknown as ExcelJS.ImageRange)
  tab.pageSetup.printArea = 'A1:D13'
  book.definedNames.add("'Activities'!$A$9", 'NinthRow')
  book.definedNames.add("'Activities'!$A$5:$B$7", 'FiveToSeven')
  await book.xlsx.writeFile(file)
}

/** One thing that names cells, and the rows (by their column A text) it covers. */
export interface Tied {
  kind: string
  rows: string[]
}

/**
 * Everything tied to rows in the Activities tab of `file`, by the rows' column A text: as `file` holds it, or
 * as `namesFrom` (another copy) held it, for rows a write emptied.
 */
export async function tiedThings(file: string, sheetPart: string, namesFrom: string = file): Promise<Tied[]> {
  const sheet = await zipText(file, sheetPart)
  const names = new Map<number, string>()
  for (const row of (await zipText(namesFrom, sheetPart)).matchAll(/<row\b[^>]*\br="(\d+)"[^>]*>([\s\S]*?)<\/row>/g)) {
    const a = /<c\b[^>]*\br="A\d+"[^>]*>([\s\S]*?)<\/c>/.exec(row[2]!)
    if (a !== null) names.set(Number(row[1]), await cellText(namesFrom, a[0]))
  }
  const rows = (top: number, bottom: number) => {
    const out: string[] = []
    for (let row = top; row <= Math.min(bottom, LAST_ROW + 5); row++) {
      const name = names.get(row)
      if (name !== undefined && name.startsWith('row ')) out.push(name)
    }
    return out
  }
  const ranges = (kind: string, sqref: string): Tied[] =>
    sqref.split(/\s+/).map((ref) => {
      const numbers = [...ref.matchAll(/\d+/g)].map((m) => Number(m[0]))
      return { kind, rows: rows(Math.min(...numbers), Math.max(...numbers)) }
    })
  const out: Tied[] = []
  for (const m of sheet.matchAll(/<hyperlink\b[^>]*\bref="([^"]+)"/g)) out.push(...ranges('hyperlink', m[1]!))
  for (const m of sheet.matchAll(/<mergeCell\b[^>]*\bref="([^"]+)"/g)) out.push(...ranges('merge', m[1]!))
  for (const m of sheet.matchAll(/<dataValidation\b[^>]*\bsqref="([^"]+)"/g)) out.push(...ranges('validation', m[1]!))
  for (const m of sheet.matchAll(/<conditionalFormatting\b[^>]*\bsqref="([^"]+)"/g)) out.push(...ranges('format', m[1]!))
  for (const m of sheet.matchAll(/<autoFilter\b[^>]*\bref="([^"]+)"/g)) out.push(...ranges('filter', m[1]!))
  const parts = await packageParts(file)
  for (const [name, xml] of parts) {
    if (/comments/.test(name)) for (const m of xml.matchAll(/<comment\b[^>]*\bref="([^"]+)"/g)) out.push(...ranges('note', m[1]!))
    if (/vml/i.test(name))
      for (const m of xml.matchAll(/<x:Row>(\d+)<\/x:Row>/g))
        out.push({ kind: 'note shape', rows: rows(Number(m[1]) + 1, Number(m[1]) + 1) })
    if (/drawings\/drawing/.test(name))
      for (const m of xml.matchAll(
        /<xdr:from>[\s\S]*?<xdr:row>(\d+)<\/xdr:row>[\s\S]*?<xdr:to>[\s\S]*?<xdr:row>(\d+)<\/xdr:row>\s*<xdr:rowOff>(\d+)</g,
      ))
        // A lower corner at the very top of a row leaves that row uncovered.
        out.push({ kind: 'picture', rows: rows(Number(m[1]) + 1, Number(m[2]) + (m[3] === '0' ? 0 : 1)) })
    if (name === 'xl/workbook.xml')
      for (const m of xml.matchAll(/<definedName\b[^>]*\bname="([^"]+)"[^>]*>([^<]*)<\/definedName>/g)) {
        if (m[1] === '_xlnm._FilterDatabase') continue
        for (const ref of m[2]!.split(',')) {
          const numbers = [...ref.replace(/^.*!/, '').matchAll(/\d+/g)].map((n) => Number(n[0]))
          out.push({ kind: `name ${m[1]}`, rows: numbers.length === 0 ? [] : rows(Math.min(...numbers), Math.max(...numbers)) })
        }
      }
  }
  return out.sort((a, b) => `${a.kind} ${a.rows.join()}`.localeCompare(`${b.kind} ${b.rows.join()}`))
}

async function packageParts(file: string): Promise<Map<string, string>> {
  const archive = readZip(await readFile(file))
  const out = new Map<string, string>()
  for (const entry of archive.entries) if (/\.(xml|vml)$/.test(entry.name)) out.set(entry.name, await zipText(file, entry.name))
  return out
}

const strings = new Map<string, string[]>()

/** A cell's text: inline, or from the shared strings. */
async function cellText(file: string, cell: string): Promise<string> {
  const inline = /<t[^>]*>([^<]*)<\/t>/.exec(cell)
  if (/t="s"/.test(cell)) {
    let table = strings.get(file)
    if (table === undefined) {
      const xml = await zipText(file, 'xl/sharedStrings.xml')
      table = [...xml.matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) => [...m[1]!.matchAll(/<t[^>]*>([^<]*)<\/t>/g)].map((t) => t[1]).join(''))
      strings.set(file, table)
    }
    return table[Number(/<v>(\d+)<\/v>/.exec(cell)?.[1])] ?? ''
  }
  return inline?.[1] ?? /<v>([^<]*)<\/v>/.exec(cell)?.[1] ?? ''
}
