/** `timeline-sheets export`: wire the adapters for each target, run the export, report. */
import { loadConfig } from '../../config/load.ts'
import { runExport, type ExportSummary } from '../../engine/export.ts'
import { clockFor, selectTargets, type GlobalOptions } from '../globals.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { runsJson } from '../json-output.ts'
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
      await runExport(
        target,
        { client, spreadsheet, stateDir: loaded.resolvePath(loaded.config.stateDir), reporter, now: clockFor(globals) },
        {
          dryRun: options.dryRun,
          full: options.full,
        },
      ),
    )
  }
  const exitCode = exportExitCode(summaries)
  reporter.result(summaries.map(formatExportSummary).join('\n\n'), runsJson(summaries, exitCode))
  return exitCode
}

function exportExitCode(summaries: ExportSummary[]): ExitCode {
  // A run that left rows for the next one failed to finish: run it again (nothing was lost).
  if (summaries.some((s) => s.result === 'incomplete')) return EXIT.failure
  return summaries.some((s) => s.result === 'partial') ? EXIT.partial : EXIT.success
}
