/**
 * An import reads each sheet row once at most. The candidate scan (which rows ask for something) and
 * the planner (with the server's activities) judge the same reading; neither reads a row's cells again. A row
 * still as the export wrote it is not read at all (decisions/0013); without the export's digests every row is
 * read, once. The cell readers and the time resolution are counted through module mocks that call the real ones.
 */
import { readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const calls = vi.hoisted(() => ({ date: 0, time: 0, checkbox: 0, interval: 0 }))

vi.mock('../../src/core/cells.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/cells.ts')>()
  return {
    ...real,
    readDateCell: (...args: Parameters<typeof real.readDateCell>) => (calls.date++, real.readDateCell(...args)),
    readTimeCell: (...args: Parameters<typeof real.readTimeCell>) => (calls.time++, real.readTimeCell(...args)),
    readCheckboxCell: (...args: Parameters<typeof real.readCheckboxCell>) => (calls.checkbox++, real.readCheckboxCell(...args)),
  }
})

vi.mock('../../src/core/sheet-times.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/sheet-times.ts')>()
  return {
    ...real,
    sheetTimesToInterval: (...args: Parameters<typeof real.sheetTimesToInterval>) => (calls.interval++, real.sheetTimesToInterval(...args)),
  }
})

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 28, startDate: '2026-10-14' }, { window: { days: 28 } })
  const { client, target, stateDir } = world
  await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
})

afterAll(async () => {
  await world?.server.close()
})

describe('an import reads each row once', () => {
  it('a dry run with a note, a time, a delete and a new row reads only those rows, and each once', async () => {
    const { rows, edited } = await editFourRows()
    const summary = await countedDryRun()
    const kinds = summary.plan.writes.map((w) => w.kind).sort()
    expect(kinds).toEqual(['create', 'delete', 'update', 'update'])
    expect(summary.plan.invalid).toEqual([])
    expect(rows).toBeGreaterThan(100)
    expectRead(edited)
  })

  it('without the export’s digests (a state from before them) reads every row once and resolves its times once', async () => {
    const folder = path.join(world.stateDir, world.target.name)
    const digests = (await readdir(folder)).filter((name) => name.startsWith('written-'))
    expect(digests).toHaveLength(1)
    for (const name of digests) await rm(path.join(folder, name))
    const summary = await countedDryRun()
    expect(summary.plan.writes.map((w) => w.kind).sort()).toEqual(['create', 'delete', 'update', 'update'])
    expectRead(rowsNow)
  })

  it('an applied import keeps the digests of the rows it read in full, so the next one reads only rows written since', async () => {
    const { client, target, file, stateDir } = world
    const deps = () => ({ client, spreadsheet: createWorkbookSpreadsheet({ path: file }), stateDir, reporter: silentReporter, now })
    expect((await runImport(target, deps())).result).toBe('success')
    // The four rows it wrote back (a Base refreshed, a new Key) are read next time; the rest of the sheet is not.
    const next = await countedDryRun()
    expect(next.plan.writes).toEqual([])
    expect(calls.date).toBeGreaterThan(0)
    expect(calls.date).toBeLessThanOrEqual(4)
    expect((await runImport(target, deps())).result).toBe('success')
    await countedDryRun()
    expect(calls.date).toBe(0)
  })
})

let rowsNow = 0

/** Edits a note, moves a start, ticks a delete and adds a row; the data rows then, and the rows edited. */
async function editFourRows(): Promise<{ rows: number; edited: number }> {
  const { server, file } = world
  const sheet = await createWorkbookSpreadsheet({ path: file }).read(['Activities'])
  const tab = sheet.tabs['Activities']!
  const col = (name: string) => tab.header.indexOf(name)
  const [alice, bob] = server.credentials.users
  const of = (user: string) => tab.rows.findIndex((r) => r[col('User')] === user && (r[col('Start')] as number) >= 0.1)
  const edit = managerEditing(file)
  await edit.editCell('Activities', of(alice!.username) + 2, col('Notes'), 'a note typed in')
  const moved = of(bob!.username)
  await edit.editCell('Activities', moved + 2, col('Start'), (tab.rows[moved]![col('Start')] as number) - 0.25 / 24)
  const ticked = tab.rows.findIndex((r, i) => i !== moved && r[col('User')] === bob!.username)
  await edit.editCell('Activities', ticked + 2, col('Delete'), true)
  const added = tab.rows.length + 2
  await edit.editCell('Activities', added, col('User'), alice!.username)
  await edit.editCell('Activities', added, col('Date'), localDateToSerial('2026-11-09'))
  await edit.editCell('Activities', added, col('Start'), 9 / 24)
  await edit.editCell('Activities', added, col('End'), 10 / 24)
  await edit.editCell('Activities', added, col('Tags'), 'Acme Corp, Audit')
  rowsNow = tab.rows.length + 1
  return { rows: rowsNow, edited: 4 }
}

async function countedDryRun() {
  const { client, target, file, stateDir } = world
  calls.date = calls.time = calls.checkbox = calls.interval = 0
  return runImport(
    target,
    { client, spreadsheet: createWorkbookSpreadsheet({ path: file }), stateDir, reporter: silentReporter, now },
    { dryRun: true },
  )
}

/**
 * `read` rows read once each, a ticked one included (a deletion asks its cells to be readable); one moved, resolved
 * again against the server's start.
 */
function expectRead(read: number): void {
  expect(calls.date).toBe(read)
  expect(calls.checkbox).toBe(read)
  expect(calls.time).toBe(2 * read)
  expect(calls.interval).toBe(read + 1)
}
