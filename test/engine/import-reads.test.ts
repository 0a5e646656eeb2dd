/**
 * The importer reads the server where the edits are: one request per user, from
 * the first to the last week holding edited rows, not the whole window, and the
 * rest of the window only when an edited row's activity moved in from another week.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

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

/** An import of the world's workbook, as a run of the command would make it. */
function importNow(w: EngineFixture) {
  return runImport(w.target, { client: w.client, spreadsheet: w.spreadsheet(), stateDir: w.stateDir, reporter: silentReporter, now })
}

async function rows() {
  const tab = (await createWorkbookSpreadsheet({ path: world.file }).read(['Activities'])).tabs['Activities']!
  return { tab, col: (name: string) => tab.header.indexOf(name) }
}

describe('where the importer reads', () => {
  const fixture = () => world
  it('an edit in the last week reads that week of that user only', async () => {
    const { server, file, activityReads } = fixture()
    const { tab, col } = await rows()
    const alice = server.credentials.users[0]!.username
    const index = tab.rows.findIndex((r) => r[col('User')] === alice && (r[col('Date')] as number) >= localDateToSerial('2026-11-05'))
    await managerEditing(file).editCell('Activities', index + 2, col('Notes'), 'late edit')
    activityReads.length = 0
    const summary = await importNow(fixture())
    expect(summary.counts).toMatchObject({ updated: 1, conflicts: 0 })
    expect(activityReads).toHaveLength(1)
  })

  it('edits in the first and the last week of one user read the weeks between too, in one request', async () => {
    const { server, file, activityReads } = fixture()
    const { tab, col } = await rows()
    const alice = server.credentials.users[0]!.username
    const early = tab.rows.findIndex((r) => r[col('User')] === alice && (r[col('Date')] as number) < localDateToSerial('2026-10-20'))
    const late = tab.rows.findLastIndex((r) => r[col('User')] === alice && (r[col('Date')] as number) >= localDateToSerial('2026-11-05'))
    expect(early).toBeGreaterThanOrEqual(0)
    expect(late).toBeGreaterThan(early)
    const sheet = managerEditing(file)
    await sheet.editCell('Activities', early + 2, col('Notes'), 'first week')
    await sheet.editCell('Activities', late + 2, col('Notes'), 'last week')
    activityReads.length = 0
    const summary = await importNow(fixture())
    expect(summary.counts).toMatchObject({ updated: 2, conflicts: 0 })
    expect(activityReads).toHaveLength(1)
    const asked = new URL(activityReads[0]!).searchParams
    // The edits sit in the window's first and last weeks: the read spans at least the three weeks from one to the other.
    const days = Math.round((Date.parse(asked.get('toTime')!) - Date.parse(asked.get('fromTime')!)) / 86_400_000)
    expect(days).toBeGreaterThanOrEqual(21)
  })

  it('an activity moved in from another week is found by reading the rest of the window: an update, not a conflict', async () => {
    const { server, file, activityReads } = fixture()
    const { tab, col } = await rows()
    const bob = server.credentials.users[1]!
    const index = tab.rows.findIndex((r) => r[col('User')] === bob.username && (r[col('Date')] as number) < localDateToSerial('2026-10-20'))
    const key = tab.rows[index]![col('Key')] as string
    await managerEditing(file).editCell('Activities', index + 2, col('Date'), localDateToSerial('2026-11-06'))
    activityReads.length = 0
    const summary = await importNow(fixture())
    expect(summary.counts).toMatchObject({ updated: 1, conflicts: 0, failed: 0 })
    expect(activityReads.length).toBeGreaterThan(1)
    const moved = server.store.activity(bob.tagsTimelineKey!, Number(key.split('/')[1]))!
    expect(moved.start.slice(0, 10)).toBe('2026-11-06')
  })

  it('a row whose notes look like a formula (as the server holds them) is still importable when another cell is edited', async () => {
    const { server, client, target, file, stateDir } = fixture()
    const alice = server.credentials.users[0]!
    const target0 = server.store.activities(alice.tagsTimelineKey!).find((a) => a.start >= '2026-11-03')!
    server.store.updateActivity(alice.tagsTimelineKey!, target0.id, {
      tags: server.store.tagsOf(alice.tagsTimelineKey!, target0),
      notes: '=IMPORTDATA(x)',
      start: target0.start,
      duration: target0.duration,
    })
    await runExport(target, {
      client,
      spreadsheet: createWorkbookSpreadsheet({ path: file }),
      stateDir,
      reporter: silentReporter,
      now: () => new Date('2026-11-11T09:00:00Z'),
    })
    const { tab, col } = await rows()
    const key = `${alice.tagsTimelineKey}/${target0.id}`
    const index = tab.rows.findIndex((r) => r[col('Key')] === key)
    expect(tab.rows[index]![col('Notes')]).toBe('=IMPORTDATA(x)')
    await managerEditing(file).editCell('Activities', index + 2, col('Tags'), 'Acme Corp, Audit, Fieldwork')
    const summary = await importNow(fixture())
    expect(summary.counts, JSON.stringify(summary.plan)).toMatchObject({ updated: 1, invalid: 0, conflicts: 0 })
    expect(server.store.activity(alice.tagsTimelineKey!, target0.id)!.notes).toBe('=IMPORTDATA(x)')
  })
})

describe('where the importer reads, on a server that refuses ranges over 10 days', () => {
  let limited: EngineFixture
  beforeAll(async () => {
    limited = await startEngineFixture(
      { users: 1, days: 28, startDate: '2026-10-14' },
      { window: { days: 28 } },
      { rangeLimit: { maxDays: 10, status: 400 } },
    )
    const { client, target, stateDir } = limited
    await runExport(target, { client, spreadsheet: limited.spreadsheet(), stateDir, reporter: silentReporter, now })
  })
  afterAll(async () => {
    await limited?.server.close()
  })

  it('the read from the first edited week to the last is halved until the server answers, and both edits are sent', async () => {
    const { file, activityReads } = limited
    const tab = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
    const col = (name: string) => tab.header.indexOf(name)
    const early = tab.rows.findIndex((r) => (r[col('Date')] as number) < localDateToSerial('2026-10-20'))
    const late = tab.rows.findLastIndex((r) => (r[col('Date')] as number) >= localDateToSerial('2026-11-05'))
    const sheet = managerEditing(file)
    await sheet.editCell('Activities', early + 2, col('Notes'), 'first week, limited server')
    await sheet.editCell('Activities', late + 2, col('Notes'), 'last week, limited server')
    activityReads.length = 0
    const summary = await importNow(limited)
    expect(summary.counts).toMatchObject({ updated: 2, conflicts: 0, failed: 0 })
    // Refused whole (three weeks and more), then read in halves.
    expect(activityReads.length).toBeGreaterThan(1)
    const keys = [tab.rows[early]![col('Key')], tab.rows[late]![col('Key')]] as string[]
    const notes = keys.map((k) => limited.server.store.activity(k.split('/')[0]!, Number(k.split('/')[1]))!.notes)
    expect(notes).toEqual(['first week, limited server', 'last week, limited server'])
  })
})

describe('where the importer reads, in a zone at UTC+13', () => {
  let auckland: EngineFixture
  beforeAll(async () => {
    auckland = await startEngineFixture(
      { users: 1, days: 28, startDate: '2026-10-14', timeZones: ['Pacific/Auckland'] },
      { window: { days: 28 }, timeZone: 'Pacific/Auckland' },
    )
    const { client, target, stateDir } = auckland
    await runExport(target, { client, spreadsheet: auckland.spreadsheet(), stateDir, reporter: silentReporter, now })
  })
  afterAll(async () => {
    await auckland?.server.close()
  })

  it('an edit on the last days of a week reads that week, in one request', async () => {
    // The window is 15 October to 11 November, local: its second week is 22 to 28 October.
    const { file, activityReads } = auckland
    const tab = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
    const col = (name: string) => tab.header.indexOf(name)
    const index = tab.rows.findLastIndex((r) => (r[col('Date')] as number) === localDateToSerial('2026-10-27'))
    expect(index).toBeGreaterThanOrEqual(0)
    await managerEditing(file).editCell('Activities', index + 2, col('Notes'), 'end of the week')
    activityReads.length = 0
    const summary = await importNow(auckland)
    expect(summary.counts).toMatchObject({ updated: 1, conflicts: 0, failed: 0 })
    expect(activityReads.map((url) => [new URL(url).searchParams.get('fromTime'), new URL(url).searchParams.get('toTime')])).toEqual([
      ['2026-10-22T00:00:00+13:00', '2026-10-29T00:00:00+13:00'],
    ])
  })
})
