/**
 * Cloud sign-in: OpenID Connect tokens from the token file that
 * `timeline-sheets login` wrote, refreshed before they expire and after a 401.
 * Refresh tokens rotate, so a refresh is single-flight inside the process and
 * holds a lock file across processes, and each new refresh token is saved
 * atomically before it is used.
 */
import * as client from 'openid-client'
import { z } from 'zod'
import { HttpError, ResponseShapeError, TimelineSheetsError } from '../../errors.ts'
import { createTransport } from '../../http/transport.ts'
import { vendorIdentifiers } from '../vendor.ts'
import { withLock, type LockOptions } from '../../state/lock.ts'
import { checkedUrl, discoverCloudConfiguration, oidcFailure, type CloudClientOptions } from './oidc.ts'
import type { SignIn } from './sign-in.ts'
import { LOGIN_HINT, readTokenFile, writeTokenFile, type TokenFile } from '../../state/cloud-token-file.ts'

export type { CloudClientOptions } from './oidc.ts'

export interface CloudSignInOptions extends CloudClientOptions {
  /** Refresh this many seconds before the access token expires. @default 60 */
  refreshMarginSeconds?: number
  /** Lock file settings for the cross-process refresh lock (`<tokenFile>.lock`). */
  lock?: Pick<LockOptions, 'waitMs' | 'ttlMs' | 'pollMs'>
  /** Clock, injected in tests. @default Date.now */
  now?: () => number
}

/** A cloud `SignIn`, plus the access token for callers that need it directly. */
export interface CloudSignIn extends SignIn {
  readonly mode: 'cloud'
  /** A valid access token, refreshed when needed. */
  accessToken(): Promise<string>
}

// The refresh waits for another process's refresh (30 s) and holds for at most a minute: a refresh takes seconds.
const REFRESH_LOCK: LockOptions = { command: 'token refresh', waitMs: 30_000, ttlMs: 60_000, setting: 'timeline.auth.tokenFile' }

const profileSchema = z.object({
  serverUrl: z.string(),
  license: z.string().optional(),
  links: z.array(z.object({ rel: z.string(), url: z.string().optional(), href: z.string().optional() })).optional(),
})

interface CurrentToken {
  accessToken: string
  expiresAt: number
}

/**
 * Signs in to the cloud service with the stored refresh token.
 *
 * @example
 * const signIn = cloudSignIn({ authority: 'https://login.manictime.com', apiUrl: 'https://api.manictime.com',
 *   clientId, clientSecret, tokenFile: '~/.config/timeline-sheets/cloud-token.json' })
 * const home = await signIn.send(new Request(await signIn.entryUrl()))
 */
export function cloudSignIn(options: CloudSignInOptions): CloudSignIn {
  const apiUrl = checkedUrl(options.apiUrl, 'apiUrl', options.allowInsecureLoopback)
  checkedUrl(options.authority, 'authority', options.allowInsecureLoopback)
  const vendor = vendorIdentifiers(options.vendor)
  const marginMs = (options.refreshMarginSeconds ?? 60) * 1000
  const now = options.now ?? Date.now
  const lockPath = `${options.tokenFile}.lock`
  // One transport for the API calls and openid-client's, so both keep the same limits.
  const transport = options.transport ?? createTransport()
  const clientOptions: CloudClientOptions = { ...options, transport }

  let configuration: Promise<client.Configuration> | undefined
  let current: CurrentToken | undefined
  let refreshToken: string | undefined
  let inflight: Promise<string> | undefined
  let entry: Promise<string> | undefined
  // Origins the bearer token may go to: the API and, once known, the data server.
  const tokenOrigins = new Set([apiUrl.origin])

  const getConfiguration = () => {
    configuration ??= discoverCloudConfiguration(clientOptions).catch((error: unknown) => {
      configuration = undefined
      throw error
    })
    return configuration
  }

  const usable = (token: CurrentToken | undefined, rejected?: string): token is CurrentToken =>
    token !== undefined && token.accessToken !== rejected && token.expiresAt - marginMs > now()

  const refresh = (rejected?: string): Promise<string> => {
    inflight ??= withLock(lockPath, { ...REFRESH_LOCK, ...options.lock }, () => refreshLocked(rejected)).finally(() => {
      inflight = undefined
    })
    return inflight
  }

  // Runs under the lock: another process may have refreshed meanwhile, so the file is read again.
  const refreshLocked = async (rejected: string | undefined): Promise<string> => {
    const stored = await readStored()
    const fromFile =
      stored.accessToken && stored.accessTokenExpiresAt !== undefined
        ? { accessToken: stored.accessToken, expiresAt: stored.accessTokenExpiresAt }
        : undefined
    refreshToken = stored.refreshToken
    if (usable(fromFile, rejected)) {
      current = fromFile
      return fromFile.accessToken
    }
    const config = await getConfiguration()
    let tokens: Awaited<ReturnType<typeof client.refreshTokenGrant>>
    try {
      tokens = await client.refreshTokenGrant(config, stored.refreshToken)
    } catch (error) {
      throw oidcFailure(error, `Refreshing the cloud access token at ${config.serverMetadata().issuer}`, secrets())
    }
    const issuedAt = now()
    const next: TokenFile = {
      ...stored,
      // Providers that do not rotate send no new refresh token: keep the old one.
      refreshToken: tokens.refresh_token ?? stored.refreshToken,
      accessToken: tokens.access_token,
      accessTokenExpiresAt: issuedAt + (tokens.expiresIn() ?? 3600) * 1000,
      scope: tokens.scope ?? stored.scope,
      updatedAt: new Date(issuedAt).toISOString(),
    }
    await writeTokenFile(options.tokenFile, next)
    refreshToken = next.refreshToken
    current = { accessToken: tokens.access_token, expiresAt: next.accessTokenExpiresAt! }
    return tokens.access_token
  }

  const readStored = async (): Promise<TokenFile> => {
    const stored = await readTokenFile(options.tokenFile)
    if (!stored) {
      throw new TimelineSheetsError('TS_AUTH_REQUIRED', `No cloud sign-in found: the token file ${options.tokenFile} does not exist`, {
        hint: LOGIN_HINT,
      })
    }
    if (stripSlash(stored.issuer) !== stripSlash(options.authority) || stored.clientId !== options.clientId) {
      throw new TimelineSheetsError(
        'TS_AUTH_REQUIRED',
        `The token file ${options.tokenFile} was written for another login server or client (${stored.issuer}, client ${stored.clientId})`,
        { hint: LOGIN_HINT },
      )
    }
    return stored
  }

  const accessToken = async (): Promise<string> => (usable(current) ? current.accessToken : refresh())

  const send = async (request: Request): Promise<Response> => {
    const origin = new URL(request.url).origin
    if (!tokenOrigins.has(origin)) {
      throw new TimelineSheetsError('TS_UNSAFE_TOKEN_LINK', `Refusing to send the cloud access token to ${origin}`, {
        hint: `Only ${[...tokenOrigins].join(' and ')} receive the token. Check apiUrl and the profile's serverUrl.`,
      })
    }
    const replay = request.clone()
    const token = await accessToken()
    const first = await transport(withBearer(request, token))
    if (first.status !== 401) return first
    await first.body?.cancel()
    return transport(withBearer(replay, await refresh(token)))
  }

  const secrets = () => [options.clientSecret, current?.accessToken, refreshToken].filter((s): s is string => !!s)

  const loadEntryUrl = async (): Promise<string> => {
    const url = new URL('v1/profile', withSlash(apiUrl.href)).href
    const response = await send(new Request(url, { headers: { accept: `application/json, ${vendor.mediaType}` } }))
    const text = await response.text()
    if (!response.ok) {
      throw new HttpError(
        { status: response.status, method: 'GET', url, data: text, code: response.status === 401 ? 'TS_AUTH_REQUIRED' : 'TS_HTTP' },
        { hint: response.status === 401 ? LOGIN_HINT : 'Check apiUrl in the configuration.' },
      )
    }
    const serverUrl = parseServerUrl(url, text, options.allowInsecureLoopback)
    tokenOrigins.add(new URL(serverUrl).origin)
    return `${serverUrl}api`
  }

  return {
    mode: 'cloud',
    entryUrl: () => {
      entry ??= loadEntryUrl().catch((error: unknown) => {
        entry = undefined
        throw error
      })
      return entry
    },
    send,
    secrets,
    accessToken,
  }
}

/** Reads `serverUrl` from a profile response body; it may carry a path and always ends in `/` afterwards. */
export function parseServerUrl(profileUrl: string, body: string, allowInsecureLoopback?: boolean): string {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    throw new ResponseShapeError(profileUrl, 'body', 'is not JSON')
  }
  const parsed = profileSchema.safeParse(json)
  if (!parsed.success) throw new ResponseShapeError(profileUrl, 'serverUrl', 'is missing or not a string')
  let serverUrl: URL
  try {
    serverUrl = checkedUrl(parsed.data.serverUrl, 'the profile serverUrl', allowInsecureLoopback)
  } catch (error) {
    if (error instanceof TimelineSheetsError && error.code === 'TS_CONFIG_INVALID') {
      throw new ResponseShapeError(profileUrl, 'serverUrl', `is not acceptable: ${error.message}`)
    }
    throw error
  }
  return withSlash(serverUrl.href)
}

function withBearer(request: Request, token: string): Request {
  const headers = new Headers(request.headers)
  headers.set('authorization', `Bearer ${token}`)
  return new Request(request, { headers })
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
