/**
 * The spreadsheet backends, registered in one map: a config's `spreadsheet.kind` names one, and its
 * opener builds it from that config branch. A new backend is a folder under src/sheets that implements
 * the `Spreadsheet` port and passes the shared contract suite (test/sheets/*.contract.test.ts), a branch
 * in the config schema, and an entry here; the engine does not change. Each opener loads its backend only
 * when a target uses it, so start-up stays quick.
 */
import type { LoadedConfig } from '../config/load.ts'
import type { TargetConfig } from '../config/schema.ts'
import { TimelineSheetsError } from '../errors.ts'
import { createTransport, type NetworkSettings } from '../http/transport.ts'
import type { Spreadsheet } from '../sheets/port.ts'
import { googleSignIn } from './google-sign-in.ts'
import type { Reporter } from './reporter.ts'

type SpreadsheetConfig = TargetConfig['spreadsheet']

/** What an opener may use besides its own config branch. */
export interface OpenContext {
  loaded: LoadedConfig
  target: TargetConfig
  reporter: Reporter
  env: NodeJS.ProcessEnv
  network: NetworkSettings
}

type Opener<K extends SpreadsheetConfig['kind']> = (
  sheet: Extract<SpreadsheetConfig, { kind: K }>,
  context: OpenContext,
) => Promise<Spreadsheet>

/** Every backend by the `kind` that selects it in the config. */
export const SPREADSHEET_BACKENDS: { [K in SpreadsheetConfig['kind']]: Opener<K> } = {
  workbook: async (sheet, { loaded, reporter }) => {
    const { createWorkbookSpreadsheet } = await import('../sheets/workbook/backend.ts')
    return createWorkbookSpreadsheet({
      path: loaded.resolvePath(sheet.path),
      protect: sheet.protect,
      log: (event) => reporter.debug(`workbook ${event.action}`, { ms: event.ms, bytes: event.bytes }),
    })
  },
  google: async (sheet, { loaded, target, reporter, env, network }) => {
    const google = loaded.config.google
    if (!google) {
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `Target ${target.name} uses a Google spreadsheet but the config has no "google" section.`,
      )
    }
    const { createGoogleSpreadsheet } = await import('../sheets/google/backend.ts')
    return createGoogleSpreadsheet({
      spreadsheetId: sheet.spreadsheetId,
      auth: await googleSignIn(loaded, google, env, false, network),
      rootUrl: google.rootUrl,
      transport: createTransport(network),
      ...(network.deadline ? { retry: { signal: network.deadline.signal } } : {}),
      pace: { readsPerMinute: google.readsPerMinute, writesPerMinute: google.writesPerMinute },
      quota: { windowMs: google.quotaWindowMs },
      log: (event) => {
        if (event.type === 'retry')
          reporter.info(`Google Sheets asked to slow down, retrying in ${Math.round(event.delayMs / 100) / 10} s`, {
            reason: event.reason,
          })
        else reporter.debug('sheets', event as unknown as Record<string, unknown>)
      },
    })
  },
}

/** Opens the target's spreadsheet with the backend its config names. */
export function openSpreadsheet(sheet: SpreadsheetConfig, context: OpenContext): Promise<Spreadsheet> {
  // One lookup for every kind: the map's type ties each opener to its own config branch.
  const open = SPREADSHEET_BACKENDS[sheet.kind] as Opener<SpreadsheetConfig['kind']>
  return open(sheet as never, context)
}
