/**
 * What happens after each run of a target (a `sync`, a watch interval) besides its own output: the metrics count
 * it (`--listen`, `--metrics-file`), the failure notices decide whether to tell someone (`notify`), and the
 * target's health record keeps what both need across processes. None of it may fail a run: a health record that
 * cannot be written or a notice that cannot be sent is a warning.
 */
import { decideNotice } from '../core/notice.ts'
import { isSuccess, type TargetRunOutcome } from '../core/run-outcome.ts'
import type { NotifyConfig } from '../config/schema.ts'
import { readTargetHealth, writeTargetHealth, type TargetHealthRecord } from '../state/target-health.ts'
import type { RunMetrics } from './metrics.ts'
import type { SendNotice } from './notify.ts'
import type { Reporter } from './reporter.ts'

export interface RunObservers {
  /** The metrics, when `--listen` or `--metrics-file` asked for them. */
  readonly metrics: RunMetrics | undefined
  /** Counts, records and tells one run's outcome; never throws. */
  after(outcome: TargetRunOutcome): Promise<void>
}

export interface ObserverOptions {
  stateDir: string
  targets: readonly string[]
  /** Load prom-client and keep the figures. */
  metrics: boolean
  notify: NotifyConfig | undefined
  reporter: Reporter
  env?: NodeJS.ProcessEnv
  /** Injected in tests. @default the webhook of `notify` */
  send?: SendNotice
}

/** Undefined when nothing asked for any of it: a run then reads and writes no health record. */
export async function createRunObservers(options: ObserverOptions): Promise<RunObservers | undefined> {
  const { stateDir, reporter, notify } = options
  if (!options.metrics && !notify) return undefined
  const metrics = options.metrics ? (await import('./metrics.ts')).createRunMetrics(options.targets) : undefined
  const send =
    options.send ??
    (notify
      ? (await import('./notify.ts')).webhookSender({ webhook: notify.webhook, env: options.env ?? process.env, reporter })
      : undefined)
  const records = new Map<string, TargetHealthRecord>()
  for (const target of options.targets) {
    const record: TargetHealthRecord = await readTargetHealth(stateDir, target).catch((error: unknown) => {
      reporter.warn(`The health record of ${target} could not be read (${(error as Error).message}); it starts afresh.`)
      return {}
    })
    records.set(target, record)
    if (record.lastSuccessAt) metrics?.knownSuccess(target, new Date(record.lastSuccessAt))
  }
  const repeatAfterMs = (notify?.repeatAfterHours ?? 24) * 3_600_000

  return {
    metrics,
    async after(outcome) {
      metrics?.record(outcome)
      const { target } = outcome
      const before = records.get(target) ?? {}
      let told = before.told
      if (send) {
        const decision = decideNotice(before.told, outcome, repeatAfterMs)
        // Recorded only once sent: a notice that did not arrive is tried again after the next run.
        if (decision.notice && (await send(decision.notice)) === 'sent') told = decision.told
      }
      const after: TargetHealthRecord = {
        ...(isSuccess(outcome.kind)
          ? { lastSuccessAt: outcome.endedAt.toISOString() }
          : before.lastSuccessAt
            ? { lastSuccessAt: before.lastSuccessAt }
            : {}),
        ...(told ? { told } : {}),
      }
      records.set(target, after)
      // An idle interval's success is kept in memory only: a watch would otherwise write the file every interval.
      const toldChanged = JSON.stringify(told) !== JSON.stringify(before.told)
      if (JSON.stringify(after) === JSON.stringify(before) || (outcome.kind === 'idle' && !toldChanged)) return
      await writeTargetHealth(stateDir, target, after).catch((error: unknown) =>
        reporter.warn(`The health record of ${target} could not be written (${(error as Error).message}); the run goes on.`),
      )
    },
  }
}
