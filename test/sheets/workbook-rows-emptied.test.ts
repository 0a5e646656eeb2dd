/**
 * A write that removes rows empties them in place, as on Google (decisions/0030): every other row keeps its
 * number, and everything in the workbook that names cells of the tab — hyperlinks, notes and their drawing,
 * merged cells, data validations, conditional formats, the autofilter, pictures, defined names and print
 * areas — stays on the rows it was on. Checked on a workbook an Excel-style writer (exceljs) saved and on one
 * LibreOffice saved, emptying rows at the top, in the middle and at the end.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { LAST_ROW, tiedThings, writeRowTiedWorkbook } from './row-tied-workbook.ts'

const FIXTURES = path.join(import.meta.dirname, 'fixtures')
const SHEET = 'xl/worksheets/sheet1.xml'

let folder: string
beforeEach(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), 'timeline-sheets-rows-emptied-'))
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

describe.each(Object.entries(WRITERS))('rows removed from a workbook saved by %s', (_writer, write) => {
  it.each(Object.entries(REMOVALS))(
    'are emptied in place, and every link, note, merge, validation, format, picture and name stays: %s',
    async (_where, rows) => {
      const file = path.join(folder, 'team.xlsx')
      const before = path.join(folder, 'before.xlsx')
      await write(file)
      await copyFile(file, before)
      const tied = await tiedThings(file, SHEET)
      // The fixture holds every kind, so none is left unchecked.
      for (const kind of ['hyperlink', 'merge', 'validation', 'format', 'note', 'note shape', 'picture', 'name'])
        expect(tied.map((thing) => thing.kind.replace(/^name .*/, 'name'))).toContain(kind)

      const spreadsheet = createWorkbookSpreadsheet({ path: file })
      const basis = await spreadsheet.read(['Activities'])
      await spreadsheet.write([{ tab: 'Activities', deleteRows: rows }], basis)

      expect(await tiedThings(file, SHEET, before)).toEqual(tied)
      const after = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
      const shown = basis.tabs['Activities']!.rows.map((cells, i) => (rows.includes(i + 2) ? [] : cells))
      expect(after.rows.slice(0, shown.length)).toEqual(shown.slice(0, after.rows.length))
      expect(after.rows.slice(shown.length).every((cells) => cells.length === 0)).toBe(true)
    },
  )
})
