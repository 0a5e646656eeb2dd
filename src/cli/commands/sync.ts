/**
 * `timeline-sheets sync`: the nightly job. Per target, under one lock:
 * import (managers' edits to the server), then export (server changes to the
 * sheet), so an export never overwrites an edit that was not imported.
 * With --every or --cron it keeps running and syncs on that schedule.
 */
import { loadConfig } from '../../config/load.ts'
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
import { formatExportSummary, formatImportSummary } from './format.ts'
import { importExitCode, importOptions } from './import.ts'
import type { WatchCommandOptions } from './sync-watch.ts'

export { everyToCron } from '../schedule.ts'

export interface SyncCommandOptions extends WatchCommandOptions {
  /** Keep running and sync a target only when its idle check sees a change (sync-watch.ts). */
  watch?: boolean
}

export async function runSyncCommand(globals: GlobalOptions, options: SyncCommandOptions): Promise<ExitCode> {
  if (options.every && options.cron) throw new TimelineSheetsError('TS_USAGE', 'Give either --every or --cron, not both.')
  if (options.watch) {
    const { runWatchCommand } = await import('./sync-watch.ts')
    return runWatchCommand(globals, options)
  }
  if (!options.every && !options.cron) {
    if (options.zone !== undefined) throw new TimelineSheetsError('TS_USAGE', '--zone goes with --every or --cron.')
    return syncOnce(globals, options, createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet }))
  }
  // Runs come one after another for as long as the process lives: with --json each is one line (JSON Lines).
  const reporter = createReporter({ json: globals.json, jsonLines: true, verbose: globals.verbose, quiet: globals.quiet })
  const loaded = await loadConfig(globals.config)
  const schedule = scheduleOf(options, selectTargets(loaded.config.targets, options.target))
  const next = () => {
    const at = job.nextRun()
    return { pattern: schedule.pattern, timeZone: schedule.timeZone, nextRun: at ? at.toISOString() : null }
  }
  let running: Promise<unknown> = Promise.resolve()
  const tick = async () => {
    running = syncOnce(globals, options, reporter, () => ({ schedule: next() })).then(
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

async function syncOnce(
  globals: GlobalOptions,
  options: SyncCommandOptions,
  reporter: Reporter,
  scheduled?: () => ScheduledJson,
): Promise<ExitCode> {
  // Each scheduled run gets its own deadline, for both services.
  const { loaded, targets, stateDir, clientFor, spreadsheetOf } = await openRun(globals, options.target, reporter)
  const results: SyncSummary[] = await runTargets(targets, loaded.config.parallelTargets, reporter, async (target, reporter) => {
    const spreadsheet = await spreadsheetOf(target)
    const client = clientFor(target)
    const deps = { client, spreadsheet, stateDir, reporter, now: clockFor(globals), concurrency: loaded.config.timeline.pace.concurrency }
    return runSync(target, deps, importOptions({ ...options, planTab: false }))
  })
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
