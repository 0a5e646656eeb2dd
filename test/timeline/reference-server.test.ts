/**
 * The Timeline client against the reference server, mounted in msw (no sockets).
 */
import { http as mswHttp } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createFaultInjector, type FaultInjector } from '../../counterparts/timeline/faults.ts'
import { createTimelineHandler } from '../../counterparts/timeline/handler.ts'
import { seedStore, type SeedResult } from '../../counterparts/timeline/seed.ts'
import { createTimelineStore, type TimelineStore, type TimelineStoreOptions } from '../../counterparts/timeline/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { ConcurrencyError, TimelineSheetsError } from '../../src/errors.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import { createTimelineClient, type TimelineClient } from '../../src/timeline/client.ts'
import type { ActivityInput, TimelineInfo } from '../../src/timeline/model.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { createPace } from '../../src/http/pace.ts'

const BASE = 'http://timeline.test/'
const msw = setupServer()

// onUnhandledFrame is msw 3's name for onUnhandledRequest.
beforeAll(() => msw.listen({ onUnhandledFrame: 'error' }))
afterEach(() => msw.resetHandlers())
afterAll(() => msw.close())

interface Recorded {
  method: string
  url: string
  accept: string | null
  contentType: string | null
  authorization: string | null
  body: string
}

interface World {
  store: TimelineStore
  seed: SeedResult
  faults: FaultInjector
  recorded: Recorded[]
  sleeps: number[]
  holds: number[]
  client(as?: 'transfer' | 'reader' | 'admin' | { username: string; password: string }): TimelineClient
}

function world(options: TimelineStoreOptions = {}): World {
  const store = createTimelineStore(options)
  const seed = seedStore(store, { users: 2, days: 3, startDate: '2026-03-23' })
  const faults = createFaultInjector()
  const handler = createTimelineHandler(store, { faults })
  const recorded: Recorded[] = []
  const sleeps: number[] = []
  const holds: number[] = []
  msw.use(
    mswHandlerFor(BASE, async (request) => {
      recorded.push({
        method: request.method,
        url: request.url,
        accept: request.headers.get('accept'),
        contentType: request.headers.get('content-type'),
        authorization: request.headers.get('authorization'),
        body: await request.clone().text(),
      })
      return handler(request)
    }),
  )
  const vendor = options.vendor ?? 'manictime'
  return {
    store,
    seed,
    faults,
    recorded,
    sleeps,
    holds,
    client(as = 'transfer') {
      const who = typeof as === 'object' ? as : seed[as]!
      const signIn = passwordSignIn({
        baseUrl: BASE,
        username: who.username,
        password: who.password,
        vendor: vendorIdentifiers(vendor),
      })
      // The lane's hold runs on real timers; record it instead, the injected sleep stands for the wait.
      const pace = createPace({ concurrency: 4 })
      pace.holdFor = (ms) => void holds.push(ms)
      return createTimelineClient({
        signIn,
        vendor,
        pace,
        retry: { limit: 2, jitter: 0, sleep: async (ms) => void sleeps.push(ms) },
      })
    },
  }
}

async function failure(promise: Promise<unknown>): Promise<TimelineSheetsError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineSheetsError)
    return error as TimelineSheetsError
  }
  throw new Error('expected a failure')
}

const RANGE = { from: '2026-03-23T00:00:00+01:00', to: '2026-03-26T00:00:00+01:00' }
const INPUT: ActivityInput = {
  tags: ['Acme Corp', 'Website', 'Build', ':billable'],
  notes: 'first',
  start: '2026-03-24T09:00:00+01:00',
  duration: 1800,
}

async function aliceTags(client: TimelineClient, w: World): Promise<TimelineInfo> {
  const timeline = await client.findTagsTimeline(w.seed.users[0]!.username)
  expect(timeline).toBeDefined()
  return timeline!
}

describe.each(['manictime', 'service'])('vendor %s', (vendor) => {
  test('lists timelines, reads activities with tags resolved, sends the vendor media type', async () => {
    const w = world({ vendor })
    const client = w.client()
    const all = await client.listTimelines()
    expect(all.length).toBe(6)
    const tags = await client.tagsTimelines()
    expect(tags.map((t) => t.ownerUsername).sort()).toEqual(w.seed.users.map((u) => u.username).sort())
    expect(tags.every((t) => t.schemaName === vendorIdentifiers(vendor).schema('Tags'))).toBe(true)

    const alice = await aliceTags(client, w)
    const read = await client.readActivities(alice, RANGE)
    const fromMs = Date.parse(RANGE.from)
    const toMs = Date.parse(RANGE.to)
    const expected = w.store.overlapping(alice.timelineKey, fromMs, toMs)
    expect(read.activities.map((a) => a.entityId)).toEqual(expected.map((a) => a.id))
    for (const [i, activity] of read.activities.entries()) {
      expect(activity.tags).toEqual(w.store.tagsOf(alice.timelineKey, expected[i]!))
      expect(activity.start).toBe(expected[i]!.start)
      expect(activity.duration).toBe(expected[i]!.duration)
      expect(activity.notes).toBe(expected[i]!.notes)
    }
    expect(read.updatedActivitiesUrl).toContain('updatedAfterTimestamp=')
    expect(client.lastChangeId(alice.timelineKey)).toBe(w.store.lastChangeId(alice.timelineKey))

    const dataCalls = w.recorded.filter((r) => r.authorization)
    expect(dataCalls.length).toBeGreaterThan(0)
    for (const call of dataCalls) expect(call.accept).toBe(`application/vnd.${vendor}.v3+json`)
    const activitiesCall = w.recorded.find((r) => r.url.includes('fromTime='))!
    // `+` must be percent-encoded, or the server reads a space.
    expect(activitiesCall.url).toContain('fromTime=2026-03-23T00%3A00%3A00%2B01%3A00')
  })

  test('allowed tags: read everyone and groups, write them back, read the user list', async () => {
    const w = world({ vendor })
    const client = w.client()
    const all = await client.readAllowedTags({ all: true })
    expect(all).toEqual(w.store.allowedTags())
    const next = {
      everyone: ['Internal, Admin, Email', ...all.everyone],
      groups: [...all.groups, { appliesTo: [`[${w.seed.users[1]!.username}]`], combinations: ['Globex, Migration, Analysis'] }],
    }
    const mine = await client.writeAllowedTags(next)
    expect(mine).toEqual(w.store.allowedTagsFor(w.seed.transfer!.username))
    expect(await client.readAllowedTags({ all: true })).toEqual(next)
    const post = w.recorded.find((r) => r.method === 'POST' && r.url.endsWith('/tagcombinationlist'))!
    expect(post.contentType).toBe(`application/vnd.${vendor}.v3+json`)
    expect(JSON.parse(post.body).userTagCombinationLists.at(-1)).toEqual({
      users: [`[${w.seed.users[1]!.username}]`],
      tagCombinations: ['Globex, Migration, Analysis'],
    })
    const bob = w.client({ username: w.seed.users[1]!.username, password: w.seed.users[1]!.password })
    const bobs = await bob.readAllowedTags()
    expect(bobs.groups).toEqual([])
    expect(bobs.everyone).toContain('Globex, Migration, Analysis')
  })
})

describe('writes', () => {
  test('create, update, delete thread expectedLastChangeId from each response', async () => {
    const w = world()
    const client = w.client()
    const alice = await aliceTags(client, w)
    await client.readActivities(alice, RANGE)
    const before = w.store.lastChangeId(alice.timelineKey)

    const created = await client.createActivity(alice, INPUT)
    expect(created.activity).toMatchObject({ tags: INPUT.tags, notes: 'first', start: INPUT.start, duration: 1800 })
    const id = created.activity!.entityId
    expect(created.timeline.lastChangeId).toBe(w.store.lastChangeId(alice.timelineKey))

    const updated = await client.updateActivity(alice, id, { ...INPUT, tags: ['Globex', 'Migration'], notes: undefined, duration: 600 })
    expect(updated.activity).toMatchObject({ entityId: id, tags: ['Globex', 'Migration'], duration: 600 })
    const deleted = await client.deleteActivity(alice, id)
    expect(deleted.activity).toBeUndefined()
    expect(w.store.activity(alice.timelineKey, id)).toBeUndefined()

    const writes = w.recorded.filter((r) => r.method !== 'GET' && r.url.includes('/activities'))
    expect(writes.map((r) => r.method)).toEqual(['POST', 'PUT', 'DELETE'])
    expect(writes.map((r) => JSON.parse(r.body).expectedLastChangeId)).toEqual([
      before,
      created.timeline.lastChangeId,
      updated.timeline.lastChangeId,
    ])
    for (const write of writes) expect(write.contentType).toBe('application/vnd.manictime.v3+json')
    expect(JSON.parse(writes[0]!.body).values).toEqual({
      name: 'Acme Corp, Website, Build, :billable',
      notes: 'first',
      timeInterval: { start: '2026-03-24T09:00:00+01:00', duration: 1800 },
    })
    expect(writes[1]!.url).toMatch(new RegExp(`/activities/${id}$`))
    expect(client.lastChangeId(alice.timelineKey)).toBe(deleted.timeline.lastChangeId)
  })

  test('a write by someone else in between → ConcurrencyError, nothing written; re-read and retry works', async () => {
    const w = world()
    const client = w.client()
    const alice = await aliceTags(client, w)
    await client.readActivities(alice, RANGE)
    const stale = client.lastChangeId(alice.timelineKey)
    w.faults.addConcurrentWriter({
      before: { method: 'POST', path: '/activities' },
      run: (store) =>
        void store.createActivity(alice.timelineKey, { tags: 'Other, Writer', start: '2026-03-24T12:00:00+01:00', duration: 60 }),
    })
    const count = w.store.activities(alice.timelineKey).length
    const error = await failure(client.createActivity(alice, INPUT))
    expect(error).toBeInstanceOf(ConcurrencyError)
    expect(error).toMatchObject({ timelineKey: alice.timelineKey, expectedLastChangeId: stale })
    expect(error.message).toContain(stale!)
    expect(w.store.activities(alice.timelineKey).length).toBe(count + 1) // only the other writer's
    expect(w.recorded.filter((r) => r.method === 'POST' && r.url.includes('/activities'))).toHaveLength(1)

    await client.readActivities(alice, RANGE)
    expect(client.lastChangeId(alice.timelineKey)).toBe(w.store.lastChangeId(alice.timelineKey))
    await client.createActivity(alice, INPUT)
    expect(w.store.activities(alice.timelineKey).length).toBe(count + 2)
  })

  test('setLastChangeId overrides what the next write expects', async () => {
    const w = world()
    const client = w.client()
    const alice = await aliceTags(client, w)
    client.setLastChangeId(alice.timelineKey, '1,1')
    expect(await failure(client.createActivity(alice, INPUT))).toBeInstanceOf(ConcurrencyError)
    client.setLastChangeId(alice.timelineKey, w.store.lastChangeId(alice.timelineKey))
    await client.createActivity(alice, INPUT)
    client.setLastChangeId(alice.timelineKey, undefined)
    expect(client.lastChangeId(alice.timelineKey)).toBeUndefined()
  })

  test('content reader writing → TS_FORBIDDEN naming Content editor', async () => {
    const w = world()
    const client = w.client('reader')
    const alice = await aliceTags(client, w)
    const error = await failure(client.createActivity(alice, INPUT))
    expect(error.code).toBe('TS_FORBIDDEN')
    expect(error.message).toContain('Content editor')
    const listing = await failure(client.readAllowedTags({ all: true }))
    expect(listing.code).toBe('TS_FORBIDDEN')
    expect(listing.message).toContain('Administrator or Content editor')
  })

  test('write to a ComputerUsage timeline → TS_TIMELINE_CONSTRAINT naming the timeline', async () => {
    const w = world()
    const client = w.client()
    const usage = (await client.listTimelines()).find((t) => t.schemaName === 'ManicTime/ComputerUsage')!
    const error = await failure(client.createActivity(usage, INPUT))
    expect(error.code).toBe('TS_TIMELINE_CONSTRAINT')
    expect(error.message).toContain(`ManicTime/ComputerUsage timeline of ${usage.ownerUsername}`)
  })

  test('unknown timeline → TS_NOT_FOUND, by key and by a stale TimelineInfo; unknown activity too', async () => {
    const w = world()
    const client = w.client()
    const byKey = await failure(client.readActivities('00000000-0000-4000-8000-000000000000', RANGE))
    expect(byKey.code).toBe('TS_NOT_FOUND')
    const alice = await aliceTags(client, w)
    const ghost = {
      ...alice,
      timelineKey: 'ghost',
      links: alice.links.map((l) => ({ ...l, href: l.href.replace(alice.timelineKey, 'ghost') })),
    }
    expect((await failure(client.readActivities(ghost, RANGE))).code).toBe('TS_NOT_FOUND')
    expect((await failure(client.deleteActivity(alice, 999_999))).code).toBe('TS_NOT_FOUND')
  })

  test('a timeline given by key is looked up through ?timelineKey=', async () => {
    const w = world()
    const client = w.client()
    const key = w.seed.users[0]!.tagsTimelineKey!
    const created = await client.createActivity(key, INPUT)
    expect(created.timeline.timelineKey).toBe(key)
    expect(w.recorded.some((r) => r.url.endsWith(`/api/timelines?timelineKey=${key}`))).toBe(true)
  })

  test('server-side validation errors keep the server message', async () => {
    const w = world()
    const client = w.client()
    const alice = await aliceTags(client, w)
    // The client refuses what it can see is wrong before sending.
    expect((await failure(client.createActivity(alice, { ...INPUT, duration: -5 }))).code).toBe('TS_VALIDATION')
    expect((await failure(client.createActivity(alice, { ...INPUT, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }))).code).toBe(
      'TS_VALIDATION',
    )
    expect(w.recorded.filter((r) => r.method === 'POST' && r.url.includes('/activities'))).toHaveLength(0)
  })
})

describe('sign-in', () => {
  test('wrong password → TS_AUTH_FAILED naming user and server', async () => {
    const w = world()
    const client = w.client({ username: w.seed.transfer!.username, password: 'not-the-password' })
    const error = await failure(client.listTimelines())
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toBe(`Wrong username or password for ${w.seed.transfer!.username} at http://timeline.test`)
    expect(error.message).not.toContain('not-the-password')
  })

  test('token revoked → signs in again once and carries on', async () => {
    const w = world()
    const client = w.client()
    await client.listTimelines()
    w.store.revokeTokens(w.seed.transfer!.username)
    await client.tagsTimelines()
    const tokenPosts = w.recorded.filter((r) => r.url.endsWith('/api/token'))
    expect(tokenPosts).toHaveLength(2)
  })

  test('token link on another origin is refused before the password is sent', async () => {
    const w = world()
    msw.use(
      mswHttp.get(`${BASE}api`, () =>
        Response.json(
          { links: [{ rel: 'manictime/token', href: 'http://evil.test/api/token' }] },
          { status: 401, headers: { 'www-authenticate': 'Bearer' } },
        ),
      ),
    )
    const error = await failure(w.client().listTimelines())
    expect(error.code).toBe('TS_UNSAFE_TOKEN_LINK')
    expect(w.recorded.filter((r) => r.url.endsWith('/api/token'))).toHaveLength(0)
  })
})

describe('incremental reads', () => {
  async function changeAfterRead(w: World) {
    const client = w.client()
    const alice = await aliceTags(client, w)
    const first = await client.readActivities(alice, RANGE)
    const [changed, removed] = first.activities
    w.store.updateActivity(alice.timelineKey, changed!.entityId, {
      tags: 'Initech, Support, Tickets',
      start: changed!.start,
      duration: 900,
    })
    w.store.deleteActivity(alice.timelineKey, removed!.entityId)
    const next = await client.readUpdated(first.updatedActivitiesUrl!)
    return { client, alice, changed: changed!, removed: removed!, next }
  }

  test('without deletion reports: the changed activity only, no deletion list', async () => {
    const w = world({ reportDeletions: false })
    const { client, alice, changed, next } = await changeAfterRead(w)
    expect(next.activities.map((a) => [a.entityId, a.tags, a.duration])).toEqual([
      [changed.entityId, ['Initech', 'Support', 'Tickets'], 900],
    ])
    expect(next.deletedActivityIds).toBeUndefined()
    expect(client.lastChangeId(alice.timelineKey)).toBe(w.store.lastChangeId(alice.timelineKey))
    const again = await client.readUpdated(next.updatedActivitiesUrl!)
    expect(again.activities).toEqual([])
  })

  test('with deletion reports, the default: deletedActivityIds as numbers', async () => {
    const w = world()
    const { removed, next } = await changeAfterRead(w)
    expect(next.deletedActivityIds).toEqual([removed.entityId])
  })
})

describe('faults', () => {
  test('429 with Retry-After is waited out and retried', async () => {
    const w = world()
    const client = w.client()
    w.faults.set({ rateLimit: { next: 1, retryAfterSeconds: 2, match: { path: '/timelines' } } })
    expect((await client.listTimelines()).length).toBe(6)
    expect(w.sleeps).toEqual([2000])
    expect(w.holds).toEqual([2000])
  })

  test('a POST create is not repeated after a 503 or a dropped connection (no duplicate)', async () => {
    for (const fault of [{ serverError: { next: 1, match: { method: 'POST' } } }, { drop: { next: 1, match: { method: 'POST' } } }]) {
      const w = world()
      const client = w.client()
      const alice = await aliceTags(client, w)
      const count = w.store.activities(alice.timelineKey).length
      w.faults.set(fault)
      const error = await failure(client.createActivity(alice, INPUT))
      expect(['TS_HTTP', 'TS_NETWORK']).toContain(error.code)
      expect(w.recorded.filter((r) => r.method === 'POST' && r.url.includes('/activities'))).toHaveLength(1)
      expect(w.store.activities(alice.timelineKey).length).toBe(count)
    }
  })

  test('a PUT is repeated after a 503', async () => {
    const w = world()
    const client = w.client()
    const alice = await aliceTags(client, w)
    const { activities } = await client.readActivities(alice, RANGE)
    w.faults.set({ serverError: { next: 1, match: { method: 'PUT' } } })
    const result = await client.updateActivity(alice, activities[0]!.entityId, INPUT)
    expect(result.activity?.tags).toEqual(INPUT.tags)
    expect(w.recorded.filter((r) => r.method === 'PUT')).toHaveLength(2)
  })

  test('allowed tags refused when the server takes tags from elsewhere: a clear error, not a conflict', async () => {
    const w = world({ tagSource: 'other' })
    const error = await failure(w.client().writeAllowedTags({ everyone: ['A'], groups: [] }))
    expect(error).not.toBeInstanceOf(ConcurrencyError)
    expect(error.message).toContain('Service')
  })
})
