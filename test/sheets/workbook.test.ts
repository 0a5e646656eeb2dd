import { readFile, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import ExcelJS from 'exceljs'
import type { Worksheet } from 'exceljs'
import { afterEach, describe, expect, it } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import type { Snapshot } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet, type WorkbookLogEvent } from '../../src/sheets/workbook/backend.ts'
import { nodeFileSystem, type WorkbookFileSystem } from '../../src/sheets/workbook/file.ts'
import { STATUS_RULES, statusRuleFormula } from '../../src/core/status.ts'
import { CONTRACT_TABS, activityRow } from '../contract/spreadsheet-contract.ts'
import { createWorkbookFixture, editFile, internals, type WorkbookFixture } from './workbook-fixture.ts'

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

  it('colours rows by the status word, one rule per word of the shared vocabulary (issue 11)', async () => {
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
    // Since issue 8 (decisions/0003) a stale position is followed or skipped row by row instead of refusing the whole write.
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

  it('says the file is locked when the rename is refused', async () => {
    const fileSystem: WorkbookFileSystem = {
      ...nodeFileSystem,
      rename: async () => {
        throw Object.assign(new Error('resource busy'), { code: 'EBUSY' })
      },
    }
    const made = await fixture({ fileSystem })
    await expectWorkbookError(made.spreadsheet.ensureLayout(CONTRACT_TABS, LAYOUT), 'locked', made.file)
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
