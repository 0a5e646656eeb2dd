/**
 * Whether a `sync --watch` is healthy, as `GET /healthz` answers: every target's last interval ended in time and
 * did not fail. Late means no interval of the target has ended for `lateAfterMs` (since the watch started, for
 * the first): the watch is stuck or far behind its schedule. Failing means its last interval ended with an error,
 * a guard or rows left unfinished; the next good interval clears it.
 */
import { isFailure, type TargetRunOutcome } from './run-outcome.ts'

export interface WatchedTarget {
  target: string
  /** The target's last interval, absent before the first ends. */
  last: TargetRunOutcome | undefined
}

export interface WatchHealth {
  healthy: boolean
  /** Targets whose intervals keep ending; false only for a stuck watch (`late` non-empty). */
  live: boolean
  late: { target: string; lastEndedAt: string | null; lateSince: string }[]
  failing: { target: string; code: string; message: string; endedAt: string; runId: string | null }[]
}

export function watchHealth(targets: readonly WatchedTarget[], startedAtMs: number, nowMs: number, lateAfterMs: number): WatchHealth {
  const late: WatchHealth['late'] = []
  const failing: WatchHealth['failing'] = []
  for (const { target, last } of targets) {
    const since = last ? last.endedAt.getTime() : startedAtMs
    if (nowMs - since > lateAfterMs) {
      late.push({ target, lastEndedAt: last ? last.endedAt.toISOString() : null, lateSince: new Date(since + lateAfterMs).toISOString() })
    }
    if (last && isFailure(last.kind)) {
      failing.push({
        target,
        code: last.error?.code ?? 'TS_INTERNAL',
        message: last.error?.message ?? last.kind,
        endedAt: last.endedAt.toISOString(),
        runId: last.runId ?? null,
      })
    }
  }
  return { healthy: late.length === 0 && failing.length === 0, live: late.length === 0, late, failing }
}

/**
 * How long a target may go without an interval ending: two periods of the schedule, and the longest one run may
 * take (its deadline), so one slow interval and the wait for the next are not taken for a stuck watch.
 */
export function lateAfterMs(periodMs: number, runDeadlineMs: number | undefined): number {
  return 2 * periodMs + (runDeadlineMs ?? 30 * 60_000)
}
