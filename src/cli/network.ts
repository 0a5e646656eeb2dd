/** The limits every request of a run obeys, from the config and `--deadline`, and what the run says while it waits. */
import type { LoadedConfig } from '../config/load.ts'
import { formatDuration, TimelineSheetsError } from '../errors.ts'
import type { RetryEvent } from '../http/retry.ts'
import { createDeadline, type Deadline, type NetworkSettings, type ServiceKey, type Timeouts } from '../http/transport.ts'
import { createRequestWatch, type RequestTally, type RequestWatch, type WatchLine } from '../http/watch.ts'
import type { Reporter } from './reporter.ts'

/** Each service as messages name it. */
export const SERVICE_NAMES: Record<ServiceKey, string> = { timeline: 'Timeline service', google: 'Google Sheets' }

/** A service's tally of requests (`--listen`, `--metrics-file`): the same one for every run of a process. */
export type Tallies = (service: ServiceKey) => RequestTally

/**
 * What every request of one run obeys: the config's timeouts, the run's deadline (`--deadline` wins over
 * `timeouts.runMs`), counted from now, and a watch per service (`timeouts.retryBudgetMs`, progress lines on
 * `reporter`, the metrics' `tallies`).
 */
export function runNetwork(
  loaded: LoadedConfig,
  deadlineOption: string | undefined,
  reporter?: Reporter,
  tallies?: Tallies,
): NetworkSettings {
  const { runMs } = loaded.config.timeouts
  const base = { timeouts: perRequest(loaded), watches: runWatches(loaded, reporter, tallies) }
  if (deadlineOption !== undefined) {
    return { ...base, deadline: createDeadline(parseDeadline(deadlineOption), `--deadline ${deadlineOption}`) }
  }
  return runMs === undefined ? base : { ...base, deadline: createDeadline(runMs, 'timeouts.runMs') }
}

/**
 * The limits of a process that runs many times (`sync --watch`): adapters built once (the sign-ins, their
 * transports) keep these settings, and each `renew` gives the next run a deadline and watches of its own, as
 * `runNetwork` gives a single run. Without it, a watch would reach its first run's deadline after a day, or
 * carry one interval's spent budget for timed-out requests into all the next.
 */
export function renewableNetwork(
  loaded: LoadedConfig,
  deadlineOption: string | undefined,
  reporter?: Reporter,
  tallies?: Tallies,
): { settings: NetworkSettings; renew(): void } {
  let current = runNetwork(loaded, deadlineOption, reporter, tallies)
  const deadline = (): Deadline => current.deadline!
  const settings: NetworkSettings = {
    ...(current.timeouts ? { timeouts: current.timeouts } : {}),
    watches: { timeline: currentWatch(() => current.watches!.timeline!), google: currentWatch(() => current.watches!.google!) },
    ...(current.deadline
      ? {
          deadline: {
            get at() {
              return deadline().at
            },
            get ms() {
              return deadline().ms
            },
            get setting() {
              return deadline().setting
            },
            get signal() {
              return deadline().signal
            },
          },
        }
      : {}),
  }
  return {
    settings,
    renew: () => {
      current = runNetwork(loaded, deadlineOption, reporter, tallies)
    },
  }
}

/** A watch that is always the current run's. */
function currentWatch(of: () => RequestWatch): RequestWatch {
  return {
    get service() {
      return of().service
    },
    get spent() {
      return of().spent
    },
    refusal: (method, url) => of().refusal(method, url),
    begin: (method, url, limits) => of().begin(method, url, limits),
    final: (error, attempts) => of().final(error, attempts),
    quotaWait: () => of().quotaWait(),
  }
}

/** The config's per-request timeouts without a deadline (login, which waits for a person). */
export function requestLimits(loaded: LoadedConfig): NetworkSettings {
  return { timeouts: perRequest(loaded) }
}

function perRequest(loaded: LoadedConfig): Timeouts {
  const { connectMs, firstByteMs, idleBodyMs, totalMs } = loaded.config.timeouts
  return { connectMs, firstByteMs, idleBodyMs, totalMs }
}

/** One watch a service, each with the config's budget for timed-out requests. */
function runWatches(loaded: LoadedConfig, reporter: Reporter | undefined, tallies: Tallies | undefined): Record<ServiceKey, RequestWatch> {
  const watch = (key: ServiceKey) =>
    createRequestWatch({
      service: SERVICE_NAMES[key],
      key,
      budgetMs: loaded.config.timeouts.retryBudgetMs,
      ...(tallies ? { tally: tallies(key) } : {}),
      ...(reporter ? { say: (line: WatchLine) => reporter.info(line.text, line.fields) } : {}),
    })
  return { timeline: watch('timeline'), google: watch('google') }
}

/**
 * Says a repeat as it happens: what failed, the attempt, how long the run waits. A quota's 429 is the pace
 * working (info), and a wait for the quota on the service's `watch`; any other failure is a warning, so it shows
 * under --quiet too.
 */
export function sayRetry(
  reporter: Reporter,
  key: ServiceKey,
  event: RetryEvent,
  failed: string,
  watch?: Pick<RequestWatch, 'quotaWait'>,
): void {
  const line = retryLine(key, event, failed)
  if (/\b429\b/.test(event.reason)) {
    watch?.quotaWait()
    reporter.info(line.text, line.fields)
  } else reporter.warn(line.text, line.fields)
}

/** The line `sayRetry` says. */
export function retryLine(key: ServiceKey, event: RetryEvent, failed: string): WatchLine {
  const service = SERVICE_NAMES[key]
  // Our own errors name the service already.
  const what = failed.startsWith(`${service}: `) ? failed.slice(service.length + 2) : failed
  const wait = formatDuration(event.delayMs)
  const attempt = `attempt ${event.attempt} of ${event.attempts}`
  const fields = { service: key, attempt: event.attempt, waitMs: event.delayMs, reason: event.reason }
  if (key === 'google' && /\b429\b/.test(event.reason)) {
    return { text: `Google Sheets asked to slow down, retrying in ${wait} (${attempt}: ${event.reason})`, fields }
  }
  return { text: `${service}: ${attempt} failed: ${what}; trying again in ${wait}`, fields }
}

/** `90s`, `30m`, `2h`, `1h30m` in milliseconds. */
export function parseDeadline(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m(?:in)?)?(?:(\d+)s)?$/i.exec(text.trim())
  const ms = m ? (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1000 : 0
  if (!m || ms <= 0 || ms > 7 * 24 * 3_600_000) {
    throw new TimelineSheetsError('TS_USAGE', `--deadline ${text} is not a duration between 1 s and 7 days`, {
      hint: 'Examples: --deadline 90s, --deadline 30m, --deadline 2h, --deadline 1h30m.',
    })
  }
  return ms
}
