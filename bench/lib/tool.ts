/**
 * The tool as one benchmark process runs it: the product's config parsing and
 * spreadsheet wiring, against the reference server and the Sheets fake, with
 * a password sign-in whose requests are counted under names the caller picks.
 */
import type { Reporter } from '../../src/cli/reporter.ts'
import { openTargetSpreadsheet } from '../../src/cli/wiring.ts'
import type { LoadedConfig } from '../../src/config/load.ts'
import { parseConfig } from '../../src/config/load.ts'
import type { TargetConfig } from '../../src/config/schema.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import { createTimelineClient, type TimelineClient } from '../../src/timeline/client.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'

export interface ToolOptions {
  timelineUrl: string
  username: string
  password: string
  rootUrl: string
  token: string
  spreadsheetId: string
  stateDir: string
  windowDays: number
}

export interface BenchTool {
  loaded: LoadedConfig
  target: TargetConfig
  reporter: Reporter
  client: TimelineClient
  spreadsheet: Spreadsheet
  /** Requests the client sent, by the name `nameOf` gave them. */
  timelineRequests: Record<string, number>
}

export async function benchTool(options: ToolOptions, nameOf: (request: Request) => string): Promise<BenchTool> {
  const configFile = `${options.stateDir}/bench.json`
  // One target named 'bench' for every scenario, so export and import runs share its state.
  const parsed = parseConfig(
    JSON.stringify({
      timeline: {
        auth: { mode: 'password', baseUrl: options.timelineUrl, username: options.username },
        // The default (300 requests a minute) would make the first run pace-bound: see bench/README.md.
        pace: { concurrency: 4, requestsPerInterval: 1_000_000, intervalMs: 60_000 },
      },
      google: { auth: { mode: 'static-token' }, rootUrl: options.rootUrl },
      stateDir: options.stateDir,
      targets: [
        {
          name: 'bench',
          spreadsheet: { kind: 'google', spreadsheetId: options.spreadsheetId },
          timeZone: 'UTC',
          window: { days: options.windowDays, lookBackDays: 7 },
        },
      ],
    }),
    configFile,
  )
  const loaded: LoadedConfig = { ...parsed, file: configFile }
  const target = loaded.config.targets[0]!
  const reporter: Reporter = {
    info: () => undefined,
    warn: (message) => process.stderr.write(`warning: ${message}\n`),
    debug: () => undefined,
    progress: () => undefined,
    endProgress: () => undefined,
    result: () => undefined,
  }
  const timelineRequests: Record<string, number> = {}
  const countingFetch = ((request: Request) => {
    const name = nameOf(request)
    timelineRequests[name] = (timelineRequests[name] ?? 0) + 1
    return globalThis.fetch(request)
  }) as typeof fetch
  const pace = loaded.config.timeline.pace
  const client = createTimelineClient({
    signIn: passwordSignIn({
      baseUrl: options.timelineUrl,
      username: options.username,
      password: options.password,
      vendor: vendorIdentifiers(loaded.config.vendor),
      fetch: countingFetch,
    }),
    vendor: loaded.config.vendor,
    pace: { concurrency: pace.concurrency, intervalCap: pace.requestsPerInterval, interval: pace.intervalMs },
  })
  const spreadsheet = await openTargetSpreadsheet(loaded, target, reporter, { GOOGLE_ACCESS_TOKEN: options.token })
  return { loaded, target, reporter, client, spreadsheet, timelineRequests }
}

/** What a Timeline request is for: activities, allowed tags, sign-in, timelines or home. */
export function requestKind(url: string): string {
  if (/\/activities\b/i.test(url)) return 'activities'
  if (/tagcombinationlist/i.test(url)) return 'allowed tags'
  if (/\/token\b/.test(url)) return 'sign-in'
  if (/\/timelines\b/i.test(url)) return 'timelines'
  return 'home'
}
