/**
 * `timeline-sheets sync`: the nightly job. Per target, under one lock:
 * import (managers' edits to the server), then export (server changes to the
 * sheet), so an export never overwrites an edit that was not imported.
 * With --every or --cron it keeps running and syncs on that schedule.
 */
import { loadConfig } from '../../config/load.ts'
import type { TargetRunOutcome } from '../../core/run-outcome.ts'
import { runSync, type SyncSummary } from '../../engine/sync.ts'
import { TimelineSheetsError } from '../../errors.ts'
import { toCliFailure } from '../errors.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import type { GlobalOptions } from '../globals.ts'
import { errorJson, runsJson } from '../json-output.ts'
import { createReporter, type Reporter } from '../reporter.ts'
import { runTargets } from '../targets.ts'
import { openRun } from '../wiring.ts'
import { clockFor, selectTargets } from '../globals.ts'
import { cronJob, scheduleOf } from '../schedule.ts'
import { createRunObservers, type RunObservers } from '../run-observers.ts'
import { outcomeOfError, outcomeOfSync } from '../run-outcomes.ts'
import { formatExportSummary, formatImportSummary } from './format.ts'
import { importExitCode, importOptions } from './import.ts'
import type { WatchCommandOptions } from './sync-watch.ts'

export { everyToCron } from '../schedule.ts'

export interface SyncCommandOptions extends WatchCommandOptions {
  /** Keep running and sync a target only when its idle check sees a change (sync-watch.ts). */
  watch?: boolean
  /** After each run, the metrics in node_exporter's textfile format (metrics-file.ts). */
  metricsFile?: string
}

export async function runSyncCommand(globals: GlobalOptions, options: SyncCommandOptions): Promise<ExitCode> {
  if (options.every && options.cron) throw new TimelineSheetsError('TS_USAGE', 'Give either --every or --cron, not both.')
  if (options.metricsFile !== undefined && (options.watch || options.dryRun))
    throw new TimelineSheetsError(
      'TS_USAGE',
      `--metrics-file records real runs of sync; it does not go with ${options.watch ? '--watch' : '--dry-run'}.`,
      {
        hint: options.watch
          ? 'A watch serves the same figures on /metrics: --listen 127.0.0.1:9464.'
          : 'Leave out --metrics-file for a dry run.',
      },
    )
  if (options.listen !== undefined && !options.watch)
    throw new TimelineSheetsError('TS_USAGE', '--listen goes with --watch: only a watch keeps running between runs to answer.', {
      hint: 'For a nightly run, --metrics-file PATH writes the same figures for node_exporter.',
    })
  if (options.watch) {
    const { runWatchCommand } = await import('./sync-watch.ts')
    return runWatchCommand(globals, options)
  }
  if (!options.every && !options.cron) {
    if (options.zone !== undefined) throw new TimelineSheetsError('TS_USAGE', '--zone goes with --every or --cron.')
    const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
    return syncOnce(globals, options, reporter, undefined, await observersOf(globals, options, reporter))
  }
  // Runs come one after another for as long as the process lives: with --json each is one line (JSON Lines).
  const reporter = createReporter({ json: globals.json, jsonLines: true, verbose: globals.verbose, quiet: globals.quiet })
  const loaded = await loadConfig(globals.config)
  const schedule = scheduleOf(options, selectTargets(loaded.config.targets, options.target))
  // One set for every run of the schedule: the metrics' counters add up across runs, as Prometheus expects.
  const observers = await observersOf(globals, options, reporter)
  const next = () => {
    const at = job.nextRun()
    return { pattern: schedule.pattern, timeZone: schedule.timeZone, nextRun: at ? at.toISOString() : null }
  }
  let running: Promise<unknown> = Promise.resolve()
  const tick = async () => {
    running = syncOnce(globals, options, reporter, () => ({ schedule: next() }), observers).then(
      (code) => reporter.info(`Run finished with exit code ${code}; next run ${whenText(job.nextRun(), schedule.timeZone)}.`),
      (error: unknown) => {
        // A failed run is reported and the schedule goes on: the next run resumes.
        const failure = toCliFailure(error)
        reporter.warn(`Run failed: ${failure.message}${failure.hint ? ` (${failure.hint})` : ''}`)
        if (globals.json) reporter.result('', { ...errorJson(failure), schedule: next() } satisfies ScheduledJson)
      },
    )
    await running
  }
  const job = cronJob(schedule, tick)
  job.resume()
  reporter.info(
    `Syncing on schedule "${schedule.pattern}" in ${schedule.timeZone}; next run ${whenText(job.nextRun(), schedule.timeZone)}. Ctrl-C stops after the current run.`,
  )
  await new Promise<void>((resolve) => {
    const stop = () => {
      job.stop()
      void running.then(() => resolve())
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  return EXIT.success
}

/** What a scheduled run adds to its `--json` line: when the schedule runs next. */
export interface ScheduledJson {
  schedule: { pattern: string; timeZone: string; nextRun: string | null }
}

/** `2026-11-11 02:00 Europe/Berlin (2026-11-11T01:00:00.000Z)`: the schedule's wall clock, and the instant. */
function whenText(at: Date | null, timeZone: string): string {
  if (!at) return 'never'
  const wall = new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'short' }).format(at)
  return `${wall} ${timeZone} (${at.toISOString()})`
}

/** What a real run reports to besides its output (`--metrics-file`, the config's `notify`); a dry run, nothing. */
type SyncObservers = RunObservers & { metricsFile?: string }

async function observersOf(globals: GlobalOptions, options: SyncCommandOptions, reporter: Reporter): Promise<SyncObservers | undefined> {
  if (options.dryRun) return undefined
  const metricsFile =
    options.metricsFile === undefined ? undefined : (await import('../metrics-file.ts')).metricsFilePath(options.metricsFile)
  const loaded = await loadConfig(globals.config)
  if (metricsFile === undefined && !loaded.config.notify) return undefined
  const observers = await createRunObservers({
    stateDir: loaded.resolvePath(loaded.config.stateDir),
    targets: selectTargets(loaded.config.targets, options.target).map((t) => t.name),
    metrics: metricsFile !== undefined,
    notify: loaded.config.notify,
    reporter,
  })
  return observers && metricsFile ? { ...observers, metricsFile } : observers
}

async function syncOnce(
  globals: GlobalOptions,
  options: SyncCommandOptions,
  reporter: Reporter,
  scheduled?: () => ScheduledJson,
  observers?: SyncObservers,
): Promise<ExitCode> {
  // Each scheduled run gets its own deadline, for both services.
  const { loaded, targets, stateDir, clientFor, spreadsheetOf } = await openRun(
    globals,
    options.target,
    reporter,
    observers?.metrics?.tallies,
  )
  const now = clockFor(globals)
  const outcomes: TargetRunOutcome[] = []
  let results: SyncSummary[]
  try {
    results = await runTargets(targets, loaded.config.parallelTargets, reporter, async (target, reporter) => {
      let runId: string | undefined
      try {
        const client = clientFor(target)
        // The server's entry links are read while the spreadsheet opens: its libraries load in the meantime.
        client.readHomeAhead()
        const spreadsheet = await spreadsheetOf(target)
        const concurrency = loaded.config.timeline.pace.concurrency
        const deps = { client, spreadsheet, stateDir, reporter, now, concurrency, onRunStarted: (id: string) => (runId = id) }
        const summary = await runSync(target, deps, importOptions({ ...options, planTab: false }))
        outcomes.push(outcomeOfSync(target.name, summary, now()))
        return summary
      } catch (error) {
        outcomes.push(outcomeOfError(target.name, error, now(), runId))
        throw error
      }
    })
  } finally {
    if (observers) {
      // Each target's notice is bounded by notify.webhook.timeoutMs; they go out side by side.
      await Promise.all(outcomes.map((outcome) => observers.after(outcome)))
      if (observers.metricsFile && observers.metrics) {
        const { writeMetricsFile } = await import('../metrics-file.ts')
        await writeMetricsFile(observers.metricsFile, observers.metrics, reporter)
      }
    }
  }
  const exitCode = syncExitCode(results)
  reporter.result(
    results
      .map((r) => [formatImportSummary(r.imported), r.exported ? formatExportSummary(r.exported) : ''].filter(Boolean).join('\n'))
      .join('\n\n'),
    { ...runsJson(results, exitCode), ...scheduled?.() },
  )
  return exitCode
}

function syncExitCode(results: SyncSummary[]): ExitCode {
  const importCode = importExitCode(results.map((r) => r.imported))
  if (importCode !== EXIT.success) return importCode
  if (results.some((r) => r.exported?.result === 'incomplete')) return EXIT.failure
  return results.some((r) => r.exported?.result === 'partial') ? EXIT.partial : EXIT.success
}
