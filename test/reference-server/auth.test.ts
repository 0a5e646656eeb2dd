import { describe, expect, it } from 'vitest'
import type { Authenticator } from '../../counterparts/timeline/authenticator.ts'
import { createTimelineHandler } from '../../counterparts/timeline/handler.ts'
import { createTimelineStore } from '../../counterparts/timeline/store.ts'
import { API, BASE, fixture, USERS } from './helpers.ts'

function tokenRequest(fields: Record<string, string>, url = `${API}/token`): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  })
}

describe('on-premise password flow', () => {
  it.each(['/', '/api', '/api/', '/api/timelines', '/api/nothing-here'])(
    'answers GET %s without a token with 401, WWW-Authenticate: Bearer and the token link',
    async (path) => {
      const { call } = fixture()
      const response = await call('GET', path)
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Bearer')
      expect(response.headers.get('content-type')).toBe('application/vnd.manictime.v3+json; charset=utf-8')
      expect(await response.json()).toEqual({ links: [{ rel: 'manictime/token', href: `${API}/token` }] })
    },
  )

  it('answers an unknown or malformed token like a missing one', async () => {
    const { call } = fixture()
    for (const authorization of ['Bearer 00000000000000000000000000000000', 'Basic abc', 'Bearer']) {
      const response = await call('GET', '/api', { headers: { authorization } })
      expect(response.status).toBe(401)
    }
  })

  it('issues a 32-hex token as application/json and accepts it', async () => {
    const { handler, call } = fixture()
    const response = await handler(tokenRequest({ grant_type: 'password', username: 'ALICE@example.com', password: USERS.alice.password }))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const { token } = (await response.json()) as { token: string }
    expect(token).toMatch(/^[0-9a-f]{32}$/)
    const home = await call('GET', '/api', { headers: { authorization: `Bearer ${token}` } })
    expect(home.status).toBe(200)
  })

  it.each([
    [{ grant_type: 'password', username: USERS.alice.username, password: 'wrong' }, 400, 'invalid_grant'],
    [{ grant_type: 'password', username: 'nobody@example.com', password: 'x' }, 400, 'invalid_grant'],
    [{ grant_type: 'client_credentials', username: USERS.alice.username, password: USERS.alice.password }, 400, 'unsupported_grant_type'],
    [{ grant_type: 'password', username: USERS.alice.username }, 400, 'invalid_request'],
  ])('refuses %j with %i %s', async (fields, status, error) => {
    const { handler } = fixture()
    const response = await handler(tokenRequest(fields))
    expect(response.status).toBe(status)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await response.json()).toMatchObject({ error })
  })

  it('answers bad credentials with exactly {"error":"invalid_grant"}', async () => {
    const { handler } = fixture()
    const response = await handler(tokenRequest({ grant_type: 'password', username: USERS.alice.username, password: 'no' }))
    expect(await response.text()).toBe('{"error":"invalid_grant"}')
  })

  it('takes POST only at the token endpoint', async () => {
    const { handler } = fixture()
    const response = await handler(new Request(`${API}/token`))
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
  })

  it('stops accepting tokens after revokeTokens and after a password reset', async () => {
    const { store, call } = fixture()
    expect((await call('GET', '/api', { as: USERS.alice.username })).status).toBe(200)
    store.revokeTokens(USERS.alice.username)
    expect((await call('GET', '/api', { as: USERS.alice.username })).status).toBe(401)
    const other = fixture()
    expect((await other.call('GET', '/api', { as: USERS.bob.username })).status).toBe(200)
    other.store.resetPassword(USERS.bob.username, 'new-pw')
    expect((await other.call('GET', '/api', { as: USERS.bob.username })).status).toBe(401)
  })
})

describe('authenticator seam', () => {
  it('lets a custom authenticator answer its own routes and decide who calls', async () => {
    const store = createTimelineStore({ vendor: 'service' })
    store.addUser({ username: 'carol@example.com', password: 'x' })
    const seen: string[] = []
    const authenticator: Authenticator = {
      mode: 'test',
      async handle(request, context) {
        seen.push(context.apiUrl)
        return new URL(request.url).pathname === '/v1/profile' ? Response.json({ serverUrl: 'x' }) : undefined
      },
      async authenticate(request) {
        return request.headers.get('x-user') === 'carol'
          ? { ok: true, username: 'carol@example.com' }
          : { ok: false, response: new Response('no', { status: 401, headers: { 'www-authenticate': 'NTLM' } }) }
      },
    }
    const handler = createTimelineHandler(store, { authenticator })
    expect((await handler(new Request(`${BASE}/v1/profile`))).status).toBe(200)
    const refused = await handler(new Request(`${API}`))
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'NTLM'])
    const home = await handler(new Request(`${API}`, { headers: { 'x-user': 'carol' } }))
    expect(home.headers.get('content-type')).toBe('application/vnd.service.v3+json; charset=utf-8')
    expect(seen).toContain(API)
    // The password flow's token endpoint does not exist with another authenticator.
    const token = await handler(new Request(`${API}/token`, { method: 'POST', headers: { 'x-user': 'carol' } }))
    expect(token.status).toBe(404)
  })

  it('answers 401 when an authenticator names a user the store does not know', async () => {
    const store = createTimelineStore()
    const handler = createTimelineHandler(store, {
      authenticator: { mode: 'test', authenticate: async () => ({ ok: true, username: 'ghost@example.com' }) },
    })
    const response = await handler(new Request(API))
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ errorCode: 'Unauthorized' })
  })

  it('serves under a base path, with the token link and home links under it', async () => {
    const { call } = fixture({}, { basePath: '/acct-1/' })
    const refused = await call('GET', '/acct-1/api')
    expect(await refused.json()).toEqual({ links: [{ rel: 'manictime/token', href: `${BASE}/acct-1/api/token` }] })
    const { handler } = fixture({}, { basePath: '/acct-1/' })
    const token = await handler(
      tokenRequest({ grant_type: 'password', username: USERS.alice.username, password: USERS.alice.password }, `${BASE}/acct-1/api/token`),
    )
    const { token: value } = (await token.json()) as { token: string }
    const home = await handler(new Request(`${BASE}/acct-1/api`, { headers: { authorization: `Bearer ${value}` } }))
    const links = ((await home.json()) as { links: Array<{ rel: string; href: string }> }).links
    expect(links[0]).toEqual({ rel: 'self', href: `${BASE}/acct-1/api/` })
    const outside = await handler(new Request(`${BASE}/api`, { headers: { authorization: `Bearer ${value}` } }))
    expect(outside.status).toBe(404)
  })

  it('refuses a base path without slashes at both ends', () => {
    expect(() => createTimelineHandler(createTimelineStore(), { basePath: 'acct' })).toThrow(/basePath/)
  })
})
