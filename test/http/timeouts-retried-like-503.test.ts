/**
 * The one retry policy counts a timeout like a 503 (an
 * idempotent call is repeated, a create only when provably unsent) and stops
 * at the run's deadline, on both services.
 */
import { describe, expect, test } from 'vitest'
import { RequestTimeoutError, TimelineSheetsError, type TimeoutLimit } from '../../src/errors.ts'
import { retry } from '../../src/http/retry.ts'
import { createDeadline } from '../../src/http/transport.ts'
import { classifySheetsFailure, readApiFailure, toSheetsError } from '../../src/sheets/google/api-errors.ts'
import { classifyTimelineError, type TimelineCall } from '../../src/timeline/http.ts'

const timeout = (limit: TimeoutLimit, method = 'GET') =>
  new RequestTimeoutError({ limit, method, url: 'https://timeline.example.com/api/timelines', ms: 30_000, setting: `timeouts.${limit}Ms` })

const get: TimelineCall = { method: 'GET', url: 'https://timeline.example.com/api/timelines' }
const create: TimelineCall = { method: 'POST', url: 'https://timeline.example.com/api/timelines/k/activities', body: {} }
const update: TimelineCall = { method: 'PUT', url: 'https://timeline.example.com/api/timelines/k/activities/1', body: {} }

describe('Timeline: a timeout counts like a 503', () => {
  test.each(['firstByte', 'idleBody', 'total', 'connect'] as const)('a GET and a PUT are repeated after a %s timeout', (limit) => {
    expect(classifyTimelineError(get, timeout(limit))).toMatchObject({ retry: true })
    expect(classifyTimelineError(update, timeout(limit, 'PUT'))).toMatchObject({ retry: true })
  })

  test.each(['firstByte', 'idleBody', 'total'] as const)('a create is not repeated after a %s timeout: it may have been made', (limit) => {
    expect(classifyTimelineError(create, timeout(limit, 'POST'))).toEqual({ retry: false })
  })

  test('a create is repeated after a connect timeout: it provably never left', () => {
    expect(classifyTimelineError(create, timeout('connect', 'POST'))).toMatchObject({ retry: true })
  })

  test('nothing is repeated once the run deadline has passed', () => {
    expect(classifyTimelineError(get, timeout('deadline'))).toEqual({ retry: false })
  })
})

describe('Google: a timeout inside a GaxiosError counts like a 503', () => {
  /** What gaxios makes of an error thrown by its fetchImplementation. */
  const gaxiosWrapping = (cause: Error) =>
    Object.assign(new Error(cause.message, { cause }), {
      config: { url: 'https://sheets.googleapis.com/v4/x', method: 'POST' },
      code: (cause as { code?: string }).code,
    })
  const context = { now: 0, quotaWindowMs: 60_000 }

  test('repeated, and its answer counted as possibly lost (a structural write is checked before it is repeated)', () => {
    const wrapped = gaxiosWrapping(timeout('firstByte', 'POST'))
    expect(classifySheetsFailure(wrapped, context)).toMatchObject({ retry: true })
    const failure = readApiFailure(wrapped)
    expect(failure?.status).toBeUndefined()
    expect(failure?.networkCode).toBeDefined()
  })

  test("the token request's own timeout (not wrapped) is repeated too; the deadline is final", () => {
    expect(classifySheetsFailure(timeout('idleBody', 'POST'), context)).toMatchObject({ retry: true })
    expect(classifySheetsFailure(gaxiosWrapping(timeout('deadline')), context)).toEqual({ retry: false })
  })

  test("the user reads the transport's message, naming the URL and the limit", () => {
    const error = toSheetsError(gaxiosWrapping(timeout('firstByte')), {
      spreadsheetId: 'abc',
      operation: 'values.batchGet',
      principal: undefined,
      secrets: [],
    })
    expect(error.code).toBe('TS_TIMEOUT')
    expect(error.message).toContain('(first-byte timeout, timeouts.firstByteMs)')
  })

  test('a refused redirect is final and says so', () => {
    const refused = new TimelineSheetsError('TS_UNSAFE_REDIRECT', 'GET … answered 302, a redirect from a to another origin, b')
    expect(classifySheetsFailure(gaxiosWrapping(refused), context)).toEqual({ retry: false })
    expect(
      toSheetsError(gaxiosWrapping(refused), { spreadsheetId: 'abc', operation: 'spreadsheets.get', principal: undefined, secrets: [] })
        .code,
    ).toBe('TS_UNSAFE_REDIRECT')
  })
})

describe('the retry policy stops at the run deadline', () => {
  test('no repeat is started after the deadline; the error says so and keeps the last failure', async () => {
    const deadline = createDeadline(50, '--deadline 1s')
    let attempts = 0
    const error = await retry(
      async () => {
        attempts++
        throw timeout('firstByte')
      },
      () => ({ retry: true, reason: 'timeout' }),
      { limit: 100, baseDelay: 20, backoffLimit: 20, jitter: 0, signal: deadline.signal },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_TIMEOUT')
    expect((error as Error).message).toMatch(
      /^The run's deadline passed \(--deadline 1s\) while it waited to repeat a request; the last attempt had failed: GET https:\/\/timeline\.example\.com\/api\/timelines: no answer within 30 s/,
    )
    expect(attempts).toBeLessThan(100)
  })

  test('a wait longer than the time left is cut short', async () => {
    const deadline = createDeadline(50, 'timeouts.runMs')
    const waits: number[] = []
    let settled = false
    const ended = retry(
      () => Promise.reject(timeout('total')),
      () => ({ retry: true, reason: 'timeout', retryAfterMs: 600_000 }),
      { limit: 5, baseDelay: 500, backoffLimit: 600_000, jitter: 0, signal: deadline.signal, onRetry: (e) => waits.push(e.delayMs) },
    )
      .catch((e: unknown) => e)
      .finally(() => (settled = true))
    await new Promise((resolve) => deadline.signal.addEventListener('abort', resolve, { once: true }))
    // Ten minutes of waiting are asked for. The order of events tells "cut short" from "waited", however busy the
    // machine: a wait the deadline ends settles the call before the next turn of the event loop; one it does not
    // end is still pending then.
    await new Promise((resolve) => setImmediate(resolve))
    expect(waits).toEqual([600_000])
    expect(settled).toBe(true)
    expect(((await ended) as Error).message).toMatch(/deadline passed \(timeouts\.runMs\)/)
  })
})
