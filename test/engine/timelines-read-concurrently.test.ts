/**
 * An export reads its timelines concurrently, within the client's
 * pace, one request per timeline on a first run and one on an incremental run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 4, days: 30, startDate: '2026-10-10' }, { window: { days: 28 } })
})

afterAll(async () => {
  await world?.server.close()
})

describe('timelines read concurrently', () => {
  it('a second timeline is asked for while the first is still unanswered; one read per timeline, first run and incremental', async () => {
    const { client, target, stateDir, server } = world
    const timelines = server.credentials.users.length
    // The first activities read is held until a second one arrives: read one after another, it never would.
    let release: (overlapped: boolean) => void = () => undefined
    const secondArrived = new Promise<boolean>((resolve) => (release = resolve))
    const fallback = setTimeout(() => release(false), 20_000)
    const read = { method: 'GET', path: '/activities' }
    server.faults.addConcurrentWriter({ before: read, nth: 1, run: async () => void (await secondArrived) })
    server.faults.addConcurrentWriter({ before: read, nth: 2, run: () => release(true) })

    const first = await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
    clearTimeout(fallback)
    expect(await secondArrived).toBe(true)
    expect(first.counts.created).toBeGreaterThan(100)
    expect(world.activityReads).toHaveLength(timelines)

    // One change on every timeline: each is read once more, through its updatedactivities link.
    for (const user of server.credentials.users) {
      const key = user.tagsTimelineKey!
      const activity = server.store.activities(key).find((a) => a.start >= '2026-11-01')!
      server.store.updateActivity(key, activity.id, {
        tags: server.store.tagsOf(key, activity),
        notes: `changed on ${user.username}'s timeline`,
        start: activity.start,
        duration: activity.duration,
      })
    }
    world.activityReads.length = 0
    const second = await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
    expect(world.activityReads).toHaveLength(timelines)
    expect(world.activityReads.every((url) => url.includes('updatedAfterTimestamp='))).toBe(true)
    expect(second.counts.updated).toBe(timelines)
    expect(second.timelines.every((t) => t.mode === 'incremental' && !t.unchanged)).toBe(true)
  }, 60_000)
})
