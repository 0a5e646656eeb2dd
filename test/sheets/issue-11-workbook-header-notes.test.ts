/**
 * Issue 11: the Allowed tags tab explains its syntax. In the workbook each column's note is the input
 * message of its header cell (shown whenever the cell is selected, in Excel and LibreOffice), set once,
 * and it follows the column when a manager moves it.
 */
import ExcelJS from 'exceljs'
import { afterEach, describe, expect, it } from 'vitest'
import { activitiesTab, allowedTagsTab, syncLogTab, ALLOWED_TAGS_NOTE, APPLIES_TO_NOTE } from '../../src/core/columns.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { createWorkbookFixture, editFile, type WorkbookFixture } from './workbook-fixture.ts'

const fixtures: WorkbookFixture[] = []
afterEach(async () => {
  for (const made of fixtures.splice(0)) await made.cleanup()
})

const TABS = [activitiesTab(), allowedTagsTab(), syncLogTab()]
const LAYOUT = { timeZone: 'Europe/Berlin' }

async function cell(file: string, address: string): Promise<ExcelJS.DataValidation | undefined> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(file)
  return workbook.getWorksheet('Allowed tags')!.getCell(address).dataValidation as ExcelJS.DataValidation | undefined
}

describe('issue 11: the Allowed tags header explains its syntax', () => {
  it('says what [DOMAIN\\user] and {Team} mean on the Applies to header, and how Tags are written, within Excel’s limits', async () => {
    expect(APPLIES_TO_NOTE).toContain('[DOMAIN\\user]')
    expect(APPLIES_TO_NOTE).toContain('{Team}')
    for (const note of [APPLIES_TO_NOTE, ALLOWED_TAGS_NOTE]) expect(note.length).toBeLessThanOrEqual(255)
    const made = await createWorkbookFixture()
    fixtures.push(made)
    await made.spreadsheet.ensureLayout(TABS, LAYOUT)
    expect(await cell(made.file, 'A1')).toMatchObject({ showInputMessage: true, promptTitle: 'Applies to', prompt: APPLIES_TO_NOTE })
    expect(await cell(made.file, 'B1')).toMatchObject({ showInputMessage: true, promptTitle: 'Tags', prompt: ALLOWED_TAGS_NOTE })
    expect(await cell(made.file, 'A2')).toBeUndefined()
    expect(await createWorkbookSpreadsheet({ path: made.file }).ensureLayout(TABS, LAYOUT)).toEqual({ createdTabs: [], changed: false })
  })

  it('moves the note with its column', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    await made.spreadsheet.ensureLayout(TABS, LAYOUT)
    await editFile(made.file, 'Allowed tags', (sheet) => {
      sheet.getCell('A1').value = 'Tags'
      sheet.getCell('B1').value = 'Applies to'
    })
    expect((await createWorkbookSpreadsheet({ path: made.file }).ensureLayout(TABS, LAYOUT)).changed).toBe(true)
    expect(await cell(made.file, 'B1')).toMatchObject({ promptTitle: 'Applies to', prompt: APPLIES_TO_NOTE })
    expect(await cell(made.file, 'A1')).toMatchObject({ promptTitle: 'Tags', prompt: ALLOWED_TAGS_NOTE })
  })
})
