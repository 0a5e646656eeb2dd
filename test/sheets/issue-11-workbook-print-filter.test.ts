/**
 * Issue 11: the workbook prints and filters as a manager expects. Every tool tab prints landscape, one
 * page wide, with its header on every page; Activities has an autofilter that the protected sheet lets
 * managers use (and sort with), whose range follows the rows as the tool adds and removes them. Read
 * back from the file's XML and, independently, through exceljs.
 */
import { readFile, writeFile } from 'node:fs/promises'
import ExcelJS from 'exceljs'
import { afterEach, describe, expect, it } from 'vitest'
import { activitiesTab, allowedTagsTab, syncLogTab } from '../../src/core/columns.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { BookChange, openBook } from '../../src/sheets/workbook/book.ts'
import { compressPart } from '../../src/sheets/workbook/zip.ts'
import { createWorkbookFixture, type WorkbookFixture } from './workbook-fixture.ts'
import { zipText } from './xlsx-package.ts'

const fixtures: WorkbookFixture[] = []
afterEach(async () => {
  for (const made of fixtures.splice(0)) await made.cleanup()
})

const TABS = [activitiesTab(), allowedTagsTab(), syncLogTab()]
const PARTS = { Activities: 'xl/worksheets/sheet1.xml', 'Allowed tags': 'xl/worksheets/sheet2.xml', 'Sync log': 'xl/worksheets/sheet3.xml' }

function row(i: number): CellValue[] {
  return ['ACME\\anna', 46000 + i, 0.375, 0.5, 0.125, 'Client, Project', null, `note ${i}`, false, null, `key-${i}`, 'base']
}

async function laidOut(rows: number): Promise<WorkbookFixture> {
  const made = await createWorkbookFixture()
  fixtures.push(made)
  await made.spreadsheet.ensureLayout(TABS, { timeZone: 'Europe/Berlin' })
  const basis = await made.spreadsheet.read(['Activities'])
  await made.spreadsheet.write([{ tab: 'Activities', appends: Array.from({ length: rows }, (_, i) => row(i + 1)) }], basis)
  return made
}

function definedNames(workbookXml: string): Array<{ name: string; sheet: string; formula: string }> {
  return [...workbookXml.matchAll(/<definedName name="([^"]*)" localSheetId="(\d+)"[^>]*>([^<]*)<\/definedName>/g)].map(
    ([, name, sheet, formula]) => ({ name: name!, sheet: sheet!, formula: formula!.replaceAll('&apos;', "'") }),
  )
}

describe('issue 11: printing and filtering the workbook', () => {
  it('prints every tool tab landscape, one page wide, the header repeated on each page, every visible column with a width', async () => {
    const made = await laidOut(3)
    const names = definedNames(await zipText(made.file, 'xl/workbook.xml'))
    for (const [i, spec] of TABS.entries()) {
      const xml = await zipText(made.file, PARTS[spec.title as keyof typeof PARTS])
      expect(xml, spec.title).toMatch(/<sheetPr><pageSetUpPr fitToPage="1"\/><\/sheetPr>/)
      expect(xml, spec.title).toContain('<pageSetup orientation="landscape" fitToWidth="1" fitToHeight="0"/>')
      const title = `'${spec.title}'!$1:$1`
      expect(names.filter((n) => n.name === '_xlnm.Print_Titles' && n.sheet === String(i))).toEqual([
        { name: '_xlnm.Print_Titles', sheet: String(i), formula: title },
      ])
      const widths = [...xml.matchAll(/<col min="(\d+)" max="\d+" width="([\d.]+)" customWidth="1"/g)].map((m) => Number(m[1]))
      spec.columns.forEach((column, c) => {
        if (column.hidden !== true) expect(widths, `${spec.title} ${column.name}`).toContain(c + 1)
      })
    }
    const workbook = new ExcelJS.Workbook()
    await workbook.xlsx.readFile(made.file)
    for (const spec of TABS) {
      const sheet = workbook.getWorksheet(spec.title)!
      expect(sheet.pageSetup, spec.title).toMatchObject({ orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 })
      expect(sheet.pageSetup.printTitlesRow, spec.title).toBe('1:1')
    }
  })

  it('puts an autofilter on Activities that the protected sheet lets managers use, and follows the rows the tool adds and removes', async () => {
    const made = await laidOut(3)
    const filterOf = async () => {
      const xml = await zipText(made.file, PARTS.Activities)
      const names = definedNames(await zipText(made.file, 'xl/workbook.xml')).filter((n) => n.name === '_xlnm._FilterDatabase')
      return { ref: /<autoFilter ref="([^"]*)"\/>/.exec(xml)?.[1], names, protection: /<sheetProtection [^>]*\/>/.exec(xml)?.[0] }
    }
    const first = await filterOf()
    expect(first.ref).toBe('A1:L4')
    expect(first.names).toEqual([{ name: '_xlnm._FilterDatabase', sheet: '0', formula: "'Activities'!$A$1:$L$4" }])
    expect(first.protection).toContain(' autoFilter="0"')
    expect(first.protection).toContain(' sort="0"')

    const basis = await made.spreadsheet.read(['Activities'])
    await made.spreadsheet.write([{ tab: 'Activities', appends: [row(4), row(5)] }], basis)
    expect(await filterOf()).toMatchObject({ ref: 'A1:L6', names: [{ formula: "'Activities'!$A$1:$L$6" }] })

    const again = await made.spreadsheet.read(['Activities'])
    await made.spreadsheet.write([{ tab: 'Activities', deleteRows: [2, 3, 4] }], again)
    expect(await filterOf()).toMatchObject({ ref: 'A1:L3', names: [{ formula: "'Activities'!$A$1:$L$3" }] })

    // The other tabs get no filter; exceljs reads the one on Activities.
    for (const title of ['Allowed tags', 'Sync log'] as const) expect(await zipText(made.file, PARTS[title])).not.toContain('<autoFilter')
    const workbook = new ExcelJS.Workbook()
    await workbook.xlsx.readFile(made.file)
    expect(workbook.getWorksheet('Activities')!.autoFilter).toBe('A1:L3')
  })

  it('keeps the filter a manager set on a column when it moves the range', async () => {
    const made = await laidOut(2)
    // As Excel saves a filter on Tags: a filterColumn inside the autoFilter element.
    const xml = (await zipText(made.file, PARTS.Activities)).replace(
      '<autoFilter ref="A1:L3"/>',
      '<autoFilter ref="A1:L3"><filterColumn colId="5"><filters><filter val="Client, Project"/></filters></filterColumn></autoFilter>',
    )
    const change = new BookChange(openBook(await readFile(made.file), made.file))
    change.setPart(compressPart(PARTS.Activities, xml))
    await writeFile(made.file, change.toBytes())
    const spreadsheet = createWorkbookSpreadsheet({ path: made.file })
    await spreadsheet.write([{ tab: 'Activities', appends: [row(3)] }], await spreadsheet.read(['Activities']))
    expect(await zipText(made.file, PARTS.Activities)).toContain(
      '<autoFilter ref="A1:L4"><filterColumn colId="5"><filters><filter val="Client, Project"/></filters></filterColumn></autoFilter>',
    )
  })
})
