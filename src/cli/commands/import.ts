/** `timeline-sheets import`: show the plan, ask (on a terminal), apply. */
import { TimelineSheetsError } from '../../errors.ts'
import { runImport, type ImportOptions, type ImportPlanView, type ImportSummary } from '../../engine/import.ts'
import type { GlobalOptions } from '../globals.ts'
import { confirmPlan } from '../confirm.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { runsJson } from '../json-output.ts'
import { createReporter } from '../reporter.ts'
import { openRun } from '../wiring.ts'
import { clockFor } from '../globals.ts'
import { formatImportPlan, formatImportSummary } from './format.ts'

export interface ImportCommandOptions {
  target?: string
  dryRun: boolean
  yes: boolean
  planTab: boolean
  deleteMissing: boolean
  /** Each `--max-delete` given (a share, a count, or one of each). */
  maxDelete?: string | string[]
  force: boolean
  forceLayout: boolean
  strictTags: boolean
  overwriteTags: boolean
}

export async function runImportCommand(globals: GlobalOptions, options: ImportCommandOptions): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  if (!options.dryRun && !options.yes && !interactive) {
    throw new TimelineSheetsError('TS_USAGE', 'import changes the server, and there is no terminal to ask for confirmation.', {
      hint: 'Pass --yes to apply without asking (as sync does), or --dry-run to only see the plan.',
    })
  }
  const { loaded, targets, stateDir, clientFor, spreadsheetOf } = await openRun(globals, options.target, reporter)
  const summaries: ImportSummary[] = []
  // One after another: each target's plan may be put to the person at the terminal.
  for (const target of targets) {
    const client = clientFor(target)
    // The server's entry links are read while the spreadsheet opens: its libraries load in the meantime.
    client.readHomeAhead()
    const spreadsheet = await spreadsheetOf(target)
    summaries.push(
      await runImport(
        target,
        {
          client,
          spreadsheet,
          stateDir,
          reporter,
          now: clockFor(globals),
          concurrency: loaded.config.timeline.pace.concurrency,
          confirm: options.yes ? undefined : (plan) => askToApply(plan),
        },
        importOptions(options),
      ),
    )
  }
  const exitCode = importExitCode(summaries)
  reporter.result(summaries.map(formatImportSummary).join('\n\n'), runsJson(summaries, exitCode))
  return exitCode
}

export function importOptions(
  options: Pick<
    ImportCommandOptions,
    'dryRun' | 'planTab' | 'deleteMissing' | 'maxDelete' | 'force' | 'forceLayout' | 'strictTags' | 'overwriteTags'
  >,
): ImportOptions {
  return {
    overwriteTags: options.overwriteTags,
    dryRun: options.dryRun,
    planTab: options.planTab,
    deleteMissing: options.deleteMissing,
    strictTags: options.strictTags,
    force: options.force,
    forceLayout: options.forceLayout,
    ...parseMaxDelete(options.maxDelete),
  }
}

/**
 * `--max-delete 30%` (share of the rows), `--max-delete 500` (a count), or both, the flag given twice (a
 * guard's message suggests both when both limits are over).
 */
export function parseMaxDelete(value: string | readonly string[] | undefined): Pick<ImportOptions, 'maxDeletePercent' | 'maxDeleteCount'> {
  const out: Pick<ImportOptions, 'maxDeletePercent' | 'maxDeleteCount'> = {}
  for (const one of typeof value === 'string' ? [value] : (value ?? [])) {
    const share = /^(\d+(?:\.\d+)?)%$/.exec(one.trim())
    const key = share ? 'maxDeletePercent' : /^\d+$/.test(one.trim()) ? 'maxDeleteCount' : undefined
    if (key === undefined)
      throw new TimelineSheetsError('TS_USAGE', `--max-delete ${one} is neither a share like 30% nor a count like 500.`)
    if (out[key] !== undefined)
      throw new TimelineSheetsError('TS_USAGE', `--max-delete was given two ${share ? 'shares' : 'counts'}.`, {
        hint: 'Give it at most once as a share (30%) and once as a count (500).',
      })
    out[key] = Number(share ? share[1] : one.trim())
  }
  return out
}

export function importExitCode(summaries: ImportSummary[]): ExitCode {
  if (summaries.some((s) => s.result === 'refused')) return EXIT.guard
  if (summaries.some((s) => s.result === 'incomplete')) return EXIT.failure
  if (summaries.some((s) => s.result === 'partial')) return EXIT.partial
  return EXIT.success
}

function askToApply(plan: ImportPlanView): Promise<boolean> {
  return confirmPlan(formatImportPlan(plan), plan.writes.length)
}
