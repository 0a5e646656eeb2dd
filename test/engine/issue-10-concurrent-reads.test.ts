/**
 * Issue 10: an export reads its timelines concurrently, within the client's
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

describe('issue 10: timelines read concurrently', () => {
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

    world.activityReads.length = 0
    await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
    expect(world.activityReads).toHaveLength(timelines)
    expect(world.activityReads.every((url) => url.includes('updatedAfterTimestamp='))).toBe(true)
  }, 60_000)
})
