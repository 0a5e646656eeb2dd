/** `timeline-sheets export`: wire the adapters for each target, run the export, report. */
import { runExport, type ExportSummary } from '../../engine/export.ts'
import { clockFor, type GlobalOptions } from '../globals.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { runsJson } from '../json-output.ts'
import { createReporter } from '../reporter.ts'
import { runTargets } from '../targets.ts'
import { openRun } from '../wiring.ts'
import { formatExportSummary } from './format.ts'

export interface ExportCommandOptions {
  target?: string
  dryRun: boolean
  full: boolean
}

export async function runExportCommand(globals: GlobalOptions, options: ExportCommandOptions): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  const { loaded, targets, stateDir, clientFor, spreadsheetOf } = await openRun(globals, options.target, reporter)
  const summaries: ExportSummary[] = await runTargets(targets, loaded.config.parallelTargets, reporter, async (target, reporter) => {
    reporter.info(`Exporting ${target.name}${options.dryRun ? ' (dry run: nothing is written)' : ''}`)
    const client = clientFor(target)
    // The server's entry links are read while the spreadsheet opens: its libraries load in the meantime.
    client.readHomeAhead()
    const spreadsheet = await spreadsheetOf(target)
    return runExport(
      target,
      { client, spreadsheet, stateDir, reporter, now: clockFor(globals) },
      { dryRun: options.dryRun, full: options.full },
    )
  })
  const exitCode = exportExitCode(summaries)
  reporter.result(summaries.map(formatExportSummary).join('\n\n'), runsJson(summaries, exitCode))
  return exitCode
}

function exportExitCode(summaries: ExportSummary[]): ExitCode {
  // A run that left rows for the next one failed to finish: run it again (nothing was lost).
  if (summaries.some((s) => s.result === 'incomplete')) return EXIT.failure
  return summaries.some((s) => s.result === 'partial') ? EXIT.partial : EXIT.success
}
