/** A sync's summary, a watch interval's outcome or a run's error as the run outcome the metrics and notices read. */
import { guardError } from '../core/import-report.ts'
import { NO_ROWS, type RunOutcomeKind, type TargetRunOutcome } from '../core/run-outcome.ts'
import type { SyncSummary } from '../engine/sync.ts'
import type { WatchOutcome } from '../engine/watch.ts'
import { toCliFailure } from './errors.ts'

export function outcomeOfSync(target: string, summary: SyncSummary, endedAt: Date): TargetRunOutcome {
  const { imported, exported } = summary
  const ic = imported.counts
  const ec = exported?.counts
  const kind: RunOutcomeKind =
    imported.result === 'refused'
      ? 'refused'
      : imported.result === 'incomplete' || exported?.result === 'incomplete'
        ? 'incomplete'
        : imported.result === 'partial' || exported?.result === 'partial'
          ? 'partial'
          : 'synced'
  const guard = kind === 'refused' ? guardError(imported.plan.guards) : undefined
  return {
    target,
    kind,
    endedAt,
    runId: imported.runId,
    rows: {
      written: ec ? ec.created + ec.updated + ec.deleted : 0,
      imported: imported.applied ? ic.created + ic.updated + ic.deleted : 0,
      // Both halves judge the rows; a row one of them left is counted once, by the half that saw more.
      conflicts: Math.max(ic.conflicts, ec?.conflicts ?? 0),
      invalid: Math.max(ic.invalid, ec?.invalid ?? 0),
    },
    sheetsRequests: {
      reads: imported.sheetsRequests.reads + (exported?.sheetsRequests.reads ?? 0),
      writes: imported.sheetsRequests.writes + (exported?.sheetsRequests.writes ?? 0),
    },
    ...(guard ? { error: { code: guard.code, message: guard.message, ...(guard.hint ? { hint: guard.hint } : {}) } } : {}),
  }
}

export function outcomeOfWatch(target: string, outcome: WatchOutcome, endedAt: Date): TargetRunOutcome {
  if (outcome.kind === 'synced') return outcomeOfSync(target, outcome.summary, endedAt)
  return { target, kind: outcome.kind, endedAt, runId: undefined, rows: NO_ROWS, sheetsRequests: { reads: 0, writes: 0 } }
}

/** `runId`: the id of the run the error ended, when one had started. A lock another run holds is `locked`. */
export function outcomeOfError(target: string, error: unknown, endedAt: Date, runId: string | undefined): TargetRunOutcome {
  const failure = toCliFailure(error)
  return {
    target,
    kind: failure.code === 'TS_LOCKED' ? 'locked' : 'failed',
    endedAt,
    runId,
    rows: NO_ROWS,
    sheetsRequests: { reads: 0, writes: 0 },
    error: { code: failure.code, message: failure.message, ...(failure.hint ? { hint: failure.hint } : {}) },
  }
}
