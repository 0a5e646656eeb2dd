import { describe, expect, test } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import { noSignIn } from '../../src/timeline/auth/password.ts'
import { activityValues, createTimelineClient, splitTags, toTimelineInfo } from '../../src/timeline/client.ts'
import type { ActivityInput } from '../../src/timeline/model.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { activityEntities, BASE, homeBody, json, KEY, timelineBody } from './fixtures.ts'

const INPUT: ActivityInput = { tags: ['A', 'B'], notes: undefined, start: '2026-03-29T01:30:00+01:00', duration: 60 }

function invalid(run: () => unknown, text: string) {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_VALIDATION')
    expect((error as Error).message).toContain(text)
    return
  }
  throw new Error('expected a validation error')
}

describe('activityValues', () => {
  test('joins tags with ", ", trims them, keeps the offset, sends empty notes', () => {
    expect(activityValues({ ...INPUT, tags: [' Client ', ':billable'] })).toEqual({
      name: 'Client, :billable',
      notes: '',
      timeInterval: { start: '2026-03-29T01:30:00+01:00', duration: 60 },
    })
  })

  test('drops a zero fraction of a second, accepts Z', () => {
    expect(activityValues({ ...INPUT, start: '2026-03-29T01:30:00.000Z' }).timeInterval.start).toBe('2026-03-29T01:30:00Z')
  })

  test.each([
    [{ tags: [] }, 'at least one tag'],
    [{ tags: ['a, b'] }, 'contains a comma'],
    [{ tags: ['a', ' '] }, 'Empty tag'],
    [{ tags: ['x'.repeat(201)] }, 'longer than 200'],
    [{ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'at most 10 tags'],
    [{ start: '2026-03-29T01:30:00' }, 'explicit offset'],
    [{ start: '2026-03-29T01:30+01:00' }, 'explicit offset'],
    [{ start: '2026-03-29T01:30:00.5+01:00' }, 'fraction of a second'],
    [{ duration: 1.5 }, 'whole number of seconds'],
    [{ duration: -1 }, 'whole number of seconds'],
  ])('refuses %o', (patch, text) => invalid(() => activityValues({ ...INPUT, ...patch }), text))
})

test('splitTags splits on commas, trims, drops empties', () => {
  expect(splitTags(' a,b ,, c ')).toEqual(['a', 'b', 'c'])
  expect(splitTags('')).toEqual([])
})

function fakeServer(vendorToken = 'manictime') {
  const vendor = vendorIdentifiers(vendorToken)
  const seen: string[] = []
  const fetch = (async (request: Request) => {
    const url = new URL(request.url)
    seen.push(`${request.method} ${url.pathname}${url.search}`)
    if (url.pathname === '/api') return json(homeBody(vendor), {}, vendor)
    if (url.pathname === '/api/timelines') return json({ timelines: [timelineBody({ vendor })] }, {}, vendor)
    if (url.pathname.endsWith('/activities')) return json({ ...timelineBody({ vendor }), entities: activityEntities(1, ['A']) }, {}, vendor)
    return json({ errorCode: 'NotFound' }, { status: 404 }, vendor)
  }) as typeof globalThis.fetch
  return { seen, signIn: noSignIn({ entryUrl: `${BASE}/api`, fetch }) }
}

describe('navigation', () => {
  test('the home resource is fetched once and its links followed', async () => {
    const { seen, signIn } = fakeServer()
    const client = createTimelineClient({ signIn })
    await client.listTimelines()
    await client.tagsTimelines()
    await client.readActivities(KEY, { from: '2026-03-29T00:00:00+01:00', to: '2026-03-30T00:00:00+02:00' })
    expect(seen.filter((line) => line === 'GET /api')).toHaveLength(1)
    expect(seen.at(-1)).toBe(
      `GET /api/timelines/${KEY}/activities?fromTime=2026-03-29T00%3A00%3A00%2B01%3A00&toTime=2026-03-30T00%3A00%3A00%2B02%3A00`,
    )
  })

  test('the home resource read ahead is the one the run follows: one read', async () => {
    const { seen, signIn } = fakeServer()
    const client = createTimelineClient({ signIn })
    client.readHomeAhead()
    client.readHomeAhead()
    expect(seen).toEqual([])
    await client.listTimelines()
    expect(seen.filter((line) => line === 'GET /api')).toHaveLength(1)
  })

  test('a home read ahead that fails is reported by the next call without a second read, and read again after', async () => {
    let homeReads = 0
    const fetch = (async (request: Request) => {
      const url = new URL(request.url)
      if (url.pathname === '/api') {
        homeReads++
        if (homeReads === 1) return json({ errorCode: 'NotFound' }, { status: 404 })
        return json(homeBody())
      }
      return json({ timelines: [timelineBody()] })
    }) as typeof globalThis.fetch
    const client = createTimelineClient({ signIn: noSignIn({ entryUrl: `${BASE}/api`, fetch }), retry: { limit: 0 } })
    client.readHomeAhead()
    await new Promise((resolve) => setTimeout(resolve, 10))
    await expect(client.listTimelines()).rejects.toBeInstanceOf(TimelineSheetsError)
    expect(homeReads).toBe(1)
    await expect(client.listTimelines()).resolves.toHaveLength(1)
    expect(homeReads).toBe(2)
  })

  test('a vendor mismatch is a missing link, named', async () => {
    const { signIn } = fakeServer('service')
    const client = createTimelineClient({ signIn, vendor: 'manictime' })
    const error = await client.listTimelines().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'TS_LINK_MISSING' })
    expect((error as Error).message).toContain('"manictime/timelines"')
  })

  test('a timeline without activity links cannot be read or written', async () => {
    const { signIn } = fakeServer()
    const client = createTimelineClient({ signIn })
    const [timeline] = await client.listTimelines()
    const bare = { ...timeline!, links: [] }
    await expect(client.readActivities(bare, { from: '2026-03-29T00:00:00Z', to: '2026-03-30T00:00:00Z' })).rejects.toMatchObject({
      code: 'TS_LINK_MISSING',
    })
    await expect(client.createActivity(bare, INPUT)).rejects.toMatchObject({ code: 'TS_LINK_MISSING' })
  })

  test('read bounds without an offset are refused before any call', async () => {
    const { seen, signIn } = fakeServer()
    const client = createTimelineClient({ signIn })
    await expect(client.readActivities(KEY, { from: '2026-03-29', to: '2026-03-30T00:00:00Z' })).rejects.toMatchObject({
      code: 'TS_INTERNAL',
      option: 'from',
    })
    await expect(client.readActivities(KEY, { from: '2026-03-29T00:00:00Z', to: '2026-03-30T00:00:00' })).rejects.toThrow('`to`')
    expect(seen).toEqual([])
  })

  test('the first write without any read falls back to the listed lastChangeId', async () => {
    const bodies: unknown[] = []
    const fetch = (async (request: Request) => {
      const url = new URL(request.url)
      if (url.pathname === '/api') return json(homeBody())
      if (url.pathname === '/api/timelines') return json({ timelines: [timelineBody({ lastChangeId: '3,9' })] })
      bodies.push(JSON.parse(await request.text()))
      return json({ ...timelineBody({ lastChangeId: '4,1' }), entities: activityEntities(5, ['A', 'B']) })
    }) as typeof globalThis.fetch
    const client = createTimelineClient({ signIn: noSignIn({ entryUrl: `${BASE}/api`, fetch }) })
    const [timeline] = await client.listTimelines()
    client.setLastChangeId(KEY, undefined)
    await client.createActivity(timeline!, INPUT)
    await client.createActivity(timeline!, INPUT)
    expect(bodies.map((b) => (b as { expectedLastChangeId?: string }).expectedLastChangeId)).toEqual(['3,9', '4,1'])
  })

  test('a timeline with no changes yet: expectedLastChangeId is left out', async () => {
    const bodies: unknown[] = []
    const fetch = (async (request: Request) => {
      bodies.push(JSON.parse(await request.text()))
      return json({ ...timelineBody({ lastChangeId: '1,1' }), entities: activityEntities(5, ['A', 'B']) })
    }) as typeof globalThis.fetch
    const client = createTimelineClient({ signIn: noSignIn({ entryUrl: `${BASE}/api`, fetch }) })
    const info = toTimelineInfo({ ...timelineBody(), lastChangeId: null }, BASE)
    await client.createActivity(info, INPUT)
    expect(bodies[0]).not.toHaveProperty('expectedLastChangeId')
    expect(client.lastChangeId(KEY)).toBe('1,1')
  })
})
