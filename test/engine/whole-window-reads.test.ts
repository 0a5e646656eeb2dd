/**
 * A timeline's window is read in one request, and halved only when
 * the server refuses it or the answer is too large — through real HTTP
 * handling (the reference server in msw), with the cursor and the
 * "changed while the parts were read" rule still right.
 */
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { createFaultInjector, type FaultInjector } from '../../counterparts/timeline/faults.ts'
import { createTimelineHandler } from '../../counterparts/timeline/handler.ts'
import { seedStore, type SeedResult } from '../../counterparts/timeline/seed.ts'
import { createTimelineStore, type RangeLimit, type TimelineStore } from '../../counterparts/timeline/store.ts'
import { exportWindow, type ExportWindow } from '../../src/core/export-plan.ts'
import { parseOffsetInstant } from '../../src/core/instant.ts'
import { readRanged, readTimelineChanges } from '../../src/engine/server-reads.ts'
import { ResponseTooLargeError, TimelineSheetsError } from '../../src/errors.ts'
import { createTransport } from '../../src/http/transport.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import { createTimelineClient, type TimelineClient } from '../../src/timeline/client.ts'
import type { TimelineInfo } from '../../src/timeline/model.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'

const BASE = 'http://timeline.test/'
const msw = setupServer()
beforeAll(() => msw.listen({ onUnhandledFrame: 'error' }))
afterEach(() => msw.resetHandlers())
afterAll(() => msw.close())

const NOW = new Date('2026-04-05T06:00:00Z')

interface World {
  store: TimelineStore
  seed: SeedResult
  faults: FaultInjector
  /** Activities reads as sent: `[from, to)` and the status answered. */
  reads: { from: string; to: string; status: number }[]
  /** Incremental reads as sent: the URL and the status answered. */
  followed: { url: string; status: number }[]
  sleeps: number[]
  client: TimelineClient
  window: ExportWindow
  tags: TimelineInfo[]
}

async function world(options: { rangeLimit?: RangeLimit; maxResponseBytes?: number; days?: number } = {}): Promise<World> {
  const store = createTimelineStore(options.rangeLimit ? { rangeLimit: options.rangeLimit } : {})
  const seed = seedStore(store, { users: 2, days: 35, startDate: '2026-03-01', timeZones: ['Europe/Berlin'], otherTimelines: false })
  const faults = createFaultInjector()
  const handler = createTimelineHandler(store, { faults })
  const reads: World['reads'] = []
  const followed: World['followed'] = []
  msw.use(
    mswHandlerFor(BASE, async (request) => {
      const response = await handler(request)
      const url = new URL(request.url)
      if (request.method === 'GET' && url.pathname.endsWith('/activities') && !url.searchParams.has('updatedAfterTimestamp')) {
        reads.push({ from: url.searchParams.get('fromTime')!, to: url.searchParams.get('toTime')!, status: response.status })
      } else if (request.method === 'GET' && url.pathname.endsWith('/activities')) {
        followed.push({ url: request.url, status: response.status })
      }
      return response
    }),
  )
  const sleeps: number[] = []
  const transfer = seed.transfer!
  const signIn = passwordSignIn({
    baseUrl: BASE,
    username: transfer.username,
    password: transfer.password,
    vendor: vendorIdentifiers('manictime'),
    ...(options.maxResponseBytes ? { fetch: createTransport({ maxResponseBytes: options.maxResponseBytes }) } : {}),
  })
  const client = createTimelineClient({ signIn, retry: { limit: 3, jitter: 0, sleep: async (ms) => void sleeps.push(ms) } })
  // exportWindow reads only the zone and the window of a target.
  const target = { timeZone: 'Europe/Berlin', window: { days: options.days ?? 35, lookBackDays: 7 } } as Parameters<typeof exportWindow>[0]
  const tags = await client.tagsTimelines()
  return { store, seed, faults, reads, followed, sleeps, client, window: exportWindow(target, NOW), tags }
}

const seconds = (bound: string) => parseOffsetInstant(bound).epochSeconds

function inWindow(w: World, timeline: TimelineInfo): number[] {
  return w.store
    .overlapping(timeline.timelineKey, Date.parse(w.window.window.from), Date.parse(w.window.window.to))
    .map((a) => a.id)
    .sort((a, b) => a - b)
}

async function fullRead(w: World, timeline: TimelineInfo) {
  return readTimelineChanges(w.client, timeline, undefined, w.window, { full: true, now: NOW })
}

describe('whole-window reads', () => {
  it('reads a timeline’s window in one request, and the next run in one incremental read', async () => {
    const w = await world()
    for (const timeline of w.tags) {
      const changes = await fullRead(w, timeline)
      expect(changes.activities.map((a) => a.entityId).sort((a, b) => a - b)).toEqual(inWindow(w, timeline))
      expect(changes.activities.length).toBeGreaterThan(100)
    }
    expect(w.reads).toEqual(w.tags.map(() => ({ from: w.window.window.from, to: w.window.window.to, status: 200 })))
  })

  it.each([400, 413, 500, 504] as const)('halves a range the server refuses with %i, repeats no refusal', async (status) => {
    const w = await world({ rangeLimit: { maxDays: 10, status } })
    const [alice] = w.tags
    const changes = await fullRead(w, alice!)
    expect(changes.activities.map((a) => a.entityId).sort((a, b) => a - b)).toEqual(inWindow(w, alice!))
    // 35 days refused, its halves (17.5 days) refused, the quarters (8.75 days) answered: 1 + 2 + 4 reads.
    // Depth first: the earlier half and its quarters before the later half.
    expect(w.reads.map((r) => r.status)).toEqual([status, status, 200, 200, status, 200, 200])
    const answered = w.reads.filter((r) => r.status === 200)
    expect(answered).toHaveLength(4)
    expect(answered[0]!.from).toBe(w.window.window.from)
    expect(answered[3]!.to).toBe(w.window.window.to)
    for (let i = 1; i < answered.length; i++) expect(answered[i]!.from).toBe(answered[i - 1]!.to)
    expect(w.sleeps).toEqual([])
    // Each part answered gives its own link, kept with the range it covers.
    expect(changes.cursor.links?.map(({ from, to }) => ({ from, to }))).toEqual(answered.map(({ from, to }) => ({ from, to })))
    for (const link of changes.cursor.links!) expect(link.href).toContain('updatedAfterTimestamp=')
  })

  it('halves a range whose answer is larger than the transport holds', async () => {
    const probe = await world()
    // Room for about a third of the window's activities.
    const whole = JSON.stringify((await probe.client.readActivities(probe.tags[0]!, probe.window.window)).activities).length
    msw.resetHandlers()
    const w = await world({ maxResponseBytes: Math.round(whole / 3) })
    const changes = await fullRead(w, w.tags[0]!)
    expect(changes.activities.map((a) => a.entityId).sort((a, b) => a - b)).toEqual(inWindow(w, w.tags[0]!))
    expect(w.reads.length).toBeGreaterThan(1)
    const windowSeconds = seconds(w.window.window.to) - seconds(w.window.window.from)
    for (const r of w.reads.slice(1)) expect(seconds(r.to) - seconds(r.from)).toBeLessThan(windowSeconds)
    expect(w.sleeps).toEqual([])
  })

  it('an answer too large for a range of one day ends the read with that error', async () => {
    const w = await world({ maxResponseBytes: 40_000, days: 4 })
    const alice = w.tags[0]!
    // One crowded day, 2026-04-03: its answer alone is over the limit.
    for (let i = 0; i < 300; i++) {
      w.store.createActivity(alice.timelineKey, { tags: `Crowded ${i}, Day`, start: `2026-04-03T10:00:00+02:00`, duration: 60 })
    }
    const error = await fullRead(w, alice).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ResponseTooLargeError)
    // 4 days, then the earlier 2, then 2026-04-02 (answered) and 2026-04-03 (too large, and not halved further).
    expect(w.reads.map((r) => seconds(r.to) - seconds(r.from))).toEqual([4 * 86_400, 2 * 86_400, 86_400, 86_400])
    expect(w.reads[3]!.from).toBe('2026-04-03T00:00:00+02:00')
    expect(w.sleeps).toEqual([])
  })

  it('a refusal of a range of one day is final, reported as the server said it', async () => {
    const w = await world({ rangeLimit: { maxDays: 0.5, status: 400 }, days: 4 })
    const error = (await fullRead(w, w.tags[0]!).catch((e: unknown) => e)) as TimelineSheetsError
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect(error.message).toContain('The range is longer than 0.5 days, the most this server reads at once')
    expect(w.reads).toHaveLength(3)
  })

  it('a 503 on a range read is repeated, not split', async () => {
    const w = await world()
    w.faults.set({ serverError: { next: 1, status: 503, match: { path: '/activities' } } })
    await fullRead(w, w.tags[0]!)
    expect(w.reads.map((r) => [r.from, r.to, r.status])).toEqual([
      [w.window.window.from, w.window.window.to, 503],
      [w.window.window.from, w.window.window.to, 200],
    ])
    expect(w.sleeps).toHaveLength(1)
  })

  it('a change made while the later half is read comes again on the next incremental read', async () => {
    const w = await world({ rangeLimit: { maxDays: 20, status: 413 } })
    const alice = w.tags[0]!
    const early = w.store.overlapping(alice.timelineKey, Date.parse(w.window.window.from), Date.parse(w.window.window.to))[0]!
    // Before the third read (the later half), someone edits an activity of the earlier half, already read.
    w.faults.addConcurrentWriter({
      before: { method: 'GET', path: '/activities' },
      nth: 3,
      run: (store) => {
        store.updateActivity(alice.timelineKey, early.id, { tags: 'Changed, Meanwhile', start: early.start, duration: early.duration })
      },
    })
    const first = await fullRead(w, alice)
    expect(w.reads.map((r) => r.status)).toEqual([413, 200, 200])
    expect(first.activities.find((a) => a.entityId === early.id)?.tags).not.toEqual(['Changed', 'Meanwhile'])
    const next = await readTimelineChanges(w.client, alice, first.cursor, w.window, { full: false, now: NOW })
    expect(next.activities.find((a) => a.entityId === early.id)?.tags).toEqual(['Changed', 'Meanwhile'])
    expect(next.mode === 'incremental' && next.cursor.links?.[0]?.href).toContain(
      `updatedAfterTimestamp=${w.store.timestamp(alice.timelineKey)}`,
    )
  })

  it('after a read in halves, the link of each half is followed as the server wrote it: every change and deletion of the window once', async () => {
    const w = await world({ rangeLimit: { maxDays: 20, status: 400 } })
    const alice = w.tags[0]!
    const first = await fullRead(w, alice)
    expect(first.cursor.links).toHaveLength(2)
    const all = w.store.overlapping(alice.timelineKey, Date.parse(w.window.window.from), Date.parse(w.window.window.to))
    const [early, late, gone] = [all[0]!, all[all.length - 1]!, all[1]!]
    for (const a of [early, late])
      w.store.updateActivity(alice.timelineKey, a.id, { tags: 'Changed', start: a.start, duration: a.duration })
    w.store.deleteActivity(alice.timelineKey, gone.id)
    const next = await readTimelineChanges(w.client, alice, first.cursor, w.window, { full: false, now: NOW })
    if (next.mode !== 'incremental') throw new Error('expected an incremental read')
    expect(next.activities.map((a) => a.entityId).sort((a, b) => a - b)).toEqual([early.id, late.id].sort((a, b) => a - b))
    expect(next.deletedIds).toEqual([gone.id])
    expect(next.lookBack).toBeUndefined()
    expect(w.followed).toEqual(first.cursor.links!.map((link) => ({ url: link.href, status: 200 })))
  })

  it('writes after a ranged read prove the state of its first answer', async () => {
    const w = await world({ rangeLimit: { maxDays: 20, status: 400 } })
    const alice = w.tags[0]!
    const before = w.store.lastChangeId(alice.timelineKey)
    w.faults.addConcurrentWriter({
      before: { method: 'GET', path: '/activities' },
      nth: 3,
      run: (store) =>
        void store.createActivity(alice.timelineKey, { tags: 'Someone, Else', start: '2026-03-20T09:00:00+01:00', duration: 600 }),
    })
    const weeks = [w.window.window]
    await readRanged(w.client, alice, weeks)
    expect(w.reads.map((r) => r.status)).toEqual([400, 200, 200])
    expect(w.client.lastChangeId(alice.timelineKey)).toBe(before)
    expect(w.store.lastChangeId(alice.timelineKey)).not.toBe(before)
  })
})
