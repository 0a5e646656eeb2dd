import { stat } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAccessTokenVerifier, createCloudAuthenticator } from '../../counterparts/timeline/cloud.ts'
import { createTimelineStore } from '../../counterparts/timeline/store.ts'
import { cloudSignIn } from '../../src/timeline/auth/cloud.ts'
import { exactRedirectUri, runCloudLogin } from '../../src/timeline/auth/login.ts'
import { readTokenFile } from '../../src/state/cloud-token-file.ts'
import { scriptedBrowser } from '../support/browser.ts'
import { startTestCloud, type TestCloud } from './cloud-setup.ts'

let cloud: TestCloud
beforeAll(async () => {
  cloud = await startTestCloud()
})
afterAll(async () => {
  await cloud?.close()
})

describe('cloud login (authorization code + PKCE against a real OpenID Provider)', () => {
  it('logs in with client_secret_post, sends the secret as form fields, and writes a 0600 token file', async () => {
    const options = cloud.clientOptions('post')
    const browser = scriptedBrowser()
    const before = cloud.op.tokenRequests.length
    const result = await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open })

    expect(await browser.finished).toMatchObject({ status: 200, body: expect.stringContaining('Login success') })
    const authorize = new URL(browser.visited[0]!)
    expect(authorize.pathname).toBe('/connect/authorize')
    expect(authorize.searchParams.get('scope')).toBe('openid profile manictimeapi offline_access')
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(authorize.searchParams.get('state')).toBeTruthy()
    expect(authorize.searchParams.get('nonce')).toBeTruthy()

    const sent = cloud.op.tokenRequests.slice(before)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatchObject({ method: 'POST', authorization: undefined, status: 200 })
    expect(sent[0]!.body).toMatchObject({
      grant_type: 'authorization_code',
      client_id: options.clientId,
      client_secret: options.clientSecret,
      redirect_uri: authorize.searchParams.get('redirect_uri'),
    })
    expect(sent[0]!.body.code_verifier).toMatch(/^[\w-]{43,128}$/)

    expect(result.subject).toBe('alice@example.com')
    expect((await stat(options.tokenFile)).mode & 0o777).toBe(0o600)
    const stored = await readTokenFile(options.tokenFile)
    expect(stored).toMatchObject({ issuer: cloud.op.issuer, clientId: options.clientId, subject: 'alice@example.com' })
    expect(stored!.refreshToken).toBeTruthy()
  })

  it('logs in with client_secret_basic and sends the secret only in the Authorization header', async () => {
    const options = cloud.clientOptions('basic')
    const browser = scriptedBrowser()
    const before = cloud.op.tokenRequests.length
    await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0/callback', openBrowser: browser.open })

    const sent = cloud.op.tokenRequests.slice(before)
    expect(sent).toHaveLength(1)
    const authorization = sent[0]!.authorization!
    expect(authorization).toMatch(/^Basic /)
    const [id, secret] = Buffer.from(authorization.slice(6), 'base64').toString().split(':').map(decodeURIComponent)
    expect([id, secret]).toEqual([options.clientId, options.clientSecret])
    expect(sent[0]!.body.client_secret).toBeUndefined()
    expect(sent[0]!.body.grant_type).toBe('authorization_code')
  })

  it('then reads the profile and calls the data API with the token through the cloud authenticator', async () => {
    const signIn = cloudSignIn(cloud.clientOptions('post'))
    const entry = await signIn.entryUrl()
    expect(entry).toBe(`${cloud.api.url}acct-1/api`)
    const response = await signIn.send(new Request(entry, { headers: { accept: 'application/vnd.manictime.v3+json' } }))
    expect(response.status).toBe(200)
    const home = (await response.json()) as { links: Array<{ rel: string; href: string }> }
    expect(home.links.find((link) => link.rel === 'manictime/timelines')?.href).toBe(`${entry}/timelines`)
  })
})

describe('cloud API counterpart refusals', () => {
  const profile = () => `${cloud.api.url}v1/profile`

  it('answers 401 Bearer without a token, and for a token with a broken signature', async () => {
    const none = await fetch(profile())
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe('Bearer')
    const token = await cloudSignIn(cloud.clientOptions('post')).accessToken()
    const forged = `${token.slice(0, -4)}AAAA`
    const bad = await fetch(profile(), { headers: { authorization: `Bearer ${forged}` } })
    expect(bad.status).toBe(401)
    expect(bad.headers.get('www-authenticate')).toContain('invalid_token')
  })

  it('refuses data calls for a subject the store does not know', async () => {
    const token = await cloudSignIn(cloud.clientOptions('post')).accessToken()
    const verify = createAccessTokenVerifier({ issuer: cloud.op.issuer, audience: cloud.op.audience, scope: cloud.op.scope })
    const authenticator = createCloudAuthenticator({ verify, usernameForSubject: () => undefined })
    const result = await authenticator.authenticate(
      new Request(`${cloud.api.url}acct-1/api`, { headers: { authorization: `Bearer ${token}` } }),
      { apiUrl: `${cloud.api.url}acct-1/api`, store: createTimelineStore() },
    )
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.response.status).toBe(401)
  })

  it('refuses a token without the API scope with 403', async () => {
    const token = await cloudSignIn(cloud.clientOptions('post')).accessToken()
    const verify = createAccessTokenVerifier({ issuer: cloud.op.issuer, audience: cloud.op.audience, scope: 'otherapi' })
    const verdict = await verify(new Request(profile(), { headers: { authorization: `Bearer ${token}` } }))
    expect(verdict.ok).toBe(false)
    if (!verdict.ok) expect(verdict.response.status).toBe(403)
  })

  it('refuses a token for another audience', async () => {
    const token = await cloudSignIn(cloud.clientOptions('post')).accessToken()
    const verify = createAccessTokenVerifier({ issuer: cloud.op.issuer, audience: 'https://elsewhere.test', scope: cloud.op.scope })
    const verdict = await verify(new Request(profile(), { headers: { authorization: `Bearer ${token}` } }))
    expect(verdict.ok).toBe(false)
  })

  it('answers 405 to a POST on the profile and 404 outside the account path', async () => {
    expect((await fetch(profile(), { method: 'POST' })).status).toBe(405)
    expect((await fetch(`${cloud.api.url}acct-2/api`)).status).toBe(404)
  })
})

describe('the redirect_uri is the callback URL exactly as configured', () => {
  it('sends a bare origin without a slash added, in the authorization and the token request alike', async () => {
    const options = cloud.clientOptions('post', 'bare-origin.json')
    const browser = scriptedBrowser()
    const before = cloud.op.tokenRequests.length
    await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open })
    const sent = new URL(browser.visited[0]!).searchParams.get('redirect_uri')!
    expect(sent).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sent).not.toBe('http://127.0.0.1:0')
    expect(cloud.op.tokenRequests.slice(before).map((request) => request.body.redirect_uri)).toEqual([sent])
  })

  it('keeps a configured path as written and replaces only an ephemeral port', async () => {
    const options = cloud.clientOptions('post', 'with-path.json')
    const browser = scriptedBrowser()
    const before = cloud.op.tokenRequests.length
    await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0/callback', openBrowser: browser.open })
    const sent = new URL(browser.visited[0]!).searchParams.get('redirect_uri')!
    expect(sent).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    expect(cloud.op.tokenRequests.slice(before).map((request) => request.body.redirect_uri)).toEqual([sent])
  })

  it.each([
    ['http://127.0.0.1:0', 'http://127.0.0.1:50123'],
    ['http://127.0.0.1:0/', 'http://127.0.0.1:50123/'],
    ['http://127.0.0.1:00/cb?app=1', 'http://127.0.0.1:50123/cb?app=1'],
    ['http://[::1]:0/Callback', 'http://[::1]:50123/Callback'],
    ['http://127.0.0.1:4040', 'http://127.0.0.1:4040'],
    ['http://localhost:4040/cb/', 'http://localhost:4040/cb/'],
  ])('turns the configured %j into %j when the listener got port 50123', (configured, expected) => {
    expect(exactRedirectUri(configured, new URL(configured), 50123)).toBe(expected)
  })
})

describe("the login accepts the login server's callback and token response in either form", () => {
  it('takes a callback with code, scope, state, session_state and iss, and keeps every granted scope', async () => {
    const options = cloud.clientOptions('post', 'full-form.json')
    const browser = scriptedBrowser()
    const result = await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open })
    const callback = new URL((await browser.finished).url)
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'iss', 'scope', 'session_state', 'state'])
    expect(result.scope).toBe('openid profile manictimeapi offline_access')
    expect((await readTokenFile(options.tokenFile))!.scope).toBe('openid profile manictimeapi offline_access')
  })

  it('takes a callback without scope and session_state (code, state, iss only)', async () => {
    const options = cloud.clientOptions('post', 'narrow-callback.json')
    const browser = scriptedBrowser({
      tamperCallback: (url) => {
        url.searchParams.delete('scope')
        url.searchParams.delete('session_state')
        return url
      },
    })
    const result = await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open })
    expect([...new URL((await browser.finished).url).searchParams.keys()].sort()).toEqual(['code', 'iss', 'state'])
    expect(result.subject).toBe('alice@example.com')
  })

  it('takes the documented callback without iss, and a token response that names only the API scope, through login, refresh and a data call', async () => {
    const other = await startTestCloud({ issuerInCallback: false, tokenResponseScope: 'access-token', accessTokenTtl: 1 })
    try {
      const options = other.clientOptions('post', 'documented-form.json')
      const browser = scriptedBrowser()
      const result = await runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open })
      expect([...new URL((await browser.finished).url).searchParams.keys()].sort()).toEqual(['code', 'scope', 'session_state', 'state'])
      expect(result.scope).toBe('manictimeapi')
      // The access token lives a second and the refresh margin is longer, so the first call refreshes.
      const signIn = cloudSignIn(options)
      const response = await signIn.send(new Request(await signIn.entryUrl()))
      expect(response.status).toBe(200)
      const grants = other.op.tokenRequests.map((request) => `${request.body.grant_type} ${request.status}`)
      expect(grants[0]).toBe('authorization_code 200')
      expect(grants.slice(1)).toContain('refresh_token 200')
      expect(new Set(grants.slice(1))).toEqual(new Set(['refresh_token 200']))
      expect((await readTokenFile(options.tokenFile))!.scope).toBe('manictimeapi')
    } finally {
      await other.close()
    }
  })
})
