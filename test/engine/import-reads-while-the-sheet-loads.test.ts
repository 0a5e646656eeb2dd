/**
 * While the sheet read of an import is under way (seconds for a big tab), the import reads the row
 * bases from disk and, outside a sync, asks the server for its timelines and allowed tags. What it waits for
 * meanwhile must not change what a failure looks like: each is awaited where it was used before, a damaged
 * base file still stops the run before anything is written, and a failure of one while another is in flight is
 * neither lost nor left unhandled.
 */
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runImport } from '../../src/engine/import.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { stateLocation } from '../../src/state/target-state.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startExportedFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startExportedFixture({ users: 2, days: 14, startDate: '2026-10-28' }, { window: { days: 14 } }, now)
  // One manager edit, so an applied import would write to the server and the sheet.
  const tab = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
  await managerEditing(world.file).editCell('Activities', 2, tab.header.indexOf('Notes'), 'edited by a manager')
})

afterAll(async () => {
  await world?.server.close()
})

/** The client, with the two list requests of an import observed (and, when given, replaced). */
function observedClient(replace: { tagsTimelines?: () => Promise<never> } = {}) {
  const called: string[] = []
  const client: TimelineClient = {
    ...world.client,
    tagsTimelines: () => {
      called.push('timelines')
      return replace.tagsTimelines ? replace.tagsTimelines() : world.client.tagsTimelines()
    },
    readAllowedTags: (options) => {
      called.push('allowed tags')
      return world.client.readAllowedTags(options)
    },
  }
  return { client, called }
}

/** The workbook backend, noting what the client had been asked when its read began (and failing it, when asked). */
function observedSheet(onRead: () => void, fail?: Error): Spreadsheet {
  const inner = world.spreadsheet()
  return {
    ...inner,
    describe: () => inner.describe(),
    requestCounts: () => inner.requestCounts(),
    read: (tabs, options) => {
      onRead()
      return fail ? Promise.reject(fail) : inner.read(tabs, options)
    },
    write: (writes, basis) => inner.write(writes, basis),
  } as Spreadsheet
}

/** What an applied import with this client and spreadsheet threw (undefined: it did not). */
function importFailure(client: TimelineClient, spreadsheet: Spreadsheet): Promise<unknown> {
  return runImport(world.target, { client, spreadsheet, stateDir: world.stateDir, reporter: silentReporter, now }).then(
    () => undefined,
    (error: unknown) => error,
  )
}

const serverState = () => JSON.stringify(world.server.store.activities(world.server.credentials.users[0]!.tagsTimelineKey!))

describe('an import waits for the sheet read and reads the server lists and the bases meanwhile', () => {
  it('a plain import has asked for the timelines and the allowed tags before its sheet read begins, and plans as before', async () => {
    const { client, called } = observedClient()
    let askedBeforeRead: string[] = []
    const summary = await runImport(
      world.target,
      {
        client,
        spreadsheet: observedSheet(() => (askedBeforeRead = [...called])),
        stateDir: world.stateDir,
        reporter: silentReporter,
        now,
      },
      { dryRun: true },
    )
    expect(askedBeforeRead).toEqual(['timelines', 'allowed tags'])
    expect(called).toEqual(['timelines', 'allowed tags'])
    expect(summary.plan.writes.map((w) => w.kind)).toEqual(['update'])
  })

  it('a damaged base file stops the import with the file named, and nothing is written to the server or the sheet', async () => {
    const location = stateLocation(world.stateDir, world.target.name)
    const stateJson = await readFile(location.stateFile, 'utf8')
    const baseFile = path.join(location.folder, (JSON.parse(stateJson) as { baseFile: string }).baseFile)
    const bases = await readFile(baseFile, 'utf8')
    const workbook = await readFile(world.file)
    const server = serverState()
    await writeFile(baseFile, '["not", "pairs"')
    try {
      const failure = await importFailure(world.client, world.spreadsheet())
      expect(failure).toBeInstanceOf(TimelineSheetsError)
      expect((failure as TimelineSheetsError).code).toBe('TS_STATE')
      expect((failure as Error).message).toContain(baseFile)
      expect(serverState()).toBe(server)
      expect((await readFile(world.file)).equals(workbook)).toBe(true)
    } finally {
      await writeFile(baseFile, bases)
    }
  })

  it('a timeline list that fails while the sheet read succeeds is the import error, as it was', async () => {
    const refused = new TimelineSheetsError('TS_FORBIDDEN', 'GET /api/timelines was refused (test)')
    const { client } = observedClient({ tagsTimelines: () => Promise.reject(refused) })
    const failure = await importFailure(client, world.spreadsheet())
    expect(failure).toBe(refused)
  })

  it('a sheet read that fails while the server lists are in flight is the import error, and a list failing too is handled', async () => {
    const { client, called } = observedClient({
      tagsTimelines: () => Promise.reject(new TimelineSheetsError('TS_FORBIDDEN', 'GET /api/timelines was refused (test)')),
    })
    const broken = new TimelineSheetsError('TS_NETWORK', 'the sheet read broke off (test)')
    const failure = await importFailure(
      client,
      observedSheet(() => undefined, broken),
    )
    expect(failure).toBe(broken)
    // The lists were asked for, and the refused one is awaited nowhere: vitest fails the file on an unhandled rejection.
    expect(called).toEqual(['timelines', 'allowed tags'])
  })
})
