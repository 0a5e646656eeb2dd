/** `timeline-sheets export`: wire the adapters for each target, run the export, report. */
import { loadConfig } from '../../config/load.ts'
import type { TargetConfig } from '../../config/schema.ts'
import { TimelineSheetsError } from '../../errors.ts'
import { runExport, type ExportSummary } from '../../engine/export.ts'
import type { GlobalOptions } from '../main.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { createReporter } from '../reporter.ts'
import { createClient, openTargetSpreadsheet, runNetwork } from '../wiring.ts'
import { formatExportSummary } from './format.ts'

export interface ExportCommandOptions {
  target?: string
  dryRun: boolean
  full: boolean
}

export async function runExportCommand(globals: GlobalOptions, options: ExportCommandOptions): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  const loaded = await loadConfig(globals.config)
  const targets = selectTargets(loaded.config.targets, options.target)
  const network = runNetwork(loaded, globals.deadline)
  const client = await createClient(loaded, reporter, process.env, network)
  const summaries: ExportSummary[] = []
  for (const target of targets) {
    reporter.info(`Exporting ${target.name}${options.dryRun ? ' (dry run: nothing is written)' : ''}`)
    const spreadsheet = await openTargetSpreadsheet(loaded, target, reporter, process.env, network)
    summaries.push(
      await runExport(target, { client, spreadsheet, stateDir: loaded.resolvePath(loaded.config.stateDir), reporter, now: clockFor(globals) }, {
        dryRun: options.dryRun,
        full: options.full,
      }),
    )
  }
  reporter.result(summaries.map(formatExportSummary).join('\n\n'), summaries.length === 1 ? summaries[0] : summaries)
  // A run that left rows for the next one failed to finish: run it again (nothing was lost).
  if (summaries.some((s) => s.result === 'incomplete')) return EXIT.failure
  return summaries.some((s) => s.result === 'partial') ? EXIT.partial : EXIT.success
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
