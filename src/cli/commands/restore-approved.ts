/** `timeline-sheets restore-approved`: put one person's approved period back on the server where it changed since. */
import { loadConfig } from '../../config/load.ts'
import { TimelineSheetsError } from '../../errors.ts'
import { runRestoreApproved, type RestorePlanView, type RestoreSummary } from '../../engine/restore-approved.ts'
import type { GlobalOptions } from '../globals.ts'
import { clockFor, selectTargets } from '../globals.ts'
import { confirmPlan } from '../confirm.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { runsJson } from '../json-output.ts'
import { createReporter } from '../reporter.ts'
import { createClient, openTargetSpreadsheet, runNetwork } from '../wiring.ts'

export interface RestoreApprovedCommandOptions {
  target?: string
  user: string
  period: string
  dryRun: boolean
  yes: boolean
}

export async function runRestoreApprovedCommand(globals: GlobalOptions, options: RestoreApprovedCommandOptions): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  const again = `timeline-sheets restore-approved --user ${options.user} --period ${options.period}`
  if (!options.dryRun && !options.yes && !interactive) {
    throw new TimelineSheetsError('TS_USAGE', 'restore-approved changes the server, and there is no terminal to ask for confirmation.', {
      hint: `Look at the plan first with: ${again} --dry-run; then pass --yes to apply it.`,
    })
  }
  const loaded = await loadConfig(globals.config)
  const stateDir = loaded.resolvePath(loaded.config.stateDir)
  const targets = selectTargets(loaded.config.targets, options.target)
  if (targets.length !== 1)
    throw new TimelineSheetsError('TS_USAGE', 'restore-approved works on one target, and the config has several.', {
      hint: `Name it with --target (targets: ${targets.map((t) => t.name).join(', ')}).`,
    })
  const target = targets[0]!
  const network = runNetwork(loaded, globals.deadline, reporter)
  const client = await createClient(loaded, reporter, process.env, network)
  const spreadsheet = await openTargetSpreadsheet(loaded, target, reporter, process.env, network)
  reporter.info(
    `Restore ${options.user}'s approved ${options.period} on ${target.name}${options.dryRun ? ' (dry run: nothing is written)' : ''}`,
  )
  const summary = await runRestoreApproved(
    target,
    { user: options.user, period: options.period },
    {
      client,
      spreadsheet,
      stateDir,
      reporter,
      now: clockFor(globals),
      confirm: options.yes ? undefined : (plan) => confirmPlan(formatRestorePlan(plan), plan.writes.length),
    },
    { dryRun: options.dryRun },
  )
  const exitCode = summary.result === 'partial' ? EXIT.partial : EXIT.success
  reporter.result(formatRestoreSummary(summary), runsJson([summary], exitCode))
  return exitCode
}

const VERB: Record<RestorePlanView['writes'][number]['kind'], string> = {
  restore: 'put back',
  recreate: 'create again',
  delete: 'delete',
}

export function formatRestorePlan(plan: RestorePlanView): string {
  const lines = [`Restore plan for ${plan.target}: ${plan.user}'s ${plan.period}, approved by ${plan.approvedBy}`]
  if (plan.writes.length === 0) lines.push('  nothing to write to the server')
  for (const w of plan.writes) lines.push(`  ${VERB[w.kind].padEnd(13)} ${w.what}`)
  if (plan.conflicts.length) {
    lines.push(`  ${plan.conflicts.length} refused (left alone):`)
    for (const c of plan.conflicts) lines.push(`    ${c.what}: ${c.reason}`)
  }
  return lines.join('\n')
}

export function formatRestoreSummary(s: RestoreSummary): string {
  const c = s.counts
  const head = s.dryRun
    ? `Dry run ${s.runId}: nothing was written.`
    : !s.applied
      ? `Not applied: nothing was written.`
      : `Restored ${s.runId}: put back ${c.restored}, created again ${c.recreated}, deleted ${c.deleted}, refused ${c.conflicts}, failed ${c.failed}. The next sync writes the values into the sheet.`
  const failures = s.failures.map((f) => `  failed: ${f.what}: ${f.reason}`)
  return [head, formatRestorePlan(s.plan), ...failures].join('\n')
}
