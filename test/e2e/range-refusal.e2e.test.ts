/**
 * End to end: against a server that refuses long ranges, the CLI
 * halves the window until the server answers, fills the sheet with every
 * activity of the window once, and reads incrementally through each half's link.
 * Against one that refuses nothing, one request per timeline.
 */
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { onlyRun, runCli, tempFolder, writeConfig } from './cli.ts'

const timeZone = 'Europe/Berlin'
const NOW = '2026-11-10T11:00:00Z'

let server: ReferenceServer
let folder: string
let configFile: string
let env: Record<string, string>
let timelines: string[]
/** Activities reads the server saw: range length in days (undefined for incremental reads) and status. */
const reads: { days: number | undefined; status: number }[] = []

beforeAll(async () => {
  server = await startReferenceServer({
    rangeLimit: { maxDays: 12, status: 400 },
    data: { users: 3, days: 27, startDate: '2026-10-15', timeZones: [timeZone], otherTimelines: false },
  })
  server.loopback.server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://loopback')
    if (req.method !== 'GET' || !url.pathname.endsWith('/activities')) return
    const incremental = url.searchParams.has('updatedAfterTimestamp')
    const from = Date.parse(`${url.searchParams.get('fromTime')}`)
    const to = Date.parse(`${url.searchParams.get('toTime')}`)
    res.on('finish', () => reads.push({ days: incremental ? undefined : Math.round((to - from) / 86_400_000), status: res.statusCode }))
  })
  folder = await tempFolder('ranges')
  timelines = server.credentials.users.map((u) => u.tagsTimelineKey!).filter(Boolean)
  configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone, window: { days: 21, lookBackDays: 7 } }],
  })
  env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
})

afterAll(async () => {
  await server?.close()
})

/** One activity of every timeline changed (new notes): an incremental run then reads each timeline. */
function changeEveryTimeline(notes: string): void {
  for (const key of timelines) {
    const activity = server.store.overlapping(key, Date.parse('2026-10-25T00:00:00+02:00'), Date.parse('2026-10-26T00:00:00+02:00'))[0]!
    server.store.updateActivity(key, activity.id, {
      tags: server.store.tagsOf(key, activity),
      notes,
      start: activity.start,
      duration: activity.duration,
    })
  }
}

describe('a server that refuses long ranges, end to end', () => {
  it('the first export halves each timeline’s window once and gets every activity of it, once', async () => {
    const run = await runCli(['export', '--config', configFile, '--now', NOW, '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    const tab = (await createWorkbookSpreadsheet({ path: path.join(folder, 'team.xlsx') }).read(['Activities'])).tabs['Activities']!
    const keys = tab.rows.map((r) => r[tab.header.indexOf('Key')]).filter((k): k is string => typeof k === 'string')
    const from = Date.parse('2026-10-21T00:00:00+02:00')
    const to = Date.parse('2026-11-11T00:00:00+01:00')
    const expected = timelines.flatMap((key) => server.store.overlapping(key, from, to).map((a) => `${key}/${a.id}`)).sort()
    expect(expected.length).toBeGreaterThan(100)
    expect([...keys].sort()).toEqual(expected)
    // Per timeline: 21 days refused, then its two halves (10.5 days) answered.
    expect(reads.filter((r) => r.status === 400)).toHaveLength(timelines.length)
    expect(reads.filter((r) => r.status === 400).every((r) => r.days !== undefined && r.days > 12)).toBe(true)
    expect(reads.filter((r) => r.status === 200)).toHaveLength(2 * timelines.length)
    expect(reads.filter((r) => r.status === 200).every((r) => r.days !== undefined && r.days <= 12)).toBe(true)
  })

  it('the next run follows the link of each half as the server wrote it, none refused, and finds the change', async () => {
    reads.length = 0
    const [key] = timelines
    const changed = server.store.overlapping(key!, Date.parse('2026-10-22T00:00:00+02:00'), Date.parse('2026-10-23T00:00:00+02:00'))[0]!
    server.store.updateActivity(key!, changed.id, { tags: 'Changed, Meanwhile', start: changed.start, duration: changed.duration })
    // A timeline the list shows unchanged is not read at all (decisions/0010): every one gets a change.
    changeEveryTimeline('changed for the incremental read')
    const run = await runCli(['export', '--config', configFile, '--now', '2026-11-10T12:00:00Z', '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    expect(onlyRun(run).counts.updated).toBe(1 + timelines.length)
    // Each half's answer gave a link for that half: two incremental reads per timeline, each for a range answered.
    expect(reads).toEqual(timelines.flatMap(() => [0, 1].map(() => ({ days: undefined, status: 200 }))))
  })

  it('against a server without a maximum: one request per timeline, first export and incremental', async () => {
    server.store.settings.rangeLimit = undefined
    reads.length = 0
    const full = await runCli(['export', '--config', configFile, '--now', NOW, '--full', '--json'], env)
    expect(full.code, full.stderr).toBe(0)
    expect(reads).toEqual(timelines.map(() => ({ days: 21, status: 200 })))
    reads.length = 0
    changeEveryTimeline('changed again')
    const next = await runCli(['export', '--config', configFile, '--now', '2026-11-10T13:00:00Z', '--json'], env)
    expect(next.code, next.stderr).toBe(0)
    expect(reads).toEqual(timelines.map(() => ({ days: undefined, status: 200 })))
  })
})
