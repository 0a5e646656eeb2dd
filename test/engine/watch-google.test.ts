/**
 * `sync --watch` over a Google spreadsheet in the Sheets fake: an idle interval costs one Drive `files.get` and
 * one timeline list and no Sheets request; after a sync that wrote, the next interval syncs once more (Google's
 * version cannot tell the tool's writes from a person's), and a person's edit made while a sync wrote is found
 * by that sync and reaches the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SPREADSHEETS_SCOPE } from '../../counterparts/sheets/auth.ts'
import { DRIVE_METADATA_READONLY_SCOPE } from '../../counterparts/sheets/drive-files.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { startWatch, watchInterval, type TargetWatch } from '../../src/engine/watch.ts'
import { columnLetters } from '../../src/sheets/google/a1.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'watch-google-token'
const T0 = Date.parse('2026-11-10T09:00:00Z')
let clock = T0
let world: GoogleWorld
let watch: TargetWatch

beforeAll(async () => {
  world = await startGoogleWorld(TOKEN, 'ts-watch-google-')
  // The watch's sign-in: the Sheets scope and the Drive metadata one (the config's google.watch).
  world.fake.store.auth.addStaticToken(TOKEN, { scopes: [SPREADSHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] })
  watch = startWatch(T0)
})

afterAll(async () => {
  await world?.close()
})

function spreadsheet(): Spreadsheet {
  return createGoogleSpreadsheet({ spreadsheetId: world.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: world.fake.rootUrl })
}

/** One interval two minutes after the last; the fake's counts are of this interval alone. */
async function interval(sheet: Spreadsheet = spreadsheet()) {
  clock += 2 * 60_000
  world.fake.store.resetStats()
  const outcome = await watchInterval(
    world.target,
    { client: world.client, spreadsheet: sheet, stateDir: world.stateDir, reporter: silentReporter, now: () => new Date(clock) },
    watch,
  )
  return { outcome, byMethod: world.fake.store.stats().byMethod }
}

function cellOf(key: string, column: string): { a1: string; value: unknown } {
  const rows = world.manager.readTab(world.spreadsheetId, 'Activities')
  const at = rows.findIndex((r) => r[rows[0]!.indexOf('Key')] === key)
  const index = rows[0]!.indexOf(column)
  return { a1: `${columnLetters(index)}${at + 1}`, value: rows[at]?.[index] }
}

function keyOfRow(n: number): string {
  const rows = world.manager.readTab(world.spreadsheetId, 'Activities')
  return String(rows[n]![rows[0]!.indexOf('Key')])
}

function notesOnServer(key: string): string | undefined {
  const slash = key.lastIndexOf('/')
  return world.server.store.activity(key.slice(0, slash), Number(key.slice(slash + 1)))?.notes
}

describe('sync --watch over a Google spreadsheet', () => {
  it('syncs first, syncs once more to look past its own writes, then idles on one Drive request', async () => {
    expect((await interval()).outcome.kind).toBe('synced')
    const settle = await interval()
    expect(settle.outcome).toMatchObject({ kind: 'synced', reason: 'the last sync wrote to the spreadsheet' })
    const idle = await interval()
    expect(idle.outcome).toEqual({ kind: 'idle', requests: { spreadsheet: 1, timeline: 1 } })
    expect(idle.byMethod).toEqual({ DriveFilesGet: 1 })
  })

  it("a manager's edit reaches the server in the next interval, with its Status", async () => {
    const key = keyOfRow(3)
    world.manager.editCell(world.spreadsheetId, 'Activities', cellOf(key, 'Notes').a1, 'edited in Google Sheets')
    const next = await interval()
    expect(next.outcome).toMatchObject({ kind: 'synced', reason: 'the spreadsheet changed' })
    expect(notesOnServer(key)).toBe('edited in Google Sheets')
    expect(String(cellOf(key, 'Status').value)).toMatch(/^Done/)
  })

  it('an edit a person makes while a sync writes is found by the sync after it, and reaches the server', async () => {
    // Settle, then idle.
    while ((await interval()).outcome.kind !== 'idle');
    const first = keyOfRow(2)
    const meanwhile = keyOfRow(5)
    world.manager.editCell(world.spreadsheetId, 'Activities', cellOf(first, 'Notes').a1, 'first edit')
    // The sync's first write to the sheet happens after the person's second edit lands.
    const base = spreadsheet()
    let typed = false
    const racing: Spreadsheet = {
      ...base,
      kind: base.kind,
      describe: () => base.describe(),
      requestCounts: () => base.requestCounts(),
      changeMark: () => base.changeMark!(),
      write: async (writes, basis) => {
        if (!typed) {
          typed = true
          world.manager.editCell(world.spreadsheetId, 'Activities', cellOf(meanwhile, 'Notes').a1, 'typed while the sync wrote')
        }
        return base.write(writes, basis)
      },
    }
    expect((await interval(racing)).outcome).toMatchObject({ kind: 'synced', reason: 'the spreadsheet changed' })
    expect(notesOnServer(first)).toBe('first edit')
    const after = await interval()
    expect(after.outcome).toMatchObject({ kind: 'synced', reason: 'the last sync wrote to the spreadsheet' })
    expect(notesOnServer(meanwhile)).toBe('typed while the sync wrote')
  })

  it('an idle interval whose Drive request fails is said, and the next interval checks again', async () => {
    while ((await interval()).outcome.kind !== 'idle');
    world.fake.store.faults.inject({ status: 403, method: 'DriveFilesGet' })
    await expect(interval()).rejects.toThrow(/^Google Drive answered 403/)
    expect((await interval()).outcome.kind).toBe('idle')
  })
})
