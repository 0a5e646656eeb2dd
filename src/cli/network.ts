/** The limits every request of a run obeys, from the config and `--deadline`. */
import type { LoadedConfig } from '../config/load.ts'
import { TimelineSheetsError } from '../errors.ts'
import { createDeadline, type NetworkSettings } from '../http/transport.ts'

/**
 * What every request of one run obeys: the config's timeouts, and the run's
 * deadline (`--deadline` wins over `timeouts.runMs`), counted from now.
 */
export function runNetwork(loaded: LoadedConfig, deadlineOption: string | undefined): NetworkSettings {
  const { runMs, ...timeouts } = loaded.config.timeouts
  if (deadlineOption !== undefined) {
    return { timeouts, deadline: createDeadline(parseDeadline(deadlineOption), `--deadline ${deadlineOption}`) }
  }
  return runMs === undefined ? { timeouts } : { timeouts, deadline: createDeadline(runMs, 'timeouts.runMs') }
}

/** The config's per-request timeouts without a deadline (login, which waits for a person). */
export function requestLimits(loaded: LoadedConfig): NetworkSettings {
  const { runMs: _deadline, ...timeouts } = loaded.config.timeouts
  return { timeouts }
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
