/**
 * Sheets requests of a first export, an incremental export, a run in which the server reports nothing new, and
 * a sync with nothing to import, counted by the Sheets fake: they grow with the rows written, never with the sheet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Manager } from '../../counterparts/sheets/manager.ts'
import type { SheetsFake } from '../../counterparts/sheets/server.ts'
import type { ReferenceServer } from '../../counterparts/timeline/server.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import type { TargetConfig } from '../../src/config/schema.ts'
import { runExport } from '../../src/engine/export.ts'
import { runSync } from '../../src/engine/sync.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import type { TabData } from '../../src/sheets/port.ts'
import { startGoogleWorld } from './google-world.ts'

const TOKEN = 'issue-10-requests-token'
const T0 = Date.parse('2026-11-10T11:00:00Z')
const HOUR = 3_600_000

let server: ReferenceServer
let fake: SheetsFake
let manager: Manager
let client: TimelineClient
let target: TargetConfig
let stateDir: string
let spreadsheetId: string
let timelineKey: string

beforeAll(async () => {
  ;({ server, fake, manager, client, target, stateDir, spreadsheetId, timelineKey } = await startGoogleWorld(
    TOKEN,
    'ts-issue-10-requests-',
  ))
})

afterAll(async () => {
  await server?.close()
  await fake?.close()
})

/** Deps for one run at `at`, on a fresh backend (as a new process opens it), with the fake's counts reset. */
function depsAt(at: number) {
  fake.store.resetStats()
  return {
    client,
    spreadsheet: createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: fake.rootUrl, retry: { limit: 0 } }),
    stateDir,
    reporter: silentReporter,
    now: () => new Date(at),
  }
}

function syncLogRows(): number {
  return manager.readTab(spreadsheetId, 'Sync log').length
}

describe('Sheets requests per run (Google)', () => {
  it('the first export builds the sheet: the tab list, the default tab, the layout, the rows; no read of the tabs it made', async () => {
    const summary = await runExport(target, depsAt(T0), { full: true })
    expect(summary.result).toBe('success')
    expect(summary.counts.created).toBeGreaterThan(20)
    // The default Sheet1 is read to learn it is empty before it is deleted; the tabs made are known empty.
    expect(fake.store.stats().byMethod).toEqual({ GetSpreadsheet: 1, BatchGetValues: 1, BatchUpdateSpreadsheet: 2 })
  })

  it('an incremental export with updates, a new and a deleted activity makes 6 requests, whatever the size of the sheet', async () => {
    const [a, b] = server.store.overlapping(timelineKey, Date.parse('2026-11-05T00:00:00Z'), Date.parse('2026-11-08T00:00:00Z'))
    server.store.updateActivity(timelineKey, a!.id, {
      tags: 'Initech, Support, Tickets',
      notes: 'changed',
      start: a!.start,
      duration: a!.duration,
    })
    server.store.deleteActivity(timelineKey, b!.id)
    server.store.createActivity(timelineKey, {
      tags: 'Globex, Migration, Analysis',
      notes: 'new',
      start: '2026-11-10T09:00:00+01:00',
      duration: 1800,
    })
    const logRows = syncLogRows()

    const summary = await runExport(target, depsAt(T0 + HOUR))
    expect(summary.result).toBe('success')
    expect(summary.counts).toMatchObject({ created: 1, updated: 1, deleted: 1 })
    const stats = fake.store.stats()
    // The read (Key and Base of every row, then the changed rows whole), the claims on the rows it writes and
    // their read-back, the value write through the claims, and one batchUpdate that inserts the new row and the
    // Sync log row and removes the claims.
    expect(stats.byMethod).toEqual({ BatchGetValuesByDataFilter: 3, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 2 })
    expect(stats.total).toBe(6)
    expect(summary.sheetsRequests).toEqual({ reads: stats.reads, writes: stats.writes })
    expect(syncLogRows()).toBe(logRows + 1)
    const rows = manager.readTab(spreadsheetId, 'Activities')
    const keyColumn = rows[0]!.indexOf('Key')
    const notesColumn = rows[0]!.indexOf('Notes')
    expect(rows.find((r) => r[keyColumn] === `${timelineKey}/${a!.id}`)?.[notesColumn]).toBe('changed')
    expect(rows.some((r) => r[keyColumn] === `${timelineKey}/${b!.id}`)).toBe(false)
  })

  it('a run in which the server reports nothing new reads no whole tab: the Activities header only, then the Sync log row', async () => {
    const logRows = syncLogRows()
    const deps = depsAt(T0 + 2 * HOUR)
    const reads: { tab: string; rows: number; headerOnly: boolean }[] = []
    const read = deps.spreadsheet.read.bind(deps.spreadsheet)
    deps.spreadsheet.read = async (tabs, options) => {
      const snapshot = await read(tabs, options)
      for (const tab of Object.values(snapshot.tabs))
        reads.push({ tab: tab.title, rows: tab.rows.length, headerOnly: Boolean(tab.headerOnly) })
      return snapshot
    }
    const summary = await runExport(target, deps)
    expect(summary.result).toBe('success')
    expect(summary.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    const stats = fake.store.stats()
    expect(stats.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateSpreadsheet: 1 })
    expect(reads.filter((r) => r.tab === 'Activities')).toEqual([{ tab: 'Activities', rows: 0, headerOnly: true }])
    expect(syncLogRows()).toBe(logRows + 1)
  })

  it('a sync with nothing to import and nothing new: one read for both halves, and both Sync log rows in one write', async () => {
    const logRows = syncLogRows()
    const { imported, exported } = await runSync(target, depsAt(T0 + 3 * HOUR))
    expect(imported.result).toBe('success')
    expect(exported?.result).toBe('success')
    const stats = fake.store.stats()
    expect(imported.sheetsRequests).toEqual({ reads: 1, writes: 0 })
    expect(stats.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateSpreadsheet: 1 })
    const log = manager.readTab(spreadsheetId, 'Sync log')
    expect(log.length).toBe(logRows + 2)
    expect(log.slice(-2).map((row) => row.join(' '))).toEqual([expect.stringContaining('import'), expect.stringContaining('export')])
  })

  it('a sync with nothing to import and a change on the server: 1 read for both halves, and the row the export writes claimed', async () => {
    const [a] = server.store.overlapping(timelineKey, Date.parse('2026-11-06T00:00:00Z'), Date.parse('2026-11-07T00:00:00Z'))
    server.store.updateActivity(timelineKey, a!.id, {
      tags: 'Acme Corp, Website, Build',
      notes: 'changed again',
      start: a!.start,
      duration: a!.duration,
    })
    const deps = depsAt(T0 + 4 * HOUR)
    const serverReads = { updated: 0, activities: 0 }
    const counted: TimelineClient = {
      ...client,
      readUpdated: (...args) => (serverReads.updated++, client.readUpdated(...args)),
      readActivities: (...args) => (serverReads.activities++, client.readActivities(...args)),
    }
    const { imported, exported } = await runSync(target, { ...deps, client: counted })
    expect(imported.sheetsRequests).toEqual({ reads: 1, writes: 0 })
    expect(exported?.counts).toMatchObject({ created: 0, updated: 1, deleted: 0 })
    expect(exported?.result).toBe('success')
    const stats = fake.store.stats()
    // The import's read, which the export plans on too; the claim on the changed row and its read-back, the value
    // write, and the Sync log rows of both halves with the claim's removal.
    expect(stats.byMethod).toEqual({
      BatchGetValues: 1,
      BatchGetValuesByDataFilter: 1,
      BatchUpdateValuesByDataFilter: 1,
      BatchUpdateSpreadsheet: 2,
    })
    expect(stats.total).toBe(5)
    // The server's changes are read once for both halves: one incremental read of the changed timeline (the
    // others, unchanged since the last run, are not read).
    expect(exported!.timelines.filter((t) => !t.unchanged)).toHaveLength(1)
    expect(serverReads).toEqual({ updated: 1, activities: 0 })
    expect(notesOf(`${timelineKey}/${a!.id}`)).toBe('changed again')
  })

  /** Changes the notes (and tags) of the first activity of `timelineKey` that starts on `day`. */
  function changeOnServer(day: string, notes: string) {
    const from = Date.parse(`${day}T00:00:00Z`)
    const [a] = server.store.overlapping(timelineKey, from, from + 24 * HOUR)
    server.store.updateActivity(timelineKey, a!.id, { tags: 'Initech, Support, Tickets', notes, start: a!.start, duration: a!.duration })
    return `${timelineKey}/${a!.id}`
  }

  /** The Activities tab of every read the run's backend makes, as the engine sees it. */
  function activitiesReads(deps: ReturnType<typeof depsAt>) {
    const tabs: TabData[] = []
    const read = deps.spreadsheet.read.bind(deps.spreadsheet)
    deps.spreadsheet.read = async (titles, options) => {
      const snapshot = await read(titles, options)
      if (snapshot.tabs['Activities']) tabs.push(snapshot.tabs['Activities'])
      return snapshot
    }
    return tabs
  }

  function notesOf(key: string) {
    const rows = manager.readTab(spreadsheetId, 'Activities')
    return rows.find((r) => r[rows[0]!.indexOf('Key')] === key)?.[rows[0]!.indexOf('Notes')]
  }

  it('an incremental export with a change reads the Key and Base columns and the changed rows whole, not the whole tab', async () => {
    const key = changeOnServer('2026-11-04', 'partly read')
    const deps = depsAt(T0 + 5 * HOUR)
    const reads = activitiesReads(deps)
    const summary = await runExport(target, deps)
    expect(summary.counts).toMatchObject({ created: 0, updated: 1, deleted: 0 })
    expect(reads.map((tab) => tab.partial)).toEqual([true])
    // One row whole (the changed one), every other row its Key and Base only.
    expect(reads[0]!.rows.filter((r) => r[0] !== null && r[0] !== undefined)).toHaveLength(1)
    expect(reads[0]!.rows).toHaveLength(manager.readTab(spreadsheetId, 'Activities').length - 1)
    expect(fake.store.stats().byMethod).toEqual({
      BatchGetValuesByDataFilter: 3,
      BatchUpdateValuesByDataFilter: 1,
      BatchUpdateSpreadsheet: 2,
    })
    expect(notesOf(key)).toBe('partly read')
  })

  it('a row that shows an older Base than the state (a restored copy) makes the partial read whole, and the row is refreshed', async () => {
    const rowOf = (key: string) => {
      const rows = manager.readTab(spreadsheetId, 'Activities')
      const at = rows.findIndex((r) => r[rows[0]!.indexOf('Key')] === key)
      return { row: at + 1, cells: rows[at]!, base: rows[at]![rows[0]!.indexOf('Base')] }
    }
    // The copy: the row as it stands now; then the server changes it and an export writes the change.
    const key = changeOnServer('2026-11-03', 'placeholder')
    await runExport(target, depsAt(T0 + 6 * HOUR))
    const copy = rowOf(key)
    changeOnServer('2026-11-03', 'newer on the server')
    await runExport(target, depsAt(T0 + 7 * HOUR))
    expect(notesOf(key)).toBe('newer on the server')
    // The copy comes back (every cell of the row, its Base too), and another activity changes.
    copy.cells.forEach((cell, column) =>
      manager.editCell(spreadsheetId, 'Activities', `${String.fromCharCode(65 + column)}${copy.row}`, cell),
    )
    expect(rowOf(key).base).toBe(copy.base)
    const other = changeOnServer('2026-11-02', 'another change')
    const deps = depsAt(T0 + 8 * HOUR)
    const reads = activitiesReads(deps)
    const summary = await runExport(target, deps)
    expect(summary.result).toBe('success')
    expect(summary.warnings.join(' ')).toContain('older version than the last sync')
    expect(reads.map((tab) => Boolean(tab.partial))).toEqual([true, false])
    expect(notesOf(key)).toBe('newer on the server')
    expect(notesOf(other)).toBe('another change')
  })
})

describe('a first sync on a new spreadsheet (Google)', () => {
  it('plans its layout on the tab list its import half read, and writes its rows without reading the tabs it made', async () => {
    const world = await startGoogleWorld(TOKEN, 'ts-issue-10-first-sync-')
    try {
      world.fake.store.resetStats()
      const spreadsheet = createGoogleSpreadsheet({
        spreadsheetId: world.spreadsheetId,
        auth: signInWithStaticToken(TOKEN),
        rootUrl: world.fake.rootUrl,
        retry: { limit: 0 },
      })
      const deps = { client: world.client, spreadsheet, stateDir: world.stateDir, reporter: silentReporter, now: () => new Date(T0) }
      const { imported, exported } = await runSync(world.target, deps)
      expect(imported.sheetsRequests).toEqual({ reads: 1, writes: 0 })
      expect(exported?.result).toBe('success')
      expect(exported!.counts.created).toBeGreaterThan(20)
      // The import half, a target's first run: the tab list, which shows no Activities tab. The export half: the
      // default Sheet1's values, the layout and the rows.
      expect(world.fake.store.stats().byMethod).toEqual({ GetSpreadsheet: 1, BatchGetValues: 1, BatchUpdateSpreadsheet: 2 })
      const rows = world.manager.readTab(world.spreadsheetId, 'Activities')
      expect(rows.length - 1).toBe(exported!.counts.created)
    } finally {
      await world.close()
    }
  })
})
