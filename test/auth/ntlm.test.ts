import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CONNECTION_HEADER, serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import type { AuthContext } from '../../counterparts/timeline/authenticator.ts'
import { createTimelineHandler } from '../../counterparts/timeline/handler.ts'
import { createNtlmAuthenticator } from '../../counterparts/timeline/ntlm.ts'
import { createTimelineStore } from '../../counterparts/timeline/store.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { ntlmSignIn, offersNtlm, parseAuthenticate, type NtlmSignIn } from '../../src/timeline/auth/ntlm.ts'

const PASSWORD = 'Corr3ct-Horse-pw'
const store = createTimelineStore()
store.addUser({ username: 'EXAMPLE\\alice', password: PASSWORD, role: 'contentEditor' })
const authenticator = createNtlmAuthenticator({ offerNegotiate: true })
const context = (url: string): AuthContext => ({ apiUrl: `${new URL(url).origin}/api`, store })

let server: LoopbackServer
let echo: LoopbackServer
let handshakeMessages = 0
const opened: NtlmSignIn[] = []
const open = (options: Partial<Parameters<typeof ntlmSignIn>[0]> & { baseUrl: string }) => {
  const signIn = ntlmSignIn({ username: 'EXAMPLE\\alice', password: PASSWORD, ...options })
  opened.push(signIn)
  return signIn
}

beforeAll(async () => {
  server = await serveOnLoopback(createTimelineHandler(store, { authenticator }))
  // Says who signed in and what body arrived, to check the body survives the handshake.
  echo = await serveOnLoopback(async (request) => {
    if (request.headers.has('authorization')) handshakeMessages++
    const result = await authenticator.authenticate(request, context(request.url))
    if (!result.ok) return result.response
    return Response.json({ user: result.username, body: await request.text() })
  })
})
afterEach(async () => {
  await Promise.all(opened.splice(0).map((signIn) => signIn.close()))
})
afterAll(async () => {
  await server?.close()
  await echo?.close()
})

async function rejection(promise: Promise<unknown>): Promise<TimelineSheetsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TimelineSheetsError)
  return error as TimelineSheetsError
}

describe('NTLM sign-in against an NTLMv2-verifying server', () => {
  it('signs in with the right password and reads the home resource', async () => {
    const signIn = open({ baseUrl: server.url })
    const entry = await signIn.entryUrl()
    expect(entry).toBe(`${server.url}api`)
    const response = await signIn.send(new Request(entry, { headers: { accept: 'application/vnd.manictime.v3+json' } }))
    expect(response.status).toBe(200)
    expect(((await response.json()) as { links: unknown[] }).links.length).toBeGreaterThan(0)
  })

  it('keeps the connection signed in: later requests need no new handshake', async () => {
    const signIn = open({ baseUrl: echo.url })
    const before = handshakeMessages
    await (await signIn.send(new Request(`${echo.url}api`))).text()
    expect(handshakeMessages - before).toBe(2)
    const again = await signIn.send(new Request(`${echo.url}api`))
    expect(await again.json()).toMatchObject({ user: 'EXAMPLE\\alice' })
    expect(handshakeMessages - before).toBe(2)
  })

  it('takes the domain from the server challenge when the user name has none', async () => {
    const signIn = open({ baseUrl: echo.url, username: 'alice' })
    const response = await signIn.send(new Request(`${echo.url}api`))
    expect(await response.json()).toMatchObject({ user: 'EXAMPLE\\alice' })
  })

  it('replays a request body through the three legs of the handshake', async () => {
    const signIn = open({ baseUrl: echo.url })
    const response = await signIn.send(new Request(`${echo.url}api/x`, { method: 'POST', body: '{"a":1}' }))
    expect(await response.json()).toEqual({ user: 'EXAMPLE\\alice', body: '{"a":1}' })
  })

  it('serialises concurrent requests on its one connection', async () => {
    const signIn = open({ baseUrl: echo.url })
    const responses = await Promise.all(
      [1, 2, 3].map((n) => signIn.send(new Request(`${echo.url}api/${n}`, { method: 'POST', body: String(n) }))),
    )
    expect(await Promise.all(responses.map((response) => response.json()))).toEqual(
      [1, 2, 3].map((n) => ({ user: 'EXAMPLE\\alice', body: String(n) })),
    )
  })

  it('answers TS_AUTH_FAILED for a wrong password, without the password in the error', async () => {
    const wrong = 'Wrong-Horse-pw'
    const signIn = open({ baseUrl: server.url, password: wrong })
    const error = await rejection(signIn.send(new Request(`${server.url}api`)))
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('EXAMPLE\\alice')
    expect(`${error.message} ${error.hint}`).not.toContain(wrong)
    expect(signIn.secrets()).toEqual([wrong])
  })

  it('answers TS_AUTH_FAILED for an unknown user', async () => {
    const signIn = open({ baseUrl: server.url, username: 'EXAMPLE\\mallory' })
    expect((await rejection(signIn.send(new Request(`${server.url}api`)))).code).toBe('TS_AUTH_FAILED')
  })

  it('refuses to send the Windows credentials to another origin', async () => {
    const signIn = open({ baseUrl: server.url })
    expect((await rejection(signIn.send(new Request('http://127.0.0.2:9/api')))).code).toBe('TS_UNSAFE_TOKEN_LINK')
  })
})

describe('detecting the sign-in scheme from WWW-Authenticate', () => {
  it('finds NTLM in headers joined by fetch', async () => {
    const response = await fetch(`${server.url}api`)
    await response.body?.cancel()
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Negotiate, NTLM')
    expect(offersNtlm(response.headers.get('www-authenticate'))).toBe(true)
  })

  it.each([
    ['NTLM', ['ntlm']],
    ['Negotiate, NTLM', ['negotiate', 'ntlm']],
    ['NTLM, Negotiate', ['ntlm', 'negotiate']],
    ['Bearer realm="a, b", error="invalid_token", NTLM', ['bearer', 'ntlm']],
    ['NTLM TlRMTVNTUAACAAAADAAMADAAAAA=', ['ntlm']],
    ['Negotiate', ['negotiate']],
    ['Bearer', ['bearer']],
    ['', []],
  ])('parses %j', (header, schemes) => {
    expect(parseAuthenticate(header).map((challenge) => challenge.scheme)).toEqual(schemes)
    expect(offersNtlm(header)).toBe(schemes.includes('ntlm'))
  })

  it('keeps the token of an NTLM challenge and the parameters of a Bearer one', () => {
    expect(parseAuthenticate('Bearer realm="a, b", error="x", NTLM abc=')).toEqual([
      { scheme: 'bearer', value: 'realm="a, b", error="x"' },
      { scheme: 'ntlm', value: 'abc=' },
    ])
  })

  it.each([
    ['Negotiate', 'Kerberos (Negotiate)'],
    ['Bearer', 'Bearer token'],
    ['Basic realm="x"', 'without offering NTLM'],
  ])('explains a server that answers %j', async (challenge, words) => {
    const other = await serveOnLoopback(async () => new Response(null, { status: 401, headers: { 'www-authenticate': challenge } }))
    try {
      const signIn = open({ baseUrl: other.url })
      const error = await rejection(signIn.send(new Request(`${other.url}api`)))
      expect(error.code).toBe('TS_AUTH_FAILED')
      expect(error.message).toContain(words)
    } finally {
      await other.close()
    }
  })
})

describe('NTLM counterpart', () => {
  it('refuses a request without a connection id (msw), as NTLM needs one connection', async () => {
    const result = await authenticator.authenticate(
      new Request('http://timeline.test/api', { headers: { authorization: 'NTLM TlRMTVNTUAABAAAA' } }),
      context('http://timeline.test/api'),
    )
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.response.status).toBe(401)
  })

  it('refuses a Type3 message that was not preceded by a challenge on that connection', async () => {
    const type3 = Buffer.alloc(64)
    Buffer.from('NTLMSSP\0', 'ascii').copy(type3)
    type3.writeUInt32LE(3, 8)
    const result = await authenticator.authenticate(
      new Request('http://127.0.0.1/api', {
        headers: { authorization: `NTLM ${type3.toString('base64')}`, [CONNECTION_HEADER]: 'fresh-99' },
      }),
      context('http://127.0.0.1/api'),
    )
    expect(result.ok).toBe(false)
  })
})
