/**
 * The authentication seam of the reference Timeline server.
 *
 * The handler asks its `Authenticator` two things:
 * 1. `handle(request, context)` (optional) runs first on every request and may
 *    answer it outright: the password flow's `POST /api/token`, a cloud
 *    profile or OIDC route, an NTLM handshake step. Return undefined to pass.
 * 2. `authenticate(request, context)` runs on every data call and says who is
 *    calling (`{ ok: true, username }`, a username the store knows) or gives
 *    the complete refusal to send (`{ ok: false, response }`, e.g. a 401 with
 *    the right `WWW-Authenticate` challenge).
 *
 * Cloud (OIDC/JWT, `cloud.ts`) and Windows (NTLM, `ntlm.ts`) authenticators
 * implement the same interface; the default is the on-premise password flow.
 */
import type { TimelineStore } from './store.ts'

export type AuthResult = { ok: true; username: string } | { ok: false; response: Response }

/** What the handler tells an authenticator about where it is mounted. */
export interface AuthContext {
  /** Absolute URL of the data API entry without a trailing slash, e.g. `http://127.0.0.1:8080/api`. */
  apiUrl: string
  store: TimelineStore
}

export interface Authenticator {
  /** For messages and the CLI: `password`, `cloud`, `ntlm`… */
  readonly mode: string
  /** Answers requests the authenticator owns (token endpoint, handshakes); undefined passes. */
  handle?(request: Request, context: AuthContext): Promise<Response | undefined>
  /** Says who is calling, or gives the refusal to send. */
  authenticate(request: Request, context: AuthContext): Promise<AuthResult>
}

/** The bearer token of a request, or undefined. */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  return match?.[1]
}

/**
 * On-premise password flow: `POST {api}/token` with form fields
 * `grant_type=password`, `username`, `password` answers `{"token":"<32 hex>"}`;
 * a data call without a valid token answers 401 `WWW-Authenticate: Bearer`
 * with the token link. Tokens never expire; `store.revokeTokens` and
 * `store.resetPassword` end them.
 */
export function createPasswordAuthenticator(): Authenticator {
  return {
    mode: 'password',
    async handle(request, context) {
      const url = new URL(request.url)
      if (url.pathname.toLowerCase() !== new URL(`${context.apiUrl}/token`).pathname.toLowerCase()) return undefined
      if (request.method !== 'POST') {
        return oauthError(405, 'invalid_request', 'The token endpoint takes POST only.', { allow: 'POST' })
      }
      const form = new URLSearchParams(await request.text())
      if (form.get('grant_type') !== 'password') {
        return oauthError(400, 'unsupported_grant_type', 'grant_type must be "password".')
      }
      const username = form.get('username')
      const password = form.get('password')
      if (!username || password === null) {
        return oauthError(400, 'invalid_request', 'username and password are required.')
      }
      const user = context.store.verifyPassword(username, password)
      if (!user) return oauthError(400, 'invalid_grant')
      return Response.json(
        { token: context.store.issueToken(user.username) },
        {
          headers: { 'content-type': 'application/json; charset=utf-8' },
        },
      )
    },
    async authenticate(request, context) {
      const token = bearerToken(request)
      const user = token === undefined ? undefined : context.store.userForToken(token)
      if (user) return { ok: true, username: user.username }
      return { ok: false, response: bearerChallenge(context) }
    },
  }
}

/** The 401 an on-premise server answers without (or with an invalid) token. */
export function bearerChallenge(context: AuthContext): Response {
  const { vendor } = context.store
  return new Response(JSON.stringify({ links: [{ rel: vendor.rel('token'), href: `${context.apiUrl}/token` }] }), {
    status: 401,
    headers: {
      'www-authenticate': 'Bearer',
      'content-type': `${vendor.mediaType}; charset=utf-8`,
    },
  })
}

function oauthError(status: number, error: string, description?: string, headers: Record<string, string> = {}): Response {
  const body = description === undefined ? { error } : { error, error_description: description }
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  })
}
