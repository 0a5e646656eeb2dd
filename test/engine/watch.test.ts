/**
 * `sync --watch`, one interval at a time over a workbook and the reference server: an interval in which nothing
 * changed asks one timeline list and stats the file, and writes nothing; a manager's edit or a server change is
 * synced in the next interval; the Sync log gets a row for a sync that changed something and one an hour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { mkdir } from 'node:fs/promises'
import { acquireLock } from '../../src/state/lock.ts'
import { stateLocation } from '../../src/state/target-state.ts'
import { startWatch, watchInterval, type TargetWatch } from '../../src/engine/watch.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const T0 = Date.parse('2026-11-10T09:00:00Z')
const MINUTE = 60_000
let clock = T0
const now = () => new Date(clock)
let world: EngineFixture
let watch: TargetWatch
/** Timeline requests the client sent since the last `interval()`. */
let timelineRequests = 0

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 10, startDate: '2026-11-01' }, { window: { days: 10, lookBackDays: 3 } })
  watch = startWatch(T0)
})

afterAll(async () => {
  await world?.server.close()
})

function countingClient(client: TimelineClient): TimelineClient {
  const counted = <K extends keyof TimelineClient>(name: K) =>
    ((...args: unknown[]) => {
      timelineRequests++
      return (client[name] as (...a: unknown[]) => unknown)(...args)
    }) as TimelineClient[K]
  return { ...client, listTimelines: counted('listTimelines') }
}

/** One interval, two minutes after the last, on a fresh backend as the command opens one each interval. */
async function interval(client: TimelineClient = world.client) {
  clock += 2 * MINUTE
  timelineRequests = 0
  const spreadsheet = createWorkbookSpreadsheet({ path: world.file })
  const outcome = await watchInterval(
    world.target,
    { client: countingClient(client), spreadsheet, stateDir: world.stateDir, reporter: silentReporter, now },
    watch,
    { intervalText: 'every 2 min' },
  )
  return { outcome, sheet: spreadsheet.requestCounts() }
}

async function tab(title: string) {
  const read = await createWorkbookSpreadsheet({ path: world.file }).read([title])
  const data = read.tabs[title]!
  return { rows: data.rows, col: (name: string) => data.header.indexOf(name) }
}

describe('sync --watch, one interval at a time', () => {
  it('the first interval syncs; the next, with nothing changed, only lists the timelines and reads nothing', async () => {
    const first = await interval()
    expect(first.outcome.kind).toBe('synced')
    const logRows = (await tab('Sync log')).rows.length
    expect(logRows).toBe(1)

    world.activityReads.length = 0
    const idle = await interval()
    expect(idle.outcome).toEqual({ kind: 'idle', requests: { spreadsheet: 0, timeline: 1 } })
    expect(timelineRequests).toBe(1)
    expect(world.activityReads).toEqual([])
    // Nothing of the workbook was loaded or saved: its stamp told.
    expect(idle.sheet).toEqual({ reads: 0, writes: 0 })
  })

  it('idle intervals add no Sync log row and leave the state file as it was', async () => {
    const state = stateLocation(world.stateDir, world.target.name).stateFile
    const { readFile } = await import('node:fs/promises')
    const before = await readFile(state, 'utf8')
    for (let i = 0; i < 10; i++) expect((await interval()).outcome.kind).toBe('idle')
    expect((await tab('Sync log')).rows).toHaveLength(1)
    expect(await readFile(state, 'utf8')).toBe(before)
  })

  it("a manager's edit reaches the server in the next interval, and its Status says so", async () => {
    const { rows, col } = await tab('Activities')
    const index = rows.findIndex((r) => typeof r[col('Key')] === 'string')
    const key = rows[index]![col('Key')] as string
    await managerEditing(world.file).editCell('Activities', index + 2, col('Notes'), 'corrected by the manager')

    const next = await interval()
    expect(next.outcome).toMatchObject({ kind: 'synced', reason: 'the spreadsheet changed' })
    const [timelineKey, id] = [key.slice(0, key.lastIndexOf('/')), Number(key.slice(key.lastIndexOf('/') + 1))]
    expect(world.server.store.activity(timelineKey, id)!.notes).toBe('corrected by the manager')
    const after = await tab('Activities')
    const row = after.rows.find((r) => r[after.col('Key')] === key)!
    expect(String(row[after.col('Status')])).toMatch(/^Done/)
    expect((await tab('Sync log')).rows).toHaveLength(2)
  })

  it('after a sync that wrote to the server, one more sync sees its own change, writes nothing, and the watch is idle again', async () => {
    // The import moved the timeline's version: the next interval syncs and finds nothing to do.
    const settle = await interval()
    expect(settle.outcome).toMatchObject({ kind: 'synced' })
    expect(settle.sheet.writes).toBe(0)
    expect((await tab('Sync log')).rows).toHaveLength(2)
    expect((await interval()).outcome.kind).toBe('idle')
  })

  it('a change on the server reaches the sheet in the next interval', async () => {
    const alice = world.server.credentials.users[0]!
    const activity = world.server.store.activities(alice.tagsTimelineKey!).at(-1)!
    world.server.store.updateActivity(alice.tagsTimelineKey!, activity.id, {
      tags: world.server.store.tagsOf(alice.tagsTimelineKey!, activity),
      notes: 'changed on the server',
      start: activity.start,
      duration: activity.duration,
    })
    const next = await interval()
    expect(next.outcome).toMatchObject({ kind: 'synced', reason: `timeline ${alice.tagsTimelineKey} changed` })
    const after = await tab('Activities')
    const row = after.rows.find((r) => r[after.col('Key')] === `${alice.tagsTimelineKey}/${activity.id}`)!
    expect(row[after.col('Notes')]).toBe('changed on the server')
    // The workbook knows its own save: no sync to look at it again.
    expect((await interval()).outcome.kind).toBe('idle')
  })

  it('an hour without a Sync log row brings one sync that writes a row saying how often it checked', async () => {
    const rowsBefore = (await tab('Sync log')).rows.length
    expect((await interval()).outcome.kind).toBe('idle')
    clock += 60 * MINUTE
    const hourly = await interval()
    expect(hourly.outcome).toMatchObject({ kind: 'synced', hourly: true })
    const log = await tab('Sync log')
    expect(log.rows).toHaveLength(rowsBefore + 1)
    expect(String(log.rows.at(-1)![log.col('Message')])).toMatch(/Watching every 2 min: \d+ checks? since .* found nothing changed\./)
    expect((await interval()).outcome.kind).toBe('idle')
  })

  it('a new day moves the window, and the watch syncs once for it', async () => {
    clock = Date.parse('2026-11-11T00:30:00Z')
    expect((await interval()).outcome).toMatchObject({ kind: 'synced', reason: 'a new day: the export window moved' })
    expect((await interval()).outcome).toEqual({ kind: 'idle', requests: { spreadsheet: 0, timeline: 1 } })
  })

  it('a lock another run holds makes the interval skip with the reason, and the next interval syncs', async () => {
    const { rows, col } = await tab('Activities')
    const index = rows.findIndex((r) => typeof r[col('Key')] === 'string')
    await managerEditing(world.file).editCell('Activities', index + 2, col('Notes'), 'edited while another run held the lock')
    const location = stateLocation(world.stateDir, world.target.name)
    await mkdir(location.folder, { recursive: true })
    const lock = await acquireLock(location.lockFile, { command: 'import' })
    try {
      const skipped = await interval()
      expect(skipped.outcome).toMatchObject({ kind: 'locked', reason: 'the spreadsheet changed' })
      if (skipped.outcome.kind === 'locked') expect(skipped.outcome.message).toMatch(/Another run holds the lock/)
    } finally {
      await lock.release()
    }
    expect((await interval()).outcome).toMatchObject({ kind: 'synced', reason: 'the spreadsheet changed' })
  })

  it('a network failure fails the interval; the next interval syncs in full and the watch goes on', async () => {
    const broken: TimelineClient = {
      ...world.client,
      listTimelines: () => Promise.reject(new Error('connect ECONNREFUSED')),
    }
    clock += 2 * MINUTE
    await expect(
      watchInterval(
        world.target,
        {
          client: broken,
          spreadsheet: createWorkbookSpreadsheet({ path: world.file }),
          stateDir: world.stateDir,
          reporter: silentReporter,
          now,
        },
        watch,
      ),
    ).rejects.toThrow(/ECONNREFUSED/)
    // A failure inside the sync leaves the watch nothing to compare with: the next interval syncs.
    const { rows, col } = await tab('Activities')
    const index = rows.findIndex((r) => typeof r[col('Key')] === 'string')
    await managerEditing(world.file).editCell('Activities', index + 2, col('Notes'), 'edited before a failing interval')
    const brokenSync: TimelineClient = { ...world.client, tagsTimelines: () => Promise.reject(new Error('socket hang up')) }
    await expect(interval(brokenSync)).rejects.toThrow(/socket hang up/)
    expect(watch.memory).toBeUndefined()
    expect((await interval()).outcome).toMatchObject({ kind: 'synced', reason: expect.stringMatching(/^nothing to compare with yet/) })
    expect((await interval()).outcome).toMatchObject({ kind: 'synced' })
    expect((await interval()).outcome.kind).toBe('idle')
  })
})
