/**
 * Runs a command's targets several at once (`parallelTargets`): a department's fifty spreadsheets take about
 * as long as the slowest of them, not the sum, while their requests share the paces of both services. When
 * more than one target is under way, each one's messages name it. Results come back in the config's order.
 * A failed target starts no further ones; those under way finish, and the first failure in the config's order
 * is thrown, as a run of one target after another would have thrown it (decisions/0009-many-targets.md).
 */
import type { TargetConfig } from '../config/schema.ts'
import type { Reporter } from './reporter.ts'

export async function runTargets<T>(
  targets: readonly TargetConfig[],
  atOnce: number,
  reporter: Reporter,
  run: (target: TargetConfig, reporter: Reporter) => Promise<T>,
): Promise<T[]> {
  const limit = Math.max(1, Math.min(atOnce, targets.length))
  const outcomes: ({ ok: true; value: T } | { ok: false; error: unknown })[] = []
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < targets.length) {
      const index = next++
      const target = targets[index]!
      try {
        outcomes[index] = { ok: true, value: await run(target, limit > 1 ? namedReporter(reporter, target.name) : reporter) }
      } catch (error) {
        outcomes[index] = { ok: false, error }
        failed = true
      }
    }
  }
  await Promise.all(Array.from({ length: limit }, worker))
  const values: T[] = []
  for (const outcome of outcomes) {
    if (!outcome) continue
    if (!outcome.ok) throw outcome.error
    values.push(outcome.value)
  }
  return values
}

/** The reporter with `target: ` before every message, so interleaved lines still say whose they are. */
function namedReporter(reporter: Reporter, name: string): Reporter {
  return {
    ...reporter,
    info: (message, fields) => reporter.info(`${name}: ${message}`, fields),
    warn: (message, fields) => reporter.warn(`${name}: ${message}`, fields),
    debug: (message, fields) => reporter.debug(`${name}: ${message}`, fields),
    progress: (label, done, total) => reporter.progress(`${name}: ${label}`, done, total),
  }
}
