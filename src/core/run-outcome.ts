/**
 * What one run of a target came to, as the health endpoint, the metrics and the failure notices read it: a
 * `sync`, or one interval of `sync --watch`. The CLI builds it from the sync's summary or its error; what follows
 * from it (the health verdict, the notices) is decided here, without I/O.
 */

/**
 * `idle`: a watch's check found nothing changed. `synced`: a sync finished. `partial`: it finished with rows that
 * need a person (exit 3). `locked`: another run held the target. `refused`: a safety guard stopped it before any
 * write (exit 4). `incomplete`: rows changed while it wrote and wait for the next run (exit 1). `failed`: it
 * ended with an error.
 */
export type RunOutcomeKind = 'idle' | 'synced' | 'partial' | 'locked' | 'refused' | 'incomplete' | 'failed'

export const RUN_OUTCOME_KINDS: readonly RunOutcomeKind[] = ['idle', 'synced', 'partial', 'locked', 'refused', 'incomplete', 'failed']

export interface RunRows {
  /** Rows the export wrote to the sheet: created, updated, removed. */
  written: number
  /** Rows the import sent to the server: created, updated, deleted. */
  imported: number
  /** Rows left as conflicts at the end of the run (the sheet's Status says which). */
  conflicts: number
  /** Rows that could not be read as an activity. */
  invalid: number
}

export interface TargetRunOutcome {
  target: string
  kind: RunOutcomeKind
  endedAt: Date
  /** The run's id (its Sync log row and journal); absent for an idle check, which is no run. */
  runId: string | undefined
  rows: RunRows
  /** Sheets requests the run made, by the backend's own count (reads, writes). */
  sheetsRequests: { reads: number; writes: number }
  /** Why a `failed` or `refused` run ended as it did: an error code and its message. */
  error?: { code: string; message: string; hint?: string }
}

export const NO_ROWS: RunRows = { written: 0, imported: 0, conflicts: 0, invalid: 0 }

/**
 * A run someone must be told about: it failed, or a guard stopped it. An incomplete run is not: a person edited
 * rows while it wrote, nothing is lost, and the next run finishes them without anyone's help.
 */
export function isFailure(kind: RunOutcomeKind): boolean {
  return kind === 'failed' || kind === 'refused'
}

/**
 * A run that did its job: the watch's idle check counts, since it is the watch working; a partial sync counts,
 * since what is left needs a person, not another run. A locked run is neither.
 */
export function isSuccess(kind: RunOutcomeKind): boolean {
  return kind === 'idle' || kind === 'synced' || kind === 'partial'
}
