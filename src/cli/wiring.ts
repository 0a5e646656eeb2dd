/**
 * Builds the adapters a command needs from the validated config: the
 * Timeline sign-in and client, and the target's spreadsheet backend. With
 * google-sign-in.ts, the only place that reads secrets from the environment.
 */
import { loadConfig, secretFromEnv, type LoadedConfig } from '../config/load.ts'
import type { TargetConfig, TimelineAuthConfig } from '../config/schema.ts'
import { createTransport, forService, type NetworkSettings } from '../http/transport.ts'
import type { Spreadsheet } from '../sheets/port.ts'
import { createPace } from '../http/pace.ts'
import { createTimelineClient, type SharedHome, type TimelineClient } from '../timeline/client.ts'
import type { SignIn } from '../timeline/auth/sign-in.ts'
import { vendorIdentifiers } from '../timeline/vendor.ts'
import { selectTargets, type GlobalOptions } from './globals.ts'
import { renewableNetwork, requestLimits, runNetwork, sayRetry, type Tallies } from './network.ts'
import type { Reporter } from './reporter.ts'
import { openSpreadsheet, runShared, type RunShared } from './spreadsheet-backends.ts'

// Where commands have always found them.
export { parseDeadline, requestLimits, runNetwork } from './network.ts'
export { googleSignIn, openInBrowser } from './google-sign-in.ts'

export async function createSignIn(
  loaded: LoadedConfig,
  env: NodeJS.ProcessEnv = process.env,
  runSettings: NetworkSettings = requestLimits(loaded),
): Promise<SignIn> {
  const network = forService(runSettings, 'timeline')
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
  runSettings: NetworkSettings = requestLimits(loaded),
) {
  const network = forService(runSettings, 'timeline')
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
  return (await timelineClients(loaded, reporter, env, network))()
}

/**
 * Timeline clients for the targets of one run: one sign-in, one pace and one read of the API's entry shared,
 * and a client each, since a client remembers each timeline's last change for its next write, which two
 * targets over the same timeline must not take from each other.
 */
async function timelineClients(
  loaded: LoadedConfig,
  reporter: Reporter,
  env: NodeJS.ProcessEnv,
  runSettings: NetworkSettings,
): Promise<() => TimelineClient> {
  const network = forService(runSettings, 'timeline')
  const settings = loaded.config.timeline.pace
  const signIn = await createSignIn(loaded, env, network)
  const pace = createPace({
    concurrency: settings.concurrency,
    intervalCap: settings.requestsPerInterval,
    interval: settings.intervalMs,
    onHold: (waiting) => {
      network.watch?.quotaWait()
      reporter.info(
        `Timeline pace: ${waiting === 1 ? '1 request waits its' : `${waiting} requests wait their`} turn (at most ${settings.requestsPerInterval} start every ${Math.round(settings.intervalMs / 1000)} s, timeline.pace); the run goes on by itself.`,
      )
    },
  })
  const home: SharedHome = {}
  return () =>
    createTimelineClient({
      signIn,
      vendor: loaded.config.vendor,
      pace,
      home,
      retry: {
        baseDelay: loaded.config.timeouts.retryDelayMs,
        onRetry: (e) => sayRetry(reporter, 'timeline', e, e.error instanceof Error ? e.error.message : String(e.error), network.watch),
        ...(network.deadline ? { signal: network.deadline.signal } : {}),
        ...(network.watch ? { watch: network.watch } : {}),
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
  shared?: RunShared,
): Promise<Spreadsheet> {
  return openSpreadsheet(target.spreadsheet, { loaded, target, reporter, env, network, shared })
}

function isLoopback(raw: string): boolean {
  const host = new URL(raw).hostname
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host)
}

/** What a command that runs targets opens first: the config, the targets it names, the Timeline client. */
export interface OpenedRun {
  loaded: LoadedConfig
  targets: TargetConfig[]
  stateDir: string
  /** A Timeline client of its own for a target; all of a run's share the sign-in and the pace. */
  clientFor(target: TargetConfig): TimelineClient
  /** A target's spreadsheet, under the same network limits and deadline as the client. */
  spreadsheetOf(target: TargetConfig): Promise<Spreadsheet>
}

/**
 * Opens a run of `--target` (or every target) under `--deadline`: one network setting for both services;
 * `tallies` count its requests for `--metrics-file`.
 */
export async function openRun(
  globals: GlobalOptions,
  targetName: string | undefined,
  reporter: Reporter,
  tallies?: Tallies,
): Promise<OpenedRun> {
  const loaded = await loadConfig(globals.config)
  const targets = selectTargets(loaded.config.targets, targetName)
  const network = runNetwork(loaded, globals.deadline, reporter, tallies)
  const newClient = await timelineClients(loaded, reporter, process.env, network)
  const shared = runShared()
  return {
    loaded,
    targets,
    stateDir: loaded.resolvePath(loaded.config.stateDir),
    clientFor: newClient,
    spreadsheetOf: (target) => openTargetSpreadsheet(loaded, target, reporter, process.env, network, shared),
  }
}

/**
 * What `sync --watch` opens once for as long as it runs: the config, the targets, one sign-in to each service
 * (refreshed as tokens expire, never repeated per interval) and their paces. Each `run` is one interval: the
 * network limits and deadline start afresh, and the clients and spreadsheets are built anew on the shared
 * sign-ins, as a separate run would build them.
 */
export interface OpenedSession {
  loaded: LoadedConfig
  targets: TargetConfig[]
  stateDir: string
  run(): Pick<OpenedRun, 'clientFor' | 'spreadsheetOf'>
}

/** `tallies`: the metrics' counts of every interval's requests (`--listen`). */
export async function openSession(
  globals: GlobalOptions,
  targetName: string | undefined,
  reporter: Reporter,
  tallies?: Tallies,
): Promise<OpenedSession> {
  const loaded = await loadConfig(globals.config)
  const targets = selectTargets(loaded.config.targets, targetName)
  const network = renewableNetwork(loaded, globals.deadline, reporter, tallies)
  const newClient = await timelineClients(loaded, reporter, process.env, network.settings)
  const shared = runShared()
  let first = true
  return {
    loaded,
    targets,
    stateDir: loaded.resolvePath(loaded.config.stateDir),
    run: () => {
      // The first interval runs on the limits the sign-in was made under; each later one renews them.
      if (!first) network.renew()
      first = false
      return {
        clientFor: newClient,
        spreadsheetOf: (target) => openTargetSpreadsheet(loaded, target, reporter, process.env, network.settings, shared),
      }
    },
  }
}
