import { describe, expect, it } from 'vitest'
import { createFaultInjector, matches } from '../../counterparts/timeline/faults.ts'
import { activitiesOf, activityBody, body, fixture, USERS } from './helpers.ts'

// The content editor: the one account the tagging API documents for writes.
const as = USERS.editor.username

describe('faults in the handler', () => {
  it('answers the next N requests with 429 and Retry-After, then recovers', async () => {
    const { call, faults } = fixture()
    faults.set({ rateLimit: { next: 2, retryAfterSeconds: 3 } })
    const statuses = []
    for (let i = 0; i < 3; i++) {
      const response = await call('GET', '/api', { as })
      statuses.push([response.status, response.headers.get('retry-after')])
    }
    expect(statuses).toEqual([
      [429, '3'],
      [429, '3'],
      [200, null],
    ])
    expect(faults.counts().rateLimited).toBe(2)
  })

  it('injects 500 and 503 for the next N matching requests only', async () => {
    const { call, faults, keys } = fixture()
    faults.set({ serverError: { status: 500, next: 1, match: { method: 'POST', path: '/activities' } } })
    expect((await call('GET', '/api', { as })).status).toBe(200)
    const failed = await call('POST', `/api/timelines/${keys.alice}/activities`, { as, body: activityBody('A', '2026-03-29T09:00:00Z', 1) })
    expect(failed.status).toBe(500)
    expect(await failed.json()).toMatchObject({ errorCode: 'InternalError' })
    faults.set({ serverError: { next: 1, retryAfterSeconds: 2 } })
    const unavailable = await call('GET', '/api', { as })
    expect([unavailable.status, unavailable.headers.get('retry-after')]).toEqual([503, '2'])
    expect((await call('GET', '/api', { as })).status).toBe(200)
  })

  it('answers a seeded share of requests with faults, the same way each run', async () => {
    const run = async () => {
      const { call, faults } = fixture()
      faults.set({ rateLimit: { share: 0.3 } })
      const statuses: number[] = []
      for (let i = 0; i < 40; i++) statuses.push((await call('GET', '/api', { as })).status)
      return statuses
    }
    const [first, second] = [await run(), await run()]
    expect(first).toEqual(second)
    const limited = first.filter((s) => s === 429).length
    expect(limited).toBeGreaterThan(4)
    expect(limited).toBeLessThan(25)
  })

  it('drops a connection in-process as a network error (msw turns Response.error() into a failed fetch)', async () => {
    const { call, faults } = fixture()
    faults.set({ drop: { next: 1 } })
    const dropped = await call('GET', '/api', { as })
    expect(dropped.type).toBe('error')
    expect((await call('GET', '/api', { as })).status).toBe(200)
    expect(faults.counts().dropped).toBe(1)
  })

  it('delays answers by the configured latency', async () => {
    const { call, faults } = fixture()
    await call('GET', '/api', { as })
    faults.set({ latencyMs: 60 })
    const began = performance.now()
    await call('GET', '/api', { as })
    expect(performance.now() - began).toBeGreaterThanOrEqual(55)
    faults.clear()
    expect(faults.settings()).toEqual({})
  })

  it('runs a concurrent writer right before the nth write, so the client’s next write meets 409', async () => {
    const { call, faults, keys, store } = fixture()
    faults.addConcurrentWriter({
      before: { writesOnly: true },
      nth: 2,
      run: (s) => {
        s.createActivity(keys.alice, { tags: 'Someone else', start: '2026-03-29T12:00:00Z', duration: 60 })
      },
    })
    const first = await body(
      await call('POST', `/api/timelines/${keys.alice}/activities`, { as, body: activityBody('Mine', '2026-03-29T09:00:00Z', 60) }),
    )
    expect(faults.pendingWriters()).toBe(1)
    // A read is not a write: the writer still waits.
    await call('GET', `/api/timelines/${keys.alice}/activities?fromTime=2026-03-29&toTime=2026-03-30`, { as })
    expect(faults.pendingWriters()).toBe(1)
    const second = await call('POST', `/api/timelines/${keys.alice}/activities`, {
      as,
      body: activityBody('Mine too', '2026-03-29T10:00:00Z', 60, { expectedLastChangeId: first.lastChangeId! }),
    })
    expect(second.status).toBe(409)
    expect(faults.pendingWriters()).toBe(0)
    expect(faults.counts().concurrentWrites).toBe(1)
    expect(store.activities(keys.alice).map((a) => store.tagsOf(keys.alice, a)[0])).toEqual(['Mine', 'Someone else'])
  })

  it('runs a concurrent writer before the next request matching a method and path', async () => {
    const { call, faults, keys, store } = fixture()
    const a = store.createActivity(keys.alice, { tags: 'Original', start: '2026-03-29T09:00:00Z', duration: 60 })
    faults.addConcurrentWriter({
      before: { method: 'GET', path: /\/activities$/ },
      run: (s) => {
        s.updateActivity(keys.alice, a.id, { tags: 'Edited elsewhere', start: '2026-03-29T09:00:00Z', duration: 60 })
      },
    })
    await call('GET', '/api/timelines', { as })
    expect(faults.pendingWriters()).toBe(1)
    const read = await body(await call('GET', `/api/timelines/${keys.alice}/activities?fromTime=2026-03-29&toTime=2026-03-30`, { as }))
    expect(activitiesOf(read)[0]!.values['name']).toBe('Edited elsewhere')
  })
})

describe('request matching', () => {
  it('matches by method, path text or pattern, and writes only', () => {
    expect(matches(undefined, 'GET', '/api')).toBe(true)
    expect(matches({ method: ['put', 'DELETE'] }, 'PUT', '/x')).toBe(true)
    expect(matches({ method: 'POST' }, 'GET', '/x')).toBe(false)
    expect(matches({ path: '/activities' }, 'GET', '/api/timelines/k/activities')).toBe(true)
    expect(matches({ path: /^\/api$/ }, 'GET', '/api/timelines')).toBe(false)
    expect(matches({ writesOnly: true }, 'GET', '/x')).toBe(false)
    expect(matches({ writesOnly: true }, 'DELETE', '/x')).toBe(true)
  })

  it('does not count down the caller’s settings object', async () => {
    const settings = { rateLimit: { next: 1 } }
    const injector = createFaultInjector(settings)
    const { store } = fixture()
    await injector.before(new Request('http://timeline.test/api'), store)
    expect(settings.rateLimit.next).toBe(1)
    expect(injector.settings().rateLimit?.next).toBe(0)
  })
})
