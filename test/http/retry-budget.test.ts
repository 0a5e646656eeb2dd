/**
 * A run's budget for requests that time out, per service, and the lines a run says while it waits: the
 * transport reports every request to its service's watch, the one retry loop stops repeating once the budget
 * is spent, and the call's last failure says how often it was tried and why not again. Fake timers: the
 * transport's limits fire as the clock is advanced, so nothing depends on the machine's speed.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { RequestTimeoutError, TimeoutBudgetError } from '../../src/errors.ts'
import { retry, type RetryEvent } from '../../src/http/retry.ts'
import { createTransport } from '../../src/http/transport.ts'
import { createRequestWatch, type WatchLine } from '../../src/http/watch.ts'
import { classifyTimelineError, meansRangeTooLarge } from '../../src/timeline/http.ts'

const URL_A = 'https://timeline.example.com/api/timelines'

/** The retry loop's wait on the faked clock (its default waits on node:timers/promises, which fake timers leave alone). */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A fetch that never answers: only the transport's own limits end its requests. */
const hung = () => new Promise<Response>(() => undefined)

const timeout = (ms = 30_000) =>
  new RequestTimeoutError({
    limit: 'firstByte',
    method: 'GET',
    url: URL_A,
    ms,
    setting: 'timeouts.firstByteMs',
    service: 'Timeline service',
  })

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('the budget for timed-out requests', () => {
  test('each timed-out attempt spends the time it took; once spent, a new request is not sent and says why', async () => {
    const watch = createRequestWatch({ service: 'Timeline service', key: 'timeline', budgetMs: 60_000 })
    const fetch = vi.fn(hung)
    const transport = createTransport({ timeouts: { firstByteMs: 30_000 }, watch, fetch })

    for (let i = 0; i < 2; i++) {
      const pending = transport(new Request(URL_A)).catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(30_000)
      const error = await pending
      expect(error).toBeInstanceOf(RequestTimeoutError)
      expect((error as Error).message).toBe(
        `Timeline service: GET ${URL_A}: no answer within 30 s (first-byte timeout, timeouts.firstByteMs)`,
      )
    }
    expect(watch.spent).toBe(true)

    const refused = await transport(new Request(`${URL_A}/k/activities`)).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(TimeoutBudgetError)
    expect((refused as Error).message).toBe(
      `Timeline service: GET ${URL_A}/k/activities was not sent: 2 requests to it timed out, 1 min of the 1 min a run allows (timeouts.retryBudgetMs); the last: Timeline service: GET ${URL_A}: no answer within 30 s (first-byte timeout, timeouts.firstByteMs)`,
    )
    expect(fetch).toHaveBeenCalledTimes(2)
  })

  test('an answer spends nothing, however slow; nor does the run deadline', async () => {
    const watch = createRequestWatch({ service: 'Timeline service', key: 'timeline', budgetMs: 1_000 })
    const slowAnswer = () => new Promise<Response>((resolve) => setTimeout(() => resolve(new Response('{}')), 20_000))
    const transport = createTransport({ timeouts: { firstByteMs: 30_000 }, watch, fetch: slowAnswer })
    const pending = transport(new Request(URL_A)).then((r) => r.text())
    await vi.advanceTimersByTimeAsync(20_000)
    expect(await pending).toBe('{}')
    expect(watch.spent).toBe(false)
    expect(watch.refusal('GET', URL_A)).toBeUndefined()
  })

  test('the retry loop stops repeating once the budget is spent, and the last failure says how often it was tried', async () => {
    const watch = createRequestWatch({ service: 'Timeline service', key: 'timeline', budgetMs: 90_000 })
    const transport = createTransport({ timeouts: { firstByteMs: 30_000 }, watch, fetch: hung })
    const events: RetryEvent[] = []
    const call = retry(
      () => transport(new Request(URL_A)),
      (error) => classifyTimelineError({ method: 'GET', url: URL_A }, error),
      { limit: 5, baseDelay: 500, backoffLimit: 60_000, jitter: 0, watch, sleep, onRetry: (event) => void events.push(event) },
    ).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(200_000)
    const error = await call
    // Three attempts of 30 s spend the 90 s: the limit of five repeats is not reached.
    expect(events.map((e) => [e.attempt, e.attempts, e.delayMs])).toEqual([
      [1, 6, 500],
      [2, 6, 1_000],
    ])
    expect(events[0]!.error).toBeInstanceOf(RequestTimeoutError)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).budgetSpent).toBe(true)
    expect((error as Error).message).toBe(
      `Timeline service: GET ${URL_A}: no answer within 30 s (first-byte timeout, timeouts.firstByteMs); tried 3 times; not tried again: 3 requests to it timed out, 1.5 min of the 1.5 min a run allows (timeouts.retryBudgetMs)`,
    )
    expect((error as RequestTimeoutError).hint).toMatch(/raise timeouts\.firstByteMs and timeouts\.retryBudgetMs/)
  })

  test('a call that used up its repeats with budget left says how often it was tried', async () => {
    const watch = createRequestWatch({ service: 'Timeline service', key: 'timeline', budgetMs: 600_000 })
    const error = await retry(
      () => Promise.reject(timeout()),
      () => ({ retry: true, reason: 'firstByte timeout' }),
      { limit: 2, baseDelay: 0, backoffLimit: 0, jitter: 0, watch },
    ).catch((e: unknown) => e)
    expect((error as Error).message).toMatch(/\(first-byte timeout, timeouts\.firstByteMs\); tried 3 times$/)
    expect((error as RequestTimeoutError).budgetSpent).toBe(false)
  })

  test('a failure that is no timeout ends the call unchanged', async () => {
    const watch = createRequestWatch({ service: 'Timeline service', key: 'timeline', budgetMs: 1 })
    const refused = new Error('403')
    const error = await retry(
      () => Promise.reject(refused),
      () => ({ retry: false }),
      { limit: 5, baseDelay: 0, backoffLimit: 0, jitter: 0, watch },
    ).catch((e: unknown) => e)
    expect(error).toBe(refused)
  })

  test('once spent, a range read that timed out is not split: the halves would only time out too', () => {
    expect(meansRangeTooLarge(timeout())).toBe(true)
    const spent = timeout().afterAttempts(1, '2 requests to it timed out')
    expect(meansRangeTooLarge(spent)).toBe(false)
    expect(classifyTimelineError({ method: 'GET', url: URL_A }, spent)).toEqual({ retry: false })
    expect(
      meansRangeTooLarge(new TimeoutBudgetError({ service: 'Timeline service', method: 'GET', url: URL_A, spent: 'x', last: undefined })),
    ).toBe(false)
  })

  test("each service has its own watch: one service's timeouts do not stop the other's requests", async () => {
    const timeline = createRequestWatch({ service: 'Timeline service', key: 'timeline', budgetMs: 1_000 })
    const google = createRequestWatch({ service: 'Google Sheets', key: 'google', budgetMs: 1_000 })
    const pending = createTransport({ timeouts: { firstByteMs: 5_000 }, watch: timeline, fetch: hung })(new Request(URL_A)).catch(
      (e: unknown) => e,
    )
    await vi.advanceTimersByTimeAsync(5_000)
    await pending
    expect(timeline.spent).toBe(true)
    expect(google.spent).toBe(false)
    expect(google.refusal('GET', 'https://sheets.googleapis.com/v4/spreadsheets/x')).toBeUndefined()
  })
})

describe('what a run says while a request is outstanding', () => {
  test('a line at least every 30 s, naming the service, the request, how long it has waited and its limits', async () => {
    const lines: WatchLine[] = []
    const watch = createRequestWatch({
      service: 'Timeline service',
      key: 'timeline',
      budgetMs: 600_000,
      say: (line) => void lines.push(line),
    })
    const transport = createTransport({ timeouts: { firstByteMs: 100_000, totalMs: 120_000 }, watch, fetch: hung })
    const pending = transport(new Request(URL_A)).catch((e: unknown) => e)
    const said: number[] = []
    for (let t = 1_000; t <= 100_000; t += 1_000) {
      await vi.advanceTimersByTimeAsync(1_000)
      if (lines.length > said.length) said.push(t)
    }
    await pending
    expect(said.length).toBeGreaterThanOrEqual(3)
    for (const [i, at] of said.entries()) expect(at - (said[i - 1] ?? 0)).toBeLessThanOrEqual(30_000)
    expect(lines[0]!.text).toBe(
      `Timeline service: still waiting for GET ${URL_A}, 20 s so far (answer within 1.7 min, all of it within 2 min)`,
    )
    expect(lines[0]!.fields).toEqual({ service: 'timeline', waitedMs: 20_000, outstanding: 1 })
    // The request ended at its limit: nothing more is said.
    const count = lines.length
    await vi.advanceTimersByTimeAsync(120_000)
    expect(lines).toHaveLength(count)
  })

  test('a request is reported once it has waited a while, not as soon as it starts', async () => {
    const lines: WatchLine[] = []
    const watch = createRequestWatch({ service: 'Google Sheets', key: 'google', budgetMs: 600_000, say: (line) => void lines.push(line) })
    const first = watch.begin('GET', 'https://sheets.googleapis.com/v4/spreadsheets/a', 'answer within 30 s, all of it within 2 min')
    await vi.advanceTimersByTimeAsync(19_000)
    first.end()
    const second = watch.begin(
      'POST',
      'https://sheets.googleapis.com/v4/spreadsheets/a:batchUpdate',
      'answer within 3.3 min, all of it within 3.3 min',
    )
    await vi.advanceTimersByTimeAsync(1_000)
    expect(lines).toEqual([])
    await vi.advanceTimersByTimeAsync(20_000)
    expect(lines.map((l) => l.text)).toEqual([
      'Google Sheets: still waiting for POST https://sheets.googleapis.com/v4/spreadsheets/a:batchUpdate, 20 s so far (answer within 3.3 min, all of it within 3.3 min)',
    ])
    second.end()
  })

  test('several outstanding requests: the oldest is named and the others counted', async () => {
    const lines: WatchLine[] = []
    const watch = createRequestWatch({
      service: 'Timeline service',
      key: 'timeline',
      budgetMs: 600_000,
      say: (line) => void lines.push(line),
    })
    const requests = [0, 1, 2].map((i) => watch.begin('GET', `${URL_A}/${i}`, 'limits'))
    await vi.advanceTimersByTimeAsync(20_000)
    expect(lines[0]!.text).toBe(`Timeline service: still waiting for GET ${URL_A}/0, 20 s so far (limits); 2 more requests outstanding`)
    for (const r of requests) r.end()
  })
})
