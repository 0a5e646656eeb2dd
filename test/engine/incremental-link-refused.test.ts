/**
 * A stored `updatedactivities` link the server no longer accepts (it trimmed its change tracking) is told apart
 * from a range the server will not read whole: the read falls back by itself to a full read of the window, says
 * so, and the next run reads incrementally again through the fresh link. A server with a maximum range keeps its
 * incremental reads, halved as before. Through the reference server on loopback, and an export over a workbook.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { exportWindow, type ExportWindow } from '../../src/core/export-plan.ts'
import { runExport } from '../../src/engine/export.ts'
import { readTimelineChanges } from '../../src/engine/server-reads.ts'
import { HttpError, TimelineSheetsError } from '../../src/errors.ts'
import { loadState, stateLocation } from '../../src/state/target-state.ts'
import type { TimelineCursor } from '../../src/state/target-state.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import type { ActivitiesRead, TimelineInfo } from '../../src/timeline/model.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const NOW = new Date('2026-11-09T06:00:00Z')
let world: EngineFixture | undefined

afterEach(async () => {
  await world?.server.close()
  world = undefined
})

interface Reads {
  w: EngineFixture
  window: ExportWindow
  alice: TimelineInfo
}

async function start(serverOptions: Parameters<typeof startEngineFixture>[2] = {}): Promise<Reads> {
  world = await startEngineFixture(
    { users: 2, days: 30, startDate: '2026-10-10' },
    { window: { days: 28, lookBackDays: 3 } },
    serverOptions,
  )
  const window = exportWindow(world.target, NOW)
  const alice = (await world.client.tagsTimelines())[0]!
  return { w: world, window, alice }
}

/** A first run's read of `alice`, then one change in the window, so an incremental read has something to say. */
async function firstRead({ w, window, alice }: Reads): Promise<TimelineCursor> {
  const first = await readTimelineChanges(w.client, alice, undefined, window, { full: true, now: NOW })
  const [activity] = w.server.store.overlapping(alice.timelineKey, Date.parse(window.window.from), Date.parse(window.window.to))
  w.server.store.updateActivity(alice.timelineKey, activity!.id, {
    tags: 'Changed, Since',
    start: activity!.start,
    duration: activity!.duration,
  })
  w.activityReads.length = 0
  return first.cursor
}

function inWindow({ w, window, alice }: Reads): number[] {
  return w.server.store
    .overlapping(alice.timelineKey, Date.parse(window.window.from), Date.parse(window.window.to))
    .map((a) => a.id)
    .sort((a, b) => a - b)
}

const ids = (activities: readonly { entityId: number }[]) => activities.map((a) => a.entityId).sort((a, b) => a - b)
const isIncremental = (url: string) => new URL(url).searchParams.has('updatedAfterTimestamp')
const days = (url: string) => {
  const q = new URL(url).searchParams
  // To an eighth of a day: the window spans the night the clocks go back, an hour longer than its days.
  return Math.round(((Date.parse(q.get('toTime')!) - Date.parse(q.get('fromTime')!)) / 86_400_000) * 8) / 8
}

describe('an incremental link the server no longer accepts', () => {
  it('refused with a 400 that names the timestamp: the window is read in full at once, and a fresh link kept', async () => {
    const r = await start()
    const cursor = await firstRead(r)
    r.w.server.store.trimChangeTracking(r.alice.timelineKey)
    const changes = await readTimelineChanges(r.w.client, r.alice, cursor, r.window, { full: false, now: NOW })
    expect(changes.mode).toBe('full')
    if (changes.mode !== 'full') return
    expect(changes.linkRefused).toBe('HTTP 400')
    expect(ids(changes.activities)).toEqual(inWindow(r))
    expect(r.w.activityReads.map((u) => [isIncremental(u), days(u)])).toEqual([
      [true, 28],
      [false, 28],
    ])
    expect(changes.cursor.links?.[0]?.href).toContain(`updatedAfterTimestamp=${r.w.server.store.timestamp(r.alice.timelineKey)}`)

    // The next run reads incrementally through the fresh link.
    r.w.activityReads.length = 0
    const next = await readTimelineChanges(r.w.client, r.alice, changes.cursor, r.window, { full: false, now: NOW })
    expect(next.mode).toBe('incremental')
    expect(r.w.activityReads).toHaveLength(1)
  })

  it('refused with 410 Gone: read in full at once', async () => {
    const r = await start({ trimmedLinkStatus: 410 })
    const cursor = await firstRead(r)
    r.w.server.store.trimChangeTracking(r.alice.timelineKey)
    const changes = await readTimelineChanges(r.w.client, r.alice, cursor, r.window, { full: false, now: NOW })
    expect(changes.mode === 'full' && changes.linkRefused).toBe('HTTP 410')
    expect(ids(changes.activities)).toEqual(inWindow(r))
    expect(r.w.activityReads.map(isIncremental)).toEqual([true, false])
  })

  it('refused with an answer that says nothing of the link (500): never halved, the window read in full', async () => {
    const r = await start({ trimmedLinkStatus: 500 })
    const cursor = await firstRead(r)
    r.w.server.store.trimChangeTracking(r.alice.timelineKey)
    const changes = await readTimelineChanges(r.w.client, r.alice, cursor, r.window, { full: false, now: NOW })
    expect(changes.mode === 'full' && changes.linkRefused).toBe('HTTP 500')
    expect(ids(changes.activities)).toEqual(inWindow(r))
    // The link was written for a range the server answered: a refusal of it is the link's, whatever it says.
    expect(r.w.activityReads.map((u) => [isIncremental(u), days(u)])).toEqual([
      [true, 28],
      [false, 28],
    ])
  })

  it('on a server with a maximum range: the link of the first part is refused, the full read is halved as any', async () => {
    const r = await start({ rangeLimit: { maxDays: 10, status: 413 } })
    const cursor = await firstRead(r)
    expect(cursor.links?.map((link) => days(link.href))).toEqual([7, 7, 7, 7])
    r.w.server.store.trimChangeTracking(r.alice.timelineKey)
    const changes = await readTimelineChanges(r.w.client, r.alice, cursor, r.window, { full: false, now: NOW })
    expect(changes.mode === 'full' && changes.linkRefused).toBe('HTTP 400')
    expect(ids(changes.activities)).toEqual(inWindow(r))
    // The first part's link refused for the link. Then the window without it: 28 refused, 14 refused, 7 and 7
    // answered, 14 refused, 7 and 7 answered.
    expect(r.w.activityReads.map((u) => [isIncremental(u), days(u)])).toEqual([
      [true, 7],
      [false, 28],
      [false, 14],
      [false, 7],
      [false, 7],
      [false, 14],
      [false, 7],
      [false, 7],
    ])
  })

  it('links that are still good, on a server with a maximum range: the link of each part followed as given, nothing refused', async () => {
    const r = await start({ rangeLimit: { maxDays: 10, status: 400 } })
    const cursor = await firstRead(r)
    const changes = await readTimelineChanges(r.w.client, r.alice, cursor, r.window, { full: false, now: NOW })
    expect(changes.mode).toBe('incremental')
    expect(changes.activities.map((a) => a.tags)).toEqual([['Changed', 'Since']])
    expect(r.w.activityReads).toEqual(cursor.links!.map((link) => link.href))
    expect(r.w.activityReads.map(days)).toEqual([7, 7, 7, 7])
  })

  it('when the full read fails too, the read fails with the full read’s error', async () => {
    const r = await start()
    const cursor = await firstRead(r)
    r.w.server.store.trimChangeTracking(r.alice.timelineKey)
    // A server that reads less than a day at once refuses every range (before it looks at the link), so neither
    // the link nor the fallback can be answered.
    r.w.server.store.settings.rangeLimit = { maxDays: 0.5, status: 400 }
    const error = await readTimelineChanges(r.w.client, r.alice, cursor, r.window, { full: false, now: NOW }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as Error).message).toContain('The range is longer than 0.5 days')
    expect(r.w.activityReads.map((u) => [isIncremental(u), days(u)])).toEqual([
      [true, 28],
      ...[28, 14, 7, 3.5, 1.75, 0.875].map((d) => [false, d]),
    ])
  })
})

describe('an export whose stored link is refused', () => {
  async function exportAt(w: EngineFixture, iso: string) {
    return runExport(w.target, {
      client: w.client,
      spreadsheet: w.spreadsheet(),
      stateDir: w.stateDir,
      reporter: silentReporter,
      now: () => new Date(iso),
    })
  }

  it('says so in one warning, reconciles that timeline in full, and reads incrementally on the next run', async () => {
    const r = await start()
    await exportAt(r.w, '2026-11-09T06:00:00Z')
    await firstRead(r)
    r.w.server.store.trimChangeTracking(r.alice.timelineKey)
    const summary = await exportAt(r.w, '2026-11-09T08:00:00Z')
    expect(summary.result).toBe('success')
    expect(summary.warnings).toEqual([
      `The server no longer accepts the incremental read of ${r.alice.ownerUsername}'s timeline (HTTP 400), most likely because it trimmed its change tracking; the whole window was read instead.`,
    ])
    expect(summary.timelines.find((t) => t.timelineKey === r.alice.timelineKey)?.mode).toBe('full')
    expect(summary.counts.updated).toBe(1)

    const again = await exportAt(r.w, '2026-11-09T10:00:00Z')
    expect(again.warnings).toEqual([])
    expect(again.timelines.map((t) => t.mode)).toEqual(['incremental', 'incremental'])
  })

  it('fails, keeping the old cursor, when the full read fails too', async () => {
    const r = await start()
    await exportAt(r.w, '2026-11-09T06:00:00Z')
    const location = stateLocation(r.w.stateDir, r.w.target.name)
    const before = (await loadState(location, r.w.target.name)).state.timelines[r.alice.timelineKey]
    await firstRead(r)
    r.w.server.store.trimChangeTracking(r.alice.timelineKey)
    r.w.server.store.settings.rangeLimit = { maxDays: 0.5, status: 400 }
    const error = await exportAt(r.w, '2026-11-09T08:00:00Z').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as Error).message).toContain('The range is longer than 0.5 days')
    expect((await loadState(location, r.w.target.name)).state.timelines[r.alice.timelineKey]).toEqual(before)
  })
})

describe('what a refusal of an incremental read says', () => {
  const timeline: TimelineInfo = {
    timelineKey: 'tl',
    ownerUsername: 'alice@example.com',
    ownerDisplayName: 'Alice',
    schemaName: 'ManicTime/Tags',
    lastChangeId: '5,1',
    timestamp: '5,1',
    links: [],
  }
  const window = exportWindow({ timeZone: 'UTC', window: { days: 28, lookBackDays: 0 } } as Parameters<typeof exportWindow>[0], NOW)
  const link =
    'http://timeline.test/api/timelines/tl/activities?fromTime=2026-10-13T00:00:00&toTime=2026-11-10T00:00:00&updatedAfterTimestamp=3,7'
  const cursor: TimelineCursor = {
    timelineKey: 'tl',
    owner: 'alice@example.com',
    schemaName: 'ManicTime/Tags',
    windowFrom: window.window.from,
    windowTo: window.window.to,
    links: [{ href: link, from: window.window.from, to: window.window.to }],
    lastLookBackAt: NOW.toISOString(),
    lastChangeId: '3,7',
  }

  it.each([
    ['a body that only echoes the address', { title: 'Bad Request', instance: link }],
    ['a text body about the range', 'The range is too long.'],
    ['no body', undefined],
    ['an error code about change tracking', { errorCode: 'ChangeTrackingTrimmed' }],
    ['a message naming the timestamp', { Message: 'updatedAfterTimestamp is too old.' }],
    ['a text body about trimmed changes', 'Changes before 3 were trimmed.'],
  ])(
    '%s is a refusal of the link, which was written for a range the server answered: asked once, then the window whole',
    async (_name, data) => {
      const asked: string[] = []
      const full: ActivitiesRead = { timeline, activities: [], deletedActivityIds: undefined, updatedActivitiesUrl: link }
      const client = {
        readUpdated: async (url: string) => {
          asked.push(url)
          throw new HttpError({ status: 400, method: 'GET', url, data })
        },
        readActivities: async () => full,
      } as unknown as TimelineClient
      const changes = await readTimelineChanges(client, timeline, cursor, window, { full: false, now: NOW })
      expect(changes.mode === 'full' && changes.linkRefused).toBe('HTTP 400')
      expect(asked).toEqual([link])
    },
  )
})
