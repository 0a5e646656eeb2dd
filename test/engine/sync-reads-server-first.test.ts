/**
 * A sync reads the export half's server changes before its one sheet read, so that read confirms the rows the
 * export writes (decisions/0008). Those changes serve the export only while they still hold: the import wrote
 * nothing, and the cursors and window are the same; otherwise the export reads the server again. The write's
 * read-back stays the guard against a manager's edit once the read is no longer fresh.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Manager } from '../../counterparts/sheets/manager.ts'
import type { SheetsFake } from '../../counterparts/sheets/server.ts'
import type { ReferenceServer } from '../../counterparts/timeline/server.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import type { TargetConfig } from '../../src/config/schema.ts'
import { runExport } from '../../src/engine/export.ts'
import { runSync } from '../../src/engine/sync.ts'
import { columnLetters } from '../../src/sheets/google/a1.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { stateLocation } from '../../src/state/target-state.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import { startGoogleWorld } from './google-world.ts'

const TOKEN = 'sync-reads-server-first-token'
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
    'ts-sync-reads-server-first-',
  ))
  const first = await runExport(target, depsAt(T0))
  expect(first.result).toBe('success')
})

afterAll(async () => {
  await server?.close()
  await fake?.close()
})

/**
 * Deps for one run at `at` on a fresh backend whose clock (`clock.ms`) the test moves, with the fake's counts
 * reset, and a client that counts the server reads of changes (incremental and window reads).
 */
function depsAt(at: number | (() => number)) {
  fake.store.resetStats()
  const clock = { ms: Date.now() }
  const serverReads = { updated: 0, activities: 0 }
  const counted: TimelineClient = {
    ...client,
    readUpdated: (...args) => (serverReads.updated++, client.readUpdated(...args)),
    readActivities: (...args) => (serverReads.activities++, client.readActivities(...args)),
  }
  return {
    clock,
    serverReads,
    client: counted,
    spreadsheet: createGoogleSpreadsheet({
      spreadsheetId,
      auth: signInWithStaticToken(TOKEN),
      rootUrl: fake.rootUrl,
      retry: { limit: 0 },
      quota: { now: () => clock.ms },
    }),
    stateDir,
    reporter: silentReporter,
    now: () => new Date(typeof at === 'number' ? at : at()),
  }
}

function cell(key: string, column: string): { a1: string; value: unknown } {
  const rows = manager.readTab(spreadsheetId, 'Activities')
  const at = rows.findIndex((r) => r[rows[0]!.indexOf('Key')] === key)
  const index = rows[0]!.indexOf(column)
  return { a1: `${columnLetters(index)}${at + 1}`, value: rows[at]?.[index] }
}

/** Changes the notes of the first activity of `timelineKey` that starts on `day`; returns its Key. */
function changeOnServer(day: string, notes: string): string {
  const from = Date.parse(`${day}T00:00:00Z`)
  const [a] = server.store.overlapping(timelineKey, from, from + 24 * HOUR)
  server.store.updateActivity(timelineKey, a!.id, { tags: 'Initech, Support, Tickets', notes, start: a!.start, duration: a!.duration })
  return `${timelineKey}/${a!.id}`
}

describe('a sync reads the server first, and the export uses that read only while it holds', () => {
  it('a sync that imports something reads the server again for the export, and exports the change', async () => {
    const changed = changeOnServer('2026-11-06', 'changed on the server')
    const edited = changeOnServer('2026-11-04', 'to be edited')
    await runExport(target, depsAt(T0 + HOUR))
    manager.editCell(spreadsheetId, 'Activities', cell(edited, 'Notes').a1, 'typed by a manager')
    changeOnServer('2026-11-06', 'changed on the server again')
    const deps = depsAt(T0 + 2 * HOUR)
    const { imported, exported } = await runSync(target, deps)
    expect(imported.counts).toMatchObject({ updated: 1 })
    expect(exported?.result).toBe('success')
    expect(exported?.counts).toMatchObject({ updated: 1 })
    // The changes read ahead no longer hold (the import changed the server): the changed timeline is read twice,
    // the other one, unchanged since the last run, not at all (decisions/0010).
    expect(exported!.timelines.map((t) => t.unchanged)).toEqual([false, true])
    expect(deps.serverReads.updated).toBe(2)
    expect(cell(changed, 'Notes').value).toBe('changed on the server again')
    expect(cell(edited, 'Notes').value).toBe('typed by a manager')
    const onServer = server.store.activities(timelineKey).find((a) => `${timelineKey}/${a.id}` === edited)
    expect(onServer?.notes).toBe('typed by a manager')
  })

  it('the window moved on between the halves (midnight): the export reads the server again', async () => {
    const key = changeOnServer('2026-11-03', 'read across midnight')
    // The import starts a second before midnight in Berlin, the export just after it.
    const midnight = Date.parse('2026-11-10T23:00:00Z')
    let calls = 0
    const deps = depsAt(() => (calls++ === 0 ? midnight - 1_000 : midnight + 1_000))
    const { imported, exported } = await runSync(target, deps)
    expect(exported?.result).toBe('success')
    expect(exported?.window.from).not.toEqual(imported.window.from)
    // The changed timeline, read ahead and again; the other is unchanged and not read.
    expect(deps.serverReads.updated).toBe(2)
    expect(cell(key, 'Notes').value).toBe('read across midnight')
  })

  it('the cursors changed between the halves: the export reads the server again, from the new cursors', async () => {
    const key = changeOnServer('2026-11-09', 'read from the new cursors')
    const deps = depsAt(T0 + 14 * HOUR)
    const { stateFile } = stateLocation(stateDir, target.name)
    // Between the halves, something (here the test) makes the look-back due in the state the export loads.
    const reporter = {
      ...silentReporter,
      info: (message: string) => {
        if (message.endsWith(': export')) forgetLookBack(stateFile)
      },
    }
    const { exported } = await runSync(target, { ...deps, reporter })
    expect(exported?.result).toBe('success')
    expect(exported?.timelines.every((t) => t.lookBack)).toBe(true)
    // The changed timeline's links, ahead: the window's and that of the day the window gained at midnight (read
    // whole by the sync across it). Again for the export, with the look-back, which reads that day whole again:
    // the window's link only. The other timeline is unchanged: its look-back reads only.
    expect(deps.serverReads.updated).toBe(3)
    expect(cell(key, 'Notes').value).toBe('read from the new cursors')
  })

  it('a read ahead that fails stops nothing: the import goes on, and the export reads the server again', async () => {
    const key = changeOnServer('2026-11-02', 'read again after a failure')
    const deps = depsAt(T0 + 14.5 * HOUR)
    const readUpdated = deps.client.readUpdated
    let calls = 0
    // The read ahead's first call (the changed timeline's; the other is unchanged and not read) fails; the export
    // follows both links of the changed timeline (the window's, and that of the day it gained at midnight).
    deps.client.readUpdated = (...args) => (++calls <= 1 ? Promise.reject(new Error('connection reset')) : readUpdated(...args))
    const { imported, exported } = await runSync(target, deps)
    expect(imported.result).toBe('success')
    expect(exported?.result).toBe('success')
    expect(calls).toBe(3)
    expect(cell(key, 'Notes').value).toBe('read again after a failure')
  })

  it('a manager edit to a row the export writes, made after the read and seen by the write, is not overwritten', async () => {
    const key = changeOnServer('2026-11-05', 'the server version')
    const deps = depsAt(T0 + 15 * HOUR)
    const write = deps.spreadsheet.write.bind(deps.spreadsheet)
    deps.spreadsheet.write = async (writes, basis) => {
      // Between the sync's one read and the export's write, later than the read's confirmation holds.
      manager.editCell(spreadsheetId, 'Activities', cell(key, 'Notes').a1, 'typed meanwhile')
      deps.clock.ms += 6_000
      return write(writes, basis)
    }
    const { imported, exported } = await runSync(target, deps)
    expect(imported.sheetsRequests).toEqual({ reads: 1, writes: 0 })
    expect(exported?.result).toBe('incomplete')
    expect(exported?.warnings.join(' ')).toContain('changed in the sheet while this run was writing')
    expect(cell(key, 'Notes').value).toBe('typed meanwhile')
    // The sync's one read, then the read-back through the claims of the rows the export writes, which found the edit.
    expect(fake.store.stats().byMethod).toMatchObject({ BatchGetValues: 1, BatchGetValuesByDataFilter: 1 })
    // Read once, ahead, for both halves: the changed timeline's two links (the window's, and that of the day it
    // gained at midnight); the unchanged timeline not at all.
    expect(deps.serverReads.updated).toBe(2)
    // The next sync takes the edit up (a conflict with the server's change, kept for a person).
    const next = await runSync(target, depsAt(T0 + 16 * HOUR))
    expect(next.exported?.result).not.toBe('incomplete')
    expect(cell(key, 'Notes').value).toBe('typed meanwhile')
  })
})

function forgetLookBack(stateFile: string): void {
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as { timelines: Record<string, { lastLookBackAt?: string }> }
  for (const cursor of Object.values(state.timelines)) delete cursor.lastLookBackAt
  writeFileSync(stateFile, JSON.stringify(state))
}
