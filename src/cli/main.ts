/**
 * The command line: parse, wire, report. Each command lives in
 * commands/<name>.ts and is imported only when used; this file holds the one
 * top-level catch that turns any failure into a message, a hint and an exit
 * code.
 */
import { Command, CommanderError, Option } from 'commander'
import { toCliFailure } from './errors.ts'
import { EXIT, EXIT_CODES_HELP } from './exit-codes.ts'

export interface GlobalOptions {
  config: string
  json: boolean
  verbose: boolean
  quiet: boolean
  /** Hidden: the clock for reproducible runs (tests, benchmarks). */
  now?: string
}

const DEFAULT_CONFIG = process.env.TIMELINE_SHEETS_CONFIG ?? 'timeline-sheets.json'

export function buildProgram(): Command {
  const program = new Command('timeline-sheets')
    .description(
      'Bridge between a Timeline and Tag service (ManicTime Server, ManicTime Cloud) and Google Sheets or a local .xlsx workbook.\n' +
        'Exports tagged time into a sheet managers can review, and brings their corrections back.',
    )
    .option('-c, --config <file>', 'config file (env TIMELINE_SHEETS_CONFIG)', DEFAULT_CONFIG)
    .option('--json', 'print the result as JSON on stdout', false)
    .option('-v, --verbose', 'log every request and decision (never secrets)', false)
    .option('-q, --quiet', 'only warnings and the result', false)
    .addOption(new Option('--now <iso>', 'pretend the time is this (reproducible runs)').hideHelp())
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Getting started:
  npm run demo                                 see it work against the bundled reference server
  cp config.example.json timeline-sheets.json  then edit the server, sign-in and target
  timeline-sheets login                        cloud only: sign in once in a browser
  timeline-sheets export --dry-run             show what the first export would write
  timeline-sheets export                       fill the sheet; later runs are incremental

Secrets never go in the config file: it names environment variables
(TIMELINE_PASSWORD, TIMELINE_CLIENT_SECRET, GOOGLE_CLIENT_SECRET, …).

${EXIT_CODES_HELP}`,
    )
    .exitOverride()

  program
    .command('export')
    .description('Fill the target spreadsheet with tag activities; later runs follow the server\'s incremental links.')
    .option('-t, --target <name>', 'only this target (default: every target in the config)')
    .option('-n, --dry-run', 'read both sides and show what would be written, write nothing', false)
    .option('--full', 'ignore cursors and re-read the whole window (a full reconcile by Key)', false)
    .addHelpText(
      'after',
      `
A row a manager changed that has not been imported yet is never overwritten;
its Status says the server changed too. Rows are matched by the hidden Key
column, so sorting, filtering and inserting rows in the sheet is safe.

Examples:
  timeline-sheets export --target team-a --dry-run
  timeline-sheets export --json > export-summary.json`,
    )
    .action(async (options: { target?: string; dryRun: boolean; full: boolean }, command: Command) => {
      const { runExportCommand } = await import('./commands/export.ts')
      process.exitCode = await runExportCommand(globals(command), options)
    })

  program
    .command('login')
    .description('Cloud sign-in: opens the browser once and stores a refresh token so nightly runs need nobody.')
    .option('--no-browser', 'print the sign-in URL instead of opening a browser')
    .addOption(new Option('--google', 'sign in to Google (installed-app OAuth) instead of the Timeline cloud'))
    .action(async (options: { browser: boolean; google?: boolean }, command: Command) => {
      const { runLoginCommand } = await import('./commands/login.ts')
      process.exitCode = await runLoginCommand(globals(command), options)
    })

  return program
}

function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions
}

export async function main(argv: string[] = process.argv): Promise<number> {
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.success
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with code 0.
      return error.exitCode === 0 ? EXIT.success : EXIT.usage
    }
    const failure = toCliFailure(error)
    process.stderr.write(`error: ${failure.message}\n`)
    if (failure.hint) process.stderr.write(`hint: ${failure.hint}\n`)
    return failure.exitCode
  }
}

if (import.meta.main) {
  process.exitCode = await main()
}
