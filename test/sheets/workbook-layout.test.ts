/**
 * The layout a manager finds in the workbook, read back from the saved file through exceljs and from its XML:
 * the tabs, formats, protections and validations, laid out once; the Allowed tags header explaining its syntax
 * (each column's note is the input message of its header cell, shown whenever the cell is selected, in Excel
 * and LibreOffice, and it follows the column when a manager moves it); printing and filtering as a manager
 * expects (every tool tab prints landscape, one page wide, with its header on every page; Activities has an
 * autofilter the protected sheet lets managers use, and sort with, whose range follows the rows as the tool
 * adds and removes them); and rows whose wrapped Notes and Statuses do not spill over the rows below (neither
 * Excel nor LibreOffice fits a row's height when it opens a file, so each row the tool writes carries the
 * height its longest wrapped text needs; a row of one-line texts keeps the default, and a height a person set
 * stays).
 */
import { readFile, writeFile } from 'node:fs/promises'
import ExcelJS from 'exceljs'
import type { Worksheet } from 'exceljs'
import { afterEach, describe, expect, it } from 'vitest'
import { activitiesTab, allowedTagsTab, syncLogTab, ALLOWED_TAGS_NOTE, APPLIES_TO_NOTE } from '../../src/core/columns.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import { STATUS_RULES, statusRuleFormula } from '../../src/core/status.ts'
import type { Snapshot } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { BookChange, openBook } from '../../src/sheets/workbook/book.ts'
import { LINE_HEIGHT, wrappedLines } from '../../src/sheets/workbook/row-height.ts'
import { compressPart } from '../../src/sheets/workbook/zip.ts'
import { CONTRACT_TABS, activityRow } from '../contract/spreadsheet-contract.ts'
import { createWorkbookFixture, editFile, internals, type WorkbookFixture } from './workbook-fixture.ts'
import { zipText } from './xlsx-package.ts'

const LAYOUT = { timeZone: 'Europe/Berlin' }
const fixtures: WorkbookFixture[] = []

async function fixture(options: Parameters<typeof createWorkbookFixture>[0] = {}): Promise<WorkbookFixture> {
  const made = await createWorkbookFixture(options)
  fixtures.push(made)
  return made
}

afterEach(async () => {
  for (const made of fixtures.splice(0)) await made.cleanup()
})

async function reopen(file: string): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(file)
  return workbook
}

function sheetOf(workbook: ExcelJS.Workbook, title: string): Worksheet {
  const sheet = workbook.worksheets.find((candidate) => candidate.name === title)
  if (sheet === undefined) throw new Error(`no tab ${title}`)
  return sheet
}

async function laidOutWith(
  rows: number,
  options: Parameters<typeof createWorkbookFixture>[0] = {},
): Promise<{ made: WorkbookFixture; basis: Snapshot }> {
  const made = await fixture(options)
  await made.spreadsheet.ensureLayout(CONTRACT_TABS, LAYOUT)
  const empty = await made.spreadsheet.read(['Activities'])
  if (rows > 0)
    await made.spreadsheet.write([{ tab: 'Activities', appends: Array.from({ length: rows }, (_, i) => activityRow(i + 1)) }], empty)
  return { made, basis: await made.spreadsheet.read(['Activities']) }
}

describe('the saved file, reopened with exceljs', () => {
  it('has the layout managers see in Google', async () => {
    const { made } = await laidOutWith(3)
    const workbook = await reopen(made.file)
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(['Activities', 'Allowed tags', 'Sync log'])
    const sheet = sheetOf(workbook, 'Activities')

    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 })
    expect(sheet.getCell('A1').value).toBe('User')
    expect(sheet.getCell('A1').font?.bold).toBe(true)

    const hidden = CONTRACT_TABS[0]!.columns.map((column, i) => [column.name, sheet.getColumn(i + 1).hidden === true])
    expect(hidden.filter(([, isHidden]) => isHidden).map(([name]) => name)).toEqual(['Key', 'Base'])
    expect(sheet.getColumn(1).width).toBeCloseTo(160 / 7, 1)

    expect(sheet.getColumn(2).numFmt).toBe('yyyy-mm-dd')
    expect(sheet.getColumn(3).numFmt).toBe('hh:mm')
    expect(sheet.getColumn(5).numFmt).toBe('[h]:mm')
    expect(sheet.getCell('B2').numFmt).toBe('yyyy-mm-dd')
    expect(sheet.getCell('E2').numFmt).toBe('[h]:mm')
    expect(sheetOf(workbook, 'Sync log').getColumn(1).numFmt).toBe('yyyy-mm-dd hh:mm')
    expect(sheet.getColumn(8).alignment?.wrapText).toBe(true)
    expect(sheet.getCell('H2').alignment?.wrapText).toBe(true)
    // Booleans are stored as booleans, not as the text TRUE/FALSE.
    expect(sheet.getCell('I2').value).toBe(false)
  })

  it('protects the header and tool columns and leaves the manager’s columns editable', async () => {
    const { made } = await laidOutWith(2)
    const workbook = await reopen(made.file)
    const sheet = sheetOf(workbook, 'Activities')
    expect(internals(sheet).sheetProtection).toMatchObject({
      sheet: true,
      sort: true,
      autoFilter: true,
      insertRows: true,
      deleteRows: true,
    })
    expect(sheet.getCell('H1').protection?.locked).not.toBe(false)
    expect(sheet.getCell('H2').protection?.locked).toBe(false)
    expect(sheet.getColumn(8).protection?.locked).toBe(false)
    for (const address of ['J2', 'K2', 'L2', 'E2']) expect(sheet.getCell(address).protection?.locked).not.toBe(false)
    expect(internals(sheetOf(workbook, 'Sync log')).sheetProtection).toMatchObject({ sheet: true })
    expect(internals(sheetOf(workbook, 'Sync log')).sheetProtection?.insertRows).toBeUndefined()
  })

  it('leaves protection off when the operator asks', async () => {
    const { made } = await laidOutWith(1, { protect: false })
    expect(internals(sheetOf(await reopen(made.file), 'Activities')).sheetProtection ?? null).toBeNull()
  })

  it('has checkbox and dropdown validations that warn instead of blocking', async () => {
    const { made } = await laidOutWith(2)
    const sheet = sheetOf(await reopen(made.file), 'Activities')
    expect(sheet.getCell('I2').dataValidation).toMatchObject({ type: 'list', formulae: ['"TRUE,FALSE"'], errorStyle: 'warning' })
    expect(sheet.getCell('F2').dataValidation).toMatchObject({
      type: 'list',
      formulae: ["'Allowed tags'!$B$2:$B$1000"],
      errorStyle: 'warning',
    })
    expect(sheet.getCell('F1000').dataValidation).toMatchObject({ type: 'list' })
    expect(sheet.getCell('F1').dataValidation).toBeUndefined()
  })

  it('stretches validations over appended rows past the first thousand', async () => {
    const { made } = await laidOutWith(1200)
    const sheet = sheetOf(await reopen(made.file), 'Activities')
    expect(sheet.getCell('I1201').dataValidation).toMatchObject({ formulae: ['"TRUE,FALSE"'] })
  })

  it('colours rows by the status word, one rule per word of the shared vocabulary', async () => {
    const { made } = await laidOutWith(1)
    const formattings = internals(sheetOf(await reopen(made.file), 'Activities')).conditionalFormattings
    const rows = formattings.find((formatting) => formatting.ref === 'A1:L1048576')!
    expect(rows.rules.map((rule) => rule.formulae?.[0])).toEqual(STATUS_RULES.map((rule) => statusRuleFormula(rule.word, 9).slice(1)))
    expect(JSON.stringify(rows.rules.map((rule) => rule.style))).toContain('FFFFE0A0')
    // The rules of earlier versions, which no Status the tool writes could meet, are gone.
    expect(JSON.stringify(formattings)).not.toContain('SEARCH')
  })

  it('stores text that looks like a formula or a number as text', async () => {
    const { made, basis } = await laidOutWith(1)
    await made.spreadsheet.write([{ tab: 'Activities', updates: [{ row: 2, column: 6, values: ['=IMPORTDATA("x")', '0042'] }] }], basis)
    const sheet = sheetOf(await reopen(made.file), 'Activities')
    expect(sheet.getCell('G2').type).toBe(ExcelJS.ValueType.String)
    expect(sheet.getCell('G2').value).toBe('=IMPORTDATA("x")')
    expect(sheet.getCell('H2').value).toBe('0042')
  })

  it('is laid out once: a new process over the saved file changes nothing', async () => {
    const { made } = await laidOutWith(2)
    const fresh = createWorkbookSpreadsheet({ path: made.file })
    expect(await fresh.ensureLayout(CONTRACT_TABS, LAYOUT)).toEqual({ createdTabs: [], changed: false })
    expect(fresh.requestCounts()).toEqual({ reads: 1, writes: 0 })
  })

  it('puts a missing header column after the ones a manager moved, and keeps their data', async () => {
    const { made } = await laidOutWith(1)
    await editFile(made.file, 'Allowed tags', (sheet) => {
      sheet.getCell('A1').value = 'Tags'
      sheet.getCell('B1').value = 'Applies to'
      sheet.getCell('C1').value = 'Comment'
    })
    const specs = CONTRACT_TABS.map((tab) =>
      tab.title === 'Allowed tags' ? { ...tab, columns: [...tab.columns, { name: 'Since', kind: 'date' as const }] } : tab,
    )
    expect((await made.spreadsheet.ensureLayout(specs, LAYOUT)).changed).toBe(true)
    const snapshot = await made.spreadsheet.read(['Allowed tags'])
    expect(snapshot.tabs['Allowed tags']!.header).toEqual(['Tags', 'Applies to', 'Comment', 'Since'])
    // The dropdown follows the Tags column to where the manager moved it.
    expect(sheetOf(await reopen(made.file), 'Activities').getCell('F2').dataValidation?.formulae).toEqual(["'Allowed tags'!$A$2:$A$1000"])
  })

  it('refuses a dropdown whose source column exists nowhere', async () => {
    const made = await fixture()
    const specs = [{ title: 'T', columns: [{ name: 'Tags', kind: 'text' as const, dropdown: { tab: 'Nowhere', column: 'Tags' } }] }]
    const error = await made.spreadsheet.ensureLayout(specs, LAYOUT).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: 'TS_SHEET_LAYOUT' })
    expect((error as Error).message).toContain('Nowhere')
    expect(await made.spreadsheet.read(['T'])).toEqual({
      tabs: { T: { title: 'T', exists: false, header: [], rows: [], gridRowCount: 0 } },
    })
  })

  it('refuses a status column that is not one of the tab’s columns', async () => {
    const made = await fixture()
    const specs = [{ title: 'T', statusColumn: 'State', columns: [{ name: 'A', kind: 'text' as const }] }]
    await expect(made.spreadsheet.ensureLayout(specs, LAYOUT)).rejects.toMatchObject({ code: 'TS_SHEET_LAYOUT' })
  })
})

const TABS = [activitiesTab(), allowedTagsTab(), syncLogTab()]

describe('the Allowed tags header explains its syntax', () => {
  async function cell(file: string, address: string): Promise<ExcelJS.DataValidation | undefined> {
    const workbook = new ExcelJS.Workbook()
    await workbook.xlsx.readFile(file)
    return workbook.getWorksheet('Allowed tags')!.getCell(address).dataValidation as ExcelJS.DataValidation | undefined
  }

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

describe('printing and filtering the workbook', () => {
  const PARTS = {
    Activities: 'xl/worksheets/sheet1.xml',
    'Allowed tags': 'xl/worksheets/sheet2.xml',
    'Sync log': 'xl/worksheets/sheet3.xml',
  }

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

  it('puts an autofilter on Activities that the protected sheet lets managers use, follows the rows the tool adds, and keeps the rows it empties', async () => {
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
    // Removed rows are emptied in place (decisions/0030): the range still reaches the last row.
    expect(await filterOf()).toMatchObject({ ref: 'A1:L6', names: [{ formula: "'Activities'!$A$1:$L$6" }] })

    // The other tabs get no filter; exceljs reads the one on Activities.
    for (const title of ['Allowed tags', 'Sync log'] as const) expect(await zipText(made.file, PARTS[title])).not.toContain('<autoFilter')
    const workbook = new ExcelJS.Workbook()
    await workbook.xlsx.readFile(made.file)
    expect(workbook.getWorksheet('Activities')!.autoFilter).toBe('A1:L6')
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

describe('row heights of wrapped texts', () => {
  const NOTES = 7
  const STATUS = 9

  function row(notes: string, status: string | null = null): CellValue[] {
    return ['ACME\\anna', 46000, 0.375, 0.5, 0.125, 'Client, Project', null, notes, false, status, `key-${notes.length}`, 'base']
  }

  /** The `<row>` start tag of each row number. */
  async function rowTags(file: string): Promise<Map<number, string>> {
    const xml = await zipText(file, 'xl/worksheets/sheet1.xml')
    return new Map([...xml.matchAll(/<row r="(\d+)"([^>]*?)\/?>/g)].map((m) => [Number(m[1]), m[2]!]))
  }

  function height(tag: string | undefined): number | undefined {
    const m = / ht="([\d.]+)"/.exec(tag ?? '')
    return m === null ? undefined : Number(m[1])
  }

  it('counts the lines a text wraps to at word boundaries, and its own line breaks', () => {
    expect(wrappedLines('short', 37)).toBe(1)
    expect(wrappedLines('Line one\nLine two\nLine three', 37)).toBe(3)
    // 79 characters in a 37-unit column (about 40 characters a line): two lines, broken at a space.
    expect(wrappedLines('Done (2026-11-23): Saved to the server: Notes: "" → "Checked by the manager".', 37.14)).toBe(2)
    expect(wrappedLines('x'.repeat(100), 10)).toBe(10)
  })

  it('gives each row the tool writes the height of its longest wrapped text, and no height to one-line rows', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    await made.spreadsheet.ensureLayout([activitiesTab(), allowedTagsTab(), syncLogTab()], { timeZone: 'Europe/Berlin' })
    const long = 'Conflict (2026-11-22): Changed both here and on the server since the last sync; the server has Start 09:30.'
    await made.spreadsheet.write(
      [{ tab: 'Activities', appends: [row('one line'), row('Line one\nLine two\nLine three'), row('short', long)] }],
      await made.spreadsheet.read(['Activities']),
    )
    let tags = await rowTags(made.file)
    expect(height(tags.get(2))).toBeUndefined()
    expect(height(tags.get(3))).toBe(3 * LINE_HEIGHT)
    expect(height(tags.get(4))).toBe(wrappedLines(long, 260 / 7) * LINE_HEIGHT)
    expect(height(tags.get(4))).toBeGreaterThan(LINE_HEIGHT)

    // A later write that shortens the Status brings the row back to the default; a longer Note grows row 2.
    const basis = await made.spreadsheet.read(['Activities'])
    await made.spreadsheet.write(
      [
        {
          tab: 'Activities',
          updates: [
            { row: 4, column: STATUS, values: ['Done (2026-11-23): Saved.'] },
            { row: 2, column: NOTES, values: ['a\nb'] },
          ],
        },
      ],
      basis,
    )
    tags = await rowTags(made.file)
    expect(height(tags.get(4))).toBeUndefined()
    expect(height(tags.get(2))).toBe(2 * LINE_HEIGHT)
    // The row nothing was written to keeps its height.
    expect(height(tags.get(3))).toBe(3 * LINE_HEIGHT)
  })

  it('keeps a height a person set', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    await made.spreadsheet.ensureLayout([activitiesTab(), allowedTagsTab(), syncLogTab()], { timeZone: 'Europe/Berlin' })
    await made.spreadsheet.write([{ tab: 'Activities', appends: [row('one')] }], await made.spreadsheet.read(['Activities']))
    await editFile(made.file, 'Activities', (sheet) => {
      sheet.getRow(2).height = 60
    })
    const basis = await made.spreadsheet.read(['Activities'])
    await made.spreadsheet.write([{ tab: 'Activities', updates: [{ row: 2, column: NOTES, values: ['a\nb\nc\nd\ne\nf'] }] }], basis)
    const tag = (await rowTags(made.file)).get(2)
    expect(height(tag)).toBe(60)
    expect(tag).toContain('customHeight="1"')
  })
})
