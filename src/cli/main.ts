/**
 * The command line: parse, wire, report. Each command lives in
 * commands/<name>.ts and is imported only when used; this file holds the one
 * top-level catch that turns any failure into a message, a hint and an exit
 * code.
 *
 * Longer than most files because every command's options and help text stand here together, so `--help` reads
 * the same everywhere; the work is in commands/.
 */
import { enableCompileCache } from 'node:module'
import { setFlagsFromString } from 'node:v8'
import { Command, CommanderError, Help, Option } from 'commander'
import { redactUserInfo } from '../errors.ts'
import { toCliFailure, writeBugStack } from './errors.ts'
import { EXIT, EXIT_CODES_HELP } from './exit-codes.ts'
import { errorJson, type ErrorJson } from './json-output.ts'
import type { GlobalOptions } from './globals.ts'
import { packageVersion } from '../config/package-version.ts'

export type { GlobalOptions } from './globals.ts'

const DEFAULT_CONFIG = process.env.TIMELINE_SHEETS_CONFIG ?? 'timeline-sheets.json'

export function buildProgram(): Command {
  const program = new Command('timeline-sheets')
    .description(
      'Bridge between a Timeline and Tag service (ManicTime Server, ManicTime Cloud) and Google Sheets or a local .xlsx workbook.\n' +
        'Exports tagged time into a sheet managers can review, and brings their corrections back.',
    )
    .version(packageVersion(), '-V, --version', 'print the version of timeline-sheets')
    // Before the commands are added: each inherits these settings.
    .configureHelp({ showGlobalOptions: true, optionDescription: describeOption })
    .option('-c, --config <file>', 'config file (env TIMELINE_SHEETS_CONFIG)', DEFAULT_CONFIG)
    .option('--json', 'print the result as JSON on stdout', false)
    .option('-v, --verbose', 'log every request and decision (never secrets)', false)
    .option('-q, --quiet', 'only warnings and the result', false)
    .option(
      '--deadline <duration>',
      'end the run after this long (90s, 30m, 2h, 1h30m): requests and retries stop with exit code 1, and the next run resumes (config: timeouts.runMs)',
    )
    .addOption(new Option('--now <iso>', 'pretend the time is this (reproducible runs)').hideHelp())
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Getting started:
  npm run demo                                 see it work against the bundled reference server
  cp config.example.json timeline-sheets.json  then edit the server, sign-in and target
  timeline-sheets login                        cloud only: sign in once in a browser
  timeline-sheets doctor                       check sign-ins, permissions, sharing, state and lock
  timeline-sheets export --dry-run             show what the first export would write
  timeline-sheets export                       fill the sheet; later runs are incremental

Secrets never go in the config file: it names environment variables
(TIMELINE_PASSWORD, TIMELINE_CLIENT_SECRET, GOOGLE_CLIENT_SECRET, …).

Every request to either service has timeouts (connect 10 s, first byte 30 s,
idle body 30 s, whole request 2 min, a Google Sheets write 200 s; "timeouts"
in the config). A request that passes one is repeated like a busy server's,
and each repeat is said; once a service's requests have timed out for 2 min
in all (timeouts.retryBudgetMs), the run ends with exit code 1 and a message
naming the service, the URL, the limit and how often it was tried.

${EXIT_CODES_HELP}`,
    )
    .exitOverride()

  program
    .command('export')
    .description("Fill the target spreadsheet with tag activities; later runs follow the server's incremental links.")
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

  const importFlags = (command: Command) =>
    command
      .option('-t, --target <name>', 'only this target (default: every target in the config)')
      .option('-n, --dry-run', 'show the plan, write nothing', false)
      .option(
        '--delete-missing',
        'delete on the server the activities whose rows were removed from the sheet (default: only report them)',
        false,
      )
      .option(
        '--max-delete <n|n%>',
        'most deletions one run may make: a share of the rows (default 50%) or a count (default 200); give it twice for both',
        (value: string, earlier: string[] = []) => [...earlier, value],
      )
      .option(
        '--force',
        'apply even when the plan looks like an accident (too many deletes, almost every row changed, an empty sheet)',
        false,
      )
      .option('--force-layout', 'apply even when the header row looks damaged', false)
      .option('--strict-tags', 'treat tags outside the allowed combinations as errors, not warnings', false)
      .option(
        '--overwrite-tags',
        "send the Allowed tags tab even though the server's list changed since the export (replaces that change)",
        false,
      )

  importFlags(
    program
      .command('import')
      .description("Send managers' edits from the sheet to the server: updates, new rows, ticked deletions, the allowed tags list.")
      .option('-y, --yes', 'apply without asking (needed when there is no terminal)', false)
      .option('--plan-tab', 'with --dry-run: also write the plan into a Plan tab', false),
  )
    .addHelpText(
      'after',
      `
Every row is checked first; a row with a problem gets a Status in plain words
and is not sent. A row changed both in the sheet and on the server since the
last sync is a conflict: nothing is written for it and the edit stays.
Safety stops run before any write (too many deletions, a damaged header, a
plan that changes almost every row); each names the flag that overrides it.
A run killed at any point can simply be run again: it finishes the
interrupted work and creates nothing twice.

Examples:
  timeline-sheets import --dry-run --plan-tab     review the plan in the sheet
  timeline-sheets import --yes                    apply (cron, scripts)`,
    )
    .action(async (options: import('./commands/import.ts').ImportCommandOptions, command: Command) => {
      const { runImportCommand } = await import('./commands/import.ts')
      process.exitCode = await runImportCommand(globals(command), options)
    })

  importFlags(
    program
      .command('sync')
      .description('The nightly job: import the sheet edits, then export server changes, under a lock per target.')
      .option('--watch', 'keep running; every interval (--every, 2m by default) sync only the targets whose sheet or server changed', false)
      .option('--every <interval>', "keep running and sync every 30m, 2h, 1d (1d: 02:00 in the target's time zone) …")
      .option('--cron <expression>', 'keep running and sync on a cron schedule, e.g. "0 2 * * *"')
      .option('--zone <iana-zone>', "the time zone --every and --cron are read in (default: the target's timeZone)")
      .option('--listen <host:port>', 'with --watch: serve /healthz, /livez and /metrics (Prometheus) there, e.g. 127.0.0.1:9464')
      .option('--metrics-file <path.prom>', "after each run, write its metrics there for node_exporter's textfile collector")
      .addOption(
        new Option('--intervals <n>', 'with --watch: run this many intervals back to back, then stop (tests, benchmarks)').hideHelp(),
      ),
  )
    .addHelpText(
      'after',
      `
With cron (crontab -e), every night at 02:00:
  0 2 * * *  cd /srv/timeline-sheets && TIMELINE_PASSWORD=… timeline-sheets sync >> sync.log 2>&1

With a systemd timer: see README.md ("Running it every night").
Without either: timeline-sheets sync --cron "0 2 * * *" (keeps running).
--every and --cron run in the target's time zone ("timeZone" in the config),
not the host's, or in the zone --zone names (targets in different zones need
it). A time the clocks skip runs when they resume; a time they repeat runs once.
With --json each run prints one line: { runs, exitCode, schedule } or
{ error, exitCode, schedule }, schedule holding the pattern, zone and next run.

For edits to reach the server within minutes, not overnight:
  timeline-sheets sync --watch                   every 2 minutes
  timeline-sheets sync --watch --every 5m
Each interval asks whether a spreadsheet or its timelines changed (Google:
one Drive request, needs "watch": true in the config's "google" section; a
workbook: its file's size and time) and syncs only the targets that did.
An idle interval writes nothing; the Sync log gets a row for each sync that
changed something, and one an hour while nothing does. A target's failure is
reported and tried again next interval; Ctrl-C or SIGTERM stops after the
interval under way. With --json every interval prints a line per target, an
idle one as { target, idle: { at, requests } }, for a log monitor to watch.
See README.md ("Minutes, not overnight").

Health and metrics:
  timeline-sheets sync --watch --listen 127.0.0.1:9464
GET /healthz answers 200 while every target's last interval ended in time
and did not fail, otherwise 503 with the late and failing targets as JSON;
/livez only looks at the time (a Kubernetes liveness probe); /metrics gives
Prometheus' text format (timeline_sheets_…; README.md, "Health, metrics").
  timeline-sheets sync --metrics-file /var/lib/node_exporter/textfile_collector/timeline_sheets.prom
writes the same figures after each run, for node_exporter's textfile
collector: alert on time() - timeline_sheets_last_success_timestamp_seconds.
With "notify": { "webhook": { "urlEnv": "ALERT_WEBHOOK" } } in the config, a failed run
or a safety guard is told to that webhook (Slack, Teams, your own) once,
and the next good run once as recovered; a slow webhook never holds a run.`,
    )
    .action(async (options: import('./commands/sync.ts').SyncCommandOptions, command: Command) => {
      const { runSyncCommand } = await import('./commands/sync.ts')
      process.exitCode = await runSyncCommand(globals(command), options)
    })

  program
    .command('undo')
    .argument('<run-id>', 'the run to revert: its id from the Sync log tab or from import/sync output')
    .description('Revert what one import (or sync) run wrote to the server, from its journal; then export so the sheet shows it.')
    .option('-t, --target <name>', 'the target the run belongs to (default: the one whose journal holds the run)')
    .option('-n, --dry-run', 'show the plan, write nothing', false)
    .option('-y, --yes', 'apply without asking (needed when there is no terminal)', false)
    .option('--no-export', 'do not export the target afterwards (the sheet then shows the reverted state only after the next export)')
    .addHelpText(
      'after',
      `
What undo does, for every write the run completed:
  an activity the run created      is deleted
  an activity the run updated      gets its values from before the run back
  an activity the run deleted      is created again (with a new id and Key)
Then it exports the target in full, so the sheet shows the result; that export
has its own Sync log row, and its invalid rows do not change the exit code of
the undo, which (like its Sync log row and --json) reports the undo alone.

What undo never does:
  - touch an activity someone changed after that run: that is a conflict,
    reported and left alone (exit code 3); so is a write whose answer the
    journal lacks (the run was killed there)
  - create an activity twice: a deleted activity that is already there again
    (undo run twice, or killed half-way and run again) is left as it is
  - put back the Allowed tags list: the journal keeps only fingerprints of it;
    the plan says so, and the tab must be restored by hand
  - change the sheet directly: rows follow from the export afterwards; a row a
    manager edited since keeps the edit and says there is a conflict

An undo journals its own writes like an import: killed half-way it can simply
be run again, and it can itself be undone (timeline-sheets undo <undo-run-id>).

Examples:
  timeline-sheets undo 20261110T110000Z-k3f9 --dry-run          see the plan
  timeline-sheets undo 20261110T110000Z-k3f9 --target team-a --yes`,
    )
    .action(async (runId: string, options: import('./commands/undo.ts').UndoCommandOptions, command: Command) => {
      const { runUndoCommand } = await import('./commands/undo.ts')
      process.exitCode = await runUndoCommand(globals(command), runId, options)
    })

  program
    .command('restore-approved')
    .description("Put a person's approved period back on the server where the server changed it since approval, through the journal.")
    .option('-t, --target <name>', 'the target (needed when the config has several)')
    .requiredOption('-u, --user <name>', 'whose period: the user name as the Approvals tab shows it')
    .requiredOption('-p, --period <id>', 'the approved period: a week like 2026-W45, or a month like 2026-11')
    .option('-n, --dry-run', 'show the plan, write nothing', false)
    .option('-y, --yes', 'apply without asking (needed when there is no terminal)', false)
    .addHelpText(
      'after',
      `
When the server changed an approved period (the approval row says
"changed since approval"), a manager either re-approves it (untick, sync, tick:
the new state becomes the record) or has the approved values put back:
  an approved activity the server changed   gets its approved values back
  an approved activity the server deleted   is created again (a new id and Key)
  an activity added in the period since     is deleted
It reads the person's timeline afresh and writes only what the approval row
showed: an activity changed in another way since the last sync is refused and
reported (exit code 3); sync, look at the approval row, then run it again.
Writes are journaled as an import's: killed half-way, run it again. The next
sync writes the values into the sheet and clears "changed since approval".

Examples:
  timeline-sheets restore-approved --user ann --period 2026-W45 --dry-run
  timeline-sheets restore-approved --target team-a --user ann --period 2026-W45 --yes`,
    )
    .action(async (options: import('./commands/restore-approved.ts').RestoreApprovedCommandOptions, command: Command) => {
      const { runRestoreApprovedCommand } = await import('./commands/restore-approved.ts')
      process.exitCode = await runRestoreApprovedCommand(globals(command), options)
    })

  program
    .command('doctor')
    .description('Check everything a nightly sync needs, one line per check with what to fix; reads only, writes nothing.')
    .option('-t, --target <name>', 'only this target (default: every target in the config)')
    .option('--write-test', "also try, in a scratch tab it removes, the Google behaviours writes rely on, and each tab's metadata room")
    .addHelpText(
      'after',
      `
Checks, in order: the config; the Timeline sign-in; the Content editor
permission (getAll); the Tags timelines; the updatedactivities link; then per
target: Google sign-in and the spreadsheet reachable (or the workbook file
readable), editable, quota headroom, its time zone against the target's; the
state belongs to this server and account; the state folder writable; the lock
free. A check that depends on a failed one is skipped.

Doctor sends no write to the server or the spreadsheet and writes no state.
With --write-test (Google targets) it also adds a scratch tab, writes rows
there as a run does, sorts, inserts and deletes rows as a manager would,
checks that every cell landed on its row and that the behaviours Google
does not document hold (a compressed body is applied; a sort moves row
metadata; a filter matching nothing changes nothing), asks what Google's
10 MB request limit counts of a compressed body (never a failure), removes
the tab, and reports how much of each tab's developer-metadata room (30,000
characters) is free. It touches none of the tool's tabs.

It exits 0 when a sync would work (warnings included), otherwise with the code
the first failed check would end a sync with: 2 config or a file, 5 lock held,
6 sign-in refused or a permission missing (spreadsheet not shared), 7 state of
another server, 1 anything else.

Examples:
  timeline-sheets doctor
  timeline-sheets doctor --target team-a --json
  timeline-sheets doctor --target team-a --write-test`,
    )
    .action(async (options: { target?: string; writeTest?: boolean }, command: Command) => {
      const { runDoctorCommand } = await import('./commands/doctor.ts')
      process.exitCode = await runDoctorCommand(globals(command), options)
    })

  program
    .command('report')
    .description('Write the approved periods as approvals.csv and approvals.json: hours per person, day and tags, for payroll.')
    .option('-t, --target <name>', 'only this target (default: every target in the config)')
    .option('-o, --out <folder>', 'folder the two files are written to', '.')
    .addHelpText(
      'after',
      `
Reads only the approvals record beside each target's state (approvals.json in
the state folder); it asks neither the server nor the spreadsheet. Each period
names its approver and when the tool took the approval; a period the server
changed since is marked (changed_since_approval: yes). The same approvals always
give the same bytes: the files hold nothing of the report's own run.

Examples:
  timeline-sheets report --out payroll/
  timeline-sheets report --target team-a`,
    )
    .action(async (options: { target?: string; out: string }, command: Command) => {
      const { runReportCommand } = await import('./commands/report.ts')
      process.exitCode = await runReportCommand(globals(command), options)
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

/**
 * An option's help line without "(default: false)": a flag's default is that it is off, which goes without
 * saying; a value's default (the config file) is still shown.
 */
function describeOption(this: Help, option: Option): string {
  if (!option.isBoolean()) return Help.prototype.optionDescription.call(this, option)
  const withoutDefault = Object.create(option, { defaultValue: { value: undefined } }) as Option
  return Help.prototype.optionDescription.call(this, withoutDefault)
}

function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions
}

export async function main(argv: string[] = process.argv): Promise<number> {
  ignoreClosedPipes()
  const program = buildProgram()
  try {
    await program.parseAsync(argv)
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.success
  } catch (error) {
    // The global options are parsed before any command runs or complains, so --json is known here.
    const json = program.opts<Partial<GlobalOptions>>().json === true
    if (error instanceof CommanderError) {
      // --help and --version end here too, with code 0.
      if (error.exitCode === 0) return EXIT.success
      // commander has written the message to stderr already.
      const message = error.message.replace(/^error: /, '')
      if (json) printJson(errorJson({ code: 'TS_USAGE', message, hint: 'Run with --help for usage.', exitCode: EXIT.usage }))
      return EXIT.usage
    }
    const failure = toCliFailure(error)
    process.stderr.write(redactUserInfo(`error: ${failure.message}\n`))
    if (failure.hint) process.stderr.write(redactUserInfo(`hint: ${failure.hint}\n`))
    // An unexpected error is a bug of ours, and its hint asks for a --verbose run's output: that output says where.
    if (failure.code === 'TS_INTERNAL' && program.opts<Partial<GlobalOptions>>().verbose === true) writeBugStack(error)
    if (json) printJson(errorJson(failure))
    return failure.exitCode
  }
}

function printJson(value: ErrorJson): void {
  process.stdout.write(redactUserInfo(`${JSON.stringify(value, null, 2)}\n`))
}

let pipesGuarded = false

/**
 * `timeline-sheets --help | head` closes the pipe early: that ends the output, not the process with a stack
 * trace. A run keeps going (its journal and state do not depend on anyone reading its output).
 */
function ignoreClosedPipes(): void {
  if (pipesGuarded) return
  pipesGuarded = true
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error
    })
  }
}

/**
 * The garbage collector's policy for a run of the command (both entry points call this first, before any
 * work). A run builds its working set (row bases, the server's activities, the tab as read) in one go. With
 * incremental marking, V8 marks alongside the run, and on a busy machine that marking spans hundreds of
 * milliseconds; until it ends, what a run drops piles up in the old generation, and a big run's peak memory
 * climbs well above what its live data needs (decisions/0001-architecture.md). Marking in one pause costs a
 * batch run nothing it notices and keeps the peak where the live data puts it. Set before the first collection
 * marks anything: V8 reads it when marking would start.
 */
export function setRunHeapPolicy(): void {
  setFlagsFromString('--no-incremental-marking')
}

if (import.meta.main) {
  setRunHeapPolicy()
  // Node keeps the compiled code (our TypeScript already stripped of its types) in the OS temp folder, so
  // later runs skip most of the compiling of the modules a command loads; a folder it cannot write only
  // costs the speed-up, and NODE_DISABLE_COMPILE_CACHE=1 turns it off. bin/timeline-sheets.js turns it
  // on before this file loads, so there it covers this file's own imports too.
  enableCompileCache()
  process.exitCode = await main()
}
