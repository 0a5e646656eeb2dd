/**
 * The fake's token endpoint and consent page, driven by jose-signed
 * assertions and by google-auth-library itself (msw, in-process; Google's
 * token host is intercepted too, so nothing leaves the process).
 */
import { generateKeyPairSync } from 'node:crypto'
import { sheets } from '@googleapis/sheets'
import { JWT, OAuth2Client } from 'google-auth-library'
import { SignJWT } from 'jose'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { mswHandlerFor } from '../mount.ts'
import { SPREADSHEETS_SCOPE } from './auth.ts'
import { createSheetsHandler } from './handler.ts'
import { createSheetsStore, type SheetsStore } from './store.ts'

const ROOT = 'http://sheets.test/'
const EMAIL = 'bridge@project.iam.gserviceaccount.com'
let store: SheetsStore
const handler = (request: Request) => createSheetsHandler(store)(request)
const server = setupServer(mswHandlerFor(ROOT, handler), mswHandlerFor('https://oauth2.googleapis.com/', handler))
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 })
const otherKeys = generateKeyPairSync('rsa', { modulusLength: 2048 })
const privatePem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()

// onUnhandledFrame is msw 3's name for onUnhandledRequest.
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  store = createSheetsStore({ seed: 3 })
  store.auth.registerServiceAccount({ clientEmail: EMAIL, publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() })
})

async function assertion(
  options: { key?: typeof keys.privateKey; iss?: string; aud?: string; lifetime?: number; scope?: string } = {},
): Promise<string> {
  const iat = Math.floor(Date.now() / 1000)
  return new SignJWT({ scope: options.scope ?? SPREADSHEETS_SCOPE })
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(options.iss ?? EMAIL)
    .setAudience(options.aud ?? 'https://oauth2.googleapis.com/token')
    .setIssuedAt(iat)
    .setExpirationTime(iat + (options.lifetime ?? 3600))
    .sign(options.key ?? keys.privateKey)
}

async function exchange(jws: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${ROOT}token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jws }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('JWT-bearer exchange (§10.2)', () => {
  test('a good assertion gets a token the API accepts', async () => {
    const { status, body } = await exchange(await assertion())
    expect(status).toBe(200)
    expect(body).toEqual({ access_token: expect.stringMatching(/^ya29\./), expires_in: 3599, token_type: 'Bearer' })
    const ss = store.createSpreadsheet()
    const auth = new OAuth2Client()
    auth.setCredentials({ access_token: body.access_token as string, expiry_date: Date.now() + 3_000_000 })
    const res = await sheets({ version: 'v4', auth, rootUrl: ROOT }).spreadsheets.get({ spreadsheetId: ss.spreadsheetId })
    expect(res.status).toBe(200)
  })

  test('the fake own URL is an accepted audience too', async () => {
    expect((await exchange(await assertion({ aud: `${ROOT}token` }))).status).toBe(200)
  })

  test.each([
    ['a signature by another key', { key: otherKeys.privateKey }, 'invalid_grant', 'Invalid JWT Signature.'],
    ['an unknown account', { iss: 'nobody@x.iam.gserviceaccount.com' }, 'invalid_grant', 'Invalid grant: account not found'],
    [
      'a lifetime over an hour',
      { lifetime: 7200 },
      'invalid_grant',
      'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
    ],
    ['a foreign audience', { aud: 'https://elsewhere.test/token' }, 'invalid_grant', expect.stringContaining('audience')],
    ['no scope', { scope: '' }, 'invalid_scope', expect.any(String)],
  ])('refuses %s', async (_, options, error, description) => {
    const { status, body } = await exchange(await assertion(options))
    expect(status).toBe(400)
    expect(body).toEqual({ error, error_description: description })
  })

  test('google-auth-library JWT client signs in against the intercepted Google token URL', async () => {
    const ss = store.createSpreadsheet()
    const jwt = new JWT({ email: EMAIL, key: privatePem, scopes: [SPREADSHEETS_SCOPE] })
    const api = sheets({ version: 'v4', auth: jwt, rootUrl: ROOT })
    await api.spreadsheets.values.get({ spreadsheetId: ss.spreadsheetId, range: 'A1' })
    await api.spreadsheets.values.get({ spreadsheetId: ss.spreadsheetId, range: 'A1' })
    const requests = store.auth.tokenRequests()
    expect(requests).toHaveLength(1)
    expect(requests[0]).toMatchObject({ grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer', status: 200 })
  })

  test('an expired token is refused with 401 ACCESS_TOKEN_EXPIRED', async () => {
    let now = Date.now()
    store = createSheetsStore({ now: () => now })
    store.auth.registerServiceAccount({ clientEmail: EMAIL, publicKey: keys.publicKey })
    const { body } = await exchange(await assertion())
    now += 3600_000
    const ss = store.createSpreadsheet()
    const response = await fetch(`${ROOT}v4/spreadsheets/${ss.spreadsheetId}`, {
      headers: { authorization: `Bearer ${String(body.access_token)}` },
    })
    expect(response.status).toBe(401)
    expect(JSON.stringify(await response.json())).toContain('ACCESS_TOKEN_EXPIRED')
  })
})

describe('installed-app flow', () => {
  const clientId = 'desktop-client.apps.googleusercontent.com'
  const clientSecret = 'desktop-secret'
  const redirectUri = 'http://127.0.0.1:53682/'
  const client = () =>
    new OAuth2Client({
      clientId,
      clientSecret,
      redirectUri,
      endpoints: { oauth2TokenUrl: `${ROOT}token`, oauth2AuthBaseUrl: `${ROOT}o/oauth2/v2/auth` },
    })

  async function consent(oc: OAuth2Client, codeChallenge: string): Promise<URL> {
    const url = oc.generateAuthUrl({
      access_type: 'offline',
      scope: [SPREADSHEETS_SCOPE],
      prompt: 'consent',
      code_challenge: codeChallenge,
      code_challenge_method: 'S256' as never,
      state: 's-123',
    })
    const response = await fetch(url, { redirect: 'manual' })
    expect(response.status).toBe(302)
    return new URL(response.headers.get('location')!)
  }

  test('auto-approves, checks PKCE S256, and refreshes without a new refresh token', async () => {
    store.auth.registerOAuthClient({ clientId, clientSecret })
    const oc = client()
    const { codeVerifier, codeChallenge } = await oc.generateCodeVerifierAsync()
    const back = await consent(oc, codeChallenge!)
    expect(back.origin + back.pathname).toBe(redirectUri)
    expect(back.searchParams.get('state')).toBe('s-123')
    const { tokens } = await oc.getToken({ code: back.searchParams.get('code')!, codeVerifier })
    expect(tokens).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      token_type: 'Bearer',
      scope: SPREADSHEETS_SCOPE,
    })

    const later = client()
    later.setCredentials({ refresh_token: tokens.refresh_token! })
    const ss = store.createSpreadsheet()
    await sheets({ version: 'v4', auth: later, rootUrl: ROOT }).spreadsheets.get({ spreadsheetId: ss.spreadsheetId })
    const grants = store.auth.tokenRequests().map((r) => [r.grantType, r.status])
    expect(grants).toEqual([
      ['authorization_code', 200],
      ['refresh_token', 200],
    ])
    expect(later.credentials.refresh_token).toBe(tokens.refresh_token)
  })

  test('a wrong code verifier is invalid_grant; a wrong secret is invalid_client', async () => {
    store.auth.registerOAuthClient({ clientId, clientSecret })
    const oc = client()
    const { codeChallenge } = await oc.generateCodeVerifierAsync()
    const back = await consent(oc, codeChallenge!)
    const error = await oc.getToken({ code: back.searchParams.get('code')!, codeVerifier: 'x'.repeat(43) }).then(
      () => undefined,
      (e: { status?: number; response?: { data?: unknown } }) => e,
    )
    expect(error?.status).toBe(400)
    expect(error?.response?.data).toEqual({ error: 'invalid_grant', error_description: 'Invalid code verifier.' })
    const wrong = new OAuth2Client({ clientId, clientSecret: 'nope', redirectUri, endpoints: { oauth2TokenUrl: `${ROOT}token` } })
    wrong.setCredentials({ refresh_token: 'whatever' })
    await expect(wrong.getAccessToken()).rejects.toMatchObject({ status: 401 })
  })
})
