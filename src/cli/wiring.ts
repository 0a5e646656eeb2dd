/**
 * Builds the adapters a command needs from the validated config: the
 * Timeline sign-in and client, and the target's spreadsheet backend. The only
 * place that reads secrets from the environment.
 */
import { secretFromEnv, type LoadedConfig } from '../config/load.ts'
import type { GoogleConfig, TargetConfig, TimelineAuthConfig } from '../config/schema.ts'
import { TimelineSheetsError } from '../errors.ts'
import { createDeadline, createTransport, type NetworkSettings } from '../http/transport.ts'
import type { Spreadsheet } from '../sheets/port.ts'
import { createTimelineClient, type TimelineClient } from '../timeline/client.ts'
import type { SignIn } from '../timeline/auth/sign-in.ts'
import { vendorIdentifiers } from '../timeline/vendor.ts'
import type { Reporter } from './reporter.ts'

/**
 * What every request of one run obeys: the config's timeouts, and the run's
 * deadline (`--deadline` wins over `timeouts.runMs`), counted from now.
 */
export function runNetwork(loaded: LoadedConfig, deadlineOption: string | undefined): NetworkSettings {
  const { runMs, ...timeouts } = loaded.config.timeouts
  if (deadlineOption !== undefined) {
    return { timeouts, deadline: createDeadline(parseDeadline(deadlineOption), `--deadline ${deadlineOption}`) }
  }
  return runMs === undefined ? { timeouts } : { timeouts, deadline: createDeadline(runMs, 'timeouts.runMs') }
}

/** The config's per-request timeouts without a deadline (login, which waits for a person). */
export function requestLimits(loaded: LoadedConfig): NetworkSettings {
  const { runMs: _deadline, ...timeouts } = loaded.config.timeouts
  return { timeouts }
}

/** `90s`, `30m`, `2h`, `1h30m` in milliseconds. */
export function parseDeadline(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?:in)?)?(?:(\d+)s)?$/i.exec(text.trim())
  const ms = m ? (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1000 : 0
  if (!m || ms <= 0 || ms > 7 * 24 * 3_600_000) {
    throw new TimelineSheetsError('TS_USAGE', `--deadline ${text} is not a duration between 1 s and 7 days`, {
      hint: 'Examples: --deadline 90s, --deadline 30m, --deadline 2h, --deadline 1h30m.',
    })
  }
  return ms
}

export async function createSignIn(
  loaded: LoadedConfig,
  env: NodeJS.ProcessEnv = process.env,
  network: NetworkSettings = requestLimits(loaded),
): Promise<SignIn> {
  const { config } = loaded
  const auth: TimelineAuthConfig = config.timeline.auth
  const vendor = vendorIdentifiers(config.vendor)
  switch (auth.mode) {
    case 'password': {
      const { passwordSignIn } = await import('../timeline/auth/password.ts')
      return passwordSignIn({
        baseUrl: auth.baseUrl,
        username: auth.username,
        password: secretFromEnv(auth.passwordEnv, `the password of ${auth.username}`, env),
        vendor,
        fetch: createTransport(network),
      })
    }
    case 'ntlm': {
      const { ntlmSignIn } = await import('../timeline/auth/ntlm.ts')
      return ntlmSignIn({
        baseUrl: auth.baseUrl,
        username: auth.username,
        password: secretFromEnv(auth.passwordEnv, `the Windows password of ${auth.username}`, env),
        domain: auth.domain,
        network,
      })
    }
    case 'cloud': {
      const { cloudSignIn } = await import('../timeline/auth/cloud.ts')
      return cloudSignIn(cloudOptions(loaded, auth, env, network))
    }
  }
}

export function cloudOptions(
  loaded: LoadedConfig,
  auth: Extract<TimelineAuthConfig, { mode: 'cloud' }>,
  env: NodeJS.ProcessEnv,
  network: NetworkSettings = requestLimits(loaded),
) {
  return {
    transport: createTransport(network),
    // openid-client's own per-request abort stays behind the transport's, which says which limit fired.
    timeoutSeconds: Math.ceil((network.timeouts?.totalMs ?? 120_000) / 1000) + 5,
    authority: auth.authority,
    apiUrl: auth.apiUrl,
    clientId: auth.clientId,
    clientSecret: secretFromEnv(auth.clientSecretEnv, 'the cloud client secret', env),
    clientAuth: auth.clientAuth,
    tokenFile: loaded.resolvePath(auth.tokenFile),
    vendor: loaded.config.vendor,
    allowInsecureLoopback: isLoopback(auth.authority) && isLoopback(auth.apiUrl),
  }
}

export async function createClient(
  loaded: LoadedConfig,
  reporter: Reporter,
  env: NodeJS.ProcessEnv = process.env,
  network: NetworkSettings = requestLimits(loaded),
): Promise<TimelineClient> {
  const pace = loaded.config.timeline.pace
  const signIn = await createSignIn(loaded, env, network)
  return createTimelineClient({
    signIn,
    vendor: loaded.config.vendor,
    pace: { concurrency: pace.concurrency, intervalCap: pace.requestsPerInterval, interval: pace.intervalMs },
    retry: {
      onRetry: (e) => reporter.info(`Timeline service busy, retrying in ${Math.round(e.delayMs / 100) / 10} s`, { reason: e.reason }),
      ...(network.deadline ? { signal: network.deadline.signal } : {}),
    },
    log: (event) => reporter.debug('timeline request', event as unknown as Record<string, unknown>),
  })
}

export async function openTargetSpreadsheet(
  loaded: LoadedConfig,
  target: TargetConfig,
  reporter: Reporter,
  env: NodeJS.ProcessEnv = process.env,
  network: NetworkSettings = requestLimits(loaded),
): Promise<Spreadsheet> {
  const sheet = target.spreadsheet
  if (sheet.kind === 'workbook') {
    const { createWorkbookSpreadsheet } = await import('../sheets/workbook/backend.ts')
    return createWorkbookSpreadsheet({
      path: loaded.resolvePath(sheet.path),
      protect: sheet.protect,
      log: (event) => reporter.debug(`workbook ${event.action}`, { ms: event.ms, bytes: event.bytes }),
    })
  }
  const google = loaded.config.google
  if (!google) {
    throw new TimelineSheetsError(
      'TS_CONFIG_INVALID',
      `Target ${target.name} uses a Google spreadsheet but the config has no "google" section.`,
    )
  }
  const { createGoogleSpreadsheet } = await import('../sheets/google/backend.ts')
  const transport = createTransport(network)
  return createGoogleSpreadsheet({
    spreadsheetId: sheet.spreadsheetId,
    auth: await googleSignIn(loaded, google, env, false, network),
    rootUrl: google.rootUrl,
    transport,
    ...(network.deadline ? { retry: { signal: network.deadline.signal } } : {}),
    pace: { readsPerMinute: google.readsPerMinute, writesPerMinute: google.writesPerMinute },
    quota: { windowMs: google.quotaWindowMs },
    log: (event) => {
      if (event.type === 'retry')
        reporter.info(`Google Sheets asked to slow down, retrying in ${Math.round(event.delayMs / 100) / 10} s`, { reason: event.reason })
      else reporter.debug('sheets', event as unknown as Record<string, unknown>)
    },
  })
}

export async function googleSignIn(
  loaded: LoadedConfig,
  google: GoogleConfig,
  env: NodeJS.ProcessEnv,
  interactive = false,
  network: NetworkSettings = requestLimits(loaded),
) {
  const auth = await import('../sheets/google/auth.ts')
  // Token requests, ours and google-auth-library's, under the same limits and redirect policy as data calls.
  const transport = createTransport(network)
  switch (google.auth.mode) {
    case 'service-account':
      return auth.signInWithServiceAccountFile(loaded.resolvePath(google.auth.keyFile), { transport })
    case 'installed-app':
      return auth.signInWithInstalledApp({
        clientId: google.auth.clientId,
        clientSecret: secretFromEnv(google.auth.clientSecretEnv, 'the Google OAuth client secret', env),
        tokenFile: loaded.resolvePath(google.auth.tokenFile),
        openBrowser: openInBrowser,
        interactive,
        transport,
      })
    case 'adc':
      return auth.signInWithApplicationDefault({ env, transport })
    case 'static-token':
      return auth.signInWithStaticToken(secretFromEnv(google.auth.tokenEnv, 'a Google access token', env), transport)
  }
}

/** Opens a URL in the desktop browser; prints it when none can be started. */
export async function openInBrowser(url: string): Promise<void> {
  const { spawn } = await import('node:child_process')
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  process.stderr.write(`Opening the sign-in page. If no browser appears, open this address:\n  ${url}\n`)
  await new Promise<void>((resolve) => {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true })
    child.on('error', () => resolve())
    child.unref()
    resolve()
  })
}

function isLoopback(raw: string): boolean {
  const host = new URL(raw).hostname
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host)
}
