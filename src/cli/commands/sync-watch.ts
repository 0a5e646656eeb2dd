/**
 * `timeline-sheets sync --watch`: runs for days, and each interval (2 minutes by default) checks every target
 * for a change at a cost that does not grow with the sheet; only a target that changed is synced
 * (decisions/0016-frequent-sync.md). One sign-in to each service serves every interval. A failure in one
 * interval is reported and the next interval tries again; SIGTERM or Ctrl-C stops after the current interval.
 */
import { loadConfig } from '../../config/load.ts'
import type { TargetConfig } from '../../config/schema.ts'
import type { TargetRunOutcome } from '../../core/run-outcome.ts'
import { lateAfterMs, watchHealth } from '../../core/watch-health.ts'
import { startWatch, watchInterval, type TargetWatch, type WatchOutcome } from '../../engine/watch.ts'
import { TimelineSheetsError } from '../../errors.ts'
import { toCliFailure } from '../errors.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { clockFor, selectTargets, type GlobalOptions } from '../globals.ts'
import { errorJson, runsJson } from '../json-output.ts'
import { createReporter, type Reporter } from '../reporter.ts'
import { cronJob, nextRuns, scheduleOf, type Schedule } from '../schedule.ts'
import { createRunObservers } from '../run-observers.ts'
import { outcomeOfError, outcomeOfWatch } from '../run-outcomes.ts'
import { runTargets } from '../targets.ts'
import { openSession } from '../wiring.ts'
import { formatExportSummary, formatImportSummary } from './format.ts'
import { importOptions, type ImportCommandOptions } from './import.ts'

/** The interval `--watch` checks at when no --every or --cron is given. */
export const WATCH_EVERY_DEFAULT = '2m'

/**
 * When intervals happen. The CLI's is the cron schedule; a test or the memory bench runs intervals back to back.
 * `run` calls `tick` once an interval until `stop` is aborted, and resolves once the interval under way is over.
 */
export interface WatchClock {
  describe(): string
  /** Time between two intervals, for when /healthz calls a target late. @default 2 minutes */
  periodMs?: number
  run(tick: () => Promise<void>, stop: AbortSignal): Promise<void>
}

/** The options of `sync` a watch reads: the sync's own, and its schedule. */
export interface WatchCommandOptions extends Omit<ImportCommandOptions, 'yes' | 'planTab'> {
  /** Hidden: this many intervals back to back, then stop (what an interval costs, measured from outside). */
  intervals?: string
  every?: string
  cron?: string
  /** The zone --every/--cron run in; default: the target's. */
  zone?: string
  /** `HOST:PORT` to serve /healthz, /livez and /metrics on. */
  listen?: string
}

export async function runWatchCommand(globals: GlobalOptions, options: WatchCommandOptions, clock?: WatchClock): Promise<ExitCode> {
  if (options.dryRun)
    throw new TimelineSheetsError('TS_USAGE', '--watch runs syncs; it has no --dry-run.', {
      hint: 'Run `sync --dry-run` once to see a plan.',
    })
  const reporter = createReporter({ json: globals.json, jsonLines: true, verbose: globals.verbose, quiet: globals.quiet })
  const loaded = await loadConfig(globals.config)
  const { config } = loaded
  const chosen = selectTargets(config.targets, options.target)
  requireChangeMarks(chosen, config.google?.watch ?? false)
  const listen = options.listen === undefined ? undefined : (await import('../listen.ts')).parseListen(options.listen)
  const schedule =
    clock ??
    (options.intervals !== undefined ? backToBack(options.intervals) : undefined) ??
    cronClock(scheduleOf({ ...options, every: options.cron ? undefined : (options.every ?? WATCH_EVERY_DEFAULT) }, chosen))

  const now = clockFor(globals)
  const observers = await createRunObservers({
    stateDir: loaded.resolvePath(config.stateDir),
    targets: chosen.map((t) => t.name),
    metrics: listen !== undefined,
    notify: config.notify,
    reporter,
  })
  const session = await openSession(globals, options.target, reporter, observers?.metrics?.tallies)
  const startedMs = now().getTime()
  const watches = new Map<string, TargetWatch>(session.targets.map((t) => [t.name, startWatch(startedMs)]))
  const last = new Map<string, TargetRunOutcome>()
  const ended = async (outcome: TargetRunOutcome) => {
    last.set(outcome.target, outcome)
    await observers?.after(outcome)
  }
  const tick = async () => {
    const run = session.run()
    await runTargets(session.targets, session.loaded.config.parallelTargets, reporter, async (target, said) => {
      const watch = watches.get(target.name)!
      let runId: string | undefined
      try {
        const deps = {
          client: run.clientFor(target),
          spreadsheet: await run.spreadsheetOf(target),
          stateDir: session.stateDir,
          reporter: said,
          now,
          concurrency: session.loaded.config.timeline.pace.concurrency,
          onRunStarted: (id: string) => (runId = id),
        }
        const sync = importOptions({ ...options, dryRun: false, planTab: false })
        const outcome = await watchInterval(target, deps, watch, { sync, intervalText: schedule.describe() })
        report(reporter, said, target, outcome, globals.json ? now() : undefined)
        await ended(outcomeOfWatch(target.name, outcome, now()))
      } catch (error) {
        // One target's failure is its own; the others go on, and this one is synced in full next interval.
        const failure = toCliFailure(error)
        said.warn(`Interval failed: ${failure.message}${failure.hint ? ` (${failure.hint})` : ''}; the next interval tries again.`)
        if (globals.json) reporter.result('', { target: target.name, ...errorJson(failure) })
        await ended(outcomeOfError(target.name, error, now(), runId))
      }
    })
  }

  const stop = new AbortController()
  const stopping = () => stop.abort()
  process.once('SIGINT', stopping)
  process.once('SIGTERM', stopping)
  reporter.info(
    `Watching ${session.targets.length === 1 ? session.targets[0]!.name : `${session.targets.length} targets`} ${schedule.describe()}: each interval asks whether the spreadsheet or the server changed, and syncs only then. Ctrl-C stops after the current interval.`,
  )
  const listener =
    listen && observers?.metrics
      ? await (
          await import('../listen.ts')
        ).startListener(
          listen,
          () =>
            watchHealth(
              session.targets.map((t) => ({ target: t.name, last: last.get(t.name) })),
              startedMs,
              now().getTime(),
              lateAfterMs(schedule.periodMs ?? 120_000, config.timeouts.runMs),
            ),
          observers.metrics,
        )
      : undefined
  if (listener) reporter.info(`Serving ${listener.url}/healthz, /livez and /metrics.`, { listen: listener.url })
  try {
    await schedule.run(tick, stop.signal)
  } finally {
    process.off('SIGINT', stopping)
    process.off('SIGTERM', stopping)
    await listener?.close()
  }
  reporter.info('Watch stopped.')
  return EXIT.success
}

/** Every target's backend can tell an untouched spreadsheet: a Google one needs the config's `google.watch`. */
function requireChangeMarks(targets: readonly TargetConfig[], googleWatch: boolean): void {
  const google = targets.filter((t) => t.spreadsheet.kind === 'google')
  if (google.length > 0 && !googleWatch) {
    throw new TimelineSheetsError(
      'TS_USAGE',
      `sync --watch asks Google Drive each interval whether ${google.length === 1 ? `the spreadsheet of ${google[0]!.name}` : `${google.length} spreadsheets`} changed, which needs "watch": true in the config's "google" section.`,
      {
        hint: 'Set "google": { "watch": true, … }: the sign-in then also asks for read-only Drive metadata (drive.metadata.readonly). Google lists that scope as Restricted: an installed-app OAuth client that asks for it requires restricted scope OAuth App Verification, a service account does not. With your own Google account, run `timeline-sheets login --google` again afterwards.',
      },
    )
  }
}

/**
 * One interval's outcome, said. `jsonAt`, with --json: when the interval ended. Then an idle interval prints a
 * line too, so a log monitor can tell a watch that finds nothing from one that stopped; as text it says nothing
 * worth a line every few minutes (the Sync log gets one an hour).
 */
function report(reporter: Reporter, said: Reporter, target: TargetConfig, outcome: WatchOutcome, jsonAt?: Date): void {
  if (outcome.kind === 'idle') {
    said.debug('nothing changed', { drive: outcome.requests.spreadsheet, timeline: outcome.requests.timeline })
    if (jsonAt) reporter.result('', { target: target.name, idle: { at: jsonAt.toISOString(), requests: outcome.requests } })
    return
  }
  if (outcome.kind === 'locked') {
    said.info(`Skipped this interval (${outcome.reason}): ${outcome.message} The next interval tries again.`)
    reporter.result('', { target: target.name, skipped: { reason: 'locked', message: outcome.message } })
    return
  }
  const { summary } = outcome
  said.info(`Synced: ${outcome.reason}.`)
  // An import that found nothing to do says nothing worth a line every few minutes.
  const { plan } = summary.imported
  const imported = plan.writes.length + plan.conflicts.length + plan.invalid.length + plan.guards.length > 0 || plan.tags !== 'unchanged'
  const text = [imported ? formatImportSummary(summary.imported) : '', summary.exported ? formatExportSummary(summary.exported) : '']
    .filter(Boolean)
    .join('\n')
  reporter.result(text, { ...runsJson([summary], EXIT.success), watch: { reason: outcome.reason, hourly: outcome.hourly } })
}

/** The CLI's clock: the cron schedule of --every/--cron, one interval at a time (an interval that overruns is not doubled). */
function cronClock(schedule: Schedule): WatchClock {
  const [a, b] = nextRuns(schedule, new Date(), 2)
  return {
    describe: () => describeSchedule(schedule),
    ...(a && b ? { periodMs: b.getTime() - a.getTime() } : {}),
    run: async (tick, stop) => {
      let running: Promise<void> = Promise.resolve()
      const job = cronJob(schedule, async () => {
        running = tick()
        await running
      })
      job.resume()
      await new Promise<void>((resolve) => {
        if (stop.aborted) resolve()
        else stop.addEventListener('abort', () => resolve(), { once: true })
      })
      job.stop()
      await running.catch(() => undefined)
    },
  }
}

/** `n` intervals, each as soon as the last ended. */
function backToBack(text: string): WatchClock {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new TimelineSheetsError('TS_USAGE', `--intervals ${text} is not a whole number of intervals.`)
  return {
    describe: () => `${n} times back to back`,
    run: async (tick, stop) => {
      for (let i = 0; i < n && !stop.aborted; i++) await tick()
    },
  }
}

/** `every 2 min`, or the cron pattern as given. */
function describeSchedule(schedule: Schedule): string {
  const minutes = /^\*\/(\d+) \* \* \* \*$/.exec(schedule.pattern)
  if (minutes) return `every ${minutes[1]} min`
  const seconds = /^\*\/(\d+) \* \* \* \* \*$/.exec(schedule.pattern)
  if (seconds) return `every ${seconds[1]} s`
  return `on "${schedule.pattern}" (${schedule.timeZone})`
}
