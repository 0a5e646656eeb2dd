/**
 * The cloud side of the reference server: an `Authenticator` that accepts
 * JWT access tokens from the OpenID Provider (`oidc.ts`), and the cloud API
 * front (`GET /v1/profile`, data under a per-account path such as `/acct-1/`).
 */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import type { WebHandler } from '../mount.ts'
import type { AuthContext, AuthResult, Authenticator } from './authenticator.ts'

export interface AccessTokenVerifierOptions {
  /** Issuer of the OpenID Provider, exactly as its discovery names it. */
  issuer: string
  /** Audience the access tokens carry (the provider's resource indicator). */
  audience: string
  /** Scope the token must hold, `<vendor>api`. */
  scope: string
  /** JWKS URL; discovered from the issuer when omitted. */
  jwksUri?: string
}

export type VerifyResult = { ok: true; claims: JWTPayload & { sub: string } } | { ok: false; response: Response }

/** Checks `Authorization: Bearer <jwt>`: signature (JWKS), issuer, audience, `typ: at+jwt`, expiry, scope. */
export type AccessTokenVerifier = (request: Request) => Promise<VerifyResult>

/** Builds a verifier for the provider's JWT access tokens. */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions): AccessTokenVerifier {
  let jwks: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined
  const keySet = () => {
    jwks ??= (async () => {
      const uri = options.jwksUri ?? (await discoverJwksUri(options.issuer))
      return createRemoteJWKSet(new URL(uri))
    })().catch((error: unknown) => {
      jwks = undefined
      throw error
    })
    return jwks
  }
  return async (request) => {
    const header = request.headers.get('authorization')
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
    if (!match?.[1]) return { ok: false, response: challenge(401, undefined, 'no bearer token') }
    try {
      const { payload } = await jwtVerify(match[1], await keySet(), {
        issuer: options.issuer,
        audience: options.audience,
        typ: 'at+jwt',
        algorithms: ['RS256'],
      })
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : []
      if (!scopes.includes(options.scope)) {
        return { ok: false, response: challenge(403, 'insufficient_scope', `scope ${options.scope} required`) }
      }
      if (typeof payload.sub !== 'string') return { ok: false, response: challenge(401, 'invalid_token', 'no subject') }
      return { ok: true, claims: payload as JWTPayload & { sub: string } }
    } catch (error) {
      const reason = error instanceof Error && 'code' in error ? String(error.code) : 'invalid token'
      return { ok: false, response: challenge(401, 'invalid_token', reason) }
    }
  }
}

export interface CloudAuthenticatorOptions {
  verify: AccessTokenVerifier
  /** Store username for a token subject. @default the subject itself */
  usernameForSubject?: (sub: string) => string | undefined
}

/** Authenticator for data calls in the cloud: a valid access token whose subject is a store user. */
export function createCloudAuthenticator(options: CloudAuthenticatorOptions): Authenticator {
  const usernameFor = options.usernameForSubject ?? ((sub: string) => sub)
  return {
    mode: 'cloud',
    async authenticate(request: Request, context: AuthContext): Promise<AuthResult> {
      const verdict = await options.verify(request)
      if (!verdict.ok) return verdict
      const wanted = usernameFor(verdict.claims.sub)
      const user = wanted === undefined ? undefined : context.store.user(wanted)
      if (!user) return { ok: false, response: challenge(401, 'invalid_token', 'no account for this subject') }
      return { ok: true, username: user.username }
    },
  }
}

export interface CloudApiOptions {
  verify: AccessTokenVerifier
  /**
   * Handler of the account's data; requests under `accountPath` reach it
   * unchanged, so build it with `createTimelineHandler(store, { basePath: accountPath, … })`.
   */
  data: WebHandler
  /** Path of the account on this origin; `serverUrl` is `{origin}{accountPath}`. @default '/acct-1/' */
  accountPath?: string
  /** @default 'reference' */
  license?: string
}

/**
 * The cloud API origin: `GET /v1/profile` answers `{ serverUrl, license, links }`
 * for a valid token, and everything under `accountPath` goes to `data`.
 */
export function createCloudApiHandler(options: CloudApiOptions): WebHandler {
  const accountPath = options.accountPath ?? '/acct-1/'
  if (!accountPath.startsWith('/') || !accountPath.endsWith('/')) {
    throw new TypeError(`Expected \`accountPath\` to start and end with "/", got ${JSON.stringify(accountPath)}`)
  }
  return async (request) => {
    const url = new URL(request.url)
    if (url.pathname === '/v1/profile') {
      if (request.method !== 'GET') return new Response(null, { status: 405, headers: { allow: 'GET' } })
      const verdict = await options.verify(request)
      if (!verdict.ok) return verdict.response
      return Response.json(
        {
          serverUrl: `${url.origin}${accountPath}`,
          license: options.license ?? 'reference',
          links: [{ rel: 'self', url: url.href }],
        },
        { headers: { 'content-type': 'application/json; charset=utf-8' } },
      )
    }
    if (url.pathname.startsWith(accountPath)) return options.data(request)
    return Response.json({ errorCode: 'NotFound', message: `No route ${url.pathname}` }, { status: 404 })
  }
}

async function discoverJwksUri(issuer: string): Promise<string> {
  const response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`)
  if (!response.ok) throw new Error(`discovery at ${issuer} answered ${response.status}`)
  const metadata = (await response.json()) as { jwks_uri?: unknown }
  if (typeof metadata.jwks_uri !== 'string') throw new Error(`discovery at ${issuer} has no jwks_uri`)
  return metadata.jwks_uri
}

function challenge(status: number, error: string | undefined, description: string): Response {
  const params = error ? `Bearer error="${error}", error_description="${description.replace(/"/g, "'")}"` : 'Bearer'
  return new Response(JSON.stringify({ errorCode: status === 403 ? 'Forbidden' : 'Unauthorized', message: description }), {
    status,
    headers: { 'www-authenticate': params, 'content-type': 'application/json; charset=utf-8' },
  })
}
