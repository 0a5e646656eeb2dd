/**
 * The workbook backend reads and updates files it did not write itself — one the exceljs-based backend
 * wrote (an existing user's file), one a manager saved in LibreOffice, one shaped as Excel saves it (shared
 * strings with rich text and phonetic guides, inline strings, shared formulas, a calculation chain, defined
 * names) — and every part of them it has no business with comes through a save byte for byte.
 *
 * The fixtures (test/sheets/fixtures/README.md says how each was made) are
 * copied to a temp folder; the Excel-shaped one is zipped from its XML parts.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, describe, expect, it } from 'vitest'
import { activitiesTab, allowedTagsTab, syncLogTab } from '../../src/core/columns.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { readZip } from '../../src/sheets/workbook/zip.ts'
import { changedEntries, storedZip, zipRecords, zipText } from './xlsx-package.ts'

const SPECS = [activitiesTab('Activities'), allowedTagsTab(), syncLogTab()]
const LAYOUT = { timeZone: 'UTC' }
const FIXTURES = path.join(import.meta.dirname, 'fixtures')
const folders: string[] = []

afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true })
})

async function copyOf(fixture: string): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'ts-files-other-programs-saved-'))
  folders.push(folder)
  const file = path.join(folder, fixture)
  await copyFile(path.join(FIXTURES, fixture), file)
  return file
}

/** The rows both fixtures were made with (fixtures/README.md). */
const NOTES = ['Call with the client', 'Fixed login bug\nDeployed', '=SUM(A1:A2)', '0042', ' padded ', 'Café ☕ 😀', '', 'a & b < c']
/** The workbook part without the names the tool sets on its own tabs (print titles, filter ranges). */
function withoutToolNames(xml: string): string {
  return xml
    .replace(/<definedName name="_xlnm\.(?:Print_Titles|_FilterDatabase)" localSheetId="\d+"(?: hidden="1")?>[^<]*<\/definedName>/g, '')
    .replace('<definedNames></definedNames>', '')
}

function fixtureRow(i: number): CellValue[] {
  return [
    `DOMAIN\\user${i % 3}`,
    46027 + Math.floor(i / 5),
    (8 * 60 + (i % 8) * 45) / 1440,
    (9 * 60 + (i % 8) * 45) / 1440,
    60 / 1440,
    i % 2 === 0 ? 'Acme, Website, Build' : 'Globex, Migration, Analysis',
    i % 3 === 0 ? ':billable' : null,
    NOTES[i % NOTES.length] || null,
    false,
    null,
    `tags-user${i % 3}/${100 + i}`,
    `fp-${i}`,
  ]
}

function readZipNames(bytes: Buffer): string[] {
  return readZip(bytes).entries.map((entry) => entry.name)
}

function fixtureRows(): CellValue[][] {
  const rows = Array.from({ length: 24 }, (_, i) => fixtureRow(i))
  rows[2]![9] = 'error: the server refused it'
  return rows
}

async function reopen(file: string): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(file)
  return workbook
}

/** An update, a removal and two appends on Activities, and a Sync log row, against a fresh read. */
async function editActivities(file: string): Promise<void> {
  const sheet = createWorkbookSpreadsheet({ path: file })
  const basis = await sheet.read(['Activities', 'Sync log'])
  await sheet.write(
    [
      {
        tab: 'Activities',
        keyColumn: 10,
        updates: [{ row: 3, column: 7, values: ['new note', false, 'updated'] }],
        deleteRows: [5],
        appends: [fixtureRow(30), fixtureRow(31)],
      },
      { tab: 'Sync log', appends: [[46040.5, 'run-9', 'export', 'success', 2, 1, 1, 0, 0, '']] },
    ],
    basis,
  )
}

function afterEdit(rows: CellValue[][]): CellValue[][] {
  const out = rows.map((row) => [...row])
  out[1]!.splice(7, 3, 'new note', false, 'updated')
  // Row 5 is emptied in place (decisions/0030); the appends go after the last row.
  out[3] = []
  out.push(fixtureRow(30), fixtureRow(31))
  return out
}

describe('a workbook the exceljs-based backend wrote (an existing user file)', () => {
  it('reads every row as it was written, and finds its layout already in place', async () => {
    const file = await copyOf('exceljs-era.xlsx')
    const sheet = createWorkbookSpreadsheet({ path: file })
    const snapshot = await sheet.read(['Activities', 'Sync log'])
    expect(snapshot.tabs['Activities']!.rows).toEqual(fixtureRows())
    expect(snapshot.tabs['Sync log']!.rows).toEqual([
      [46030.25, 'run-1', 'export', 'success', 24, 0, 0, 0, 0],
      [46030.5, 'run-2', 'import', 'partial', 0, 1, 0, 0, 1, 'one row refused'],
      [46031.25, 'run-3', 'export', 'success', 0, 0, 0, 0, 0],
    ])
    // The file predates the layout this version writes (status words, print settings, a filter): it is brought up
    // to it once, in the tool's own parts, and then found in place.
    const before = await zipRecords(file)
    const workbookBefore = await zipText(file, 'xl/workbook.xml')
    expect(await sheet.ensureLayout(SPECS, LAYOUT)).toEqual({ createdTabs: [], changed: true })
    const upgraded = await zipRecords(file)
    const tools = ['xl/worksheets/sheet1.xml', 'xl/worksheets/sheet2.xml', 'xl/worksheets/sheet3.xml', 'xl/styles.xml', 'xl/workbook.xml']
    expect(
      changedEntries(
        before,
        upgraded,
        [...before.keys()].filter((name) => !tools.includes(name)),
      ),
    ).toEqual([])
    expect(withoutToolNames(await zipText(file, 'xl/workbook.xml'))).toBe(withoutToolNames(workbookBefore))
    expect(await createWorkbookSpreadsheet({ path: file }).ensureLayout(SPECS, LAYOUT)).toEqual({ createdTabs: [], changed: false })
    expect(changedEntries(upgraded, await zipRecords(file), upgraded.keys())).toEqual([])
  })

  it('updates, removes and appends rows; the manager’s Budget tab and every other part stay byte for byte', async () => {
    const file = await copyOf('exceljs-era.xlsx')
    const before = await zipRecords(file)
    await editActivities(file)
    const after = await zipRecords(file)
    expect([...after.keys()]).toEqual([...before.keys()])
    // Activities and Sync log are sheet1 and sheet3; Budget is sheet4.
    expect(changedEntries(before, after, before.keys())).toEqual(['xl/worksheets/sheet1.xml', 'xl/worksheets/sheet3.xml'])
    const snapshot = await createWorkbookSpreadsheet({ path: file }).read(['Activities', 'Sync log'])
    expect(snapshot.tabs['Activities']!.rows).toEqual(afterEdit(fixtureRows()))
    expect(snapshot.tabs['Sync log']!.rows.at(-1)).toEqual([46040.5, 'run-9', 'export', 'success', 2, 1, 1, 0, 0])
    const workbook = await reopen(file)
    expect(workbook.getWorksheet('Activities')!.getCell('H3').value).toBe('new note')
    expect(workbook.getWorksheet('Activities')!.getCell('K5').value).toBeNull()
    expect(workbook.getWorksheet('Activities')!.getCell('K26').value).toBe('tags-user0/130')
    expect(workbook.getWorksheet('Activities')!.getCell('K27').value).toBe('tags-user1/131')
    expect(workbook.getWorksheet('Budget')!.getCell('D2').value).toMatchObject({ formula: 'B2*C2' })
    expect(workbook.definedNames.getRanges('Costs').ranges).toEqual(['Budget!$D$2:$D$7'])
  })
})

describe('a workbook a manager saved in LibreOffice', () => {
  it('reads its cells as the tool wrote them: booleans saved as FALSE(), shared strings, times with float noise', async () => {
    const file = await copyOf('libreoffice-saved.xlsx')
    expect(await zipText(file, 'xl/worksheets/sheet1.xml')).toContain('<f aca="false">FALSE()</f>')
    const snapshot = await createWorkbookSpreadsheet({ path: file }).read(['Activities', 'Sync log'])
    const expected = fixtureRows()
    expected[1]![7] = 'Edited in LibreOffice'
    expect(snapshot.tabs['Activities']!.rows).toEqual(expected)
    expect(snapshot.tabs['Sync log']!.rows).toEqual([
      [46030.25, 'run-1', 'export', 'success', 24, 0, 0, 0, 0],
      [46030.5, 'run-2', 'import', 'partial', 0, 1, 0, 0, 1, 'one row refused'],
    ])
  })

  it('reads a box it saved as a number formula, FALSE() or TRUE() where the cell has the checkbox format, as the box', async () => {
    // LibreOffice 7.4 saves the tool's Delete cells (format `"✓";"✓";""`) so: `t="n"` and the constant function.
    const folder = await mkdtemp(path.join(os.tmpdir(), 'ts-files-other-programs-saved-'))
    folders.push(folder)
    const written = path.join(folder, 'written.xlsx')
    const workbook = createWorkbookSpreadsheet({ path: written })
    await workbook.ensureLayout(SPECS, LAYOUT)
    const rows = [fixtureRow(0), fixtureRow(1)]
    rows[1]![8] = true
    await workbook.write([{ tab: 'Activities', appends: rows }], await workbook.read(['Activities']))
    const names = readZipNames(await readFile(written))
    const parts: Record<string, string> = {}
    for (const name of names) parts[name] = await zipText(written, name)
    const sheet = Object.keys(parts).find((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name) && parts[name]!.includes('fp-0'))!
    let saved = 0
    parts[sheet] = parts[sheet]!.replace(/<c r="(I\d+)"( s="\d+")? t="b"><v>([01])<\/v><\/c>/g, (_, at: string, style = '', v: string) => {
      saved++
      return `<c r="${at}"${style} t="n"><f aca="false">${v === '1' ? 'TRUE()' : 'FALSE()'}</f><v>${v}</v></c>`
    })
    expect(saved).toBe(2)
    const file = path.join(folder, 'libreoffice-saved-boxes.xlsx')
    await writeFile(file, storedZip(parts))
    const read = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
    expect(read.rows.map((r) => r[8])).toEqual([false, true])
  })

  it('lays it out again once and writes to it; Team notes, its defined name and LibreOffice’s parts stay byte for byte', async () => {
    const file = await copyOf('libreoffice-saved.xlsx')
    const before = await zipRecords(file)
    const workbookBefore = await zipText(file, 'xl/workbook.xml')
    // LibreOffice dropped the frozen header and the protection: the layout puts them back, once.
    expect((await createWorkbookSpreadsheet({ path: file }).ensureLayout(SPECS, LAYOUT)).changed).toBe(true)
    expect((await createWorkbookSpreadsheet({ path: file }).ensureLayout(SPECS, LAYOUT)).changed).toBe(false)
    await editActivities(file)
    const after = await zipRecords(file)
    const tools = ['xl/worksheets/sheet1.xml', 'xl/worksheets/sheet2.xml', 'xl/worksheets/sheet3.xml', 'xl/styles.xml']
    expect(
      changedEntries(
        before,
        after,
        [...before.keys()].filter((name) => !tools.includes(name) && name !== 'xl/workbook.xml'),
      ),
    ).toEqual([])
    // The workbook part gains only the tool's print titles and filter range; Team notes' name stays.
    expect(withoutToolNames(await zipText(file, 'xl/workbook.xml'))).toBe(withoutToolNames(workbookBefore))
    expect(before.has('xl/worksheets/sheet4.xml') && before.has('docProps/custom.xml')).toBe(true)
    const expected = fixtureRows()
    expected[1]![7] = 'Edited in LibreOffice'
    expect((await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!.rows).toEqual(afterEdit(expected))
    const workbook = await reopen(file)
    expect(workbook.getWorksheet('Activities')!.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 })
    expect(workbook.getWorksheet('Team notes')!.getCell('D2').value).toMatchObject({ formula: 'C2*2' })
    expect(workbook.definedNames.getRanges('TeamHours').ranges).toEqual(["'Team notes'!$C$2:$C$3"])
  })
})

const HEADER = ['User', 'Date', 'Start', 'End', 'Duration', 'Tags', 'Labels', 'Notes', 'Delete', 'Status', 'Key', 'Base', 'Billable h']
/** The parts of `fixtures/excel-shaped/`, in the order Excel writes them. */
const EXCEL_PARTS = [
  '[Content_Types].xml',
  '_rels/.rels',
  'xl/workbook.xml',
  'xl/_rels/workbook.xml.rels',
  'xl/worksheets/sheet1.xml',
  'xl/worksheets/sheet2.xml',
  'xl/sharedStrings.xml',
  'xl/styles.xml',
  'xl/calcChain.xml',
]

/**
 * A workbook as Excel saves it after a manager worked in it (fixtures/README.md): their Overview tab
 * first, the tool's Activities after; every text a shared string (one rich text, one with a phonetic
 * guide) but one inline string another program put there; an error cell; a shared formula in a column
 * of their own; a calculation chain; defined names.
 */
async function excelShapedWorkbook(): Promise<Buffer> {
  const parts: Record<string, string> = {}
  for (const name of EXCEL_PARTS) parts[name] = await readFile(path.join(FIXTURES, 'excel-shaped', name), 'utf8')
  return storedZip(parts)
}

describe('a workbook shaped as Excel saves it', () => {
  async function excelFile(): Promise<string> {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'ts-files-excel-saved-'))
    folders.push(folder)
    const file = path.join(folder, 'excel.xlsx')
    await writeFile(file, await excelShapedWorkbook())
    return file
  }

  const row = (key: number, notes: CellValue, extra: { del?: boolean; status?: CellValue; formula: string }): CellValue[] => [
    // Times and durations read as their millisecond, whatever digits Excel wrote.
    'DOMAIN\\alice',
    46027,
    0.375,
    10 / 24,
    1 / 24,
    'Acme, Website, Build',
    null,
    notes,
    extra.del ?? false,
    extra.status ?? null,
    `tags-alice/${key}`,
    `fp-${key}`,
    `=${extra.formula}`,
  ]

  it('reads shared strings (rich text, a phonetic guide), inline strings, errors, booleans and a shared formula', async () => {
    const file = await excelFile()
    const tab = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
    expect(tab.header).toEqual(HEADER)
    expect(tab.rows).toEqual([
      row(1, 'Fixed login bug', { formula: 'E2*24' }),
      row(2, ' typed elsewhere ', { del: true, status: '#N/A', formula: 'E3*24' }),
      row(3, '東京', { formula: 'E4*24' }),
    ])
  })

  it('writes to it: the Overview tab, the shared strings and the names stay byte for byte, the removed row is emptied; the calculation chain goes', async () => {
    const file = await excelFile()
    const before = await zipRecords(file)
    const sheet = createWorkbookSpreadsheet({ path: file })
    const basis = await sheet.read(['Activities'])
    const appended = row(9, 'a & b < c', { formula: 'E4*24' }).slice(0, 12)
    const updates = [{ row: 2, column: 9, values: ['updated'] }]
    await sheet.write([{ tab: 'Activities', keyColumn: 10, updates, deleteRows: [4], appends: [appended] }], basis)
    const after = await zipRecords(file)
    expect([...after.keys()]).toEqual([...before.keys()].filter((name) => name !== 'xl/calcChain.xml'))
    // Row 4 is emptied in place (decisions/0030), so the filter's name over rows 1 to 4 keeps its range, and the
    // workbook part its bytes; only the calculation chain's entries go from the package's lists.
    const changed = ['[Content_Types].xml', 'xl/_rels/workbook.xml.rels', 'xl/worksheets/sheet1.xml']
    expect(changedEntries(before, after, after.keys())).toEqual(changed)
    expect(await zipText(file, 'xl/workbook.xml')).toContain(
      '<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="1" hidden="1">Activities!$A$1:$M$4</definedName><definedName name="Rate">Overview!$B$1</definedName></definedNames>',
    )
    expect(await zipText(file, 'xl/_rels/workbook.xml.rels')).not.toContain('calcChain')
    expect(await zipText(file, '[Content_Types].xml')).not.toContain('calcChain')
    const rows = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!.rows
    // The shared formula's cells each hold their own now, so emptying one of them cannot break the others.
    expect(rows).toEqual([
      row(1, 'Fixed login bug', { status: 'updated', formula: 'E2*24' }),
      row(2, ' typed elsewhere ', { del: true, status: '#N/A', formula: 'E3*24' }),
      [],
      appended,
    ])
    const workbook = await reopen(file)
    expect(workbook.worksheets.map((tab) => tab.name)).toEqual(['Overview', 'Activities'])
    expect(workbook.getWorksheet('Activities')!.getCell('M3').value).toMatchObject({ formula: 'E3*24' })
    expect(await zipText(file, 'xl/worksheets/sheet1.xml')).not.toContain('t="shared"')
    expect(workbook.getWorksheet('Activities')!.getCell('H5').value).toBe('a & b < c')
    expect(workbook.definedNames.getRanges('Rate').ranges).toEqual(['Overview!$B$1'])
  })
})
