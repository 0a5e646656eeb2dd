import { describe, expect, test } from 'vitest'
import { ConcurrencyError, HttpError, TimelineSheetsError } from '../../src/errors.ts'
import { createPace } from '../../src/http/pace.ts'
import type { SignIn } from '../../src/timeline/auth/sign-in.ts'
import { classifyTimelineError, createTimelineHttp, processTimelineResponse, type TimelineCall } from '../../src/timeline/http.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { BASE, json } from './fixtures.ts'

const SECRET = 'tok-0123456789abcdef'
const URL_ = `${BASE}/api/timelines`

type Answer = Response | Error | (() => Response | Error)

/** A sign-in whose `send` answers from a script and records what it was given. */
function scriptedSignIn(answers: Answer[]) {
  const seen: { method: string; url: string; headers: Headers; body: string }[] = []
  const signIn: SignIn = {
    mode: 'none',
    entryUrl: async () => `${BASE}/api`,
    secrets: () => [SECRET],
    async send(request) {
      seen.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() })
      let next = answers.length > 1 ? answers.shift()! : answers[0]!
      if (typeof next === 'function') next = next()
      if (next instanceof Error) throw next
      return next.clone()
    },
  }
  return { signIn, seen }
}

function setup(answers: Answer[], vendor = 'manictime') {
  const { signIn, seen } = scriptedSignIn(answers)
  const sleeps: number[] = []
  const retries: string[] = []
  // The lane's hold uses real timers; the injected sleep already stands for the wait.
  const pace = createPace()
  pace.holdFor = () => {}
  const http = createTimelineHttp({
    signIn,
    vendor: vendorIdentifiers(vendor),
    pace,
    retry: {
      limit: 3,
      baseDelay: 100,
      jitter: 0,
      sleep: async (ms) => void sleeps.push(ms),
      onRetry: (event) => void retries.push(event.reason),
    },
  })
  return { http, seen, sleeps, retries }
}

function networkError(code: string): Error {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) })
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

describe('headers', () => {
  test.each(['manictime', 'service'])('vendor %s: Accept always, Content-Type with a body', async (token) => {
    const { http, seen } = setup([json({ ok: 1 })], token)
    expect(await http.json({ method: 'GET', url: URL_ })).toEqual({ ok: 1 })
    await http.json({ method: 'PUT', url: URL_, body: { a: 1 } })
    expect(seen[0]!.headers.get('accept')).toBe(`application/vnd.${token}.v3+json`)
    expect(seen[0]!.headers.get('content-type')).toBeNull()
    expect(seen[1]!.headers.get('accept')).toBe(`application/vnd.${token}.v3+json`)
    expect(seen[1]!.headers.get('content-type')).toBe(`application/vnd.${token}.v3+json`)
    expect(JSON.parse(seen[1]!.body)).toEqual({ a: 1 })
  })
})

describe('status codes become typed errors', () => {
  const write: TimelineCall = {
    method: 'POST',
    url: `${BASE}/api/timelines/k/activities`,
    body: {},
    role: 'Content editor',
    subject: 'the ManicTime/Tags timeline of alice',
    concurrency: { timelineKey: 'k', expectedLastChangeId: '5,1' },
  }

  test('401 after sign-in → TS_AUTH_FAILED', async () => {
    const error = await failure(
      processTimelineResponse({ method: 'GET', url: URL_ }, new Response('', { status: 401, headers: { 'www-authenticate': 'Bearer' } })),
    )
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect((error as HttpError).status).toBe(401)
  })

  test('403 → TS_FORBIDDEN naming the role', async () => {
    const error = await failure(processTimelineResponse(write, json({ errorCode: 'Forbidden', message: 'Not allowed' }, { status: 403 })))
    expect(error.code).toBe('TS_FORBIDDEN')
    expect(error.message).toContain('Content editor')
    expect(error.message).toContain('Not allowed')
    expect(error.hint).toContain('Content editor')
  })

  test('404 → TS_NOT_FOUND', async () => {
    const error = await failure(
      processTimelineResponse(write, json({ errorCode: 'NotFound', message: 'No such timeline' }, { status: 404 })),
    )
    expect(error.code).toBe('TS_NOT_FOUND')
    expect(error.message).toContain('No such timeline')
  })

  test.each([
    [409, { errorCode: 'Concurrency/InvalidTimestamp', message: "Invalid last change. Should be '6,2', but is '5,1'." }],
    [412, ''],
    [400, { message: 'Invalid last change. Should be null.' }],
    [400, { errorCode: 'Concurrency/InvalidTimestamp' }],
  ])('%i on a write → ConcurrencyError', async (status, body) => {
    const error = await failure(processTimelineResponse(write, json(body, { status })))
    expect(error).toBeInstanceOf(ConcurrencyError)
    expect(error).toMatchObject({ code: 'TS_CONCURRENCY', timelineKey: 'k', expectedLastChangeId: '5,1' })
  })

  test('409 on a call that is not an activity write stays an HttpError with the server message', async () => {
    const error = await failure(
      processTimelineResponse(
        { method: 'POST', url: `${BASE}/api/tagcombinationlist`, body: {} },
        json({ errorCode: 'Tags/SourceNotService', message: 'Tag source is not the service' }, { status: 409 }),
      ),
    )
    expect(error).not.toBeInstanceOf(ConcurrencyError)
    expect(error.code).toBe('TS_HTTP')
    expect(error.message).toContain('Tag source is not the service')
  })

  test('400 schema constraint names the timeline; 400 validation keeps the message; other 4xx is TS_HTTP', async () => {
    const constraint = await failure(
      processTimelineResponse(write, json({ errorCode: 'TimelineConstraint/SchemaNotAllowed', message: 'Only Tags' }, { status: 400 })),
    )
    expect(constraint.code).toBe('TS_TIMELINE_CONSTRAINT')
    expect(constraint.message).toContain('timeline of alice')
    const validation = await failure(
      processTimelineResponse(write, json({ errorCode: 'Validation', message: 'Duration must not be negative' }, { status: 400 })),
    )
    expect(validation.code).toBe('TS_VALIDATION')
    expect(validation.message).toContain('Duration must not be negative')
    const other = await failure(processTimelineResponse({ method: 'GET', url: URL_ }, new Response('I am a teapot', { status: 418 })))
    expect(other.code).toBe('TS_HTTP')
    expect(other.message).toContain('I am a teapot')
  })

  test('a 2xx that is not JSON is TS_RESPONSE_INVALID', async () => {
    const error = await failure(processTimelineResponse({ method: 'GET', url: URL_ }, new Response('<html>login</html>')))
    expect(error.code).toBe('TS_RESPONSE_INVALID')
    expect(error.message).toContain(URL_)
  })

  test('an empty 2xx is undefined', async () => {
    expect(await processTimelineResponse({ method: 'DELETE', url: URL_ }, new Response(null, { status: 204 }))).toBeUndefined()
  })
})

describe('retry classification', () => {
  test('GET: 503 then 200 retries; 429 honours Retry-After', async () => {
    const { http, sleeps, retries } = setup([
      new Response('busy', { status: 503 }),
      new Response('slow down', { status: 429, headers: { 'retry-after': '7' } }),
      json({ ok: true }),
    ])
    expect(await http.json({ method: 'GET', url: URL_ })).toEqual({ ok: true })
    expect(retries).toEqual(['503', '429'])
    expect(sleeps[0]).toBe(100)
    expect(sleeps[1]).toBe(7000)
  })

  test('GET: network errors are retried, then the typed TS_NETWORK error surfaces', async () => {
    const { http, seen } = setup([networkError('ECONNRESET')])
    const error = await failure(http.json({ method: 'GET', url: URL_ }))
    expect(error.code).toBe('TS_NETWORK')
    expect(seen).toHaveLength(4)
  })

  test('PUT and DELETE are retried after an ambiguous 502', async () => {
    for (const method of ['PUT', 'DELETE'] as const) {
      const { http, seen } = setup([new Response('', { status: 502 }), json({})])
      await http.json({ method, url: URL_, body: {} })
      expect(seen).toHaveLength(2)
    }
  })

  test('POST is not retried after an ambiguous 5xx or a dropped connection', async () => {
    for (const answer of [
      new Response('', { status: 503 }),
      new Response('', { status: 504 }),
      networkError('ECONNRESET'),
      new TypeError('fetch failed'),
    ]) {
      const { http, seen } = setup([answer, json({})])
      await expect(http.json({ method: 'POST', url: URL_, body: {} })).rejects.toBeInstanceOf(TimelineSheetsError)
      expect(seen).toHaveLength(1)
    }
  })

  test('POST is retried after 429 and after a refused connection', async () => {
    for (const answer of [new Response('', { status: 429, headers: { 'retry-after': '1' } }), networkError('ECONNREFUSED')]) {
      const { http, seen } = setup([answer, json({ created: 1 })])
      expect(await http.json({ method: 'POST', url: URL_, body: { a: 1 } })).toEqual({ created: 1 })
      expect(seen).toHaveLength(2)
      expect(seen[1]!.body).toBe('{"a":1}')
    }
  })

  test('4xx other than 429 is never retried', async () => {
    const { http, seen } = setup([json({}, { status: 404 })])
    await expect(http.json({ method: 'GET', url: URL_ })).rejects.toMatchObject({ code: 'TS_NOT_FOUND' })
    expect(seen).toHaveLength(1)
  })

  test('the classifier honours an explicit repeat safety', () => {
    const error = new HttpError({ status: 503, method: 'POST', url: URL_, data: undefined })
    expect(classifyTimelineError({ method: 'POST', url: URL_ }, error).retry).toBe(false)
    expect(classifyTimelineError({ method: 'POST', url: URL_, repeat: 'idempotent' }, error).retry).toBe(true)
    expect(classifyTimelineError({ method: 'GET', url: URL_ }, new Error('bug')).retry).toBe(false)
  })
})

describe('pace', () => {
  test('calls share one lane with bounded concurrency', async () => {
    let inFlight = 0
    let most = 0
    const signIn: SignIn = {
      mode: 'none',
      entryUrl: async () => BASE,
      secrets: () => [],
      async send() {
        inFlight++
        most = Math.max(most, inFlight)
        await new Promise((resolve) => setTimeout(resolve, 5))
        inFlight--
        return json({})
      },
    }
    const http = createTimelineHttp({ signIn, vendor: vendorIdentifiers(), pace: { concurrency: 2 } })
    await Promise.all(Array.from({ length: 8 }, () => http.json({ method: 'GET', url: URL_ })))
    expect(most).toBe(2)
  })

  test('a 429 holds the whole lane for Retry-After', async () => {
    const pace = createPace({ concurrency: 4 })
    const held: number[] = []
    pace.holdFor = (ms) => void held.push(ms)
    const { signIn } = scriptedSignIn([new Response('', { status: 429, headers: { 'retry-after': '3' } }), json({})])
    const http = createTimelineHttp({ signIn, vendor: vendorIdentifiers(), pace, retry: { sleep: async () => {}, jitter: 0 } })
    await http.json({ method: 'GET', url: URL_ })
    expect(held).toEqual([3000])
    expect(http.pace).toBe(pace)
  })
})

describe('secrets', () => {
  test('never appear in error messages or logs', async () => {
    const logs: string[] = []
    const { signIn } = scriptedSignIn([
      json({ message: `token ${SECRET} is revoked` }, { status: 403 }),
      new TypeError(`socket closed while sending Bearer ${SECRET}`),
    ])
    const http = createTimelineHttp({
      signIn,
      vendor: vendorIdentifiers(),
      retry: { limit: 0 },
      log: (event) => void logs.push(JSON.stringify(event)),
    })
    const forbidden = await failure(http.json({ method: 'GET', url: `${URL_}?access_token=${SECRET}` }))
    expect(forbidden.message).not.toContain(SECRET)
    expect(forbidden.message).toContain('***')
    expect((forbidden as HttpError).url).not.toContain(SECRET)
    const network = await failure(http.json({ method: 'GET', url: URL_ }))
    expect(network.code).toBe('TS_NETWORK')
    expect(network.message).not.toContain(SECRET)
    expect(logs.join('\n')).not.toContain(SECRET)
    expect(logs).toHaveLength(2)
  })
})
