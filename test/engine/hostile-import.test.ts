/**
 * Hostile sheet input through the importer (reference server, a workbook edited the way
 * Excel saves it): hostile rows are refused one by one and the run goes on
 * with the others; a Key on two rows is found even when nothing else of that
 * user changed, and no write is planned for that activity.
 */
import type ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { editFile } from '../sheets/workbook-fixture.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 14, startDate: '2026-10-28' }, { window: { days: 14, lookBackDays: 3 } })
  await exportNow()
})

afterAll(async () => {
  await world?.server.close()
})

async function exportNow(): Promise<void> {
  const { client, target, stateDir } = world
  await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
}

async function rows() {
  const tab = (await createWorkbookSpreadsheet({ path: world.file }).read(['Activities'])).tabs['Activities']!
  return { tab, col: (name: string) => tab.header.indexOf(name) }
}

function importNow(dryRun = false) {
  const { client, target, stateDir } = world
  return runImport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now }, { dryRun })
}

/** Writes cells into sheet rows (1-based) by column name; `{ error }` makes a real error cell, as Excel stores `#N/A`. */
async function putCells(edits: { row: number; cells: Record<string, ExcelJS.CellValue> }[]): Promise<void> {
  const { tab } = await rows()
  await editFile(world.file, 'Activities', (sheet) => {
    for (const { row, cells } of edits) {
      for (const [name, value] of Object.entries(cells)) sheet.getCell(row, tab.header.indexOf(name) + 1).value = value
    }
  })
}

function serverNotes(): Map<string, string | undefined> {
  const notes = new Map<string, string | undefined>()
  for (const user of world.server.credentials.users) {
    const key = user.tagsTimelineKey!
    for (const a of world.server.store.activities(key))
      notes.set(`${key}/${a.id}`, `${a.start} ${a.duration} ${world.server.store.tagsOf(key, a).join(', ')} ${a.notes ?? ''}`)
  }
  return notes
}

describe('a Key on two rows', () => {
  it('is found when a whole row was copied and nothing else of that user changed, and nothing is planned for it', async () => {
    const { tab, col } = await rows()
    const source = tab.rows.findIndex((r) => typeof r[col('Key')] === 'string')
    const copyAt = tab.rows.length + 2
    const key = tab.rows[source]![col('Key')] as string
    const cells: Record<string, ExcelJS.CellValue> = {}
    tab.header.forEach((name, i) => (cells[name as string] = tab.rows[source]![i] as ExcelJS.CellValue))
    await putCells([{ row: copyAt, cells }])

    const dry = await importNow(true)
    expect(dry.plan.invalid.map((i) => i.rowNumber).sort((a, b) => a! - b!)).toEqual([source + 2, copyAt])
    for (const i of dry.plan.invalid)
      expect(i.reason).toMatch(new RegExp(`^Key: this activity is in rows ${source + 2}, ${copyAt}; keep one row`))
    expect(dry.plan.writes.filter((w) => w.key === key)).toEqual([])

    await putCells([{ row: copyAt, cells: Object.fromEntries(tab.header.map((name) => [name as string, null])) }])
  })

  it('plans no write when one copy is edited and the other garbled, and changes nothing on the server', async () => {
    const { tab, col } = await rows()
    const keyed = tab.rows.flatMap((r, i) => (typeof r[col('Key')] === 'string' ? [i + 2] : []))
    const [first, second] = [keyed[0]!, keyed[3]!]
    const key = tab.rows[first - 2]![col('Key')] as string
    const original = (row: number, names: string[]) =>
      Object.fromEntries(names.map((n) => [n, tab.rows[row - 2]![col(n)] as ExcelJS.CellValue]))
    const restore = [
      { row: first, cells: original(first, ['Notes']) },
      { row: second, cells: original(second, ['Key', 'Date', 'Notes']) },
    ]
    const before = serverNotes()
    // Row `first`: Notes edited. Row `second`: gets `first`'s Key, a new Date and new Notes.
    await putCells([
      { row: first, cells: { Notes: 'edited by the manager' } },
      { row: second, cells: { Key: key, Date: 'not a date', Notes: 'pasted over' } },
    ])
    const summary = await importNow()
    expect(summary.plan.writes.filter((w) => w.key === key)).toEqual([])
    expect(summary.plan.invalid.map((i) => i.rowNumber).sort((a, b) => a! - b!)).toEqual([first, second])
    expect(serverNotes()).toEqual(before)
    await putCells(restore)
  })
})

describe('hostile cells make their rows invalid; the run goes on', () => {
  it('refuses each hostile row with a Status, creates the good row, sends no error value', async () => {
    await exportNow()
    const { tab, col } = await rows()
    const alice = world.server.credentials.users[0]!
    const existing = tab.rows.findIndex((r) => r[col('User')] === alice.username && typeof r[col('Key')] === 'string') + 2
    const first = tab.rows.length + 2
    const newRow = (over: Record<string, ExcelJS.CellValue>) => ({
      User: alice.username,
      Date: '2026-11-09',
      Start: '09:00',
      End: '10:00',
      Tags: 'Acme Corp, Website',
      ...over,
    })
    const hostile: Record<string, ExcelJS.CellValue>[] = [
      newRow({ Date: '9999-12-31', Start: '23:00', End: '01:00' }),
      newRow({ Start: 0.99999999884 }),
      newRow({ Date: -1 }),
      newRow({ End: 1e308 }),
      newRow({ Date: '2026-03-29', Start: '02:30', End: '04:00' }),
      newRow({ Tags: { error: '#N/A' } }),
      newRow({ Labels: '#REF!' }),
      newRow({ Notes: { error: '#DIV/0!' } }),
      newRow({ Key: `${alice.tagsTimelineKey}/987654`, Base: 'AAAAAAAAAAA' }),
    ]
    const good = newRow({ Notes: 'the one good row' })
    await putCells([
      { row: existing, cells: { Tags: { error: '#N/A' }, Labels: ':billable' } },
      ...[...hostile, good].map((cells, i) => ({ row: first + i, cells })),
    ])
    const before = world.server.store.activities(alice.tagsTimelineKey!).length

    const summary = await importNow()
    expect(summary.result).toBe('partial')
    expect(summary.counts).toMatchObject({ created: 1, updated: 0, deleted: 0 })
    expect(summary.plan.invalid.map((i) => i.rowNumber).sort((a, b) => a! - b!)).toEqual([existing, ...hostile.map((_, i) => first + i)])
    const after = world.server.store.activities(alice.tagsTimelineKey!)
    expect(after).toHaveLength(before + 1)
    expect(after.filter((a) => a.notes === 'the one good row')).toHaveLength(1)
    expect(after.flatMap((a) => world.server.store.tagsOf(alice.tagsTimelineKey!, a)).filter((t) => t.startsWith('#'))).toEqual([])

    const { tab: read, col: c } = await rows()
    const status = (row: number) => String(read.rows[row - 2]![c('Status')] ?? '')
    expect(status(existing)).toMatch(/Tags: holds the spreadsheet error #N\/A/)
    expect(status(first)).toMatch(/Date: "9999-12-31" is after 2999-12-31, the last day the tool takes/)
    // Excel keeps milliseconds only: 23:59:59.9999 reads back as 24:00, a whole day.
    expect(status(first + 1)).toMatch(/Start: (rounds to 24:00|holds a date as well as a time)/)
    expect(status(first + 2)).toMatch(/Date: -1 is not a date/)
    // A time-formatted 1e308 is no date exceljs can build: the workbook hands it over as #NUM!, what Excel would show.
    expect(status(first + 3)).toMatch(/End: (makes the activity last more than a year|holds the spreadsheet error #NUM!)/)
    expect(status(first + 4)).toMatch(/Start: 02:30 does not exist on 2026-03-29: the clocks jump from 02:00 to 03:00 that night/)
    expect(status(first + 5)).toMatch(/Tags: holds the spreadsheet error #N\/A/)
    expect(status(first + 6)).toMatch(/Labels: holds the spreadsheet error #REF!/)
    expect(status(first + 7)).toMatch(/Notes: holds the spreadsheet error #DIV\/0!/)
    expect(status(first + 8)).toMatch(/is not on the server and the tool has no record of it|does not exist/)
  })
})
