/**
 * A real OpenID Provider (oidc-provider v9) on a loopback port, standing in
 * for the cloud's login server: native clients whose redirect URIs are
 * compared exactly but for a loopback port, PKCE required, rotating refresh
 * tokens not tied to the browser session, and JWT access tokens for the
 * `<vendor>api` resource server. It answers in the login server's documented
 * shape (`oidc-spec.ts`): its discovery fields, `scope` and `session_state` in
 * the callback, and every granted scope in the token response.
 */
import { generateKeyPairSync } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider, { errors } from 'oidc-provider'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import {
  BROWSER_STATE_COOKIE,
  CHECK_SESSION_PAGE,
  CHECK_SESSION_PATH,
  PROFILE_CLAIMS,
  authorizationQueryAsServer,
  browserStateFor,
  errorPage,
  orderedScope,
  sessionState,
  specDiscoveryFields,
} from './oidc-spec.ts'

/** One client registered at the provider. */
export interface OpenIdClient {
  clientId: string
  clientSecret: string
  /** How the client authenticates at the token endpoint. */
  tokenEndpointAuthMethod: 'client_secret_post' | 'client_secret_basic'
}

/** A POST to the token endpoint as it arrived, for asserting what went over the wire. */
export interface TokenRequestRecord {
  method: string
  /** The raw `authorization` header, or undefined when none was sent. */
  authorization: string | undefined
  contentType: string | undefined
  /** Form fields as the provider parsed them. */
  body: Record<string, string>
  /** The HTTP status the provider answered with. */
  status: number
}

export interface OpenIdProviderOptions {
  /** Vendor token for the resource-server scope `<vendor>api`. @default 'manictime' */
  vendor?: string
  /** Audience of the access tokens (the cloud API's identifier). @default 'https://api.timeline.test' */
  audience?: string
  /** Account that the auto-approved login signs in as (becomes `sub`). @default 'user-1' */
  accountId?: string
  /** Access-token lifetime in seconds; short values drive expiry tests. @default 3600 */
  accessTokenTtl?: number
  /** Refresh-token lifetime in seconds. @default 14 days */
  refreshTokenTtl?: number
  /**
   * Redirect URIs registered for every client, compared as strings: only the
   * port of a loopback URI may differ (RFC 8252 §7.3), so
   * `http://127.0.0.1:4040` accepts `http://127.0.0.1:53211` but refuses
   * `http://127.0.0.1:4040/` and `http://127.0.0.1:4040/other`.
   * @default ['http://127.0.0.1:4040', 'http://127.0.0.1:4040/callback']
   */
  redirectUris?: string[]
  /** Port on 127.0.0.1. @default 0 (a free port) */
  port?: number
  /**
   * Sends `iss` in the callback and says so in discovery
   * (`authorization_response_iss_parameter_supported`, RFC 9207). `false`
   * gives the callback exactly as the API documents it: `code`, `scope`,
   * `state`, `session_state`.
   * @default true
   */
  issuerInCallback?: boolean
  /**
   * What the token response's `scope` names: every granted scope
   * (`openid profile <vendor>api offline_access`, as the login server
   * answers), or only the access token's (`<vendor>api`, oidc-provider's own
   * answer for a resource server's token).
   * @default 'granted'
   */
  tokenResponseScope?: 'granted' | 'access-token'
}

export interface OpenIdProvider {
  /** Issuer URL, `http://127.0.0.1:PORT` (no trailing slash). */
  readonly issuer: string
  /** The oidc-provider instance, for tests that listen to its events. */
  readonly provider: any
  /** Registered clients: `post` uses client_secret_post, `basic` client_secret_basic. */
  readonly clients: { post: OpenIdClient; basic: OpenIdClient }
  readonly audience: string
  readonly scope: string
  /** Every POST to the token endpoint, in order. */
  readonly tokenRequests: TokenRequestRecord[]
  /** `error_detail` of every failed grant (e.g. `refresh token already used`), in order. */
  readonly grantErrors: string[]
  close(): Promise<void>
}

/** Paths as the spec's discovery document names them (IdentityServer style). */
const ROUTES = {
  authorization: '/connect/authorize',
  token: '/connect/token',
  userinfo: '/connect/userinfo',
  end_session: '/connect/endsession',
  revocation: '/connect/revocation',
  introspection: '/connect/introspect',
  device_authorization: '/connect/deviceauthorization',
  jwks: '/.well-known/openid-configuration/jwks',
}

const INTERACTION_PREFIX = '/interaction/'
const DISCOVERY_PATH = '/.well-known/openid-configuration'

/** Starts the provider on 127.0.0.1 (a free port unless `port` is given). */
export async function startOpenIdProvider(options: OpenIdProviderOptions = {}): Promise<OpenIdProvider> {
  const vendor = vendorIdentifiers(options.vendor)
  const audience = options.audience ?? 'https://api.timeline.test'
  const accountId = options.accountId ?? 'user-1'
  const redirectUris = options.redirectUris ?? ['http://127.0.0.1:4040', 'http://127.0.0.1:4040/callback']

  const server = http.createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const clients = {
    post: { clientId: 'cli-post', clientSecret: 'cli-post-secret', tokenEndpointAuthMethod: 'client_secret_post' },
    basic: { clientId: 'cli-basic', clientSecret: 'cli-basic-secret', tokenEndpointAuthMethod: 'client_secret_basic' },
  } as const satisfies Record<string, OpenIdClient>

  const issuerInCallback = options.issuerInCallback ?? true
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })
  const provider = new Provider(issuer, {
    clients: Object.values(clients).map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      token_endpoint_auth_method: client.tokenEndpointAuthMethod,
      application_type: 'native',
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    })),
    jwks: { keys: [{ ...jwk, kid: 'test-key-1', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['test-cookie-key'] },
    routes: ROUTES,
    pkce: { required: () => true },
    // Without this, offline_access is stripped unless the CLI sends prompt=consent.
    issueRefreshToken: async (_ctx: unknown, client: any) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: PROFILE_CLAIMS },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    enabledJWA: { idTokenSigningAlgValues: ['RS256'] },
    responseTypes: ['code', 'id_token', 'id_token token', 'code id_token', 'code token', 'code id_token token'],
    // What oidc-provider has no setting for; a middleware below puts the lists in the documented order.
    discovery: {
      check_session_iframe: `${issuer}${CHECK_SESSION_PATH}`,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    },
    renderError: async (ctx: any, out: { error?: string; error_description?: string }) => {
      ctx.type = 'html'
      ctx.body = errorPage(out)
    },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, name: `Test ${sub}`, preferred_username: sub }),
    }),
    ttl: {
      AccessToken: options.accessTokenTtl ?? 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: options.refreshTokenTtl ?? 14 * 86_400,
      Interaction: 600,
      Session: 3600,
      Grant: 14 * 86_400,
      DeviceCode: 600,
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${INTERACTION_PREFIX}${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true },
      revocation: { enabled: true },
      deviceFlow: { enabled: true },
      clientCredentials: { enabled: true },
      backchannelLogout: { enabled: true },
      requestObjects: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // The CLI sends no `resource`: the API is the one default resource.
        defaultResource: async () => audience,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (resource !== audience) throw new errors.InvalidTarget!()
          return {
            scope: vendor.scope,
            audience,
            accessTokenTTL: options.accessTokenTtl ?? 3600,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }
        },
      },
    },
  })

  provider.use(async (ctx: any, next: () => Promise<void>) => {
    if (ctx.method === 'GET' && ctx.path === ROUTES.authorization) {
      const query = authorizationQueryAsServer(new URLSearchParams(ctx.querystring))
      if (query) ctx.querystring = query.toString()
    }
    await next()
    if (ctx.method === 'GET' && ctx.path === DISCOVERY_PATH && ctx.status === 200) {
      Object.assign(ctx.body, specDiscoveryFields(vendor, issuer))
      if (!issuerInCallback) delete ctx.body.authorization_response_iss_parameter_supported
    }
    // The token response names every granted scope, as the login server's does, not only the API's.
    const widen = (options.tokenResponseScope ?? 'granted') === 'granted'
    if (widen && ctx.method === 'POST' && ctx.path === ROUTES.token && ctx.status === 200 && typeof ctx.body?.scope === 'string') {
      const granted: unknown = (ctx.oidc?.entities?.AuthorizationCode ?? ctx.oidc?.entities?.RefreshToken)?.scope
      if (typeof granted === 'string') ctx.body.scope = orderedScope(`${granted} ${ctx.body.scope}`.split(' ').filter(Boolean), vendor)
    }
  })
  provider.on('authorization.success', (ctx: any, out: Record<string, string | undefined>) => {
    if (out.code === undefined) return
    const { grant, session, client, params } = ctx.oidc
    const requested: string[] = [...ctx.oidc.requestParamScopes]
    const granted = new Set(grant.getOIDCScopeFiltered(new Set(requested)).split(' '))
    for (const resource of Object.keys(ctx.oidc.resourceServers ?? {})) {
      for (const scope of grant.getResourceScopeFiltered(resource, new Set(requested)).split(' ')) granted.add(scope)
    }
    out.scope = orderedScope(
      requested.filter((scope) => granted.has(scope)),
      vendor,
    )
    const browserState = browserStateFor(session.uid)
    ctx.cookies.set(BROWSER_STATE_COOKIE, browserState, { httpOnly: false, sameSite: 'lax', path: '/' })
    out.session_state = sessionState(client.clientId, params.redirect_uri, browserState)
    if (!issuerInCallback) delete out.iss
  })

  const tokenRequests: TokenRequestRecord[] = []
  provider.use(async (ctx: any, next: () => Promise<void>) => {
    await next()
    if (ctx.method === 'POST' && ctx.path === ROUTES.token) {
      tokenRequests.push({
        method: ctx.method,
        authorization: ctx.get('authorization') || undefined,
        contentType: ctx.get('content-type') || undefined,
        body: { ...(ctx.oidc?.body ?? {}) },
        status: ctx.status,
      })
    }
  })
  const grantErrors: string[] = []
  provider.on('grant.error', (_ctx: unknown, error: { error_detail?: string; message: string }) => {
    grantErrors.push(error.error_detail ?? error.message)
  })

  const callback = provider.callback()
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === CHECK_SESSION_PATH) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(CHECK_SESSION_PAGE)
      return
    }
    if (req.method === 'GET' && req.url?.startsWith(INTERACTION_PREFIX)) {
      autoApprove(provider, req, res, { accountId, audience, resourceScope: vendor.scope }).catch((error: unknown) => {
        res.statusCode = 500
        res.end(`interaction failed: ${error instanceof Error ? error.message : String(error)}`)
      })
      return
    }
    callback(req, res)
  })

  return {
    issuer,
    provider,
    clients,
    audience,
    scope: vendor.scope,
    tokenRequests,
    grantErrors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Login and consent in one step, as if the user had typed the password and clicked "allow". */
async function autoApprove(
  provider: any,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  settings: { accountId: string; audience: string; resourceScope: string },
): Promise<void> {
  const { params, session, grantId } = await provider.interactionDetails(req, res)
  const accountId: string = session?.accountId ?? settings.accountId
  const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId, clientId: params.client_id })
  const requested = String(params.scope ?? '')
    .split(' ')
    .filter(Boolean)
  grant.addOIDCScope(requested.filter((scope) => scope !== settings.resourceScope).join(' '))
  if (requested.includes(settings.resourceScope)) grant.addResourceScope(settings.audience, settings.resourceScope)
  const savedGrantId: string = await grant.save()
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId }, consent: { grantId: savedGrantId } },
    { mergeWithLastSubmission: false },
  )
}
