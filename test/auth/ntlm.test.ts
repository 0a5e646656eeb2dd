import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CONNECTION_HEADER, serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import type { AuthContext } from '../../counterparts/timeline/authenticator.ts'
import { createTimelineHandler } from '../../counterparts/timeline/handler.ts'
import { createNtlmAuthenticator } from '../../counterparts/timeline/ntlm.ts'
import { createTimelineStore } from '../../counterparts/timeline/store.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { ntlmCarrier, ntlmSignIn, offersNtlm, parseAuthenticate, type NtlmSignIn } from '../../src/timeline/auth/ntlm.ts'

const PASSWORD = 'Corr3ct-Horse-pw'
const store = createTimelineStore()
store.addUser({ username: 'EXAMPLE\\alice', password: PASSWORD, role: 'contentEditor' })
const authenticator = createNtlmAuthenticator({ schemes: ['Negotiate', 'NTLM'] })
const context = (url: string): AuthContext => ({ apiUrl: `${new URL(url).origin}/api`, store })

const negotiateOnly = createNtlmAuthenticator({ schemes: ['Negotiate'] })

let server: LoopbackServer
let echo: LoopbackServer
let negotiateServer: LoopbackServer
let negotiateEcho: LoopbackServer
let handshakeMessages = 0
/** The scheme of every Authorization header the echo servers saw, in order. */
const schemesSent: string[] = []
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
    schemesSent.push(request.headers.get('authorization')?.split(' ')[0] ?? '')
    const result = await authenticator.authenticate(request, context(request.url))
    if (!result.ok) return result.response
    return Response.json({ user: result.username, body: await request.text() })
  })
  negotiateServer = await serveOnLoopback(createTimelineHandler(store, { authenticator: negotiateOnly }))
  negotiateEcho = await serveOnLoopback(async (request) => {
    schemesSent.push(request.headers.get('authorization')?.split(' ')[0] ?? '')
    const result = await negotiateOnly.authenticate(request, context(request.url))
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
  await negotiateServer?.close()
  await negotiateEcho?.close()
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

  it('uses the NTLM scheme when the server offers Negotiate and NTLM', async () => {
    const signIn = open({ baseUrl: echo.url })
    schemesSent.length = 0
    await (await signIn.send(new Request(`${echo.url}api`))).text()
    expect(schemesSent).toEqual(['', 'NTLM', 'NTLM'])
  })

  it('refuses to send the Windows credentials to another origin', async () => {
    const signIn = open({ baseUrl: server.url })
    expect((await rejection(signIn.send(new Request('http://127.0.0.2:9/api')))).code).toBe('TS_UNSAFE_TOKEN_LINK')
  })
})

describe('NTLM carried under Negotiate, against a server that offers only Negotiate', () => {
  it('signs in and reads the home resource', async () => {
    const signIn = open({ baseUrl: negotiateServer.url })
    const response = await signIn.send(new Request(await signIn.entryUrl(), { headers: { accept: 'application/vnd.manictime.v3+json' } }))
    expect(response.status).toBe(200)
    expect(((await response.json()) as { links: unknown[] }).links.length).toBeGreaterThan(0)
  })

  it('sends both handshake messages under Negotiate and replays the body', async () => {
    const signIn = open({ baseUrl: negotiateEcho.url })
    schemesSent.length = 0
    const response = await signIn.send(new Request(`${negotiateEcho.url}api/x`, { method: 'POST', body: '{"a":1}' }))
    expect(await response.json()).toEqual({ user: 'EXAMPLE\\alice', body: '{"a":1}' })
    expect(schemesSent).toEqual(['', 'Negotiate', 'Negotiate'])
  })

  it('answers TS_AUTH_FAILED for a wrong password, as under NTLM', async () => {
    const signIn = open({ baseUrl: negotiateServer.url, password: 'Wrong-Horse-pw' })
    const error = await rejection(signIn.send(new Request(`${negotiateServer.url}api`)))
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toBe(`Windows sign-in as EXAMPLE\\alice at ${new URL(negotiateServer.url).origin} was refused`)
  })

  it('says Kerberos is needed when the server answers a Negotiate token with something other than an NTLM challenge', async () => {
    const kerberosOnly = await serveOnLoopback(async (request) => {
      const spnego = Buffer.from([0xa1, 0x07, 0x30, 0x05, 0xa0, 0x03, 0x0a, 0x01, 0x03]).toString('base64')
      const challenge = request.headers.has('authorization') ? `Negotiate ${spnego}` : 'Negotiate'
      return new Response(null, { status: 401, headers: { 'www-authenticate': challenge } })
    })
    try {
      const error = await rejection(open({ baseUrl: kerberosOnly.url }).send(new Request(`${kerberosOnly.url}api`)))
      expect(error.code).toBe('TS_AUTH_FAILED')
      expect(error.message).toContain('did not take NTLM inside it')
      expect(error.message).toContain('Kerberos (Negotiate)')
      expect(error.hint).toContain('Enable NTLM')
    } finally {
      await kerberosOnly.close()
    }
  })

  it.each([
    ['NTLM', 'NTLM'],
    ['Negotiate, NTLM', 'NTLM'],
    ['Negotiate', 'Negotiate'],
    ['Bearer', undefined],
    ['', undefined],
  ])('carries the handshake for %j under %s', (header, carrier) => {
    expect(ntlmCarrier(parseAuthenticate(header))).toBe(carrier)
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
  const negotiateType1 = `Negotiate ${Buffer.concat([Buffer.from('NTLMSSP\0', 'ascii'), Buffer.from([1, 0, 0, 0, 7, 0x82, 0x08, 0xa2])]).toString('base64')}`
  const onConnection = (authorization: string, id: string) =>
    new Request('http://127.0.0.1/api', { headers: { authorization, [CONNECTION_HEADER]: id } })

  it('offers only Negotiate when set up so, in one header', async () => {
    const response = await fetch(`${negotiateServer.url}api`)
    await response.body?.cancel()
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Negotiate')
  })

  it('answers an NTLM negotiation under Negotiate with a Negotiate challenge', async () => {
    const result = await negotiateOnly.authenticate(onConnection(negotiateType1, 'negotiate-1'), context('http://127.0.0.1/api'))
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.response.headers.get('www-authenticate')).toMatch(/^Negotiate TlRMTVNTUAACAAAA[A-Za-z0-9+/=]+$/)
  })

  it.each([
    ['the NTLM scheme it does not offer', `NTLM ${negotiateType1.slice('Negotiate '.length)}`],
    ['a Negotiate token that is not NTLM (a Kerberos ticket)', 'Negotiate YIIBhwYGKwYBBQUCoIIBezCCAXeg'],
  ])('refuses %s with the bare offer', async (_what, authorization) => {
    const result = await negotiateOnly.authenticate(onConnection(authorization, 'negotiate-2'), context('http://127.0.0.1/api'))
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.response.status).toBe(401)
      expect(result.response.headers.get('www-authenticate')).toBe('Negotiate')
    }
  })

  it.each([[[]], [['Kerberos']]])('refuses to be set up with the schemes %j', (schemes) => {
    expect(() => createNtlmAuthenticator({ schemes: schemes as never })).toThrow(TypeError)
  })

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
