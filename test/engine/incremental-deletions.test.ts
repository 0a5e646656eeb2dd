/**
 * The deletions an incremental answer lists, as the vendor's only sample answer does (API guide, v2): deleted
 * activities leave the sheet on the next run, with no look-back; a deleted group or groupList, where activities'
 * tags come from, has the timeline's window read whole; a deleted folder changes nothing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { exportWindow } from '../../src/core/export-plan.ts'
import { runExport } from '../../src/engine/export.ts'
import { readTimelineChanges } from '../../src/engine/server-reads.ts'
import type { TimelineCursor } from '../../src/state/target-state.ts'
import type { TimelineClient } from '../../src/timeline/client.ts'
import type { ActivitiesRead, TimelineInfo } from '../../src/timeline/model.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

let world: EngineFixture | undefined

afterEach(async () => {
  await world?.server.close()
  world = undefined
})

describe('deleted activities', () => {
  it('an activity deleted on the reference server leaves the sheet on the next incremental export, without a look-back', async () => {
    world = await startEngineFixture({ users: 1, days: 14, startDate: '2026-10-28' }, { window: { days: 14, lookBackDays: 0 } })
    const w = world
    const exportAt = (iso: string) =>
      runExport(w.target, {
        client: w.client,
        spreadsheet: w.spreadsheet(),
        stateDir: w.stateDir,
        reporter: silentReporter,
        now: () => new Date(iso),
      })
    await exportAt('2026-11-10T11:00:00Z')
    const alice = w.server.credentials.users[0]!
    const gone = w.server.store.activities(alice.tagsTimelineKey!)[3]!
    const key = `${alice.tagsTimelineKey}/${gone.id}`
    w.server.store.deleteActivity(alice.tagsTimelineKey!, gone.id)
    w.activityReads.length = 0
    const summary = await exportAt('2026-11-10T12:00:00Z')
    expect(summary.timelines.map((t) => t.mode)).toEqual(['incremental'])
    expect(w.activityReads.map((url) => new URL(url).searchParams.has('updatedAfterTimestamp'))).toEqual([true])
    const tab = (await createWorkbookSpreadsheet({ path: w.file }).read(['Activities'])).tabs['Activities']!
    expect(tab.rows.map((r) => r[tab.header.indexOf('Key')])).not.toContain(key)
  })
})

describe('deleted groups, groupLists and folders', () => {
  const NOW = new Date('2026-11-09T06:00:00Z')
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
  const link = `http://timeline.test/api/timelines/tl/activities?fromTime=2026-10-13T00:00:00&toTime=2026-11-10T00:00:00&updatedAfterTimestamp=3,7`
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

  /** A server whose incremental answer lists `deleted` beside one deleted activity, and whose full read lists nothing. */
  function answering(deleted: Partial<ActivitiesRead>): { client: TimelineClient; fullReads: string[] } {
    const fullReads: string[] = []
    const client = {
      readUpdated: async (url: string): Promise<ActivitiesRead> => ({
        timeline,
        activities: [],
        deletedActivityIds: [6586],
        ...deleted,
        updatedActivitiesUrl: url,
      }),
      readActivities: async (_t: TimelineInfo, range: { from: string; to: string }): Promise<ActivitiesRead> => {
        fullReads.push(`${range.from}/${range.to}`)
        return { timeline, activities: [], deletedActivityIds: undefined, updatedActivitiesUrl: link }
      },
    } as unknown as TimelineClient
    return { client, fullReads }
  }

  it('a deleted group or groupList has the window read whole, as the tool cannot tell which rows took their tags from it; a deleted folder changes nothing', async () => {
    for (const deleted of [{ deletedGroupIds: [4] }, { deletedGroupListIds: [5] }]) {
      const { client, fullReads } = answering(deleted)
      const changes = await readTimelineChanges(client, timeline, cursor, window, { full: false, now: NOW })
      expect(changes.mode, JSON.stringify(deleted)).toBe('full')
      expect(fullReads).toEqual([`${window.window.from}/${window.window.to}`])
    }
    const { client, fullReads } = answering({ deletedFolderIds: [9] })
    const changes = await readTimelineChanges(client, timeline, cursor, window, { full: false, now: NOW })
    expect(changes.mode === 'incremental' && changes.deletedIds).toEqual([6586])
    expect(fullReads).toEqual([])
  })
})
