/**
 * Issue 10: an import reads each sheet row once. The candidate scan (which rows ask for something) and the
 * planner (with the server's activities) judge the same reading; neither reads a row's cells again.
 * The cell readers and the time resolution are counted through module mocks that call the real ones.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { localDateToSerial } from '../../src/core/time.ts'
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

vi.mock('../../src/core/time.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/time.ts')>()
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

describe('issue 10: an import reads each row once', () => {
  it('a dry run with a note, a time, a delete and a new row reads every row once and resolves its times once', async () => {
    const { server, client, target, file, stateDir } = world
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
    const rows = tab.rows.length + 1

    calls.date = calls.time = calls.checkbox = calls.interval = 0
    const summary = await runImport(
      target,
      { client, spreadsheet: createWorkbookSpreadsheet({ path: file }), stateDir, reporter: silentReporter, now },
      { dryRun: true },
    )

    const kinds = summary.plan.writes.map((w) => w.kind).sort()
    expect(kinds).toEqual(['create', 'delete', 'update', 'update'])
    expect(summary.plan.invalid).toEqual([])
    expect(calls.date).toBe(rows)
    expect(calls.checkbox).toBe(rows)
    // Start and End of every row but the ticked one (a deletion needs only its Key).
    expect(calls.time).toBe(2 * (rows - 1))
    // Every row's times once from its cells; the row whose Start changed once more against the server's start.
    expect(calls.interval).toBe(rows - 1 + 1)
  })
})
