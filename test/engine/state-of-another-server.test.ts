/**
 * A target's state belongs to the server and account it was built from. Pointed at another
 * server, a run stops (exit 7) before reading or writing anything; `export --full` starts a fresh state
 * and makes the tab the new server's; a state written before the binding existed adopts the server.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import type { Reporter } from '../../src/engine/reporter.ts'
import { silentReporter } from '../../src/engine/reporter.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { stateLocation } from '../../src/state/target-state.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let a: EngineFixture
let b: EngineFixture

beforeAll(async () => {
  // Another server: its own timeline keys (the store's seed) and activities (the data's seed).
  a = await startEngineFixture({ users: 1, days: 4, startDate: '2026-11-07', seed: 1 }, { window: { days: 7 } }, { seed: 11 })
  b = await startEngineFixture({ users: 2, days: 4, startDate: '2026-11-07', seed: 2 }, { window: { days: 7 } }, { seed: 22 })
})

afterAll(async () => {
  await a?.server.close()
  await b?.server.close()
})

const entryOf = (world: EngineFixture) => new URL('/api', world.server.url).href

function recording(): Reporter & { warnings: string[] } {
  const warnings: string[] = []
  return { ...silentReporter, warnings, warn: (m) => warnings.push(m) }
}

/** The Keys in target a's Activities tab. */
const keysInSheet = async () => {
  const tab = (await a.spreadsheet().read(['Activities'])).tabs['Activities']!
  const key = tab.header.indexOf('Key')
  // Rows a removal emptied (decisions/0030) hold no Key.
  return tab.rows.filter((r) => r.length > 0).map((r) => String(r[key]))
}

describe('a state bound to its server', () => {
  it('stops a run against another server before it reads or writes, and export --full starts afresh', async () => {
    const deps = (world: EngineFixture, reporter: Reporter = silentReporter) => ({
      client: world.client,
      spreadsheet: a.spreadsheet(),
      stateDir: a.stateDir,
      reporter,
      now,
    })
    const first = await runExport(a.target, deps(a))
    expect(first.counts.created).toBeGreaterThan(0)
    const state = JSON.parse(await readFile(stateLocation(a.stateDir, a.target.name).stateFile, 'utf8'))
    expect(state.server.entryUrl).toBe(entryOf(a))
    expect(state.server.account).toBe(a.server.credentials.transfer!.username)

    const workbookBefore = await readFile(a.file)
    const readsBefore = b.activityReads.length
    for (const run of [() => runExport(a.target, deps(b)), () => runImport(a.target, deps(b))]) {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(TimelineSheetsError)
      expect((error as TimelineSheetsError).code).toBe('TS_STATE')
      expect((error as TimelineSheetsError).message).toContain(`belongs to ${state.server.entryUrl} as ${state.server.account}`)
      expect((error as TimelineSheetsError).message).toContain(b.server.url)
      expect((error as TimelineSheetsError).hint).toContain('export --full')
    }
    expect(b.activityReads.length).toBe(readsBefore)
    expect(await readFile(a.file)).toEqual(workbookBefore)

    const reporter = recording()
    const moved = await runExport(a.target, deps(b, reporter), { full: true })
    expect(reporter.warnings.join('\n')).toContain('starts afresh')
    expect(moved.counts.created).toBeGreaterThan(0)
    const keys = await keysInSheet()
    const aTimelines = new Set((await a.client.tagsTimelines()).map((t) => t.timelineKey))
    const onB = (key: string) => {
      const [timelineKey, id] = key.split('/')
      return b.server.store.timeline(timelineKey!) !== undefined && b.server.store.activities(timelineKey!).some((x) => x.id === Number(id))
    }
    expect(keys.length).toBeGreaterThan(0)
    expect(keys.filter((k) => !onB(k))).toEqual([])
    expect(keys.filter((k) => aTimelines.has(k.split('/')[0]!))).toEqual([])
    const rebound = JSON.parse(await readFile(stateLocation(a.stateDir, a.target.name).stateFile, 'utf8'))
    expect(rebound.server.entryUrl).toBe(entryOf(b))

    // And now the old server is the other one.
    await expect(runExport(a.target, deps(a))).rejects.toMatchObject({ code: 'TS_STATE' })
  })

  it('adopts the server when the state was written before states recorded one', async () => {
    const file = stateLocation(b.stateDir, b.target.name).stateFile
    await runExport(b.target, { client: b.client, spreadsheet: b.spreadsheet(), stateDir: b.stateDir, reporter: silentReporter, now })
    const state = JSON.parse(await readFile(file, 'utf8'))
    delete state.server
    await writeFile(file, JSON.stringify(state))
    const again = await runExport(b.target, {
      client: b.client,
      spreadsheet: b.spreadsheet(),
      stateDir: b.stateDir,
      reporter: silentReporter,
      now,
    })
    expect(again.timelines.every((t) => t.mode === 'incremental')).toBe(true)
    expect(JSON.parse(await readFile(file, 'utf8')).server.entryUrl).toBe(entryOf(b))
  })
})
