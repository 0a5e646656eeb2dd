/**
 * On-premise sign-in for service-managed users (OAuth 2.0 password flow):
 * ask the entry without credentials for the token link, post the form, keep
 * the token, and sign in again once when a call answers 401.
 */
import { HttpError, redactSecrets, redactUrl, redactUserInfo, TimelineSheetsError } from '../../errors.ts'
import { createTransport, type Transport } from '../../http/transport.ts'
import { OnPremTokenSchema, parseBody, TokenLinkBodySchema } from '../schemas.ts'
import type { VendorIdentifiers } from '../vendor.ts'
import type { SignIn } from './sign-in.ts'

export interface PasswordSignInOptions {
  /** `{base_url}` of the on-premise server; the entry is `{base_url}/api`. */
  baseUrl: string
  username: string
  password: string
  vendor: VendorIdentifiers
  /** The way to the network; the token POST and every call go through it. @default a transport with the default limits */
  fetch?: Transport
}

/** The entry (home) URL for an on-premise base URL: `{base_url}/api`, kept as is when it already ends in `/api`. */
export function onPremEntryUrl(baseUrl: string): string {
  const url = new URL(baseUrl)
  if (/\/api\/?$/.test(url.pathname)) return url.toString()
  if (!url.pathname.endsWith('/')) url.pathname += '/'
  return new URL('api', url).toString()
}

/** True when a 401 challenge asks for Windows sign-in (NTLM or Kerberos) and not for a bearer token. */
export function asksForWindowsSignIn(response: Response): boolean {
  const challenge = response.headers.get('www-authenticate') ?? ''
  return /\b(NTLM|Negotiate)\b/i.test(challenge) && !/\bBearer\b/i.test(challenge)
}

/** Request for the challenge: the entry without credentials. */
export function tokenLinkRequest(entryUrl: string, vendor: VendorIdentifiers): Request {
  return new Request(entryUrl, { headers: { accept: vendor.mediaType } })
}

/**
 * Reads the challenge: the token endpoint URL, or `undefined` when the server
 * let the call through (no sign-in needed). Refuses a token link on another
 * origin: the password would go to whoever the body names.
 */
export async function processTokenLinkResponse(
  entryUrl: string,
  vendor: VendorIdentifiers,
  response: Response,
): Promise<string | undefined> {
  if (response.ok) {
    discard(response)
    return undefined
  }
  if (response.status !== 401) {
    throw new HttpError(
      {
        status: response.status,
        method: 'GET',
        url: entryUrl,
        data: await response.text(),
        code: 'TS_AUTH_FAILED',
        message: `GET ${redactUrl(entryUrl)} answered ${response.status}; expected 401 with the sign-in link`,
      },
      { hint: 'Check that the server URL points at the Timeline server.' },
    )
  }
  if (asksForWindowsSignIn(response)) {
    discard(response)
    const challenge = response.headers.get('www-authenticate') ?? ''
    throw new TimelineSheetsError('TS_AUTH_REQUIRED', `${redactUrl(entryUrl)} uses Windows sign-in (${challenge}), not a password token`, {
      hint: /\bNTLM\b/i.test(challenge)
        ? 'Set the auth mode to "ntlm" in the config for this server.'
        : 'The server asks for Kerberos (Negotiate) only, which timeline-sheets does not support: enable NTLM for the site, or use a server-managed user with the password mode.',
    })
  }
  const body = parseBody(TokenLinkBodySchema, await readJson(response, entryUrl), entryUrl)
  const rel = vendor.rel('token')
  const link = body.links.find((candidate) => candidate.rel === rel)
  if (!link) {
    throw new TimelineSheetsError('TS_LINK_MISSING', `The sign-in answer from ${redactUrl(entryUrl)} has no "${rel}" link`, {
      hint: `Check the vendor setting (now "${vendor.token}") and the auth mode for this server.`,
    })
  }
  const tokenUrl = new URL(link.href, entryUrl)
  if (tokenUrl.origin !== new URL(entryUrl).origin) {
    throw new TimelineSheetsError(
      'TS_UNSAFE_TOKEN_LINK',
      `The server at ${new URL(entryUrl).origin} sent its token link to another origin (${tokenUrl.origin}); the password was not sent`,
      { hint: 'Check the server URL; a proxy or a wrong address may be answering.' },
    )
  }
  return tokenUrl.toString()
}

/** The password grant form post. */
export function passwordTokenRequest(tokenUrl: string, vendor: VendorIdentifiers, username: string, password: string): Request {
  return new Request(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: `${vendor.mediaType}, application/json` },
    body: new URLSearchParams({ grant_type: 'password', username, password }).toString(),
  })
}

/** Reads the token answer; 400 `invalid_grant` means a wrong username or password. */
export async function processPasswordTokenResponse(tokenUrl: string, username: string, response: Response): Promise<string> {
  const server = new URL(tokenUrl).origin
  if (!response.ok) {
    const text = await response.text()
    let data: unknown = text
    try {
      data = JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    const error = typeof data === 'object' && data !== null ? (data as { error?: unknown }).error : undefined
    if (response.status === 400 && error === 'invalid_grant') {
      throw new HttpError(
        {
          status: 400,
          method: 'POST',
          url: tokenUrl,
          data,
          code: 'TS_AUTH_FAILED',
          message: `Wrong username or password for ${username} at ${server}`,
        },
        { hint: 'Check the username and the password (environment variable) in the config.' },
      )
    }
    throw new HttpError(
      {
        status: response.status,
        method: 'POST',
        url: tokenUrl,
        data,
        code: 'TS_AUTH_FAILED',
        message: `Signing in as ${username} at ${server} failed: POST ${redactUrl(tokenUrl)} answered ${response.status}${typeof error === 'string' ? ` (${error})` : ''}`,
      },
      { hint: 'Check the server URL and that password sign-in is enabled for this user.' },
    )
  }
  return parseBody(OnPremTokenSchema, await readJson(response, tokenUrl), tokenUrl).token
}

/** Signs in with a username and password (on-premise, service-managed users). */
export function passwordSignIn(options: PasswordSignInOptions): SignIn {
  const { username, password, vendor } = options
  const doFetch = options.fetch ?? createTransport()
  const entry = onPremEntryUrl(options.baseUrl)
  let token: string | null | undefined // null: the server needs no token
  let pending: Promise<string | null> | undefined

  async function signInNow(): Promise<string | null> {
    const tokenUrl = await processTokenLinkResponse(entry, vendor, await fetchOrWrap(doFetch, tokenLinkRequest(entry, vendor), [password]))
    if (tokenUrl === undefined) return null
    const response = await fetchOrWrap(doFetch, passwordTokenRequest(tokenUrl, vendor, username, password), [password])
    return processPasswordTokenResponse(tokenUrl, username, response)
  }

  // Concurrent calls share one sign-in; a failed one is not cached.
  function currentToken(): Promise<string | null> {
    if (token !== undefined) return Promise.resolve(token)
    pending ??= signInNow().then(
      (fresh) => {
        token = fresh
        pending = undefined
        return fresh
      },
      (error: unknown) => {
        pending = undefined
        throw error
      },
    )
    return pending
  }

  async function sendWith(request: Request, body: ArrayBuffer | undefined, bearer: string | null): Promise<Response> {
    const headers = new Headers(request.headers)
    if (bearer !== null) headers.set('authorization', `Bearer ${bearer}`)
    return doFetch(new Request(request.url, { method: request.method, headers, body }))
  }

  return {
    mode: 'password',
    account: options.username,
    entryUrl: async () => entry,
    secrets: () => [password, ...(typeof token === 'string' ? [token] : [])],
    async send(request) {
      const body = request.body ? await request.arrayBuffer() : undefined
      const used = await currentToken()
      const response = await sendWith(request, body, used)
      if (response.status !== 401) return response
      // Only the first caller to see this token refused drops it; the others reuse the new one.
      if (token === used) token = undefined
      discard(response)
      return sendWith(request, body, await currentToken())
    },
  }
}

async function fetchOrWrap(doFetch: Transport, request: Request, secrets: string[]) {
  try {
    return await doFetch(request)
  } catch (error) {
    // Timeouts and refused redirects are already typed and say what to do.
    if (error instanceof TimelineSheetsError) throw error
    const detail = redactUserInfo(redactSecrets(error instanceof Error ? error.message : String(error), secrets))
    throw new TimelineSheetsError('TS_NETWORK', `${request.method} ${redactUrl(request.url)} failed before an answer: ${detail}`, {
      cause: error,
      hint: 'Check the server URL and that the Timeline server is reachable.',
    })
  }
}

async function readJson(response: Response, url: string): Promise<unknown> {
  const text = await response.text()
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new TimelineSheetsError('TS_RESPONSE_INVALID', `Unexpected response from ${redactUrl(url)}: (body) expected JSON`, {
      cause,
    })
  }
}

// Frees the connection without waiting: a cancel can stall while a clone of the body is unread.
function discard(response: Response): void {
  response.body?.cancel().catch(() => {})
}

/** A sign-in that sends requests as they are (servers without authentication, tests). */
export function noSignIn(options: { entryUrl: string; fetch?: Transport }): SignIn {
  const doFetch = options.fetch ?? createTransport()
  return {
    mode: 'none',
    entryUrl: async () => options.entryUrl,
    send: (request) => doFetch(request),
    secrets: () => [],
  }
}
