/**
 * `sync --watch` when Drive shows a Sheets edit in the file's `version` only three minutes later
 * (decisions/0016-frequent-sync.md, "When Drive's version lags"): Drive does not say how soon its version
 * reflects a change, and a Google engineer speaks of changes "coalesced and only sent around every 3 minutes".
 * Every edit a manager makes still reaches the server, once: typed between intervals, while a sync reads the
 * sheet, while it writes, and as a new row. The clocks are the test's own: no test waits three real minutes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPREADSHEETS_SCOPE } from '../../counterparts/sheets/auth.ts'
import { DRIVE_METADATA_READONLY_SCOPE } from '../../counterparts/sheets/drive-files.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { startWatch, watchInterval, type TargetWatch, type WatchOutcome } from '../../src/engine/watch.ts'
import { columnLetters } from '../../src/sheets/google/a1.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'watch-google-lag-token'
const INTERVAL_MS = 2 * 60_000
const LAG_MS = 3 * 60_000
let clock = Date.parse('2026-11-10T09:00:00Z')
let world: GoogleWorld
let watch: TargetWatch
let sheet: Spreadsheet
/** A person's action armed to happen during the next sync, right after its first read of the sheet or its first write. */
let armed: { on: 'read' | 'write'; act: () => void } | undefined

beforeAll(async () => {
  world = await startGoogleWorld(TOKEN, 'ts-watch-google-lag-', { now: () => clock, driveVersionLagMs: LAG_MS })
  world.fake.store.auth.addStaticToken(TOKEN, { scopes: [SPREADSHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] })
  watch = startWatch(clock)
  const base = createGoogleSpreadsheet({
    spreadsheetId: world.spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: world.fake.rootUrl,
  })
  const fire = (on: 'read' | 'write') => {
    if (armed?.on !== on) return
    const { act } = armed
    armed = undefined
    act()
  }
  sheet = {
    ...base,
    kind: base.kind,
    describe: () => base.describe(),
    requestCounts: () => base.requestCounts(),
    changeMark: () => base.changeMark!(),
    read: async (tabs, options) => {
      const snapshot = await base.read(tabs, options)
      fire('read')
      return snapshot
    },
    write: async (writes, basis) => {
      fire('write')
      return base.write(writes, basis)
    },
  }
})

afterAll(async () => {
  await world?.close()
})

/** One interval, two minutes after the last. */
async function interval(): Promise<WatchOutcome> {
  clock += INTERVAL_MS
  return watchInterval(
    world.target,
    { client: world.client, spreadsheet: sheet, stateDir: world.stateDir, reporter: silentReporter, now: () => new Date(clock) },
    watch,
  )
}

/** Intervals until two idle ones in a row; how many it took. */
async function settle(limit = 12): Promise<number> {
  let idle = 0
  for (let n = 1; n <= limit; n++) {
    idle = (await interval()).kind === 'idle' ? idle + 1 : 0
    if (idle === 2) return n
  }
  throw new Error(`the watch did not settle in ${limit} intervals`)
}

function tab(): (string | number | boolean | null)[][] {
  return world.manager.readTab(world.spreadsheetId, 'Activities') as (string | number | boolean | null)[][]
}

function column(name: string): number {
  return tab()[0]!.indexOf(name)
}

function a1Of(key: string, name: string): string {
  const at = tab().findIndex((r) => r[column('Key')] === key)
  return `${columnLetters(column(name))}${at + 1}`
}

function keyOfRow(n: number): string {
  return String(tab()[n]![column('Key')])
}

function typeNotes(key: string, notes: string): void {
  world.manager.editCell(world.spreadsheetId, 'Activities', a1Of(key, 'Notes'), notes)
}

function notesOnServer(key: string): string | undefined {
  const slash = key.lastIndexOf('/')
  return world.server.store.activity(key.slice(0, slash), Number(key.slice(slash + 1)))?.notes
}

function onServerWithNotes(notes: string): number {
  return world.server.store.activities(world.timelineKey).filter((a) => a.notes === notes).length
}

describe('sync --watch while Drive shows a change three minutes late', () => {
  it('takes every edit to the server, none lost and none twice', async () => {
    await settle()
    const edits = new Map<string, string>()

    // Typed between intervals: the next check sees no change yet, the one after does.
    const between = keyOfRow(2)
    typeNotes(between, 'typed between intervals')
    edits.set(between, 'typed between intervals')
    expect(await interval()).toMatchObject({ kind: 'idle' })
    expect(await interval()).toMatchObject({ kind: 'synced', reason: 'the spreadsheet changed' })
    expect(notesOnServer(between)).toBe('typed between intervals')

    // Typed right after a sync read the sheet: one that imports an edit (and writes), and one that writes nothing,
    // which keeps the mark Drive showed before it, three minutes old.
    await settle()
    const trigger = keyOfRow(3)
    const afterRead = keyOfRow(4)
    typeNotes(trigger, 'sets a sync off')
    edits.set(trigger, 'sets a sync off')
    armed = { on: 'read', act: () => typeNotes(afterRead, 'typed after the sync read') }
    edits.set(afterRead, 'typed after the sync read')
    await settle()
    const quiet = keyOfRow(7)
    typeNotes(keyOfRow(8), 'sets a third sync off')
    edits.set(keyOfRow(8), 'sets a third sync off')
    while ((await interval()).kind !== 'synced');
    // The sync after one that wrote looks past its own writes and finds nothing to write.
    armed = { on: 'read', act: () => typeNotes(quiet, 'typed after a quiet sync read') }
    edits.set(quiet, 'typed after a quiet sync read')
    expect(await interval()).toMatchObject({ kind: 'synced', reason: 'the last sync wrote to the spreadsheet' })
    expect(armed).toBeUndefined()
    expect(notesOnServer(quiet)).not.toBe('typed after a quiet sync read')
    await settle()
    const whileWriting = keyOfRow(5)
    typeNotes(keyOfRow(6), 'sets another sync off')
    edits.set(keyOfRow(6), 'sets another sync off')
    armed = { on: 'write', act: () => typeNotes(whileWriting, 'typed while the sync wrote') }
    edits.set(whileWriting, 'typed while the sync wrote')
    await settle()
    expect(armed).toBeUndefined()

    // A new row, typed after the last sync wrote and before Drive shows that write.
    const rows = tab().length
    const cells: [string, string][] = [
      ['User', String(tab()[1]![column('User')])],
      ['Date', '2026-11-09'],
      ['Start', '8:00'],
      ['End', '9:30'],
      ['Tags', String(tab()[1]![column('Tags')])],
      ['Notes', 'a new row'],
    ]
    for (const [name, value] of cells)
      world.manager.editCell(world.spreadsheetId, 'Activities', `${columnLetters(column(name))}${rows + 1}`, value)
    await settle()

    for (const [key, notes] of edits) expect(notesOnServer(key), key).toBe(notes)
    expect(onServerWithNotes('a new row')).toBe(1)
    const newRows = tab().filter((r) => r[column('Notes')] === 'a new row')
    expect(newRows).toHaveLength(1)
    expect(String(newRows[0]![column('Key')])).toMatch(/\/\d+$/)
    expect(String(newRows[0]![column('Status')])).toMatch(/^Done/)
  })
})
