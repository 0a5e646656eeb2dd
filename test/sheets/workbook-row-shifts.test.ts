/**
 * When a write removes rows, everything in the workbook that names cells of the tab moves with the rows:
 * hyperlinks, notes and their drawing, merged cells, data validations, conditional formats, the
 * autofilter, pictures, defined names and print areas. Checked on a workbook an Excel-style writer
 * (exceljs) saved and on one LibreOffice saved, removing rows at the top, in the middle and at the end;
 * and the same parts with rows inserted.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { rowShift } from '../../src/sheets/workbook/row-refs.ts'
import { shiftComments, shiftDrawing, shiftSheetElements, shiftTable, shiftVml } from '../../src/sheets/workbook/row-tied-parts.ts'
import { SheetParts } from '../../src/sheets/workbook/sheet-parts.ts'
import { LAST_ROW, tiedThings, withoutRows, writeRowTiedWorkbook, type Tied } from './row-tied-workbook.ts'
import { zipText } from './xlsx-package.ts'
import { CONTRACT_TABS, activityRow } from '../contract/spreadsheet-contract.ts'
import { createWorkbookFixture, editFile } from './workbook-fixture.ts'

const FIXTURES = path.join(import.meta.dirname, 'fixtures')
const SHEET = 'xl/worksheets/sheet1.xml'

let folder: string
beforeEach(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'timeline-sheets-row-shifts-'))
})
afterEach(async () => {
  await rm(folder, { recursive: true, force: true })
})

const WRITERS = {
  'an Excel-style writer (exceljs)': (file: string) => writeRowTiedWorkbook(file),
  LibreOffice: (file: string) => copyFile(path.join(FIXTURES, 'libreoffice-row-tied.xlsx'), file),
}

const REMOVALS: Record<string, number[]> = {
  'the top row': [2],
  'middle rows, through a note, a link and a merge': [5, 6],
  'the last row': [LAST_ROW],
  'rows here and there': [2, 6, 7, 8, 12],
}

/** Removes rows through the backend, as an import of ticked Delete boxes does. */
async function removeRows(file: string, rows: number[]): Promise<void> {
  const spreadsheet = createWorkbookSpreadsheet({ path: file })
  const basis = await spreadsheet.read(['Activities'])
  await spreadsheet.write([{ tab: 'Activities', deleteRows: rows }], basis)
}

const kinds = (things: readonly Tied[]) => new Set(things.map((thing) => thing.kind.replace(/^name .*/, 'name')))

describe.each(Object.entries(WRITERS))('rows removed from a workbook saved by %s', (_writer, write) => {
  it.each(Object.entries(REMOVALS))(
    'keep every link, note, merge, validation, format, picture and name on its rows: %s',
    async (_where, rows) => {
      const file = path.join(folder, 'team.xlsx')
      await write(file)
      const before = await tiedThings(file, SHEET)
      // The fixture holds every kind, so none is left unchecked.
      for (const kind of ['hyperlink', 'merge', 'validation', 'format', 'note', 'note shape', 'picture', 'name'])
        expect(kinds(before)).toContain(kind)

      await removeRows(file, rows)

      const after = await tiedThings(file, SHEET)
      expect(after).toEqual(withoutRows(before, new Set(rows.map((row) => `row ${row}`))))
    },
  )

  it('leaves a file exceljs reads with each link and note on the cell it was on', async () => {
    const file = path.join(folder, 'team.xlsx')
    await write(file)
    await removeRows(file, [3, 5, 6])
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(file)
    const tab = book.getWorksheet('Activities')!
    const links: string[] = []
    const notes: string[] = []
    tab.eachRow((row) => {
      const name = String(row.getCell(1).value)
      if (row.getCell(4).hyperlink) links.push(`${name}: ${row.getCell(4).hyperlink}`)
      const note = row.getCell(3).note
      if (note !== undefined) notes.push(`${name}: ${typeof note === 'string' ? note : note.texts?.map((t) => t.text).join('')}`)
    })
    expect(links).toEqual(['row 2: https://example.com/2', 'row 8: https://example.com/8', 'row 13: https://example.com/13'])
    expect(notes).toEqual(['row 13: note on row 13'])
    expect(tab.getCell('A10').value).toBe('row 13')
  })
})

describe('the parts tied to rows when rows are inserted', () => {
  const insert = rowShift({
    insert: [
      { before: 2, count: 1 },
      { before: 7, count: 2 },
    ],
  })

  it('moves links, merges, validations and formats down, and widens ranges a row went into', async () => {
    const file = path.join(folder, 'team.xlsx')
    await writeRowTiedWorkbook(file)
    const sheet = await zipText(file, SHEET)
    const suffix = sheet.slice(sheet.indexOf('</sheetData>') + '</sheetData>'.length)
    const parts = new SheetParts({ prefix: '<worksheet>', suffix })
    shiftSheetElements(parts, insert)
    const moved = parts.suffix()
    expect(moved).toContain('<mergeCell ref="E5:F5"/><mergeCell ref="E7:F11"/><mergeCell ref="E13:F13"/>')
    expect(moved).toContain('<autoFilter ref="A1:D16"/>')
    expect(moved).toMatch(/<conditionalFormatting sqref="A7:A12">/)
    expect(moved).toMatch(/sqref="B6"/)
    expect(moved).toMatch(/sqref="B12"/)
    expect([...moved.matchAll(/<hyperlink ref="([^"]+)"/g)].map((m) => m[1])).toEqual(['D3', 'D6', 'D11', 'D16'])
  })

  it('moves notes, their shapes, pictures and tables down', async () => {
    const file = path.join(folder, 'team.xlsx')
    await writeRowTiedWorkbook(file)
    const comments = shiftComments(await zipText(file, 'xl/comments1.xml'), insert)
    expect([...comments.matchAll(/<comment ref="([^"]+)"/g)].map((m) => m[1])).toEqual(['C4', 'C7', 'C16'])
    const vml = shiftVml(await zipText(file, 'xl/drawings/vmlDrawing1.vml'), insert)
    expect([...vml.matchAll(/<x:Row>(\d+)<\/x:Row>/g)].map((m) => Number(m[1]) + 1)).toEqual([4, 7, 16])
    const drawing = shiftDrawing(await zipText(file, 'xl/drawings/drawing1.xml'), insert)
    expect([...drawing.matchAll(/<xdr:row>(\d+)<\/xdr:row>/g)].map((m) => Number(m[1]))).toEqual([12, 14])
    expect(shiftTable('<table ref="A1:C10"><autoFilter ref="A1:C10"/></table>', insert)).toBe(
      '<table ref="A1:C13"><autoFilter ref="A1:C13"/></table>',
    )
  })
})

describe("the tool's own dropdowns when rows are removed", () => {
  it('keep the range a layout gives them, so the next layout changes nothing; a manager’s validation shrinks', async () => {
    const made = await createWorkbookFixture()
    try {
      await made.spreadsheet.ensureLayout(CONTRACT_TABS, { timeZone: 'Europe/Berlin' })
      const empty = await made.spreadsheet.read(['Activities'])
      await made.spreadsheet.write([{ tab: 'Activities', appends: [1, 2, 3, 4, 5].map(activityRow) }], empty)
      await editFile(made.file, 'Activities', (tab) => {
        tab.getCell('M4').dataValidation = { type: 'whole', operator: 'greaterThan', formulae: [0] }
        tab.getCell('M6').dataValidation = { type: 'whole', operator: 'greaterThan', formulae: [0] }
      })
      const basis = await made.spreadsheet.read(['Activities'])
      await made.spreadsheet.write([{ tab: 'Activities', deleteRows: [2, 4] }], basis)

      const sheet = await zipText(made.file, SHEET)
      const sqrefs = [...sheet.matchAll(/<dataValidation\b[^>]*\bsqref="([^"]+)"/g)].map((m) => m[1])
      expect(sqrefs).toContain('F2:F1000')
      expect(sqrefs).toContain('M4')
      expect(sqrefs).not.toContain('M6')
      const fresh = createWorkbookSpreadsheet({ path: made.file })
      expect(await fresh.ensureLayout(CONTRACT_TABS, { timeZone: 'Europe/Berlin' })).toEqual({ createdTabs: [], changed: false })
    } finally {
      await made.cleanup()
    }
  })
})
