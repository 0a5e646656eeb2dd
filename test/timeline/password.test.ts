import { describe, expect, test } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import {
  asksForWindowsSignIn,
  noSignIn,
  onPremEntryUrl,
  passwordSignIn,
  processPasswordTokenResponse,
  processTokenLinkResponse,
} from '../../src/timeline/auth/password.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'

const PASSWORD = 'correct horse battery'
const TOKEN_A = 'a4cee5d8b9b54eefa529e1f288d41f31'
const TOKEN_B = 'b5dff6e9cac65ffb630f399e52e20442'
const ENTRY = 'http://timeline.test/api'

function challenge(vendor = vendorIdentifiers(), href = 'http://timeline.test/api/token', authenticate = 'Bearer') {
  return new Response(JSON.stringify({ links: [{ rel: vendor.rel('token'), href }] }), {
    status: 401,
    headers: { 'www-authenticate': authenticate, 'content-type': vendor.mediaType },
  })
}

/** A tiny on-premise server: tokens it issued are valid until `revoke()`. */
function fakeServer(options: { vendor?: ReturnType<typeof vendorIdentifiers>; tokenHref?: string; authenticate?: string } = {}) {
  const vendor = options.vendor ?? vendorIdentifiers()
  const issued = [TOKEN_A, TOKEN_B]
  const valid = new Set<string>()
  const log: string[] = []
  const forms: URLSearchParams[] = []
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url)
    const auth = request.headers.get('authorization')
    log.push(`${request.method} ${url.pathname}${auth ? ' ' + auth : ''}`)
    if (url.pathname === '/api/token' && request.method === 'POST') {
      const form = new URLSearchParams(await request.text())
      forms.push(form)
      if (form.get('password') !== PASSWORD) return Response.json({ error: 'invalid_grant' }, { status: 400 })
      const token = issued.shift()!
      valid.add(token)
      return Response.json({ token })
    }
    if (!auth || !valid.has(auth.replace('Bearer ', ''))) return challenge(vendor, options.tokenHref, options.authenticate)
    return Response.json({ path: url.pathname, body: request.method === 'GET' ? null : await request.text() })
  }
  return { fetch: fetch as typeof globalThis.fetch, log, forms, revokeAll: () => valid.clear() }
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

describe('onPremEntryUrl', () => {
  test.each([
    ['http://h:8080', 'http://h:8080/api'],
    ['http://h:8080/', 'http://h:8080/api'],
    ['http://h/mt', 'http://h/mt/api'],
    ['http://h/api', 'http://h/api'],
    ['http://h/api/', 'http://h/api/'],
  ])('%s → %s', (base, entry) => expect(onPremEntryUrl(base)).toBe(entry))
})

describe('processTokenLinkResponse', () => {
  const vendor = vendorIdentifiers('service')

  test('takes the <vendor>/token link', async () => {
    expect(await processTokenLinkResponse(ENTRY, vendor, challenge(vendor))).toBe('http://timeline.test/api/token')
  })

  test('refuses a token link on another origin', async () => {
    const error = await failure(processTokenLinkResponse(ENTRY, vendor, challenge(vendor, 'http://evil.test/api/token')))
    expect(error.code).toBe('TS_UNSAFE_TOKEN_LINK')
    expect(error.message).toContain('evil.test')
  })

  test('a link under the other vendor token is missing', async () => {
    const error = await failure(processTokenLinkResponse(ENTRY, vendor, challenge(vendorIdentifiers('manictime'))))
    expect(error.code).toBe('TS_LINK_MISSING')
    expect(error.message).toContain('service/token')
  })

  test.each([
    ['NTLM', '"ntlm"'],
    ['Negotiate, NTLM', '"ntlm"'],
    ['Negotiate', 'Kerberos (Negotiate) only'],
  ])('WWW-Authenticate: %s → TS_AUTH_REQUIRED, hint %s', async (header, hint) => {
    const response = () => new Response('', { status: 401, headers: { 'www-authenticate': header } })
    expect(asksForWindowsSignIn(response())).toBe(true)
    const error = await failure(processTokenLinkResponse(ENTRY, vendor, response()))
    expect(error.code).toBe('TS_AUTH_REQUIRED')
    expect(error.hint).toContain(hint)
  })

  test('a non-401 refusal and a malformed body are clear errors; a 200 means no sign-in needed', async () => {
    expect((await failure(processTokenLinkResponse(ENTRY, vendor, new Response('x', { status: 500 })))).code).toBe('TS_AUTH_FAILED')
    const shape = await failure(processTokenLinkResponse(ENTRY, vendor, Response.json({ link: [] }, { status: 401 })))
    expect(shape.code).toBe('TS_RESPONSE_INVALID')
    expect(shape.message).toContain('links')
    expect(await processTokenLinkResponse(ENTRY, vendor, Response.json({ links: [] }))).toBeUndefined()
  })
})

test('Bearer alongside Negotiate is not Windows-only', () => {
  expect(asksForWindowsSignIn(new Response('', { status: 401, headers: { 'www-authenticate': 'Bearer, Negotiate' } }))).toBe(false)
})

describe('processPasswordTokenResponse', () => {
  test('invalid_grant → wrong username or password, naming user and server', async () => {
    const error = await failure(
      processPasswordTokenResponse(
        'http://timeline.test/api/token',
        'bot@example.com',
        Response.json({ error: 'invalid_grant' }, { status: 400 }),
      ),
    )
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toBe('Wrong username or password for bot@example.com at http://timeline.test')
  })

  test('other failures and a body without token', async () => {
    const other = await failure(processPasswordTokenResponse('http://t/api/token', 'u', new Response('down', { status: 503 })))
    expect(other).toMatchObject({ code: 'TS_AUTH_FAILED', status: 503 })
    const shape = await failure(processPasswordTokenResponse('http://t/api/token', 'u', Response.json({ access_token: 'x' })))
    expect(shape.code).toBe('TS_RESPONSE_INVALID')
    expect(shape.message).toContain('token')
  })
})

describe('passwordSignIn', () => {
  test.each(['manictime', 'service'])('vendor %s: challenge, form post, bearer on each call, token cached', async (token) => {
    const vendor = vendorIdentifiers(token)
    const server = fakeServer({ vendor })
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test/',
      username: 'bot@example.com',
      password: PASSWORD,
      vendor,
      fetch: server.fetch,
    })
    expect(signIn.mode).toBe('password')
    expect(await signIn.entryUrl()).toBe(ENTRY)
    const first = await signIn.send(new Request('http://timeline.test/api/timelines'))
    await signIn.send(new Request('http://timeline.test/api/timelines', { method: 'POST', body: '{"x":1}' }))
    expect(first.status).toBe(200)
    expect(server.log).toEqual([
      'GET /api',
      'POST /api/token',
      `GET /api/timelines Bearer ${TOKEN_A}`,
      `POST /api/timelines Bearer ${TOKEN_A}`,
    ])
    expect(Object.fromEntries(server.forms[0]!)).toEqual({ grant_type: 'password', username: 'bot@example.com', password: PASSWORD })
  })

  test('a revoked token: signs in again once and replays the body', async () => {
    const server = fakeServer()
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'u',
      password: PASSWORD,
      vendor: vendorIdentifiers(),
      fetch: server.fetch,
    })
    await signIn.send(new Request('http://timeline.test/api/x'))
    server.revokeAll()
    const replayed = await signIn.send(new Request('http://timeline.test/api/x', { method: 'PUT', body: 'payload' }))
    expect(await replayed.json()).toEqual({ path: '/api/x', body: 'payload' })
    expect(server.log.slice(3)).toEqual(['PUT /api/x Bearer ' + TOKEN_A, 'GET /api', 'POST /api/token', `PUT /api/x Bearer ${TOKEN_B}`])
    expect(signIn.secrets()).toContain(TOKEN_B)
  })

  test('a second 401 is returned as is (no loop)', async () => {
    let tokenPosts = 0
    const fetch = (async (request: Request) => {
      if (request.url.endsWith('/api/token')) {
        tokenPosts++
        return Response.json({ token: `t${tokenPosts}-xxxxxxxx` })
      }
      return challenge()
    }) as typeof globalThis.fetch
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'u',
      password: PASSWORD,
      vendor: vendorIdentifiers(),
      fetch,
    })
    const response = await signIn.send(new Request('http://timeline.test/api/timelines'))
    expect(response.status).toBe(401)
    expect(tokenPosts).toBe(2)
  })

  test('concurrent first calls share one sign-in', async () => {
    const server = fakeServer()
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'u',
      password: PASSWORD,
      vendor: vendorIdentifiers(),
      fetch: server.fetch,
    })
    await Promise.all([1, 2, 3].map(() => signIn.send(new Request('http://timeline.test/api/x'))))
    expect(server.log.filter((line) => line === 'POST /api/token')).toHaveLength(1)
  })

  test('wrong password → TS_AUTH_FAILED without the password; a failed sign-in is not cached', async () => {
    const server = fakeServer()
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'bot',
      password: 'wrong-password',
      vendor: vendorIdentifiers(),
      fetch: server.fetch,
    })
    const error = await failure(signIn.send(new Request('http://timeline.test/api/x')))
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('bot at http://timeline.test')
    expect(error.message).not.toContain('wrong-password')
    await failure(signIn.send(new Request('http://timeline.test/api/x')))
    expect(server.forms).toHaveLength(2)
  })

  test('token link on another origin: the password is never sent', async () => {
    const server = fakeServer({ tokenHref: 'http://evil.test/api/token' })
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'u',
      password: PASSWORD,
      vendor: vendorIdentifiers(),
      fetch: server.fetch,
    })
    expect((await failure(signIn.send(new Request('http://timeline.test/api/x')))).code).toBe('TS_UNSAFE_TOKEN_LINK')
    expect(server.forms).toHaveLength(0)
  })

  test('Windows sign-in server → TS_AUTH_REQUIRED', async () => {
    const server = fakeServer({ authenticate: 'NTLM' })
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'u',
      password: PASSWORD,
      vendor: vendorIdentifiers(),
      fetch: server.fetch,
    })
    expect((await failure(signIn.send(new Request('http://timeline.test/api/x')))).code).toBe('TS_AUTH_REQUIRED')
  })

  test('a network failure during sign-in is TS_NETWORK without the password', async () => {
    const fetch = (async () => {
      throw new TypeError(`fetch failed ${PASSWORD}`, { cause: { code: 'ECONNREFUSED' } })
    }) as typeof globalThis.fetch
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'u',
      password: PASSWORD,
      vendor: vendorIdentifiers(),
      fetch,
    })
    const error = await failure(signIn.send(new Request('http://timeline.test/api/x')))
    expect(error.code).toBe('TS_NETWORK')
    expect(error.message).not.toContain(PASSWORD)
  })

  test('secrets() holds the password (and the token once issued)', async () => {
    const server = fakeServer()
    const signIn = passwordSignIn({
      baseUrl: 'http://timeline.test',
      username: 'u',
      password: PASSWORD,
      vendor: vendorIdentifiers(),
      fetch: server.fetch,
    })
    expect(signIn.secrets()).toEqual([PASSWORD])
    await signIn.send(new Request('http://timeline.test/api/x'))
    expect(signIn.secrets()).toEqual([PASSWORD, TOKEN_A])
  })
})

test('noSignIn sends requests as they are', async () => {
  const seen: Request[] = []
  const signIn = noSignIn({ entryUrl: ENTRY, fetch: (async (r: Request) => (seen.push(r), Response.json({}))) as typeof fetch })
  await signIn.send(new Request(ENTRY))
  expect(seen[0]!.headers.get('authorization')).toBeNull()
  expect(await signIn.entryUrl()).toBe(ENTRY)
  expect(signIn.mode).toBe('none')
})
