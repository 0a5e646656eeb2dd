/**
 * Issue 5: one `import` run (dry run or applied) in a process of its own, the
 * way the CLI runs it: the product's config parsing and spreadsheet wiring, a
 * password sign-in whose fetch is counted by method, `runImport` against the
 * reference server and the Sheets fake. Prints one result line: wall time,
 * peak RSS, requests to each service split into reads and writes, the plan's
 * size and the outcome counts.
 */
import type { Reporter } from '../src/cli/reporter.ts'
import { openTargetSpreadsheet } from '../src/cli/wiring.ts'
import { parseConfig } from '../src/config/load.ts'
import { runImport } from '../src/engine/import.ts'
import { passwordSignIn } from '../src/timeline/auth/password.ts'
import { createTimelineClient } from '../src/timeline/client.ts'
import { vendorIdentifiers } from '../src/timeline/vendor.ts'
import { argument, emit, peakRssMiB, timed } from './lib/emit.ts'

export interface ImportRunOptions {
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
  dryRun: boolean
}

const options = argument<ImportRunOptions>()

const configFile = `${options.stateDir}/bench.json`
// The same target as bench/export-run.ts wrote (same name, so the same state).
const parsed = parseConfig(
  JSON.stringify({
    timeline: {
      auth: { mode: 'password', baseUrl: options.timelineUrl, username: options.username },
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

/** Every request the client sends, by method and kind (`GET activities`, `PUT activities`, `POST sign-in`, …). */
const timelineRequests: Record<string, number> = {}
const countingFetch = ((request: Request) => {
  const url = request.url
  const kind = /\/activities\b/i.test(url)
    ? 'activities'
    : /tagcombinationlist/i.test(url)
      ? 'allowed tags'
      : /\/token\b/.test(url)
        ? 'sign-in'
        : /\/timelines\b/i.test(url)
          ? 'timelines'
          : 'home'
  const name = `${request.method} ${kind}`
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
const spreadsheet = await openTargetSpreadsheet(loaded, target, silent, { GOOGLE_ACCESS_TOKEN: options.token })

const run = await timed(() =>
  runImport(target, { client, spreadsheet, stateDir: loaded.resolvePath(loaded.config.stateDir), reporter: silent, now: () => new Date(options.now) }, { dryRun: options.dryRun }),
)
const summary = run.value
const isWrite = (name: string) => !name.startsWith('GET ') && !name.endsWith(' sign-in')
const sum = (pick: (name: string) => boolean) => Object.entries(timelineRequests).reduce((n, [name, c]) => n + (pick(name) ? c : 0), 0)
const kinds = (list: { kind: string }[]) => list.reduce<Record<string, number>>((m, w) => ({ ...m, [w.kind]: (m[w.kind] ?? 0) + 1 }), {})
emit({
  label: options.label,
  wallMs: run.ms,
  peakRssMiB: peakRssMiB(),
  sheetsRequests: summary.sheetsRequests,
  timelineRequests,
  timelineReads: sum((n) => !isWrite(n)),
  timelineWrites: sum(isWrite),
  planned: kinds(summary.plan.writes),
  conflicts: summary.plan.conflicts.length,
  invalid: summary.plan.invalid.length,
  invalidSample: summary.plan.invalid.slice(0, 3),
  counts: summary.counts,
  result: summary.result,
  applied: summary.applied,
})
