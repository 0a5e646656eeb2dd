/**
 * Builds the adapters a command needs from the validated config: the
 * Timeline sign-in and client, and the target's spreadsheet backend. The only
 * place that reads secrets from the environment.
 */
import { secretFromEnv, type LoadedConfig } from '../config/load.ts'
import type { GoogleConfig, TargetConfig, TimelineAuthConfig } from '../config/schema.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { Spreadsheet } from '../sheets/port.ts'
import { createTimelineClient, type TimelineClient } from '../timeline/client.ts'
import type { SignIn } from '../timeline/auth/sign-in.ts'
import { vendorIdentifiers } from '../timeline/vendor.ts'
import type { Reporter } from './reporter.ts'

export async function createSignIn(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): Promise<SignIn> {
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
      })
    }
    case 'ntlm': {
      const { ntlmSignIn } = await import('../timeline/auth/ntlm.ts')
      return ntlmSignIn({
        baseUrl: auth.baseUrl,
        username: auth.username,
        password: secretFromEnv(auth.passwordEnv, `the Windows password of ${auth.username}`, env),
        domain: auth.domain,
      })
    }
    case 'cloud': {
      const { cloudSignIn } = await import('../timeline/auth/cloud.ts')
      return cloudSignIn(cloudOptions(loaded, auth, env))
    }
  }
}

export function cloudOptions(loaded: LoadedConfig, auth: Extract<TimelineAuthConfig, { mode: 'cloud' }>, env: NodeJS.ProcessEnv) {
  return {
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

export async function createClient(loaded: LoadedConfig, reporter: Reporter, env: NodeJS.ProcessEnv = process.env): Promise<TimelineClient> {
  const pace = loaded.config.timeline.pace
  const signIn = await createSignIn(loaded, env)
  return createTimelineClient({
    signIn,
    vendor: loaded.config.vendor,
    pace: { concurrency: pace.concurrency, intervalCap: pace.requestsPerInterval, interval: pace.intervalMs },
    retry: { onRetry: (e) => reporter.info(`Timeline service busy, retrying in ${Math.round(e.delayMs / 100) / 10} s`, { reason: e.reason }) },
    log: (event) => reporter.debug('timeline request', event as unknown as Record<string, unknown>),
  })
}

export async function openTargetSpreadsheet(
  loaded: LoadedConfig,
  target: TargetConfig,
  reporter: Reporter,
  env: NodeJS.ProcessEnv = process.env,
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
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `Target ${target.name} uses a Google spreadsheet but the config has no "google" section.`)
  }
  const { createGoogleSpreadsheet } = await import('../sheets/google/backend.ts')
  return createGoogleSpreadsheet({
    spreadsheetId: sheet.spreadsheetId,
    auth: await googleSignIn(loaded, google, env),
    rootUrl: google.rootUrl,
    pace: { readsPerMinute: google.readsPerMinute, writesPerMinute: google.writesPerMinute },
    quota: { windowMs: google.quotaWindowMs },
    log: (event) => {
      if (event.type === 'retry') reporter.info(`Google Sheets asked to slow down, retrying in ${Math.round(event.delayMs / 100) / 10} s`, { reason: event.reason })
      else reporter.debug('sheets', event as unknown as Record<string, unknown>)
    },
  })
}

export async function googleSignIn(loaded: LoadedConfig, google: GoogleConfig, env: NodeJS.ProcessEnv, interactive = false) {
  const auth = await import('../sheets/google/auth.ts')
  switch (google.auth.mode) {
    case 'service-account':
      return auth.signInWithServiceAccountFile(loaded.resolvePath(google.auth.keyFile))
    case 'installed-app':
      return auth.signInWithInstalledApp({
        clientId: google.auth.clientId,
        clientSecret: secretFromEnv(google.auth.clientSecretEnv, 'the Google OAuth client secret', env),
        tokenFile: loaded.resolvePath(google.auth.tokenFile),
        openBrowser: openInBrowser,
        interactive,
      })
    case 'adc':
      return auth.signInWithApplicationDefault({ env })
    case 'static-token':
      return auth.signInWithStaticToken(secretFromEnv(google.auth.tokenEnv, 'a Google access token', env))
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
