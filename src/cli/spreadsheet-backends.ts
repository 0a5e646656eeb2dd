/**
 * The spreadsheet backends, registered in one map: a config's `spreadsheet.kind` names one, and its
 * opener builds it from that config branch. A new backend is a folder under src/sheets that implements
 * the `Spreadsheet` port (and the read-only `SpreadsheetProbe` doctor uses) and passes the shared contract suite (test/sheets/*.contract.test.ts), a branch
 * in the config schema, and an entry here; the engine does not change. Each opener loads its backend only
 * when a target uses it, so start-up stays quick.
 */
import type { LoadedConfig } from '../config/load.ts'
import type { GoogleConfig, TargetConfig } from '../config/schema.ts'
import { TimelineSheetsError } from '../errors.ts'
import { createTransport, forService, type LimitsFor, type NetworkSettings } from '../http/transport.ts'
import type { Spreadsheet } from '../sheets/port.ts'
import type { SpreadsheetProbe } from '../sheets/probe.ts'
import { googleSignIn } from './google-sign-in.ts'
import { sayRetry } from './network.ts'
import type { Reporter } from './reporter.ts'

type SpreadsheetConfig = TargetConfig['spreadsheet']

/** What an opener may use besides its own config branch. */
export interface OpenContext {
  loaded: LoadedConfig
  target: TargetConfig
  reporter: Reporter
  env: NodeJS.ProcessEnv
  network: NetworkSettings
  /** What the spreadsheets of one run share; without it, each opens its own. */
  shared?: RunShared
}

/**
 * What the spreadsheets a run opens share, made once on first use: Google's sign-in and its paces belong to
 * the user, not to a spreadsheet, so fifty targets are one token and one quota (a 429 holds them all), and
 * their requests share one pool of connections.
 */
export interface RunShared {
  once<T>(name: string, make: () => Promise<T>): Promise<T>
}

export function runShared(): RunShared {
  const made = new Map<string, Promise<unknown>>()
  return {
    once<T>(name: string, make: () => Promise<T>): Promise<T> {
      let found = made.get(name) as Promise<T> | undefined
      if (!found) {
        found = make()
        made.set(name, found)
        // A failure is not kept: the next target tries again (and reports its own error).
        found.catch(() => made.delete(name))
      }
      return found
    },
  }
}

type Branch<K extends SpreadsheetConfig['kind']> = Extract<SpreadsheetConfig, { kind: K }>

/** A backend as the CLI knows it: how to open it for a run, and how `doctor` looks at it without writing. */
interface Backend<K extends SpreadsheetConfig['kind']> {
  open(sheet: Branch<K>, context: OpenContext): Promise<Spreadsheet>
  probe(sheet: Branch<K>, context: Omit<OpenContext, 'reporter'>): Promise<SpreadsheetProbe>
}

/** Every backend by the `kind` that selects it in the config. */
export const SPREADSHEET_BACKENDS: { [K in SpreadsheetConfig['kind']]: Backend<K> } = {
  workbook: {
    open: async (sheet, { loaded, reporter }) => {
      const { createWorkbookSpreadsheet } = await import('../sheets/workbook/backend.ts')
      return createWorkbookSpreadsheet({
        path: loaded.resolvePath(sheet.path),
        protect: sheet.protect,
        log: (event) => reporter.debug(`workbook ${event.action}`, { ms: event.ms, bytes: event.bytes }),
        heldOpen: {
          onRetry: (event) =>
            reporter.warn(
              `${loaded.resolvePath(sheet.path)}: ${event.reason}; trying again in ${event.delayMs / 1000} s (attempt ${event.attempt} of ${event.attempts})`,
            ),
        },
      })
    },
    probe: async (sheet, { loaded }) => {
      const { createWorkbookProbe } = await import('../sheets/workbook/probe.ts')
      return createWorkbookProbe(loaded.resolvePath(sheet.path))
    },
  },
  google: {
    open: async (sheet, context) => {
      const { google, api, network } = await googleParts(sheet, context)
      const { reporter } = context
      const { createGoogleSpreadsheet, createGoogleLanes } = await import('../sheets/google/backend.ts')
      const { describeSheetsFailure } = await import('../sheets/google/api-errors.ts')
      const pace = {
        readsPerMinute: google.readsPerMinute,
        writesPerMinute: google.writesPerMinute,
        // Waiting for the quota is quiet (and fifty targets' first sync waits minutes): say so, once a hold.
        onHold: (lane: 'read' | 'write', waiting: number) => {
          network.watch?.quotaWait()
          reporter.info(
            `Google's quota: ${waiting === 1 ? `1 ${lane} request waits its` : `${waiting} ${lane} requests wait their`} turn (at most ${lane === 'read' ? google.readsPerMinute : google.writesPerMinute} start a minute, google.${lane}sPerMinute); the run goes on by itself.`,
          )
        },
      }
      const lanes = context.shared
        ? await context.shared.once('google lanes', async () => createGoogleLanes(pace))
        : createGoogleLanes(pace)
      return createGoogleSpreadsheet({
        ...api,
        retry: {
          baseDelay: context.loaded.config.timeouts.retryDelayMs,
          ...(network.deadline ? { signal: network.deadline.signal } : {}),
          ...(network.watch ? { watch: network.watch } : {}),
          onRetry: (event) => sayRetry(reporter, 'google', event, describeSheetsFailure(event.error), network.watch),
        },
        lanes,
        quota: { windowMs: google.quotaWindowMs },
        // Repeats are said by onRetry, as they happen; what the run does instead of what it planned, once, here.
        log: (event) => {
          if (event.type === 'metadata-room')
            reporter.warn(
              `Google's developer-metadata room on the tab "${event.tab}" is short (others use most of the 30,000 characters a sheet holds): rows are claimed ${event.chars} characters at a time, which takes more requests.`,
            )
          else if (event.type === 'legacy-anchors-removed')
            reporter.info(
              `Removed ${event.count} row anchors an earlier version of timeline-sheets kept in the spreadsheet; nothing reads them now.`,
            )
          else if (event.type === 'write-unanswered')
            reporter.warn(
              `Google did not answer a write; it may still be applying it for up to 180 s after it was sent, so the run waits ${Math.ceil(event.waitMs / 1000)} s and then looks whether it landed before sending it again.`,
            )
          else reporter.debug('sheets', event as unknown as Record<string, unknown>)
        },
      })
    },
    probe: async (sheet, context) => {
      const { createGoogleProbe } = await import('../sheets/google/probe.ts')
      return createGoogleProbe((await googleParts(sheet, context)).api)
    },
  },
}

/** The config's Google section and what both the backend and the probe are built from: the id, the sign-in, the transport. */
async function googleParts(sheet: Branch<'google'>, { loaded, target, env, network: run, shared }: Omit<OpenContext, 'reporter'>) {
  const google = googleSection(loaded, target)
  const network = forService(run, 'google')
  const signIn = () => googleSignIn(loaded, google, env, false, network)
  const auth = shared ? await shared.once('google sign-in', signIn) : await signIn()
  const limitsFor = await sheetsWriteLimits(loaded.config.timeouts.googleWriteMs)
  const make = () => createTransport({ ...network, limitsFor })
  // One connection pool for the run: fifty targets' requests go to one host, and each pool of its own would open
  // (and, against Google, shake hands over TLS for) connections of its own.
  const transport = shared ? await shared.once('google transport', async () => make()) : make()
  return {
    google,
    network,
    api: { spreadsheetId: sheet.spreadsheetId, auth, rootUrl: google.rootUrl, transport, gzipRequests: google.gzipRequests },
  }
}

/**
 * A Sheets write waits for its answer as long as `timeouts.googleWriteMs` says, first byte and all: Google may
 * work on one for up to 180 s, and a write cut off earlier may still be applied after the run looked.
 */
async function sheetsWriteLimits(writeMs: number): Promise<LimitsFor> {
  const { sheetsCallKind } = await import('../sheets/google/api-errors.ts')
  return (request) =>
    sheetsCallKind(request.method, request.url) === 'write'
      ? { limits: { firstByteMs: writeMs, totalMs: writeMs }, setting: 'timeouts.googleWriteMs' }
      : undefined
}

function googleSection(loaded: LoadedConfig, target: TargetConfig): GoogleConfig {
  const google = loaded.config.google
  if (!google) {
    throw new TimelineSheetsError(
      'TS_CONFIG_INVALID',
      `Target ${target.name} uses a Google spreadsheet but the config has no "google" section.`,
    )
  }
  return google
}

// One lookup for every kind: the map's type ties each backend to its own config branch.
function backendOf(sheet: SpreadsheetConfig): Backend<SpreadsheetConfig['kind']> {
  return SPREADSHEET_BACKENDS[sheet.kind] as Backend<SpreadsheetConfig['kind']>
}

/** Opens the target's spreadsheet with the backend its config names. */
export function openSpreadsheet(sheet: SpreadsheetConfig, context: OpenContext): Promise<Spreadsheet> {
  return backendOf(sheet).open(sheet as never, context)
}

/** Read-only access to the target's spreadsheet, for `doctor`. */
export function probeSpreadsheet(sheet: SpreadsheetConfig, context: Omit<OpenContext, 'reporter'>): Promise<SpreadsheetProbe> {
  return backendOf(sheet).probe(sheet as never, context)
}
