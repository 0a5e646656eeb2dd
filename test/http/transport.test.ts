/**
 * The transport on real loopback sockets: the redirect policy and the four
 * per-request limits plus the run's deadline. A test shortens only the limit it
 * checks, and its server never does what would beat that limit (it never
 * answers, or its body stops for good); every other limit is far longer than a
 * loopback answer on a busy machine. So which limit fires does not depend on
 * the machine's speed.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, test } from 'vitest'
import { RequestTimeoutError, TimelineSheetsError } from '../../src/errors.ts'
import { asFetch, createDeadline, createTransport, type Timeouts } from '../../src/http/transport.ts'

interface Seen {
  method: string
  url: string
  authorization: string | undefined
  body: string
}

interface TestServer {
  origin: string
  seen: Seen[]
  close(): Promise<void>
}

const servers: TestServer[] = []
const timers: NodeJS.Timeout[] = []

afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer)
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<TestServer> {
  const seen: Seen[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body })
      handle(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const entry: TestServer = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  servers.push(entry)
  return entry
}

/** The other origin: records everything and answers 200, so a follow would succeed. */
const witness = () => serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"token":"stolen"}'))

/** Limits no test's server comes near unless the test means it to: each test shortens the one it checks. */
const LIMITS: Partial<Timeouts> = { connectMs: 5_000, firstByteMs: 30_000, idleBodyMs: 30_000, totalMs: 60_000 }

async function failure(promise: Promise<unknown>): Promise<TimelineSheetsError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineSheetsError)
    return error as TimelineSheetsError
  }
  throw new Error('expected a failure')
}

describe('redirects', () => {
  test('a GET with Authorization redirected to another origin is refused, naming both origins; nothing reaches the other origin', async () => {
    const other = await witness()
    const server = await serve((_req, res) => res.writeHead(302, { location: `${other.origin}/api/timelines` }).end())
    const send = createTransport({ timeouts: LIMITS })
    const error = await failure(send(new Request(`${server.origin}/api/timelines`, { headers: { authorization: 'Bearer secret-token' } })))
    expect(error.code).toBe('TS_UNSAFE_REDIRECT')
    expect(error.message).toContain(server.origin)
    expect(error.message).toContain(other.origin)
    expect(error.message).not.toContain('secret-token')
    expect(other.seen).toEqual([])
  })

  test('a GET without credentials is not followed to another origin either', async () => {
    const other = await witness()
    const server = await serve((_req, res) => res.writeHead(301, { location: `${other.origin}/` }).end())
    const error = await failure(createTransport({ timeouts: LIMITS })(new Request(`${server.origin}/api`)))
    expect(error.code).toBe('TS_UNSAFE_REDIRECT')
    expect(other.seen).toEqual([])
  })

  test('a token POST follows no redirect at all: not to another origin, not within its own', async () => {
    const other = await witness()
    const server = await serve((req, res) => {
      if (req.url === '/api/token') res.writeHead(307, { location: `${other.origin}/api/token` }).end()
      else res.writeHead(308, { location: '/api/token' }).end()
    })
    const send = createTransport({ timeouts: LIMITS })
    const form = () => ({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=u&password=hunter2',
    })
    const cross = await failure(send(new Request(`${server.origin}/api/token`, form())))
    expect(cross.code).toBe('TS_UNSAFE_REDIRECT')
    expect(cross.message).toContain(other.origin)
    const same = await failure(send(new Request(`${server.origin}/api/old-token`, form())))
    expect(same.code).toBe('TS_UNSAFE_REDIRECT')
    expect(same.message).toMatch(/POST is never redirected/)
    expect(other.seen).toEqual([])
    expect(server.seen.map((s) => s.url)).toEqual(['/api/token', '/api/old-token'])
  })

  test('a GET redirected within its origin is followed with its Authorization', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/old') res.writeHead(302, { location: '/new' }).end()
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }))
    })
    const response = await createTransport({ timeouts: LIMITS })(
      new Request(`${server.origin}/old`, { headers: { authorization: 'Bearer t' } }),
    )
    expect(await response.json()).toEqual({ path: '/new' })
    expect(server.seen.map((s) => [s.url, s.authorization])).toEqual([
      ['/old', 'Bearer t'],
      ['/new', 'Bearer t'],
    ])
  })

  test('a redirect loop within the origin ends with a clear error', async () => {
    const server = await serve((_req, res) => res.writeHead(302, { location: '/again' }).end())
    const error = await failure(createTransport({ timeouts: LIMITS, maxRedirects: 3 })(new Request(`${server.origin}/start`)))
    expect(error.code).toBe('TS_UNSAFE_REDIRECT')
    expect(error.message).toMatch(/more than 3 times/)
    expect(server.seen.length).toBe(4)
  })

  test('asFetch (googleapis, openid-client) keeps the policy whatever redirect mode the library asks for', async () => {
    const other = await witness()
    const server = await serve((_req, res) => res.writeHead(302, { location: `${other.origin}/v4/spreadsheets/x` }).end())
    const fetchLike = asFetch(createTransport({ timeouts: LIMITS }))
    const error = await failure(
      fetchLike(`${server.origin}/v4/spreadsheets/x`, { redirect: 'follow', headers: { authorization: 'Bearer ya29.x' } }),
    )
    expect(error.code).toBe('TS_UNSAFE_REDIRECT')
    expect(other.seen).toEqual([])
  })
})

describe('timeouts', () => {
  test('a server that never answers ends at the first-byte timeout, naming the URL and the setting', async () => {
    const server = await serve(() => undefined)
    const send = createTransport({ timeouts: { ...LIMITS, firstByteMs: 400 } })
    const error = await failure(send(new Request(`${server.origin}/api/timelines?password=hunter2`)))
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).limit).toBe('firstByte')
    expect(error.code).toBe('TS_TIMEOUT')
    expect(error.message).toBe(
      `GET ${server.origin}/api/timelines?password=***: no answer within 400 ms (first-byte timeout, timeouts.firstByteMs)`,
    )
    expect((error as RequestTimeoutError).unsent).toBe(false)
  })

  test('headers and a first byte, then nothing: the idle-body timeout fires while the body is read', async () => {
    // The body stops for good: no later byte can restart the idle-body limit, however late its timer fires.
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{')
    })
    const response = await createTransport({ timeouts: { ...LIMITS, idleBodyMs: 400 } })(new Request(`${server.origin}/api/timelines`))
    expect(response.status).toBe(200)
    const error = await failure(response.text())
    expect((error as RequestTimeoutError).limit).toBe('idleBody')
    expect(error.message).toMatch(/idle-body timeout, timeouts\.idleBodyMs/)
  })

  test('an endless trickle of body ends at the whole-request timeout', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      timers.push(setInterval(() => res.write('['), 20))
    })
    // The idle-body limit is longer than the whole request's and starts later: it cannot fire first, whatever the
    // trickle's pace on a busy machine.
    const send = createTransport({ timeouts: { ...LIMITS, idleBodyMs: 30_000, totalMs: 800 } })
    const response = await send(new Request(`${server.origin}/api/endless`))
    const error = await failure(response.arrayBuffer())
    expect((error as RequestTimeoutError).limit).toBe('total')
    expect(error.message).toMatch(/not finished within 800 ms \(whole-request timeout, timeouts\.totalMs\)/)
  })

  test('the run deadline ends a request that would outlive it, and refuses requests after it', async () => {
    const server = await serve(() => undefined)
    let clock = 1_000_000
    const deadline = { ...createDeadline(60_000, '--deadline 1m', () => clock), at: clock + 300 }
    const send = createTransport({ timeouts: LIMITS, deadline, now: () => clock })
    const error = await failure(send(new Request(`${server.origin}/api`)))
    expect((error as RequestTimeoutError).limit).toBe('deadline')
    expect(error.message).toMatch(/run's deadline, 1 min after the run started \(--deadline 1m\)$/)
    clock += 1_000
    const after = await failure(send(new Request(`${server.origin}/api`)))
    expect((after as RequestTimeoutError).limit).toBe('deadline')
    expect(server.seen.length).toBe(1)
  })

  test('a connect timeout is reported as such, and as provably unsent', async () => {
    const connectTimeout = Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' })
    const send = createTransport({
      timeouts: LIMITS,
      fetch: () => Promise.reject(new TypeError('fetch failed', { cause: connectTimeout })),
    })
    const error = await failure(send(new Request('http://192.0.2.1/api', { method: 'POST', body: '{}' })))
    expect((error as RequestTimeoutError).limit).toBe('connect')
    expect((error as RequestTimeoutError).unsent).toBe(true)
    expect(error.message).toBe('POST http://192.0.2.1/api: could not connect within 5 s (connect timeout, timeouts.connectMs)')
  })

  test('a body cut off mid-way is a network error naming the URL, not a bare "terminated"', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
      res.write('{"timelines":[')
      setTimeout(() => res.socket?.destroy(), 50)
    })
    const response = await createTransport({ timeouts: LIMITS })(new Request(`${server.origin}/api/timelines`))
    const error = await failure(response.text())
    expect(error.code).toBe('TS_NETWORK')
    expect(error.message).toContain(`${server.origin}/api/timelines`)
  })

  test('a body larger than the limit is refused', async () => {
    const server = await serve((_req, res) => res.writeHead(200).end('x'.repeat(10_000)))
    const response = await createTransport({ timeouts: LIMITS, maxResponseBytes: 1_000 })(new Request(`${server.origin}/big`))
    const error = await failure(response.text())
    expect(error.code).toBe('TS_RESPONSE_INVALID')
    expect(error.message).toMatch(/larger than/)
  })
})
