/**
 * `timeline-sheets login` for the cloud: authorization code flow with PKCE
 * (S256), state and nonce, a loopback callback listener, and the token file
 * as the result. The browser is injected: the CLI opens a real one, tests
 * pass a scripted one.
 */
import * as client from 'openid-client'
import { TimelineSheetsError } from '../../errors.ts'
import { listenForCallback } from '../../http/loopback-callback.ts'
import { vendorIdentifiers } from '../vendor.ts'
import { discoverCloudConfiguration, isLoopbackUrl, oidcFailure, type CloudClientOptions } from './oidc.ts'
import { writeTokenFile } from '../../state/cloud-token-file.ts'

/** Where the login server sends the browser back to, as the cloud's own client does. */
export const DEFAULT_CALLBACK_URL = 'http://127.0.0.1:4040'

export interface CloudLoginOptions extends CloudClientOptions {
  /**
   * Loopback URL the callback listener binds to; must be registered with the
   * client. Port 0 picks a free port (tests).
   * @default 'http://127.0.0.1:4040'
   */
  callbackUrl?: string
  /** Opens the authorization URL in a browser. Resolves once it has been handed over. */
  openBrowser: (url: string) => Promise<void>
  /** How long to wait for the browser to come back. @default 300_000 */
  timeoutMs?: number
}

export interface CloudLoginResult {
  tokenFile: string
  /** `sub` of the ID token: who signed in. */
  subject: string | undefined
  /** Granted scopes as the token endpoint echoed them. */
  scope: string | undefined
  /** Epoch milliseconds when the first access token expires. */
  accessTokenExpiresAt: number
}

/**
 * Runs the browser login and writes the token file.
 *
 * @example
 * await runCloudLogin({ authority, apiUrl, clientId, clientSecret, tokenFile, openBrowser: (url) => open(url) })
 */
export async function runCloudLogin(options: CloudLoginOptions): Promise<CloudLoginResult> {
  const configured = (options.callbackUrl ?? DEFAULT_CALLBACK_URL).trim()
  const callback = checkedCallbackUrl(configured)
  const config = await discoverCloudConfiguration(options)
  const scope = `openid profile ${vendorIdentifiers(options.vendor).scope} offline_access`
  const verifier = client.randomPKCECodeVerifier()
  const challenge = await client.calculatePKCECodeChallenge(verifier)
  const state = client.randomState()
  const nonce = client.randomNonce()
  const timeoutMs = options.timeoutMs ?? 300_000

  let redirectUri = ''

  const exchange = async (currentUrl: URL): Promise<CloudLoginResult> => {
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>
    try {
      tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      })
    } catch (error) {
      throw oidcFailure(error, `The cloud login at ${config.serverMetadata().issuer}`, [options.clientSecret])
    }
    if (!tokens.refresh_token) {
      throw new TimelineSheetsError('TS_AUTH_FAILED', 'The login server issued no refresh token', {
        hint: 'The client must be allowed the refresh_token grant and the offline_access scope.',
      })
    }
    const accessTokenExpiresAt = Date.now() + (tokens.expiresIn() ?? 3600) * 1000
    const subject = tokens.claims()?.sub
    await writeTokenFile(options.tokenFile, {
      version: 1,
      issuer: options.authority,
      clientId: options.clientId,
      refreshToken: tokens.refresh_token,
      accessToken: tokens.access_token,
      accessTokenExpiresAt,
      scope: tokens.scope,
      subject,
      updatedAt: new Date().toISOString(),
    })
    return { tokenFile: options.tokenFile, subject, scope: tokens.scope, accessTokenExpiresAt }
  }

  const receiver = await listenForCallback({
    url: callback,
    state,
    timeoutMs,
    errors: {
      listen: (errno) =>
        new TimelineSheetsError('TS_AUTH_FAILED', `Cannot listen for the login callback on ${callback.host}${errno ? ` (${errno})` : ''}`, {
          hint: 'Another program uses that port. Free it, or register and configure another callbackUrl.',
        }),
      wrongState: () =>
        new TimelineSheetsError(
          'TS_AUTH_FAILED',
          `The login callback at ${callback.origin} carried a state that this login did not send; refused`,
          {
            hint: 'Run `timeline-sheets login` again and finish it in the browser window it opens.',
          },
        ),
      timeout: () =>
        new TimelineSheetsError('TS_ABORTED', `No login callback arrived at ${redirectUri} within ${Math.round(timeoutMs / 1000)} s`, {
          hint: `Run \`timeline-sheets login\` again and finish the sign-in in the browser. If the login page refused the redirect_uri, register ${redirectUri} for the client exactly as written, or set callbackUrl to the one registered.`,
        }),
    },
    pages: { refused: 'Login error', finished: 'Login error: this login has already finished.', failed: 'Login error' },
  })
  try {
    redirectUri = exactRedirectUri(configured, callback, receiver.port)
    config[client.customFetch] = withExactRedirectUri(config[client.customFetch], redirectUri)
    const authorizationUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      nonce,
    })
    options.openBrowser(authorizationUrl.href).catch((error: unknown) => {
      receiver.fail(
        new TimelineSheetsError('TS_AUTH_FAILED', 'Could not open a browser for the cloud login', {
          hint: 'Run `timeline-sheets login` on a machine with a browser, then copy the token file.',
          cause: error,
        }),
      )
    })
    // The page says success only once the token file is written, so it never shows for a login that then fails.
    const result = await exchange(await receiver.url)
    receiver.answer(200, 'Login success. You can close this window.')
    return result
  } finally {
    await receiver.close()
  }
}

/**
 * The redirect_uri exactly as configured (and registered): a provider may
 * compare it as a string, and URL normalisation adds a `/` to a bare origin.
 * Only an ephemeral port 0 is replaced, by the port the listener got
 * (loopback ports may vary, RFC 8252 §7.3); the rest stays as written.
 */
export function exactRedirectUri(configured: string, callback: URL, port: number): string {
  if (callback.port !== '0') return configured
  const authority = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*?):0+(?=[/?#]|$)/i.exec(configured)
  if (!authority) return configured
  return `${authority[1]}:${port}${configured.slice(authority[0].length)}`
}

/**
 * openid-client sends the callback URL without its query as the token
 * request's redirect_uri, normalised (`http://127.0.0.1:4040/`); the code was
 * issued for the exact string, so the code exchange carries that instead.
 */
function withExactRedirectUri(fetchImpl: client.CustomFetch | undefined, redirectUri: string): client.CustomFetch {
  const send = fetchImpl ?? (fetch as client.CustomFetch)
  return (url, init) => {
    const body = init.body
    if (body instanceof URLSearchParams && body.get('grant_type') === 'authorization_code' && body.has('redirect_uri')) {
      body.set('redirect_uri', redirectUri)
    }
    return send(url, init)
  }
}

function checkedCallbackUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `callbackUrl is not a URL: ${JSON.stringify(raw)}`)
  }
  if (url.protocol !== 'http:' || !isLoopbackUrl(url)) {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `callbackUrl must be an http URL on 127.0.0.1, got ${url.origin}`, {
      hint: `Use ${DEFAULT_CALLBACK_URL} (or another loopback port registered for the client).`,
    })
  }
  return url
}
