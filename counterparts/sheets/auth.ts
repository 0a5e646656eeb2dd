/**
 * The fake's side of Google sign-in (reference/sheets-api.md §10,
 * auth-and-libraries.md §3): access tokens it issued or was given, the
 * JWT-bearer exchange for service accounts, and an auto-approving
 * installed-app flow (authorization code + PKCE S256, refresh tokens).
 * Token endpoint errors are OAuth-style bodies, not Google RPC envelopes.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto'
import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose'
import { JSON_CONTENT_TYPE } from './google-errors.ts'
import { createTokenExchange, TOKEN_EXCHANGE_GRANT, type WorkloadPoolSpec } from './sts.ts'

/** The read-write Sheets scope. */
export const SPREADSHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets'
const WRITE_SCOPES = new Set([SPREADSHEETS_SCOPE, 'https://www.googleapis.com/auth/drive', 'https://www.googleapis.com/auth/drive.file'])
const READ_SCOPES = new Set([
  ...WRITE_SCOPES,
  'https://www.googleapis.com/auth/spreadsheets.readonly',
  'https://www.googleapis.com/auth/drive.readonly',
])
/** Google's token URL, accepted as `aud` besides the fake's own URL. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'

export interface TokenGrant {
  /** Who the token is for: the quota "user". */
  subject: string
  scopes: string[]
  /** Epoch ms; undefined = never expires. */
  expiresAt: number | undefined
}

/** A test token the fake accepts without any exchange. */
export interface StaticTokenSpec {
  /** @default 'static-user@test' */
  subject?: string
  /** @default [SPREADSHEETS_SCOPE] */
  scopes?: string[]
}

export interface ServiceAccountSpec {
  clientEmail: string
  /** PEM (SPKI), a JWK, or a KeyObject/CryptoKey. */
  publicKey: string | JsonWebKey | KeyObject | CryptoKey
}

export interface OAuthClientSpec {
  clientId: string
  clientSecret: string
}

/** A token request as the fake received it, for assertions. */
export interface TokenRequestRecord {
  grantType: string
  /** Form fields; the assertion, secrets and codes are kept so tests can check them. */
  form: Record<string, string>
  status: number
  error?: string
}

export interface AuthState {
  /**
   * Whether the token may call a method of this class (a Sheets read or write, or one allowed by `scopes`: a Drive
   * method's own list); `missing`, `invalid` or `scope` when not.
   */
  check(
    token: string | undefined,
    write: boolean,
    scopes?: ReadonlySet<string>,
  ): { ok: true; grant: TokenGrant } | { ok: false; reason: 'missing' | 'invalid' | 'scope' }
  addStaticToken(token: string, spec?: StaticTokenSpec): void
  /** Issues an access token directly (as if exchanged). */
  issueToken(subject: string, scopes: string[], lifetimeSeconds?: number): string
  revokeToken(token: string): void
  registerServiceAccount(spec: ServiceAccountSpec): void
  registerOAuthClient(spec: OAuthClientSpec): void
  /** Lets the token exchange (STS, `POST …/v1/token`) take these subject tokens for this audience (sts.ts). */
  registerWorkloadPool(spec: WorkloadPoolSpec): void
  /** Token requests received, oldest first. */
  tokenRequests(): readonly TokenRequestRecord[]
  /** `POST …/token`. */
  handleToken(request: Request): Promise<Response>
  /** `GET …/o/oauth2/v2/auth` (auto-approve). */
  handleAuthorize(request: Request): Response
}

function oauthError(status: number, error: string, description: string): Response {
  return new Response(JSON.stringify({ error, error_description: description }), { status, headers: { 'content-type': JSON_CONTENT_TYPE } })
}

function base64url(buf: Buffer): string {
  return buf.toString('base64url')
}

async function toKey(key: ServiceAccountSpec['publicKey']): Promise<KeyObject | CryptoKey> {
  if (typeof key === 'string') return createPublicKey(key)
  if ('kty' in key) return createPublicKey({ key: key as import('node:crypto').JsonWebKey, format: 'jwk' })
  return key as KeyObject | CryptoKey
}

/** Creates the auth state. `newToken()` mints opaque token strings. */
export function createAuthState(now: () => number, newToken: (prefix: string) => string): AuthState {
  const tokens = new Map<string, TokenGrant>()
  const accounts = new Map<string, ServiceAccountSpec['publicKey']>()
  const clients = new Map<string, string>()
  const codes = new Map<string, { clientId: string; redirectUri: string; scopes: string[]; challenge?: string; method?: string }>()
  const refreshTokens = new Map<string, { clientId: string; scopes: string[]; subject: string }>()
  const records: TokenRequestRecord[] = []
  const exchange = createTokenExchange((subject, scopes) => issue(subject, scopes))

  const issue = (subject: string, scopes: string[], lifetimeSeconds = 3599) => {
    const token = newToken('ya29.fake-')
    tokens.set(token, { subject, scopes, expiresAt: now() + lifetimeSeconds * 1000 })
    return token
  }

  const state: AuthState = {
    check(token, write, scopes) {
      if (!token) return { ok: false, reason: 'missing' }
      const grant = tokens.get(token)
      if (!grant || (grant.expiresAt !== undefined && grant.expiresAt <= now())) return { ok: false, reason: 'invalid' }
      const allowed = scopes ?? (write ? WRITE_SCOPES : READ_SCOPES)
      if (!grant.scopes.some((s) => allowed.has(s))) return { ok: false, reason: 'scope' }
      return { ok: true, grant }
    },
    addStaticToken(token, spec = {}) {
      tokens.set(token, { subject: spec.subject ?? 'static-user@test', scopes: spec.scopes ?? [SPREADSHEETS_SCOPE], expiresAt: undefined })
    },
    issueToken: issue,
    revokeToken(token) {
      tokens.delete(token)
      refreshTokens.delete(token)
    },
    registerServiceAccount(spec) {
      accounts.set(spec.clientEmail, spec.publicKey)
    },
    registerOAuthClient(spec) {
      clients.set(spec.clientId, spec.clientSecret)
    },
    registerWorkloadPool: (spec) => exchange.register(spec),
    tokenRequests: () => records,
    handleAuthorize(request) {
      const url = new URL(request.url)
      const p = url.searchParams
      const clientId = p.get('client_id') ?? ''
      const redirectUri = p.get('redirect_uri') ?? ''
      if (!clients.has(clientId)) return oauthError(401, 'invalid_client', 'The OAuth client was not found.')
      if (p.get('response_type') !== 'code' || !redirectUri)
        return oauthError(400, 'invalid_request', 'Required parameter is missing: response_type or redirect_uri')
      const code = newToken('4/fake-code-')
      const challenge = p.get('code_challenge') ?? undefined
      const method = p.get('code_challenge_method') ?? undefined
      codes.set(code, {
        clientId,
        redirectUri,
        scopes: (p.get('scope') ?? '').split(' ').filter(Boolean),
        ...(challenge ? { challenge } : {}),
        ...(method ? { method } : {}),
      })
      const target = new URL(redirectUri)
      target.searchParams.set('code', code)
      const st = p.get('state')
      if (st !== null) target.searchParams.set('state', st)
      target.searchParams.set('scope', p.get('scope') ?? '')
      return new Response(null, { status: 302, headers: { location: target.toString() } })
    },
    async handleToken(request) {
      const form = Object.fromEntries(new URLSearchParams(await request.text()))
      const grantType = form.grant_type ?? ''
      const record: TokenRequestRecord = { grantType, form, status: 200 }
      records.push(record)
      const fail = (status: number, error: string, description: string) => {
        record.status = status
        record.error = error
        return oauthError(status, error, description)
      }
      const basic = request.headers.get('authorization')
      if (basic?.startsWith('Basic ')) {
        const [id, secret] = Buffer.from(basic.slice(6), 'base64').toString().split(':')
        form.client_id ??= decodeURIComponent(id ?? '')
        form.client_secret ??= decodeURIComponent(secret ?? '')
      }
      if (grantType === TOKEN_EXCHANGE_GRANT) return exchange.exchange(form, fail)
      if (grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        const assertion = form.assertion ?? ''
        let claims: ReturnType<typeof decodeJwt>
        try {
          claims = decodeJwt(assertion)
          if (decodeProtectedHeader(assertion).alg !== 'RS256') return fail(400, 'invalid_grant', 'Invalid JWT Signature.')
        } catch {
          return fail(400, 'invalid_grant', 'Invalid JWT: malformed assertion.')
        }
        const key = typeof claims.iss === 'string' ? accounts.get(claims.iss) : undefined
        if (!key) return fail(400, 'invalid_grant', 'Invalid grant: account not found')
        try {
          await compactVerify(assertion, await toKey(key), { algorithms: ['RS256'] })
        } catch {
          return fail(400, 'invalid_grant', 'Invalid JWT Signature.')
        }
        const ownUrl = new URL(request.url)
        ownUrl.search = ''
        const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
        if (!audiences.some((a) => a === GOOGLE_TOKEN_URL || a === ownUrl.toString())) {
          return fail(
            400,
            'invalid_grant',
            'Invalid JWT: Failed audience check. The expected audience is https://oauth2.googleapis.com/token.',
          )
        }
        const seconds = Math.floor(now() / 1000)
        const { iat, exp } = claims
        if (
          typeof iat !== 'number' ||
          typeof exp !== 'number' ||
          exp - iat > 3600 ||
          exp <= iat ||
          iat > seconds + 300 ||
          exp < seconds - 300
        ) {
          return fail(
            400,
            'invalid_grant',
            'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
          )
        }
        const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : []
        if (scopes.length === 0) return fail(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.')
        const subject = typeof claims.sub === 'string' ? claims.sub : claims.iss!
        return jsonOk({ access_token: issue(subject, scopes), expires_in: 3599, token_type: 'Bearer' })
      }
      if (grantType === 'authorization_code' || grantType === 'refresh_token') {
        const clientId = form.client_id ?? ''
        const secret = clients.get(clientId)
        if (secret === undefined || secret !== form.client_secret) return fail(401, 'invalid_client', 'Unauthorized')
        if (grantType === 'authorization_code') {
          const pending = codes.get(form.code ?? '')
          if (!pending || pending.clientId !== clientId) return fail(400, 'invalid_grant', 'Malformed auth code.')
          codes.delete(form.code ?? '')
          if (pending.redirectUri !== form.redirect_uri) return fail(400, 'redirect_uri_mismatch', 'Bad Request')
          if (pending.challenge !== undefined) {
            const verifier = form.code_verifier ?? ''
            const computed = pending.method === 'S256' ? base64url(createHash('sha256').update(verifier).digest()) : verifier
            if (!verifier || computed !== pending.challenge) return fail(400, 'invalid_grant', 'Invalid code verifier.')
          }
          const subject = `user-of-${clientId}@test`
          const refresh = newToken('1//fake-refresh-')
          refreshTokens.set(refresh, { clientId, scopes: pending.scopes, subject })
          return jsonOk({
            access_token: issue(subject, pending.scopes),
            expires_in: 3599,
            refresh_token: refresh,
            scope: pending.scopes.join(' '),
            token_type: 'Bearer',
          })
        }
        const known = refreshTokens.get(form.refresh_token ?? '')
        if (!known || known.clientId !== clientId) return fail(400, 'invalid_grant', 'Token has been expired or revoked.')
        return jsonOk({
          access_token: issue(known.subject, known.scopes),
          expires_in: 3599,
          scope: known.scopes.join(' '),
          token_type: 'Bearer',
        })
      }
      return fail(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType}`)
    },
  }
  return state
}

function jsonOk(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': JSON_CONTENT_TYPE } })
}
