/** `timeline-sheets doctor`: wire the read-only checks, print one line per check, exit as a sync would. */
import { loadConfig, type LoadedConfig } from '../../config/load.ts'
import type { TargetConfig } from '../../config/schema.ts'
import { runDoctor, type CheckResult, type DoctorDeps } from '../../engine/doctor.ts'
import type { NetworkSettings } from '../../http/transport.ts'
import type { SpreadsheetProbe } from '../../sheets/probe.ts'
import { exitCodeFor, writeBugStack } from '../errors.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'
import { clockFor, type GlobalOptions } from '../globals.ts'
import { createReporter, type Reporter } from '../reporter.ts'
import { probeSpreadsheet } from '../spreadsheet-backends.ts'
import { createClient, runNetwork } from '../wiring.ts'

export interface DoctorCommandOptions {
  target?: string
  writeTest?: boolean
}

/** What `--json` prints: every check, and the exit code. */
export interface DoctorJson {
  checks: CheckResult[]
  exitCode: ExitCode
}

export async function runDoctorCommand(globals: GlobalOptions, options: DoctorCommandOptions): Promise<ExitCode> {
  const reporter = createReporter({ json: globals.json, verbose: globals.verbose, quiet: globals.quiet })
  const report = await runDoctor({
    ...doctorDeps(globals.config, reporter, process.env, globals.deadline, globals.verbose),
    now: clockFor(globals),
    ...target(options),
  })
  const exitCode = doctorExitCode(report.checks)
  const json: DoctorJson = { checks: report.checks, exitCode }
  reporter.result(formatDoctor(report.checks, exitCode), json)
  return exitCode
}

const target = (options: DoctorCommandOptions) => ({
  ...(options.target === undefined ? {} : { targetName: options.target }),
  ...(options.writeTest ? { writeTest: true } : {}),
})

/** The real adapters for doctor, with secrets from `env`; `verbose` prints a bug's stack, as the other commands do. */
export function doctorDeps(
  configFile: string,
  reporter: Reporter,
  env: NodeJS.ProcessEnv,
  deadline?: string,
  verbose = false,
): Omit<DoctorDeps, 'now'> {
  const networks = new WeakMap<LoadedConfig, NetworkSettings>()
  const network = (loaded: LoadedConfig) => {
    if (!networks.has(loaded)) networks.set(loaded, runNetwork(loaded, deadline, reporter))
    return networks.get(loaded)!
  }
  return {
    loadConfig: () => loadConfig(configFile),
    timelineClient: (loaded) => createClient(loaded, reporter, env, network(loaded)),
    spreadsheetProbe: (loaded, t) => openSpreadsheetProbe(loaded, t, env, network(loaded)),
    onUnexpectedError: (check, error) => {
      if (verbose) writeBugStack(error, `${check}: unexpected error`)
    },
  }
}

/** Read-only access to a target's spreadsheet: its Google spreadsheet, or its workbook file. */
export function openSpreadsheetProbe(
  loaded: LoadedConfig,
  target: TargetConfig,
  env: NodeJS.ProcessEnv,
  network: NetworkSettings,
): Promise<SpreadsheetProbe> {
  return probeSpreadsheet(target.spreadsheet, { loaded, target, env, network })
}

/** 0 when no check failed; otherwise the code the first failure would end a sync with. */
export function doctorExitCode(checks: CheckResult[]): ExitCode {
  const first = checks.find((c) => c.status === 'fail')
  return first ? exitCodeFor(first.code ?? 'TS_INTERNAL') : EXIT.success
}

const MARK = { pass: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const

/** One line, ending as a sentence: a config error's list of problems is joined onto it. */
const sentence = (text: string) => {
  const line = text
    .replace(/:\s*\n\s*(?:- )?/, ': ')
    .replace(/\s*\n\s*(?:- )?/g, '; ')
    .trim()
  return /[.!?]$/.test(line) ? line : `${line}.`
}

/** One line per check, then the verdict. */
export function formatDoctor(checks: CheckResult[], exitCode: ExitCode): string {
  const lines = checks.map((c) => {
    const fix = c.fix && c.status !== 'pass' ? ` Fix: ${sentence(c.fix)}` : ''
    return `${MARK[c.status]}  ${c.target ? `${c.target}: ` : ''}${c.name}: ${sentence(c.detail)}${fix}`
  })
  const failed = checks.filter((c) => c.status === 'fail').length
  lines.push(
    exitCode === EXIT.success
      ? `A sync would work${checks.some((c) => c.status === 'warn') ? ' (see the warnings)' : ''}.`
      : `A sync would not work: ${failed} ${failed === 1 ? 'check' : 'checks'} failed (exit code ${exitCode}).`,
  )
  return lines.join('\n')
}
