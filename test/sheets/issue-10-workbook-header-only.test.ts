/**
 * Issue 10: an export the server reported nothing new for reads only row 1 of the Activities tab
 * (`ReadOptions.headerOnly`). The workbook backend then decodes row 1 and searches the rest of the part's
 * bytes for the end of the rows (merged ranges come after them): the header it returns is the one a whole
 * read returns, on sheets shaped as other programs save them, and no write may address the tab's rows.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isTimelineSheetsError } from '../../src/errors.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { storedZip } from './xlsx-package.ts'

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'excel-shaped')
const PARTS = [
  '[Content_Types].xml',
  '_rels/.rels',
  'xl/workbook.xml',
  'xl/_rels/workbook.xml.rels',
  'xl/worksheets/sheet2.xml',
  'xl/sharedStrings.xml',
  'xl/styles.xml',
]
const PREFIX =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1:C3"/>'
const folders: string[] = []

afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true })
})

/** The Excel-shaped workbook (shared strings, an Overview tab) with the Activities sheet given as text. */
async function workbookWith(activitiesSheet: string): Promise<string> {
  const parts: Record<string, string> = {}
  for (const name of PARTS) parts[name] = await readFile(path.join(FIXTURE, name), 'utf8')
  parts['xl/worksheets/sheet1.xml'] = activitiesSheet
  const folder = await mkdtemp(path.join(os.tmpdir(), 'ts-issue10-header-'))
  folders.push(folder)
  const file = path.join(folder, 'book.xlsx')
  await writeFile(file, storedZip(parts))
  return file
}

async function bothReads(file: string) {
  const whole = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
  const headerOnly = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'], { headerOnly: ['Activities'] })).tabs[
    'Activities'
  ]!
  return { whole, headerOnly }
}

const row = (n: number, text: string) => `<row r="${n}"><c r="A${n}" t="inlineStr"><is><t>${text}</t></is></c></row>`
const HEADER_CELLS =
  '<c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>Da</t><t>te</t></is></c><c r="C1"><v>7</v></c><c r="D1" t="b"><v>1</v></c>'

describe('issue 10: the workbook reads only the header when asked to', () => {
  it('gives the header a whole read gives (shared, rich inline, number, boolean), no rows, and refuses a write to the rows', async () => {
    const file = await workbookWith(
      `${PREFIX}<sheetData><row r="1">${HEADER_CELLS}</row>${row(2, 'x')}${row(3, 'y')}</sheetData></worksheet>`,
    )
    const { whole, headerOnly } = await bothReads(file)
    expect(whole.header).toEqual(['User', 'Date', 7, true])
    expect(whole.rows).toHaveLength(2)
    expect(headerOnly).toEqual({ title: 'Activities', exists: true, header: whole.header, rows: [], gridRowCount: 1, headerOnly: true })

    const sheet = createWorkbookSpreadsheet({ path: file })
    const snapshot = await sheet.read(['Activities', 'Overview'], { headerOnly: ['Activities'] })
    const before = await readFile(file)
    const refused = await sheet.write([{ tab: 'Activities', appends: [['z']] }], snapshot).catch((error: unknown) => error)
    expect(isTimelineSheetsError(refused) && refused.code).toBe('TS_INTERNAL')
    expect((await readFile(file)).equals(before)).toBe(true)
    // A tab read whole in the same read can be written.
    await sheet.write([{ tab: 'Overview', appends: [['note']] }], snapshot)
    expect((await sheet.read(['Overview'])).tabs['Overview']!.rows.at(-1)).toEqual(['note'])
  })

  it('blanks header cells a merged range covers, as a whole read does, with the merges after many rows', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => row(i + 2, `row ${i} ${'_x000D_ &amp; '.repeat(20)}`)).join('')
    const file = await workbookWith(
      `${PREFIX}<sheetData><row r="1">${HEADER_CELLS}</row>${rows}</sheetData><mergeCells count="1"><mergeCell ref="B1:C1"/></mergeCells></worksheet>`,
    )
    const { whole, headerOnly } = await bothReads(file)
    expect(whole.header).toEqual(['User', 'Date', null, true])
    expect(headerOnly.header).toEqual(whole.header)
  })

  it('finds the end of the rows when it straddles two pieces of the part', async () => {
    // A stored part is read a mebibyte at a time: pad the rows so `</sheetData>` starts a few bytes before that.
    const head = `${PREFIX}<sheetData><row r="1">${HEADER_CELLS}</row>`
    const filler = row(2, '')
    const padding = (1 << 20) - 5 - Buffer.byteLength(head) - Buffer.byteLength(filler) - Buffer.byteLength(row(3, ''))
    const file = await workbookWith(
      `${head}${filler}${row(3, 'p'.repeat(padding))}</sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells></worksheet>`,
    )
    const bytes = await readFile(file)
    const start = bytes.indexOf(PREFIX)
    expect(bytes.indexOf('</sheetData>', start) - start).toBe((1 << 20) - 5)
    const { whole, headerOnly } = await bothReads(file)
    expect(whole.header).toEqual(['User', null, 7, true])
    expect(headerOnly.header).toEqual(whole.header)
  })

  it('reads prefixed elements, a sheet without rows, and rows out of order as a whole read does', async () => {
    const prefixed =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      '<x:sheetData><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>Key</x:t></x:is></x:c><x:c r="B1"><x:v>2</x:v></x:c></x:row>' +
      '<x:row r="2"><x:c r="A2"><x:v>1</x:v></x:c></x:row></x:sheetData>' +
      '<x:mergeCells count="1"><x:mergeCell ref="A1:B1"/></x:mergeCells></x:worksheet>'
    const sheets = [
      prefixed,
      `${PREFIX}<sheetData/></worksheet>`,
      `${PREFIX}<sheetData></sheetData><mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells></worksheet>`,
      `${PREFIX}<sheetData>${row(2, 'second')}<row r="1">${HEADER_CELLS}</row></sheetData></worksheet>`,
      `${PREFIX}<sheetData>${row(2, 'no header')}</sheetData></worksheet>`,
    ]
    const headers: unknown[] = []
    for (const sheet of sheets) {
      const { whole, headerOnly } = await bothReads(await workbookWith(sheet))
      expect(headerOnly.header).toEqual(whole.header)
      headers.push(whole.header)
    }
    expect(headers).toEqual([['Key'], [], [], ['User', 'Date', 7, true], []])
  })

  it('says which part is truncated rather than returning a header it could not check', async () => {
    const file = await workbookWith(`${PREFIX}<sheetData><row r="1">${HEADER_CELLS}</row>${row(2, 'x')}`)
    const error = await createWorkbookSpreadsheet({ path: file })
      .read(['Activities'], { headerOnly: ['Activities'] })
      .catch((e: unknown) => e)
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_WORKBOOK')
  })
})
