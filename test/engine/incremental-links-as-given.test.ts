/**
 * The `updatedactivities` link is followed exactly as the server wrote it, for the range it covers ("the
 * complete url including parameters is provided by 'links' resource"); the days the window gained since are
 * read whole, so activities there that are older than the link are found too; once those days are as many as
 * the days the link still covers, the window is read whole and its links start over (decisions/0019).
 * Through the reference server on loopback, which refuses a link whose range was changed.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { exportWindow } from '../../src/core/export-plan.ts'
import { runExport } from '../../src/engine/export.ts'
import { readTimelineChanges } from '../../src/engine/server-reads.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

let world: EngineFixture | undefined

afterEach(async () => {
  await world?.server.close()
  world = undefined
})

async function start(lookBackDays: number): Promise<EngineFixture> {
  world = await startEngineFixture({ users: 1, days: 14, startDate: '2026-10-28' }, { window: { days: 14, lookBackDays } })
  return world
}

function exportAt(w: EngineFixture, iso: string) {
  return runExport(w.target, {
    client: w.client,
    spreadsheet: w.spreadsheet(),
    stateDir: w.stateDir,
    reporter: silentReporter,
    now: () => new Date(iso),
  })
}

async function keysInSheet(w: EngineFixture): Promise<unknown[]> {
  const tab = (await createWorkbookSpreadsheet({ path: w.file }).read(['Activities'])).tabs['Activities']!
  return tab.rows.map((r) => r[tab.header.indexOf('Key')])
}

describe('an incremental export', () => {
  it('sends the link the server wrote, unchanged, and nothing else when the window has not moved', async () => {
    const w = await start(7)
    await exportAt(w, '2026-11-10T11:00:00Z')
    const key = w.server.credentials.users[0]!.tagsTimelineKey!
    const stamp = w.server.store.timestamp(key)
    const [activity] = w.server.store.activities(key)
    w.server.store.updateActivity(key, activity!.id, { tags: 'Changed, Since', start: activity!.start, duration: activity!.duration })
    w.activityReads.length = 0
    const summary = await exportAt(w, '2026-11-10T12:00:00Z')
    expect(summary.counts.updated).toBe(1)
    // The window of 28 October to 10 November in Berlin, as the server writes bounds: wall time in its zone (UTC).
    expect(w.activityReads).toEqual([
      `${w.server.apiUrl}/timelines/${key}/activities?fromTime=2026-10-27T23:00:00&toTime=2026-11-10T23:00:00&updatedAfterTimestamp=${stamp}`,
    ])
  })

  it('reads the day the window gained whole: an activity there older than the link is exported, with no look-back', async () => {
    const w = await start(0)
    const key = w.server.credentials.users[0]!.tagsTimelineKey!
    // Entered ahead, for the day after the window, before the first export: no change after its link shows it.
    const ahead = w.server.store.createActivity(key, { tags: 'Planned, Ahead', start: '2026-11-11T09:00:00+01:00', duration: 3600 })
    await exportAt(w, '2026-11-10T11:00:00Z')
    expect(await keysInSheet(w)).not.toContain(`${key}/${ahead.id}`)
    w.activityReads.length = 0
    await exportAt(w, '2026-11-11T11:00:00Z')
    expect(await keysInSheet(w)).toContain(`${key}/${ahead.id}`)
    const asked = w.activityReads.map((url) => new URL(url).searchParams)
    // Nothing changed since the link was written, so it is not followed (decisions/0010); the day is read.
    expect(asked.map((q) => [q.get('fromTime'), q.get('toTime'), q.has('updatedAfterTimestamp')])).toEqual([
      ['2026-11-11T00:00:00+01:00', '2026-11-12T00:00:00+01:00', false],
    ])
  })
})

describe('the days since the links', () => {
  it('are read whole while fewer than the days the links still cover; then the window is read whole', async () => {
    const w = await start(0)
    const [timeline] = await w.client.tagsTimelines()
    const windowAt = (iso: string) => exportWindow(w.target, new Date(iso))
    const first = await readTimelineChanges(w.client, timeline!, undefined, windowAt('2026-11-10T11:00:00Z'), {
      full: true,
      now: new Date('2026-11-10T11:00:00Z'),
    })
    // Six days on: the link covers 8 days of the window, the 6 since are read whole.
    const sixDays = await readTimelineChanges(w.client, timeline!, first.cursor, windowAt('2026-11-16T11:00:00Z'), {
      full: false,
      now: new Date('2026-11-16T11:00:00Z'),
    })
    expect(sixDays.mode === 'incremental' && sixDays.lookBack?.window).toEqual({
      from: '2026-11-11T00:00:00+01:00',
      to: '2026-11-17T00:00:00+01:00',
    })
    expect(sixDays.cursor.links).toEqual(first.cursor.links?.map((link) => ({ ...link, href: expect.any(String) })))
    expect(sixDays.cursor.recentLinks?.map(({ from, to }) => [from, to])).toEqual([
      ['2026-11-11T00:00:00+01:00', '2026-11-17T00:00:00+01:00'],
    ])
    // Seven days on: as many days since the link as it still covers. The window is read whole, its link new.
    const sevenDays = await readTimelineChanges(w.client, timeline!, sixDays.cursor, windowAt('2026-11-17T11:00:00Z'), {
      full: false,
      now: new Date('2026-11-17T11:00:00Z'),
    })
    expect(sevenDays.mode).toBe('full')
    expect(sevenDays.cursor.links?.map(({ from, to }) => [from, to])).toEqual([['2026-11-04T00:00:00+01:00', '2026-11-18T00:00:00+01:00']])
    expect(sevenDays.cursor.recentLinks).toBeUndefined()
  })
})
