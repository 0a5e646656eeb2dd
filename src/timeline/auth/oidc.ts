/**
 * What the cloud sign-in (`cloud.ts`) and the login (`login.ts`) share:
 * discovery with the loopback opt-in, and the one mapping from openid-client
 * failures to `TimelineSheetsError`s (as openid-client's own errorHandler does).
 */
import * as client from 'openid-client'
import { TimelineSheetsError, redactSecrets } from '../../errors.ts'
import { isFetchFailure } from '../../http/fetch-failure.ts'
import { asFetch, createTransport, type Transport } from '../../http/transport.ts'
import { LOGIN_HINT } from '../../state/cloud-token-file.ts'

/** Options that identify the cloud login server and this client at it. */
export interface CloudClientOptions {
  /** OpenID issuer, e.g. `https://login.manictime.com`; must equal the issuer the server names. */
  authority: string
  /** Cloud API base, e.g. `https://api.manictime.com`; the profile is at `{apiUrl}/v1/profile`. */
  apiUrl: string
  clientId: string
  clientSecret: string
  /**
   * How the client authenticates at the token endpoint: form fields (`post`)
   * or an HTTP Basic header (`basic`).
   * @default 'post'
   */
  clientAuth?: 'post' | 'basic'
  /** Path of the token file (refresh token, mode 0600). */
  tokenFile: string
  /** Vendor token; the API scope is `<vendor>api`. @default 'manictime' */
  vendor?: string
  /**
   * Allows plain `http://` for loopback hosts (127.0.0.0/8, ::1, localhost)
   * only: for the bundled reference server and tests. Any other `http://`
   * URL is refused whatever this says.
   * @default false
   */
  allowInsecureLoopback?: boolean
  /** Seconds before openid-client gives up on one request. @default 30 */
  timeoutSeconds?: number
  /**
   * The way to the network for discovery, token and refresh calls and the
   * cloud API: its limits, and no redirect to another origin.
   * @default a transport with the default limits
   */
  transport?: Transport
}

/** True when the URL's host is a loopback address or `localhost`. */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * Parses a configured URL and refuses plain http unless it is loopback and
 * the operator opted in. `setting` names the config key for the message.
 */
export function checkedUrl(raw: string, setting: string, allowInsecureLoopback: boolean | undefined): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `${setting} is not a URL: ${JSON.stringify(raw)}`)
  }
  if (url.protocol === 'https:') return url
  if (url.protocol !== 'http:') {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `${setting} must be an https URL, got ${url.protocol}`)
  }
  if (!isLoopbackUrl(url)) {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `${setting} uses plain http for ${url.host}; only https is allowed`, {
      hint: 'Use the https address of the service. Plain http is allowed only for 127.0.0.1 (the reference server).',
    })
  }
  if (!allowInsecureLoopback) {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `${setting} uses plain http (${url.host})`, {
      hint: 'Plain http is allowed only for loopback test servers, and only with the allowInsecureLoopback option.',
    })
  }
  return url
}

/** Discovers the provider and returns the openid-client configuration for this client. */
export async function discoverCloudConfiguration(options: CloudClientOptions): Promise<client.Configuration> {
  const issuer = checkedUrl(options.authority, 'authority', options.allowInsecureLoopback)
  const clientAuth =
    (options.clientAuth ?? 'post') === 'basic'
      ? client.ClientSecretBasic(options.clientSecret)
      : client.ClientSecretPost(options.clientSecret)
  const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : []
  let config: client.Configuration
  try {
    config = await client.discovery(issuer, options.clientId, undefined, clientAuth, {
      execute,
      timeout: options.timeoutSeconds ?? 30,
      // oauth4webapi asks for redirect: 'manual' already; the transport adds the timeouts.
      [client.customFetch]: asFetch(options.transport ?? createTransport()) as client.CustomFetch,
    })
  } catch (error) {
    throw oidcFailure(error, `OpenID discovery at ${issuer.origin}`, [options.clientSecret])
  }
  if (options.timeoutSeconds !== undefined) config.timeout = options.timeoutSeconds
  return config
}

/**
 * Maps an openid-client (or fetch) failure during `action` to a
 * TimelineSheetsError. invalid_grant means the refresh token or code is dead:
 * the user must log in again.
 */
export function oidcFailure(error: unknown, action: string, secrets: Array<string | undefined>): TimelineSheetsError {
  if (error instanceof TimelineSheetsError) return error
  const clean = (text: string) => redactSecrets(text, secrets)
  if (error instanceof client.ResponseBodyError) {
    const description = error.error_description ? ` (${clean(error.error_description)})` : ''
    if (error.error === 'invalid_grant') {
      return new TimelineSheetsError(
        'TS_AUTH_REQUIRED',
        `${action} was refused: the sign-in has expired or was revoked (invalid_grant${description})`,
        { hint: LOGIN_HINT },
      )
    }
    if (error.error === 'invalid_client' || error.error === 'unauthorized_client') {
      return new TimelineSheetsError('TS_AUTH_FAILED', `${action} was refused: the client credentials were not accepted (${error.error})`, {
        hint: 'Check the client id, the client secret and the client authentication method (post or basic) registered for this client.',
      })
    }
    return new TimelineSheetsError('TS_AUTH_FAILED', `${action} failed: ${error.error}${description} (HTTP ${error.status})`)
  }
  if (error instanceof client.AuthorizationResponseError) {
    const description = error.error_description ? ` (${clean(error.error_description)})` : ''
    return new TimelineSheetsError('TS_AUTH_FAILED', `${action} was refused by the login server: ${error.error}${description}`, {
      hint: 'Sign in again and allow the access the tool asks for.',
    })
  }
  if (error instanceof client.ClientError) {
    if (error.code === 'OAUTH_TIMEOUT') {
      return new TimelineSheetsError('TS_NETWORK', `${action} timed out`, { hint: 'Check the network and the authority URL.' })
    }
    const reason = error.cause instanceof Error ? `: ${clean(error.cause.message)}` : ''
    return new TimelineSheetsError('TS_AUTH_FAILED', `${action} failed: ${clean(error.message)}${reason}`)
  }
  if (isFetchFailure(error)) {
    const cause = error.cause as { code?: string } | undefined
    return new TimelineSheetsError('TS_NETWORK', `${action} failed: cannot connect${cause?.code ? ` (${cause.code})` : ''}`, {
      hint: 'Check the network and the authority URL.',
    })
  }
  return new TimelineSheetsError('TS_INTERNAL', `${action} failed: ${clean(error instanceof Error ? error.message : String(error))}`)
}
