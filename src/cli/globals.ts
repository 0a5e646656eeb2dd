/**
 * What every command is given besides its own options: the global flags, and the two things every
 * command derives from them — the run's clock and the targets it works on.
 */
import type { TargetConfig } from '../config/schema.ts'
import { TimelineSheetsError } from '../errors.ts'

export interface GlobalOptions {
  config: string
  json: boolean
  verbose: boolean
  quiet: boolean
  /** Stop the run after this long (`30m`, `2h`); wins over `timeouts.runMs`. */
  deadline?: string
  /** Hidden: the clock for reproducible runs (tests, benchmarks). */
  now?: string
}

/** The run's clock: real time, or the hidden --now for reproducible runs. */
export function clockFor(globals: GlobalOptions): () => Date {
  if (globals.now === undefined) return () => new Date()
  const fixed = Date.parse(globals.now)
  if (Number.isNaN(fixed)) throw new TimelineSheetsError('TS_USAGE', `--now ${globals.now} is not an ISO date-time`)
  const offset = fixed - Date.now()
  return () => new Date(Date.now() + offset)
}

export function selectTargets(targets: TargetConfig[], name: string | undefined): TargetConfig[] {
  if (name === undefined) return targets
  const found = targets.filter((t) => t.name === name)
  if (found.length === 0) {
    throw new TimelineSheetsError('TS_USAGE', `No target named "${name}" in the config.`, {
      hint: `Targets: ${targets.map((t) => t.name).join(', ')}.`,
    })
  }
  return found
}
