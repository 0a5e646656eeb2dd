/**
 * Sign-in to Google Sheets, each way giving an `OAuth2Client` that
 * googleapis uses as is: a service-account key file (our own JWT-bearer
 * exchange, because google-auth-library ignores the key's `token_uri`), the
 * installed-app OAuth flow for people running the tool by hand (PKCE, state,
 * loopback redirect, refresh token kept in an owner-only file), and a static
 * token for tests and the fake. Application default credentials, which end in
 * one of these or in a client of google-auth-library's own, are `adc.ts`.
 *
 * Longer than most files because the sign-ins share the token file, the transport and the error wording;
 * each is one section.
 */
import { randomBytes } from 'node:crypto'
import { CodeChallengeMethod, OAuth2Client, type OAuth2ClientOptions } from 'google-auth-library'
import { importPKCS8, SignJWT } from 'jose'
import { z } from 'zod'
import { HttpError, TimelineSheetsError } from '../../errors.ts'
import { readCredentialFile } from '../../config/credential-file.ts'
import { readStoredToken, writeStoredToken, type StoredToken } from '../../state/google-token-file.ts'
import type { LoopbackCallbackOptions } from '../../http/loopback-callback.ts'
import { asFetch, createTransport, type Transport } from '../../http/transport.ts'

/** The scope every sign-in asks for; `sync --watch` adds the read-only Drive metadata scope (drive-version.ts). */
export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets'

/** Google's OAuth token endpoint, where refresh tokens are redeemed. */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'
const GOOGLE_AUTH_URL = 'https://accounts.google.com/o/oauth2/v2/auth'

/** A signed-in Google identity, ready for googleapis. */
export interface GoogleSignIn {
  readonly mode: 'service-account' | 'installed-app' | 'authorized-user' | 'external-account' | 'metadata-server' | 'static-token'
  /** Pass as `auth` to googleapis. */
  readonly client: OAuth2Client
  /** The e-mail a spreadsheet must be shared with (service account), when known. */
  readonly principal: string | undefined
  /** Strings that must never reach a log or a message (tokens, keys, client secrets). */
  secrets(): string[]
}

/** Test seam for HTTP calls made outside googleapis (the service-account token request). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

// ---------------------------------------------------------------- static token

/**
 * An OAuth2Client whose token calls (refresh, code exchange) go through the
 * transport (its limits; a token request never follows a redirect) and are
 * not repeated by gaxios: the one retry policy repeats the call they serve.
 */
export function oauthClient(transport: Transport | undefined, options: OAuth2ClientOptions = {}): OAuth2Client {
  const client = new OAuth2Client({ ...options, transporterOptions: { fetchImplementation: asFetch(transport ?? createTransport()) } })
  withoutLibraryRetries(client.transporter)
  return client
}

/** Turns gaxios' own retries off for every request of this instance (the one retry policy is src/http/retry.ts). */
export function withoutLibraryRetries(transporter: OAuth2Client['transporter']): void {
  transporter.interceptors.request.add({
    resolved: async (request) => ({ ...request, retryConfig: { ...request.retryConfig, retry: 0, noResponseRetries: 0 } }),
  })
}

/** A fixed access token, for tests and the Sheets fake. */
export function signInWithStaticToken(accessToken: string, transport?: Transport): GoogleSignIn {
  const client = oauthClient(transport)
  client.setCredentials({ access_token: accessToken, token_type: 'Bearer' })
  // Without a refresh token googleapis uses the token until the server refuses it.
  return { mode: 'static-token', client, principal: undefined, secrets: () => [accessToken] }
}

// ------------------------------------------------------------- service account

/** The fields of a service-account key file timeline-sheets uses. */
export const serviceAccountKeySchema = z.object({
  type: z.literal('service_account'),
  client_email: z.string().email(),
  private_key: z.string().includes('PRIVATE KEY', { message: 'must be a PEM private key' }),
  private_key_id: z.string().min(1),
  token_uri: z.string().url(),
})

export type ServiceAccountKey = z.infer<typeof serviceAccountKeySchema>

/** Validates a parsed key file; `source` (a path) is named in the error. */
export function parseServiceAccountKey(json: unknown, source: string): ServiceAccountKey {
  const result = serviceAccountKeySchema.safeParse(json)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const field = issue?.path.join('.') || '(file)'
  return invalidKey(source, `field "${field}" ${issue?.message ?? 'is invalid'}`)
}

/** Refuses a key (or credentials) file, naming it and what is wrong. */
export function invalidKey(source: string, problem: string): never {
  throw new TimelineSheetsError('TS_CONFIG_INVALID', `The Google service-account key file ${source} is not usable: ${problem}`, {
    hint: 'Download a new JSON key for the service account (Google Cloud console → IAM → Service accounts → Keys) and point the config at it.',
  })
}

/** Reads and validates a service-account key file. */
export async function loadServiceAccountKey(file: string): Promise<ServiceAccountKey> {
  const read = await readCredentialFile(file)
  if (read.kind === 'unreadable') {
    throw new TimelineSheetsError('TS_CONFIG_NOT_FOUND', `Cannot read the Google service-account key file ${file}: ${read.code}`, {
      hint: 'Check the path in the config (or GOOGLE_APPLICATION_CREDENTIALS) and that this user may read the file.',
    })
  }
  if (read.kind === 'not-json') return invalidKey(file, 'it is not JSON')
  return parseServiceAccountKey(read.json, file)
}

/** The signed JWT-bearer assertion for a key: RS256, `aud` = the key's `token_uri`, valid one hour. */
export async function buildJwtAssertion(
  key: ServiceAccountKey,
  nowSeconds: number,
  source = 'the key',
  scopes: readonly string[] = [SHEETS_SCOPE],
): Promise<string> {
  let privateKey: CryptoKey
  try {
    privateKey = await importPKCS8(key.private_key, 'RS256')
  } catch {
    return invalidKey(source, 'field "private_key" is not a PKCS#8 RSA private key')
  }
  return new SignJWT({ scope: scopes.join(' ') })
    .setProtectedHeader({ alg: 'RS256', kid: key.private_key_id })
    .setIssuer(key.client_email)
    .setAudience(key.token_uri)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + 3600)
    .sign(privateKey)
}

const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().positive().optional(),
  token_type: z.string().optional(),
})

export interface AccessToken {
  access_token: string
  expiry_date: number
}

export interface ServiceAccountOptions {
  /** The way to the network for the token request. @default a transport with the default limits */
  transport?: Transport
  /** Test seam; wins over `transport`. */
  fetch?: FetchLike
  now?: () => number
  /** Where the key came from, for messages. */
  source?: string
  /** The scopes asked for. @default [SHEETS_SCOPE] */
  scopes?: readonly string[]
}

/** One JWT-bearer token request to the key's `token_uri`. */
export async function requestServiceAccountToken(key: ServiceAccountKey, options: ServiceAccountOptions = {}): Promise<AccessToken> {
  const now = options.now ?? Date.now
  const fetchImpl: FetchLike = options.fetch ?? asFetch(options.transport ?? createTransport())
  const source = options.source ?? `the key of ${key.client_email}`
  const assertion = await buildJwtAssertion(key, Math.floor(now() / 1000), source, options.scopes)
  let response: Response
  try {
    response = await fetchImpl(key.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    })
  } catch (error) {
    // A timeout or a refused redirect says itself what happened, and where.
    if (error instanceof TimelineSheetsError) throw error
    throw new TimelineSheetsError('TS_NETWORK', `Cannot reach the Google token endpoint ${key.token_uri}: ${(error as Error).message}`, {
      hint: 'Check the network connection and the token_uri in the key file.',
    })
  }
  // A body that times out or breaks off fails the request; only one that is not JSON is read as no body.
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  if (!response.ok) {
    const oauth = z.object({ error: z.string(), error_description: z.string().optional() }).safeParse(body)
    const what = oauth.success
      ? `${oauth.data.error}${oauth.data.error_description ? `: ${oauth.data.error_description}` : ''}`
      : `HTTP ${response.status}`
    if (response.status === 429 || response.status >= 500) {
      throw new HttpError(
        {
          status: response.status,
          method: 'POST',
          url: key.token_uri,
          data: body,
          code: 'TS_AUTH_FAILED',
          message: `The Google token endpoint answered ${what}`,
        },
        { hint: 'Google sign-in is having trouble; run again later.' },
      )
    }
    throw new TimelineSheetsError(
      'TS_AUTH_FAILED',
      `Google refused the service-account key ${key.private_key_id} of ${key.client_email} (${source}): ${what}`,
      {
        hint:
          oauth.success && oauth.data.error === 'invalid_grant'
            ? "The key was deleted or disabled, or this computer's clock is wrong. Check the clock, or create a new key for the service account."
            : 'Check the service-account key file and that the account still exists.',
      },
    )
  }
  const parsed = tokenResponseSchema.safeParse(body)
  if (!parsed.success) {
    throw new TimelineSheetsError('TS_RESPONSE_INVALID', `The Google token endpoint ${key.token_uri} answered without an access_token`, {
      hint: 'Check the token_uri in the key file.',
    })
  }
  return { access_token: parsed.data.access_token, expiry_date: now() + (parsed.data.expires_in ?? 3600) * 1000 }
}

/**
 * Signs in with a service-account key. googleapis calls our token request
 * whenever it has no token or the token is about to expire.
 */
export function signInWithServiceAccount(key: ServiceAccountKey, options: ServiceAccountOptions = {}): GoogleSignIn {
  const client = oauthClient(options.transport)
  const issued: string[] = []
  client.refreshHandler = async () => {
    const token = await requestServiceAccountToken(key, options)
    issued.push(token.access_token)
    return token
  }
  return {
    mode: 'service-account',
    client,
    principal: key.client_email,
    secrets: () => [key.private_key, ...issued, ...(client.credentials.access_token ? [client.credentials.access_token] : [])],
  }
}

/** Reads a key file and signs in with it. */
export async function signInWithServiceAccountFile(file: string, options: ServiceAccountOptions = {}): Promise<GoogleSignIn> {
  const key = await loadServiceAccountKey(file)
  return signInWithServiceAccount(key, { ...options, source: options.source ?? file })
}

// ------------------------------------------------------------- installed app

export interface InstalledAppOptions {
  clientId: string
  clientSecret: string
  /** Where the refresh token is kept (mode 0600). */
  tokenFile: string
  /** Opens the consent page; tests pass a scripted browser. */
  openBrowser: (url: string) => Promise<void>
  /** Override Google's endpoints (tests: the fake's). */
  endpoints?: { authorizationUrl?: string; tokenUrl?: string }
  /** Loopback port for the redirect; 0 picks a free one. @default 0 */
  port?: number
  /** How long to wait for the browser to come back. @default 300_000 */
  timeoutMs?: number
  /** Run the browser flow when no token is stored. @default true */
  interactive?: boolean
  /** The way to the network for token calls. @default a transport with the default limits */
  transport?: Transport
  /** The scopes the browser sign-in asks consent for. @default [SHEETS_SCOPE] */
  scopes?: readonly string[]
}

function installedClient(options: InstalledAppOptions, redirectUri?: string): OAuth2Client {
  return oauthClient(options.transport, {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    ...(redirectUri ? { redirectUri } : {}),
    endpoints: {
      oauth2TokenUrl: options.endpoints?.tokenUrl ?? GOOGLE_TOKEN_URL,
      oauth2AuthBaseUrl: options.endpoints?.authorizationUrl ?? GOOGLE_AUTH_URL,
    },
  })
}

/** A sign-in that redeems a refresh token (stored by `login --google`, or gcloud's `authorized_user` file). */
export function refreshTokenSignIn(
  mode: 'installed-app' | 'authorized-user',
  client: OAuth2Client,
  refreshToken: string,
  clientSecret: string,
): GoogleSignIn {
  client.setCredentials({ refresh_token: refreshToken })
  return {
    mode,
    client,
    principal: undefined,
    secrets: () => [refreshToken, clientSecret, ...(client.credentials.access_token ? [client.credentials.access_token] : [])],
  }
}

/**
 * Installed-app sign-in: uses the stored refresh token when there is one for
 * this client, else (when `interactive`) runs the browser flow and stores it.
 */
export async function signInWithInstalledApp(options: InstalledAppOptions): Promise<GoogleSignIn> {
  const stored = await readStoredToken(options.tokenFile)
  // A token granted before a scope was asked for (the config's google.watch set later) cannot call what it needs.
  const lacking = (options.scopes ?? []).filter((scope) => stored?.scope !== undefined && !stored.scope.split(' ').includes(scope))
  if (stored && stored.client_id === options.clientId && lacking.length === 0) {
    return refreshTokenSignIn('installed-app', installedClient(options), stored.refresh_token, options.clientSecret)
  }
  if (stored && lacking.length > 0 && options.interactive === false) {
    throw new TimelineSheetsError(
      'TS_AUTH_REQUIRED',
      `The Google sign-in stored in ${options.tokenFile} was not granted ${lacking.join(' ')}`,
      {
        hint: "Run `timeline-sheets login --google` again and allow the access it asks for (the config's google.watch asks to see the spreadsheet's version).",
      },
    )
  }
  if (options.interactive === false) {
    throw new TimelineSheetsError('TS_AUTH_REQUIRED', `No Google sign-in is stored in ${options.tokenFile}`, {
      hint: 'Run `timeline-sheets login` once on a machine with a browser, or use a service-account key for unattended runs.',
    })
  }
  return loginWithInstalledApp(options)
}

/** The browser flow: PKCE S256 + state, redirect to `http://127.0.0.1:<port>/`, refresh token stored 0600. */
export async function loginWithInstalledApp(options: InstalledAppOptions): Promise<GoogleSignIn> {
  const state = randomBytes(24).toString('base64url')
  // Loaded here: node:http, imported as a module, builds its whole facade (undici's WebSocket included), tens of
  // ms of every run's start-up that only a browser sign-in needs.
  const { listenForCallback } = await import('../../http/loopback-callback.ts')
  const callback = await listenForCallback({
    url: new URL(`http://127.0.0.1:${options.port ?? 0}/`),
    state,
    timeoutMs: options.timeoutMs ?? 300_000,
    errors: googleCallbackErrors(options.port ?? 0, options.timeoutMs ?? 300_000),
    pages: {
      refused: 'Sign-in refused: the answer does not belong to this login. Close this window and run the login again.',
      finished: 'This sign-in has already finished. You can close this window.',
      failed: 'Sign-in was not completed. You can close this window.',
    },
  })
  try {
    const redirectUri = `http://127.0.0.1:${callback.port}/`
    const client = installedClient(options, redirectUri)
    const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync()
    const url = client.generateAuthUrl({
      access_type: 'offline',
      prompt: 'consent',
      scope: [...(options.scopes ?? [SHEETS_SCOPE])],
      state,
      code_challenge: codeChallenge,
      code_challenge_method: CodeChallengeMethod.S256,
    })
    // Handed over, not awaited: a browser (or a test's) may wait for the callback's page, which comes after the exchange.
    options.openBrowser(url).catch((error: unknown) => callback.fail(error))
    const answer = await callback.url
    const error = answer.searchParams.get('error')
    if (error) {
      throw new TimelineSheetsError('TS_AUTH_FAILED', `Google sign-in ended with ${error}`, {
        hint:
          error === 'access_denied'
            ? 'Consent was declined. Run `timeline-sheets login` again and allow access to Google Sheets.'
            : 'Run `timeline-sheets login` again.',
      })
    }
    const code = answer.searchParams.get('code')!
    let tokens
    try {
      ;({ tokens } = await client.getToken({ code, codeVerifier, redirect_uri: redirectUri }))
    } catch (error) {
      const data = (error as { response?: { data?: { error?: string; error_description?: string } } }).response?.data
      throw new TimelineSheetsError(
        'TS_AUTH_FAILED',
        `Google refused the sign-in code: ${data?.error ?? (error as Error).message}${data?.error_description ? `: ${data.error_description}` : ''}`,
        {
          hint: 'Run `timeline-sheets login` again and finish the consent within a few minutes.',
        },
      )
    }
    if (!tokens.refresh_token) {
      throw new TimelineSheetsError('TS_AUTH_FAILED', 'Google signed in but gave no refresh token', {
        hint: 'Remove timeline-sheets from https://myaccount.google.com/permissions and run `timeline-sheets login` again.',
      })
    }
    const record: StoredToken = {
      type: 'authorized_user',
      client_id: options.clientId,
      refresh_token: tokens.refresh_token,
      ...(tokens.scope ? { scope: tokens.scope } : {}),
    }
    await writeStoredToken(options.tokenFile, record)
    callback.answer(200, 'Signed in to Google Sheets. You can close this window.')
    client.setCredentials(tokens)
    return {
      mode: 'installed-app',
      client,
      principal: undefined,
      secrets: () => [
        record.refresh_token,
        options.clientSecret,
        ...(client.credentials.access_token ? [client.credentials.access_token] : []),
      ],
    }
  } finally {
    await callback.close()
  }
}

const googleCallbackErrors = (port: number, timeoutMs: number): LoopbackCallbackOptions['errors'] => ({
  listen: (errno) =>
    new TimelineSheetsError(
      'TS_AUTH_FAILED',
      `Cannot listen for the Google sign-in's callback on 127.0.0.1:${port}${errno ? ` (${errno})` : ''}`,
      {
        hint: 'Another program uses that port. Free it, or choose another port for the login.',
      },
    ),
  wrongState: () =>
    new TimelineSheetsError('TS_AUTH_FAILED', 'The Google sign-in answer carried a wrong state', {
      hint: 'Another sign-in was in progress, or the redirect was forged. Run `timeline-sheets login` again.',
    }),
  timeout: () =>
    new TimelineSheetsError('TS_AUTH_FAILED', `No answer from the browser within ${Math.round(timeoutMs / 1000)} s`, {
      hint: 'Run `timeline-sheets login` again and complete the consent in the browser window it opens.',
    }),
})
