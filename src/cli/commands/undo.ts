/** `timeline-sheets undo <run-id>`: revert what one import or sync run wrote to the server. */
import { loadConfig } from '../../config/load.ts'
import type { TargetConfig } from '../../config/schema.ts'
import { TimelineSheetsError } from '../../errors.ts'
import { hasJournal, runUndo, unknownRunError, type UndoPlanView } from '../../engine/undo.ts'
import type { GlobalOptions } from '../globals.ts'
import { confirmPlan } from '../confirm.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { runsJson } from '../json-output.ts'
import { createReporter } from '../reporter.ts'
import { createClient, openTargetSpreadsheet, runNetwork } from '../wiring.ts'
import { clockFor, selectTargets } from '../globals.ts'
import { formatUndoPlan, formatUndoSummary } from './format.ts'

export interface UndoCommandOptions {
  target?: string
  dryRun: boolean
  yes: boolean
  /** commander's `--no-export`: false skips the export afterwards. */
  export: boolean
}

export async function runUndoCommand(globals: GlobalOptions, runId: string, options: UndoCommandOptions): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  if (!options.dryRun && !options.yes && !interactive) {
    throw new TimelineSheetsError('TS_USAGE', 'undo changes the server, and there is no terminal to ask for confirmation.', {
      hint: `Look at the plan first with: timeline-sheets undo ${runId} --dry-run; then pass --yes to apply it.`,
    })
  }
  const loaded = await loadConfig(globals.config)
  const stateDir = loaded.resolvePath(loaded.config.stateDir)
  const target = await targetOfRun(loaded.config.targets, options.target, stateDir, runId)
  const network = runNetwork(loaded, globals.deadline, reporter)
  const client = await createClient(loaded, reporter, process.env, network)
  const spreadsheet = await openTargetSpreadsheet(loaded, target, reporter, process.env, network)
  reporter.info(`Undo ${runId} on ${target.name}${options.dryRun ? ' (dry run: nothing is written)' : ''}`)
  const summary = await runUndo(
    target,
    runId,
    {
      client,
      spreadsheet,
      stateDir,
      reporter,
      now: clockFor(globals),
      confirm: options.yes ? undefined : (plan) => askToApply(plan),
    },
    { dryRun: options.dryRun, export: options.export },
  )
  const exitCode = summary.result === 'partial' ? EXIT.partial : EXIT.success
  reporter.result(formatUndoSummary(summary), runsJson([summary], exitCode))
  return exitCode
}

/** The target named by --target, else the one whose journal holds the run. */
async function targetOfRun(targets: TargetConfig[], name: string | undefined, stateDir: string, runId: string): Promise<TargetConfig> {
  const candidates = selectTargets(targets, name)
  const found: TargetConfig[] = []
  for (const t of candidates) if (await hasJournal(stateDir, t.name, runId)) found.push(t)
  if (found.length === 1) return found[0]!
  if (found.length > 1) {
    throw new TimelineSheetsError(
      'TS_USAGE',
      `The run ${runId} is in the journal of several targets: ${found.map((t) => t.name).join(', ')}.`,
      { hint: 'Name one with --target.' },
    )
  }
  if (candidates.length === 1) throw await unknownRunError(stateDir, candidates[0]!.name, runId)
  throw new TimelineSheetsError('TS_USAGE', `No target has a run "${runId}" in its journal.`, {
    hint: `Name the target with --target to see its recent runs (targets: ${candidates.map((t) => t.name).join(', ')}).`,
  })
}

function askToApply(plan: UndoPlanView): Promise<boolean> {
  return confirmPlan(formatUndoPlan(plan), plan.writes.length)
}
