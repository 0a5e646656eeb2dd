/**
 * One `export` run in a process of its own, the way the CLI runs it: the
 * product's config parsing and spreadsheet wiring, a password sign-in whose
 * fetch is counted, `runExport` against the reference server and the Sheets
 * fake. Prints one result line: wall time, peak RSS, requests to each service.
 */
import type { Reporter } from '../src/cli/reporter.ts'
import { openTargetSpreadsheet } from '../src/cli/wiring.ts'
import { parseConfig } from '../src/config/load.ts'
import { runExport } from '../src/engine/export.ts'
import { passwordSignIn } from '../src/timeline/auth/password.ts'
import { createTimelineClient } from '../src/timeline/client.ts'
import { vendorIdentifiers } from '../src/timeline/vendor.ts'
import { argument, emit, peakRssMiB, timed } from './lib/emit.ts'

export interface ExportRunOptions {
  label: string
  timelineUrl: string
  username: string
  password: string
  rootUrl: string
  token: string
  spreadsheetId: string
  stateDir: string
  now: string
  windowDays: number
  full?: boolean
}

const options = argument<ExportRunOptions>()

const configFile = `${options.stateDir}/bench.json`
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
const loaded = { ...parsed, file: configFile }
const target = loaded.config.targets[0]!

const silent: Reporter = {
  info: () => undefined,
  warn: (message) => process.stderr.write(`warning: ${message}\n`),
  debug: () => undefined,
  progress: () => undefined,
  endProgress: () => undefined,
  result: () => undefined,
}

const timelineRequests: Record<string, number> = {}
const countingFetch = ((request: Request) => {
  const url = request.url
  const kind = url.includes('updatedAfterTimestamp')
    ? 'activities (incremental)'
    : /\/activities\b/i.test(url)
      ? 'activities (range)'
      : /tagcombinationlist/i.test(url)
        ? 'allowed tags'
        : /\/token\b/.test(url)
          ? 'sign-in'
          : /\/timelines\b/i.test(url)
            ? 'timelines'
            : 'home'
  timelineRequests[kind] = (timelineRequests[kind] ?? 0) + 1
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
const spreadsheet = await openTargetSpreadsheet(loaded, target, silent, { GOOGLE_ACCESS_TOKEN: options.token })

const run = await timed(() =>
  runExport(target, { client, spreadsheet, stateDir: loaded.resolvePath(loaded.config.stateDir), reporter: silent, now: () => new Date(options.now) }, { full: options.full ?? false }),
)
const summary = run.value
emit({
  label: options.label,
  wallMs: run.ms,
  peakRssMiB: peakRssMiB(),
  sheetsRequests: summary.sheetsRequests,
  timelineRequests,
  counts: summary.counts,
  result: summary.result,
  timelines: summary.timelines.length,
  modes: [...new Set(summary.timelines.map((t) => t.mode))],
  lookBack: summary.timelines.some((t) => t.lookBack),
  activitiesRead: summary.timelines.reduce((n, t) => n + t.activitiesRead, 0),
  warnings: summary.warnings,
})
