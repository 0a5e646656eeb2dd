import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { startOpenIdProvider, type OpenIdProvider } from '../../counterparts/timeline/oidc.ts'
import { sessionState } from '../../counterparts/timeline/oidc-spec.ts'
import { scriptedBrowser } from '../support/browser.ts'

const SCOPE = 'openid profile manictimeapi offline_access'

let op: OpenIdProvider
let spec: OpenIdProvider
let service: OpenIdProvider
let app: LoopbackServer
beforeAll(async () => {
  ;[op, spec, service] = await Promise.all([
    startOpenIdProvider(),
    startOpenIdProvider({ issuerInCallback: false, tokenResponseScope: 'access-token' }),
    startOpenIdProvider({ vendor: 'service' }),
  ])
  // Stands in for the client's callback listener: the test reads the callback's query itself.
  app = await serveOnLoopback(async () => new Response('ok'))
})
afterAll(async () => {
  await Promise.all([op?.close(), spec?.close(), service?.close(), app?.close()])
})

const discovery = async (provider: OpenIdProvider) =>
  (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>

const callbackBase = (path = '') => `http://127.0.0.1:${new URL(app.url).port}${path}`

interface Authorization {
  authorize: URL
  callback: URL
  verifier: string
}

/** Drives the login in a scripted browser up to the callback; PKCE S256 unless `plain`. */
async function authorize(
  provider: OpenIdProvider,
  options: { redirectUri?: string; plain?: boolean; scope?: string } = {},
): Promise<Authorization> {
  const verifier = randomBytes(32).toString('base64url')
  const authorize = new URL(`${provider.issuer}/connect/authorize`)
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: provider.clients.post.clientId,
    redirect_uri: options.redirectUri ?? callbackBase(),
    scope: options.scope ?? SCOPE,
    state: 'state-1',
    nonce: 'nonce-1',
    code_challenge: options.plain ? verifier : createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: options.plain ? 'plain' : 'S256',
  }).toString()
  const browser = scriptedBrowser()
  await browser.open(authorize.href)
  return { authorize, callback: new URL((await browser.finished).url), verifier }
}

async function exchange(provider: OpenIdProvider, { callback, verifier }: Authorization, redirectUri = callbackBase()) {
  const response = await fetch(`${provider.issuer}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: provider.clients.post.clientId,
      client_secret: provider.clients.post.clientSecret,
    }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function refresh(provider: OpenIdProvider, refreshToken: string) {
  const response = await fetch(`${provider.issuer}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: provider.clients.post.clientId,
      client_secret: provider.clients.post.clientSecret,
    }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('the OpenID Provider discovery document', () => {
  it.each([
    ['authorization_endpoint', '/connect/authorize'],
    ['token_endpoint', '/connect/token'],
    ['userinfo_endpoint', '/connect/userinfo'],
    ['end_session_endpoint', '/connect/endsession'],
    ['check_session_iframe', '/connect/checksession'],
    ['revocation_endpoint', '/connect/revocation'],
    ['introspection_endpoint', '/connect/introspect'],
    ['device_authorization_endpoint', '/connect/deviceauthorization'],
  ])('names %s at %s under the issuer', async (field, path) => {
    expect((await discovery(op))[field]).toBe(`${op.issuer}${path}`)
  })

  it('names the issuer and a JWKS under it that serves the RS256 signing key', async () => {
    const document = await discovery(op)
    expect(document.issuer).toBe(op.issuer)
    expect(String(document.jwks_uri).startsWith(`${op.issuer}/`)).toBe(true)
    const jwks = (await (await fetch(String(document.jwks_uri))).json()) as { keys: Array<{ alg: string }> }
    expect(jwks.keys.map((key) => key.alg)).toEqual(['RS256'])
  })

  it.each([
    'frontchannel_logout_supported',
    'frontchannel_logout_session_supported',
    'backchannel_logout_supported',
    'backchannel_logout_session_supported',
    'request_parameter_supported',
  ])('says %s: true', async (field) => {
    expect((await discovery(op))[field]).toBe(true)
  })

  it.each([
    ['scopes_supported', ['openid', 'email', 'profile', 'manictimeapi', 'offline_access']],
    [
      'claims_supported',
      [
        'sub',
        'email',
        'email_verified',
        'name',
        'family_name',
        'given_name',
        'middle_name',
        'nickname',
        'preferred_username',
        'profile',
        'picture',
        'website',
        'gender',
        'birthdate',
        'zoneinfo',
        'locale',
        'updated_at',
      ],
    ],
    [
      'grant_types_supported',
      ['authorization_code', 'client_credentials', 'refresh_token', 'implicit', 'password', 'urn:ietf:params:oauth:grant-type:device_code'],
    ],
    ['response_types_supported', ['code', 'token', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token']],
    ['response_modes_supported', ['form_post', 'query', 'fragment']],
    ['token_endpoint_auth_methods_supported', ['client_secret_basic', 'client_secret_post']],
    ['id_token_signing_alg_values_supported', ['RS256']],
    ['subject_types_supported', ['public']],
    ['code_challenge_methods_supported', ['plain', 'S256']],
  ])('lists %s as the login server does', async (field, values) => {
    expect((await discovery(op))[field]).toEqual(values)
  })

  it('builds the API scope from the vendor token', async () => {
    expect((await discovery(service)).scopes_supported).toEqual(['openid', 'email', 'profile', 'serviceapi', 'offline_access'])
  })

  it('announces the issuer in the callback (RFC 9207) only when it sends it', async () => {
    expect((await discovery(op)).authorization_response_iss_parameter_supported).toBe(true)
    expect((await discovery(spec)).authorization_response_iss_parameter_supported).toBeUndefined()
  })

  it('serves the check-session page at check_session_iframe', async () => {
    const response = await fetch(String((await discovery(op)).check_session_iframe))
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await response.text()).toContain("addEventListener('message'")
  })
})

describe('the OpenID Provider callback and token response', () => {
  it('calls back with code, scope, state, session_state and iss', async () => {
    const { callback } = await authorize(op)
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'iss', 'scope', 'session_state', 'state'])
    expect(callback.searchParams.get('scope')).toBe(SCOPE)
    expect(callback.searchParams.get('state')).toBe('state-1')
    expect(callback.searchParams.get('iss')).toBe(op.issuer)
  })

  it('calls back with exactly code, scope, state and session_state when set up without iss', async () => {
    const { callback } = await authorize(spec)
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'scope', 'session_state', 'state'])
  })

  it('makes session_state from the client, the redirect origin and a salt', async () => {
    const { callback } = await authorize(op)
    const value = callback.searchParams.get('session_state')!
    expect(value).toMatch(/^[\w-]{43}\.[0-9a-f]{16}$/)
    const salt = value.split('.')[1]!
    expect(sessionState(op.clients.post.clientId, callbackBase(), 'browser-state', salt)).toMatch(new RegExp(`\\.${salt}$`))
    expect(sessionState('a', 'http://127.0.0.1:1', 's', salt)).not.toBe(sessionState('a', 'http://127.0.0.1:2', 's', salt))
  })

  it('names only the granted scopes in the callback, in the server order', async () => {
    const { callback } = await authorize(op, { scope: 'offline_access manictimeapi openid' })
    expect(callback.searchParams.get('scope')).toBe('openid manictimeapi offline_access')
  })

  it('answers the code exchange and each refresh with every granted scope', async () => {
    const first = await exchange(op, await authorize(op))
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ scope: SCOPE, token_type: 'Bearer', expires_in: 3600 })
    expect(Object.keys(first.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type'])
    const next = await refresh(op, String(first.body.refresh_token))
    expect(next.status).toBe(200)
    expect(next.body.scope).toBe(SCOPE)
  })

  it("names only the access token's scope when set up as oidc-provider answers on its own", async () => {
    const first = await exchange(spec, await authorize(spec))
    expect(first.body.scope).toBe('manictimeapi')
    expect((await refresh(spec, String(first.body.refresh_token))).body.scope).toBe('manictimeapi')
  })

  it('accepts plain PKCE: the verifier is the challenge itself', async () => {
    const authorization = await authorize(op, { plain: true })
    expect((await exchange(op, authorization)).status).toBe(200)
  })

  it('refuses a plain PKCE exchange whose verifier differs from the challenge', async () => {
    const authorization = await authorize(op, { plain: true })
    const refused = await exchange(op, { ...authorization, verifier: randomBytes(32).toString('base64url') })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe('invalid_grant')
  })
})

describe('the OpenID Provider compares redirect URIs exactly, but for a loopback port', () => {
  it('accepts the registered http://127.0.0.1:4040 on any port', async () => {
    const authorization = await authorize(op, { redirectUri: callbackBase() })
    expect(authorization.callback.searchParams.get('code')).toBeTruthy()
  })

  it('accepts the registered path /callback on any port', async () => {
    const redirectUri = callbackBase('/callback')
    const authorization = await authorize(op, { redirectUri })
    expect((await exchange(op, authorization, redirectUri)).status).toBe(200)
  })

  it.each(['/', '/other', '/callback/', '/Callback'])(
    'refuses a redirect_uri whose path is %j, on a page that says invalid_redirect_uri',
    async (path) => {
      const failure = await authorize(op, { redirectUri: callbackBase(path) }).then(
        () => undefined,
        (error: unknown) => String(error),
      )
      expect(failure).toContain('answered 400')
      expect(failure).toContain('invalid_redirect_uri')
      expect(failure).toContain('redirect_uri did not match any of the client&#39;s registered redirect_uris')
    },
  )

  it('refuses a code exchange whose redirect_uri is the same address with a slash added', async () => {
    const authorization = await authorize(op, { redirectUri: callbackBase() })
    const refused = await exchange(op, authorization, `${callbackBase()}/`)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ error: 'invalid_grant', error_description: 'grant request is invalid' })
    expect(op.grantErrors.at(-1)).toBe('authorization code redirect_uri mismatch')
  })
})
