/**
 * An incremental export does not read a timeline whose version (lastChangeId and timestamp, as the
 * timeline list shows them) is the one the last read began from: every change moves it, so the read would
 * answer nothing. What changes while a run reads is read by the next run; a look-back still reads.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { exportWindow } from '../../src/core/export-plan.ts'
import { runExport } from '../../src/engine/export.ts'
import { readTimelineChanges, timelineVersion } from '../../src/engine/server-reads.ts'
import { loadState, stateLocation } from '../../src/state/target-state.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import type { TimelineInfo } from '../../src/timeline/model.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const at = (iso: string) => () => new Date(iso)
let world: EngineFixture | undefined

afterEach(async () => {
  await world?.server.close()
  world = undefined
})

async function start(serverOptions: Parameters<typeof startEngineFixture>[2] = {}): Promise<EngineFixture> {
  world = await startEngineFixture(
    { users: 3, days: 20, startDate: '2026-10-20' },
    { window: { days: 21, lookBackDays: 3 } },
    serverOptions,
  )
  return world
}

function exportAt(w: EngineFixture, iso: string) {
  return runExport(w.target, {
    client: w.client,
    spreadsheet: w.spreadsheet(),
    stateDir: w.stateDir,
    reporter: silentReporter,
    now: at(iso),
  })
}

/** Sets new notes on one activity of `user`'s timeline; returns the notes. */
function changeNotes(w: EngineFixture, user: number, notes: string): string {
  const key = w.server.credentials.users[user]!.tagsTimelineKey!
  const activity = w.server.store.activities(key).find((a) => a.start >= '2026-11-01')!
  w.server.store.updateActivity(key, activity.id, {
    tags: w.server.store.tagsOf(key, activity),
    notes,
    start: activity.start,
    duration: activity.duration,
  })
  return notes
}

describe('timelines the list shows unchanged are not read', () => {
  it('a run with nothing new reads no activities; a run with one changed timeline reads that one only', async () => {
    const w = await start()
    await exportAt(w, '2026-11-09T06:00:00Z')
    const users = w.server.credentials.users.length

    w.activityReads.length = 0
    const quiet = await exportAt(w, '2026-11-09T08:00:00Z')
    expect(w.activityReads).toEqual([])
    expect(quiet.timelines.map((t) => t.unchanged)).toEqual(Array(users).fill(true))
    expect(quiet.result).toBe('success')
    const { state } = await loadState(stateLocation(w.stateDir, w.target.name), w.target.name)
    for (const user of w.server.credentials.users) {
      const cursor = state.timelines[user.tagsTimelineKey!]!
      expect(cursor.listedVersion).toBe(
        timelineVersion({
          lastChangeId: w.server.store.lastChangeId(user.tagsTimelineKey!),
          timestamp: w.server.store.timestamp(user.tagsTimelineKey!),
        }),
      )
    }

    const notes = changeNotes(w, 1, 'only the second timeline changed')
    w.activityReads.length = 0
    const one = await exportAt(w, '2026-11-09T09:00:00Z')
    expect(w.activityReads).toHaveLength(1)
    expect(w.activityReads[0]).toContain(w.server.credentials.users[1]!.tagsTimelineKey!)
    expect(one.counts.updated).toBe(1)
    expect(one.timelines.map((t) => t.unchanged)).toEqual([true, false, true])
    expect(JSON.stringify(await w.spreadsheet().read([w.target.tabs.activities]))).toContain(notes)
  })

  it('a change made after the list was read is read by the next run, also on a timeline this run did not read', async () => {
    const w = await start()
    await exportAt(w, '2026-11-09T06:00:00Z')
    changeNotes(w, 0, 'first timeline, before the run')
    let meanwhile = ''
    // Right before this run's only activities read (the first timeline's): the third timeline changes.
    w.server.faults.addConcurrentWriter({
      before: { method: 'GET', path: '/activities' },
      nth: 1,
      run: () => void (meanwhile = changeNotes(w, 2, 'third timeline, during the run')),
    })
    w.activityReads.length = 0
    await exportAt(w, '2026-11-09T08:00:00Z')
    expect(w.activityReads).toHaveLength(1)
    expect(meanwhile).not.toBe('')
    expect(JSON.stringify(await w.spreadsheet().read([w.target.tabs.activities]))).not.toContain(meanwhile)

    w.activityReads.length = 0
    const next = await exportAt(w, '2026-11-09T09:00:00Z')
    // The third timeline only: it changed after the list this run's read of it would have begun from.
    expect(next.timelines.map((t) => t.unchanged)).toEqual([true, true, false])
    expect(w.activityReads).toHaveLength(1)
    expect(w.activityReads[0]).toContain(w.server.credentials.users[2]!.tagsTimelineKey!)
    expect(JSON.stringify(await w.spreadsheet().read([w.target.tabs.activities]))).toContain(meanwhile)
  })

  it('a read in halves keeps the version listed before it: a change to a half already read comes next run', async () => {
    // 21 days refused, their halves answered: an incremental read follows the link of each half, two requests.
    const w = await start({ rangeLimit: { maxDays: 15, status: 413 } })
    await exportAt(w, '2026-11-09T06:00:00Z')
    changeNotes(w, 0, 'first timeline, before the run')
    const key = w.server.credentials.users[0]!.tagsTimelineKey!
    const early = w.server.store.activities(key)[0]!
    const changed = 'an early activity, changed while the later half was read'
    w.server.faults.addConcurrentWriter({
      before: { method: 'GET', path: '/activities' },
      nth: 2,
      run: (store) =>
        void store.updateActivity(key, early.id, {
          tags: store.tagsOf(key, early),
          notes: changed,
          start: early.start,
          duration: early.duration,
        }),
    })
    w.activityReads.length = 0
    await exportAt(w, '2026-11-09T08:00:00Z')
    expect(w.activityReads).toHaveLength(2)
    expect(JSON.stringify(await w.spreadsheet().read([w.target.tabs.activities]))).not.toContain(changed)

    w.activityReads.length = 0
    const next = await exportAt(w, '2026-11-09T09:00:00Z')
    expect(next.timelines.map((t) => t.unchanged)).toEqual([false, true, true])
    expect(JSON.stringify(await w.spreadsheet().read([w.target.tabs.activities]))).toContain(changed)
  })

  it('a look-back that is due reads its days, and only those, when the list shows no change', async () => {
    const w = await start()
    await exportAt(w, '2026-11-09T06:00:00Z')
    w.activityReads.length = 0
    // 21 hours later: the look-back (every 20 hours by default) is due.
    const later = await exportAt(w, '2026-11-10T03:00:00Z')
    expect(later.timelines.every((t) => t.unchanged && t.lookBack)).toBe(true)
    expect(w.activityReads).toHaveLength(w.server.credentials.users.length)
    expect(w.activityReads.some((url) => url.includes('updatedAfterTimestamp='))).toBe(false)

    // With a change, the changed timeline's incremental read comes with its look-back.
    changeNotes(w, 1, 'changed before a look-back')
    w.activityReads.length = 0
    const again = await exportAt(w, '2026-11-11T03:00:00Z')
    expect(again.timelines.map((t) => t.unchanged)).toEqual([true, false, true])
    expect(w.activityReads.filter((url) => url.includes('updatedAfterTimestamp='))).toHaveLength(1)
    expect(w.activityReads).toHaveLength(w.server.credentials.users.length + 1)
  })

  it('a cursor from before this change (no listed version) reads once, then keeps the version', async () => {
    const w = await start()
    await exportAt(w, '2026-11-09T06:00:00Z')
    const location = stateLocation(w.stateDir, w.target.name)
    const raw = JSON.parse(await readFile(location.stateFile, 'utf8')) as { timelines: Record<string, Record<string, unknown>> }
    for (const cursor of Object.values(raw.timelines)) delete cursor['listedVersion']
    await writeFile(location.stateFile, JSON.stringify(raw))
    w.activityReads.length = 0
    await exportAt(w, '2026-11-09T07:00:00Z')
    expect(w.activityReads).toHaveLength(w.server.credentials.users.length)
    w.activityReads.length = 0
    await exportAt(w, '2026-11-09T08:00:00Z')
    expect(w.activityReads).toEqual([])
  })
})

describe('a quiet export leaves the row bases unread', () => {
  it('reads no base file when it reads no row; the next run that plans rows reads it (and says so when it is damaged)', async () => {
    const w = await start()
    await exportAt(w, '2026-11-09T06:00:00Z')
    const location = stateLocation(w.stateDir, w.target.name)
    const { baseFile } = JSON.parse(await readFile(location.stateFile, 'utf8')) as { baseFile: string }
    await writeFile(`${location.folder}/${baseFile}`, 'not json')
    const quiet = await exportAt(w, '2026-11-09T07:00:00Z')
    expect(quiet.result).toBe('success')
    changeNotes(w, 0, 'a change needs the bases')
    await expect(exportAt(w, '2026-11-09T08:00:00Z')).rejects.toMatchObject({
      code: 'TS_STATE',
      message: expect.stringContaining(baseFile),
    })
  })
})

describe('readTimelineChanges with a listed version', () => {
  const timeline: TimelineInfo = {
    timelineKey: 'tl',
    ownerUsername: 'alice',
    ownerDisplayName: 'Alice',
    schemaName: 'ManicTime/Tags',
    lastChangeId: undefined,
    timestamp: undefined,
  } as unknown as TimelineInfo
  const window = exportWindow(
    { timeZone: 'UTC', window: { days: 7, lookBackDays: 0 } } as Parameters<typeof exportWindow>[0],
    new Date('2026-11-09T06:00:00Z'),
  )
  const cursor = {
    timelineKey: 'tl',
    owner: 'alice',
    schemaName: 'ManicTime/Tags',
    links: [
      {
        href: 'http://server.test/api/timelines/tl/activities?fromTime=a&toTime=b&updatedAfterTimestamp=5,1',
        from: window.window.from,
        to: window.window.to,
      },
    ],
    listedVersion: '5,1 5,1',
  }
  /** A client whose only read is `readUpdated`, counted; it answers nothing new. */
  const counting = () => {
    const calls: string[] = []
    const client = {
      readUpdated: async (url: string) => {
        calls.push(url)
        return { timeline: { ...timeline, lastChangeId: '5,1' }, activities: [], updatedActivitiesUrl: undefined }
      },
    } as unknown as TimelineClient
    return { client, calls }
  }

  it('skips only when the listed version equals the cursor’s', async () => {
    for (const [listed, reads] of [
      ['5,1 5,1', 0],
      ['6,9 6,9', 1],
      [undefined, 1],
    ] as const) {
      const { client, calls } = counting()
      const changes = await readTimelineChanges(client, timeline, cursor, window, {
        full: false,
        now: new Date('2026-11-09T06:00:00Z'),
        listedVersion: listed,
      })
      expect(calls).toHaveLength(reads)
      expect(changes.mode === 'incremental' && changes.unchanged === true).toBe(reads === 0)
      // The cursor keeps the link as the server wrote it either way, and the version the list showed.
      expect(changes.cursor.windowFrom).toBe(window.window.from)
      expect(changes.cursor.links).toEqual(cursor.links)
      expect(changes.cursor.listedVersion).toBe(listed)
    }
  })

  it('timelineVersion: undefined only when the list shows neither value; the two values kept apart', () => {
    expect(timelineVersion({ lastChangeId: undefined, timestamp: undefined })).toBeUndefined()
    expect(timelineVersion({ lastChangeId: '1,2', timestamp: undefined })).not.toBe(
      timelineVersion({ lastChangeId: undefined, timestamp: '1,2' }),
    )
    expect(timelineVersion({ lastChangeId: '1,2', timestamp: '1,2' })).toBe('1,2 1,2')
  })
})
