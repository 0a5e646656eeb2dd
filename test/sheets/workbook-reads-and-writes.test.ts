/**
 * The workbook file as the backend reads, writes and saves it: what people put in it reads as they wrote it; a
 * write applies against the read it was planned on, skips rows a manager's save moved and refuses what it cannot
 * write; a save keeps the previous version and leaves the old file whole when it dies; a file it cannot open
 * says which and why. A read of only the header (`ReadOptions.headerOnly`, for an export the server reported
 * nothing new for) decodes row 1 and searches the rest of the part's bytes for the end of the rows (merged ranges
 * come after them): the header it returns is the one a whole read returns, on sheets shaped as other programs
 * save them, and no write may address the tab's rows.
 */
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, describe, expect, it } from 'vitest'
import { TimelineSheetsError, isTimelineSheetsError } from '../../src/errors.ts'
import type { Snapshot } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet, type WorkbookLogEvent } from '../../src/sheets/workbook/backend.ts'
import { nodeFileSystem, type WorkbookFileSystem } from '../../src/sheets/workbook/file.ts'
import { retryOptions } from '../../src/http/retry.ts'
import { CONTRACT_TABS, activityRow } from '../contract/spreadsheet-contract.ts'
import { createWorkbookFixture, editFile, type WorkbookFixture } from './workbook-fixture.ts'
import { storedZip } from './xlsx-package.ts'

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

/** Rejects with a TS_WORKBOOK error whose message contains every part. */
async function expectWorkbookError(promise: Promise<unknown>, ...parts: string[]): Promise<TimelineSheetsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TimelineSheetsError)
  const typed = error as TimelineSheetsError
  expect(typed.code).toBe('TS_WORKBOOK')
  expect(typed.hint).toBeTruthy()
  for (const part of parts) expect(typed.message).toContain(part)
  return typed
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

describe('reading what people put in the file', () => {
  it('reads formulas as their text, shared formulas included, and errors as their code', async () => {
    const { made } = await laidOutWith(3)
    await editFile(made.file, 'Activities', (sheet) => {
      sheet.getCell('E2').value = { formula: 'D2-C2', date1904: false }
      sheet.fillFormula('G2:G4', 'B2+1', [1, 2, 3])
      sheet.getCell('H3').value = { error: '#DIV/0!' }
      sheet.getCell('H4').value = { richText: [{ text: 'bold ' }, { text: 'and plain' }] }
    })
    const rows = (await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows
    expect(rows[0]![4]).toBe('=D2-C2')
    expect(rows.map((row) => row[6])).toEqual(['=B2+1', '=B3+1', '=B4+1'])
    expect(rows[1]![7]).toBe('#DIV/0!')
    expect(rows[2]![7]).toBe('bold and plain')
  })

  it('reads date cells as the same serials whatever the machine’s time zone', async () => {
    const { made } = await laidOutWith(1)
    const saved = process.env.TZ
    try {
      for (const zone of ['Pacific/Kiritimati', 'America/St_Johns', 'UTC']) {
        process.env.TZ = zone
        const fresh = createWorkbookSpreadsheet({ path: made.file })
        const row = (await fresh.read(['Activities'])).tabs['Activities']!.rows[0]!
        expect(row.slice(1, 5)).toEqual([45294, 0.375, 0.5, 0.125])
      }
    } finally {
      process.env.TZ = saved
    }
  })

  it('reloads only when the file changed on disk', async () => {
    const { made } = await laidOutWith(1)
    const before = made.spreadsheet.requestCounts()
    await made.spreadsheet.read(['Activities'])
    expect(made.spreadsheet.requestCounts()).toEqual(before)
    await made.actAsManager.editCell('Activities', 2, 7, 'changed')
    expect((await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows[0]![7]).toBe('changed')
    expect(made.spreadsheet.requestCounts()).toEqual({ reads: before.reads + 1, writes: before.writes })
  })

  it('describes itself by the absolute path', async () => {
    const made = await fixture()
    expect(made.spreadsheet.describe()).toBe(made.file)
    expect(made.spreadsheet.kind).toBe('workbook')
  })

  it('logs each load and save with its size', async () => {
    const events: WorkbookLogEvent[] = []
    const made = await fixture({ log: (event) => events.push(event) })
    await made.spreadsheet.ensureLayout(CONTRACT_TABS, LAYOUT)
    await createWorkbookSpreadsheet({ path: made.file, log: (event) => events.push(event) }).read(['Activities'])
    expect(events.map((event) => event.action)).toEqual(['save', 'load'])
    expect(events.every((event) => event.path === made.file && event.bytes > 0)).toBe(true)
  })
})

describe('writes', () => {
  it('applies a second write against the same basis when nobody else touched the file', async () => {
    const { made, basis } = await laidOutWith(2)
    await made.spreadsheet.write([{ tab: 'Activities', updates: [{ row: 2, column: 9, values: ['error: one'] }] }], basis)
    await made.spreadsheet.write([{ tab: 'Activities', updates: [{ row: 3, column: 9, values: ['conflict: two'] }] }], basis)
    const rows = (await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows
    expect(rows.map((row) => row[9])).toEqual(['error: one', 'conflict: two'])
  })

  it('writes nothing by positions a manager’s save has made stale, and reports the row it skipped', async () => {
    const { made, basis } = await laidOutWith(3)
    await made.actAsManager.deleteRow('Activities', 2)
    // A stale position is followed or skipped row by row, never a reason to refuse the whole write (decisions/0003).
    const report = await made.spreadsheet.write(
      [{ tab: 'Activities', updates: [{ row: 2, column: 9, values: ['meant for row 1'] }] }],
      basis,
    )
    expect(report.skipped).toEqual([{ tab: 'Activities', row: 2, reason: 'gone' }])
    const rows = (await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows
    expect(rows.map((row) => row[9])).toEqual(['ok', 'ok'])
  })

  it('still writes when a manager’s save left the written tab as it was read', async () => {
    const { made, basis } = await laidOutWith(1)
    await editFile(made.file, 'Allowed tags', (sheet) => {
      sheet.getCell('A2').value = 'everyone'
    })
    await made.spreadsheet.write([{ tab: 'Activities', updates: [{ row: 2, column: 9, values: ['still here'] }] }], basis)
    const snapshot = await made.spreadsheet.read(['Activities', 'Allowed tags'])
    expect(snapshot.tabs['Activities']!.rows[0]![9]).toBe('still here')
    expect(snapshot.tabs['Allowed tags']!.rows).toEqual([['everyone']])
  })

  it.each([
    ['the header row', { deleteRows: [1] }, 'row 1 cannot be removed'],
    ['a row past the basis', { deleteRows: [5] }, 'row 5 cannot be removed'],
    ['a fractional row', { updates: [{ row: 2.5, column: 0, values: ['x'] }] }, 'row 2.5'],
    ['a negative column', { updates: [{ row: 2, column: -1, values: ['x'] }] }, 'column -1'],
    ['NaN', { updates: [{ row: 2, column: 7, values: [Number.NaN] }] }, 'H2 would get NaN'],
    ['Infinity in an append', { appends: [[Number.POSITIVE_INFINITY]] }, 'appended row 1, cell 1'],
  ])('refuses %s and writes nothing', async (_label, write, message) => {
    const { made, basis } = await laidOutWith(2)
    const counts = made.spreadsheet.requestCounts()
    await expectWorkbookError(made.spreadsheet.write([{ tab: 'Activities', ...write }], basis), message, made.file)
    expect(made.spreadsheet.requestCounts().writes).toBe(counts.writes)
    expect((await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows).toEqual([activityRow(1), activityRow(2)])
  })

  it('refuses a write whose basis did not read the tab', async () => {
    const { made } = await laidOutWith(1)
    await expectWorkbookError(made.spreadsheet.write([{ tab: 'Activities', appends: [['x']] }], { tabs: {} }), 'did not read it')
  })

  it('refuses to write to a workbook that does not exist yet', async () => {
    const made = await fixture()
    const basis = await made.spreadsheet.read(['Activities'])
    await expectWorkbookError(made.spreadsheet.write([{ tab: 'Activities', appends: [['x']] }], basis), 'does not exist', made.file)
  })
})

describe('saving', () => {
  function failingRename(): { fileSystem: WorkbookFileSystem; arm(): void } {
    let armed = false
    return {
      arm: () => {
        armed = true
      },
      fileSystem: {
        ...nodeFileSystem,
        rename: async (from, to) => {
          if (armed) throw Object.assign(new Error('simulated crash before the rename'), { code: 'EIO' })
          return nodeFileSystem.rename(from, to)
        },
      },
    }
  }

  it('keeps the previous version as <file>.bak', async () => {
    const { made, basis } = await laidOutWith(1)
    const previous = await readFile(made.file)
    await made.spreadsheet.write([{ tab: 'Activities', updates: [{ row: 2, column: 7, values: ['new'] }] }], basis)
    expect(Buffer.compare(await readFile(`${made.file}.bak`), previous)).toBe(0)
  })

  it('leaves the old workbook intact when the save dies between the temp file and the rename', async () => {
    const crash = failingRename()
    const { made, basis } = await laidOutWith(2, { fileSystem: crash.fileSystem })
    const before = await readFile(made.file)
    crash.arm()
    const failed = made.spreadsheet.write([{ tab: 'Activities', deleteRows: [2], appends: [activityRow(9)] }], basis)
    await expectWorkbookError(failed, 'Cannot save the workbook', made.file, 'simulated crash')
    expect(Buffer.compare(await readFile(made.file), before)).toBe(0)
    expect((await readdir(made.folder)).filter((name) => name.endsWith('.tmp'))).toEqual([])
    // The failed write is forgotten: the next read shows the file, not the half-applied memory.
    const reader = createWorkbookSpreadsheet({ path: made.file })
    expect((await reader.read(['Activities'])).tabs['Activities']!.rows).toEqual([activityRow(1), activityRow(2)])
    expect((await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows).toEqual([activityRow(1), activityRow(2)])
  })

  it('says the file is open in another program when the rename stays refused (workbook-held-open.test.ts: the rest)', async () => {
    const fileSystem: WorkbookFileSystem = {
      ...nodeFileSystem,
      rename: async () => {
        throw Object.assign(new Error('resource busy'), { code: 'EBUSY' })
      },
    }
    const made = await fixture({ fileSystem, heldOpen: { retry: retryOptions({ limit: 3, sleep: async () => undefined }) } })
    const error = await made.spreadsheet.ensureLayout(CONTRACT_TABS, LAYOUT).catch((caught: unknown) => caught)
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_WORKBOOK_OPEN')
    expect((error as Error).message).toContain(`The workbook ${made.file} is open in another program`)
  })

  it('names the folder when it does not exist', async () => {
    const made = await fixture()
    const nowhere = createWorkbookSpreadsheet({ path: path.join(made.folder, 'missing', 'team.xlsx') })
    await expectWorkbookError(nowhere.ensureLayout(CONTRACT_TABS, LAYOUT), 'folder does not exist', path.join(made.folder, 'missing'))
  })
})

describe('opening', () => {
  it('says which file is not a workbook, and how to recover', async () => {
    const made = await fixture()
    await writeFile(made.file, 'this is not a zip file')
    const error = await expectWorkbookError(made.spreadsheet.read(['Activities']), made.file)
    expect(error.hint).toContain('.bak')
  })

  it('says the file is locked when it cannot be read', async () => {
    const made = await fixture({
      fileSystem: {
        ...nodeFileSystem,
        readFile: async () => {
          throw Object.assign(new Error('locked'), { code: 'EBUSY' })
        },
      },
    })
    await writeFile(made.file, 'x')
    await expectWorkbookError(made.spreadsheet.read(['Activities']), 'locked', made.file)
  })

  it('refuses a workbook in the 1904 date system rather than shift every date', async () => {
    const made = await fixture()
    const workbook = new ExcelJS.Workbook()
    workbook.properties.date1904 = true
    workbook.addWorksheet('Activities').getCell('A1').value = 'User'
    await workbook.xlsx.writeFile(made.file)
    await expectWorkbookError(made.spreadsheet.read(['Activities']), '1904', made.file)
  })
})

describe('a read of the header only', () => {
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
    const folder = await mkdtemp(path.join(os.tmpdir(), 'ts-workbook-header-'))
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
