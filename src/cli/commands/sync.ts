/**
 * `timeline-sheets sync`: the nightly job. Per target, under one lock:
 * import (managers' edits to the server), then export (server changes to the
 * sheet), so an export never overwrites an edit that was not imported.
 * With --every or --cron it keeps running and syncs on that schedule.
 */
import { Cron } from 'croner'
import { loadConfig } from '../../config/load.ts'
import { runSync, type SyncSummary } from '../../engine/sync.ts'
import { TimelineSheetsError } from '../../errors.ts'
import { toCliFailure } from '../errors.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import type { GlobalOptions } from '../globals.ts'
import { runsJson } from '../json-output.ts'
import { createReporter, type Reporter } from '../reporter.ts'
import { createClient, openTargetSpreadsheet, runNetwork } from '../wiring.ts'
import { clockFor, selectTargets } from '../globals.ts'
import { formatExportSummary, formatImportSummary } from './format.ts'
import { importExitCode, importOptions, type ImportCommandOptions } from './import.ts'

export interface SyncCommandOptions extends Omit<ImportCommandOptions, 'yes' | 'planTab'> {
  every?: string
  cron?: string
}

export async function runSyncCommand(globals: GlobalOptions, options: SyncCommandOptions): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  if (options.every && options.cron) throw new TimelineSheetsError('TS_USAGE', 'Give either --every or --cron, not both.')
  if (!options.every && !options.cron) return syncOnce(globals, options, reporter)

  const schedule = options.cron ?? everyToCron(options.every!)
  let running: Promise<unknown> = Promise.resolve()
  const tick = async () => {
    running = syncOnce(globals, options, reporter).then(
      (code) => reporter.info(`Run finished with exit code ${code}; next run ${job.nextRun()?.toISOString() ?? 'never'}.`),
      (error: unknown) => {
        // A failed run is reported and the schedule goes on: the next run resumes.
        const failure = toCliFailure(error)
        reporter.warn(`Run failed: ${failure.message}${failure.hint ? ` (${failure.hint})` : ''}`)
      },
    )
    await running
  }
  let job: Cron
  try {
    // protect: a run that takes longer than the interval is not started twice.
    job = new Cron(schedule, { paused: true, protect: true }, tick)
  } catch (error) {
    throw new TimelineSheetsError('TS_USAGE', `The schedule "${schedule}" is not a valid cron expression: ${(error as Error).message}`, {
      hint: 'Examples: --every 1h, --every 30m, --cron "0 2 * * *" (every night at 02:00).',
    })
  }
  job.resume()
  reporter.info(
    `Syncing on schedule "${schedule}"; next run ${job.nextRun()?.toISOString() ?? 'never'}. Ctrl-C stops after the current run.`,
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

async function syncOnce(globals: GlobalOptions, options: SyncCommandOptions, reporter: Reporter): Promise<ExitCode> {
  const loaded = await loadConfig(globals.config)
  const targets = selectTargets(loaded.config.targets, options.target)
  // Each scheduled run gets its own deadline.
  const network = runNetwork(loaded, globals.deadline)
  const client = await createClient(loaded, reporter, process.env, network)
  const stateDir = loaded.resolvePath(loaded.config.stateDir)
  const results: SyncSummary[] = []
  for (const target of targets) {
    const spreadsheet = await openTargetSpreadsheet(loaded, target, reporter)
    const deps = { client, spreadsheet, stateDir, reporter, now: clockFor(globals), concurrency: loaded.config.timeline.pace.concurrency }
    results.push(await runSync(target, deps, importOptions({ ...options, planTab: false })))
  }
  const exitCode = syncExitCode(results)
  reporter.result(
    results
      .map((r) => [formatImportSummary(r.imported), r.exported ? formatExportSummary(r.exported) : ''].filter(Boolean).join('\n'))
      .join('\n\n'),
    runsJson(results, exitCode),
  )
  return exitCode
}

function syncExitCode(results: SyncSummary[]): ExitCode {
  const importCode = importExitCode(results.map((r) => r.imported))
  if (importCode !== EXIT.success) return importCode
  if (results.some((r) => r.exported?.result === 'incomplete')) return EXIT.failure
  return results.some((r) => r.exported?.result === 'partial') ? EXIT.partial : EXIT.success
}

/** `30m`, `2h`, `1d` as a cron expression. */
export function everyToCron(every: string): string {
  const m = /^(\d+)\s*(m|min|h|d)$/i.exec(every.trim())
  if (!m)
    throw new TimelineSheetsError('TS_USAGE', `--every ${every} is not understood.`, { hint: 'Use minutes, hours or days: 30m, 2h, 1d.' })
  const n = Number(m[1])
  const unit = m[2]!.toLowerCase()
  if (n < 1) throw new TimelineSheetsError('TS_USAGE', `--every needs at least 1 ${unit}.`)
  if (unit === 'm' || unit === 'min') {
    if (n >= 60 || 60 % n !== 0)
      throw new TimelineSheetsError(
        'TS_USAGE',
        `--every ${every}: minutes must divide an hour (1, 2, 5, 10, 15, 20, 30); use hours for more.`,
      )
    return `*/${n} * * * *`
  }
  if (unit === 'h') {
    if (n >= 24 || 24 % n !== 0)
      throw new TimelineSheetsError(
        'TS_USAGE',
        `--every ${every}: hours must divide a day (1, 2, 3, 4, 6, 8, 12); use --cron for other schedules.`,
      )
    return `0 */${n} * * *`
  }
  if (n !== 1) throw new TimelineSheetsError('TS_USAGE', `--every ${every}: use --cron for schedules longer than a day.`)
  return '0 2 * * *'
}
