/**
 * The figures `sync --watch --listen` serves on `/metrics` and `sync --metrics-file` writes after a run, in
 * Prometheus' text format through prom-client (loaded only by those two options). Per target: when it last
 * succeeded and last ran, what its runs (a watch's intervals) came to, the rows they wrote and imported, the
 * conflicts and invalid rows the last sync left, the Sheets requests the backend counted, errors by code. Per
 * service: requests by method and answer, waits for a quota and timeouts, as the request watch tallies them
 * (src/http/watch.ts). The README's table lists them.
 */
import { Counter, Gauge, Registry } from 'prom-client'
import { RUN_OUTCOME_KINDS, isSuccess, type TargetRunOutcome } from '../core/run-outcome.ts'
import type { ServiceKey } from '../http/transport.ts'
import type { RequestTally } from '../http/watch.ts'
import type { Tallies } from './network.ts'

export interface RunMetrics {
  /** Counts one run (an interval) of a target. */
  record(outcome: TargetRunOutcome): void
  /** A target's last success before this process (its health record), until a run of this process succeeds. */
  knownSuccess(target: string, at: Date): void
  /** Where the transport's request watches count each service's requests. */
  tallies: Tallies
  /** The exposition text: HELP and TYPE lines, one sample a line, ending in a newline. */
  text(): Promise<string>
  readonly contentType: string
}

/** @param targets every target the process runs: each gets its series from the start, at zero. */
export function createRunMetrics(targets: readonly string[]): RunMetrics {
  const registry = new Registry()
  const registers = [registry]
  const lastSuccess = new Gauge({
    name: 'timeline_sheets_last_success_timestamp_seconds',
    help: 'When a run (a watch interval) of the target last succeeded: synced, found nothing changed, or left rows for a person.',
    labelNames: ['target'],
    registers,
  })
  const lastRun = new Gauge({
    name: 'timeline_sheets_last_run_timestamp_seconds',
    help: 'When the last run (a watch interval) of the target ended, whatever it came to.',
    labelNames: ['target'],
    registers,
  })
  const runs = new Counter({
    name: 'timeline_sheets_runs_total',
    help: 'Runs (watch intervals) of the target by outcome: idle, synced, partial, locked, refused, incomplete, failed.',
    labelNames: ['target', 'outcome'],
    registers,
  })
  const written = new Counter({
    name: 'timeline_sheets_rows_written_total',
    help: 'Rows the export created, updated or removed in the spreadsheet.',
    labelNames: ['target'],
    registers,
  })
  const imported = new Counter({
    name: 'timeline_sheets_rows_imported_total',
    help: 'Rows the import created, updated or deleted on the Timeline server.',
    labelNames: ['target'],
    registers,
  })
  const conflicts = new Gauge({
    name: 'timeline_sheets_conflict_rows',
    help: "Rows in conflict (edited in the sheet and on the server) after the target's last sync.",
    labelNames: ['target'],
    registers,
  })
  const invalid = new Gauge({
    name: 'timeline_sheets_invalid_rows',
    help: "Rows that could not be read as an activity after the target's last sync.",
    labelNames: ['target'],
    registers,
  })
  const sheetsRequests = new Counter({
    name: 'timeline_sheets_spreadsheet_requests_total',
    help: "Requests the target's spreadsheet backend made by kind (Google Sheets API calls; a workbook's loads and saves).",
    labelNames: ['target', 'kind'],
    registers,
  })
  const errors = new Counter({
    name: 'timeline_sheets_errors_total',
    help: 'Runs (watch intervals) of the target that ended with an error or a safety guard, by error code.',
    labelNames: ['target', 'code'],
    registers,
  })
  const requests = new Counter({
    name: 'timeline_sheets_requests_total',
    help: 'Requests to a service by HTTP method and answer (status class, 429 apart, timeout, or error for no answer).',
    labelNames: ['service', 'method', 'answer'],
    registers,
  })
  const quotaWaits = new Counter({
    name: 'timeline_sheets_quota_waits_total',
    help: "Times a run waited for a service's quota: a 429 answer tried again later, or the pace holding requests back.",
    labelNames: ['service'],
    registers,
  })
  const timeouts = new Counter({
    name: 'timeline_sheets_request_timeouts_total',
    help: 'Requests to a service that passed one of their limits (connect, firstByte, idleBody, total, deadline).',
    labelNames: ['service', 'limit'],
    registers,
  })

  for (const target of targets) {
    for (const outcome of RUN_OUTCOME_KINDS) runs.inc({ target, outcome }, 0)
    written.inc({ target }, 0)
    imported.inc({ target }, 0)
    for (const kind of ['read', 'write']) sheetsRequests.inc({ target, kind }, 0)
  }
  const services: ServiceKey[] = ['timeline', 'google']
  for (const service of services) quotaWaits.inc({ service }, 0)

  const succeeded = new Set<string>()
  const tallyOf = new Map<ServiceKey, RequestTally>()
  const tallies: Tallies = (service) => {
    let tally = tallyOf.get(service)
    if (!tally) {
      tally = {
        request: (method, answer) => requests.inc({ service, method, answer }),
        timeout: (limit) => timeouts.inc({ service, limit }),
        quotaWait: () => quotaWaits.inc({ service }),
      }
      tallyOf.set(service, tally)
    }
    return tally
  }

  return {
    record(outcome) {
      const { target } = outcome
      const at = outcome.endedAt.getTime() / 1000
      lastRun.set({ target }, at)
      runs.inc({ target, outcome: outcome.kind })
      if (isSuccess(outcome.kind)) {
        succeeded.add(target)
        lastSuccess.set({ target }, at)
      }
      if (outcome.error && outcome.kind !== 'incomplete') errors.inc({ target, code: outcome.error.code })
      written.inc({ target }, outcome.rows.written)
      imported.inc({ target }, outcome.rows.imported)
      sheetsRequests.inc({ target, kind: 'read' }, outcome.sheetsRequests.reads)
      sheetsRequests.inc({ target, kind: 'write' }, outcome.sheetsRequests.writes)
      // What a sync found; an idle check or a failed run says nothing new about the rows.
      if (outcome.kind === 'synced' || outcome.kind === 'partial' || outcome.kind === 'incomplete') {
        conflicts.set({ target }, outcome.rows.conflicts)
        invalid.set({ target }, outcome.rows.invalid)
      }
    },
    knownSuccess(target, at) {
      if (!succeeded.has(target)) lastSuccess.set({ target }, at.getTime() / 1000)
    },
    tallies,
    text: () => registry.metrics(),
    contentType: registry.contentType,
  }
}
