/**
 * What `--json` prints on stdout, and nothing else goes there: one object per command, so a script can
 * `JSON.parse` the whole output whatever happened. A run command prints `{ runs: [one per target], exitCode }`;
 * a command that failed prints `{ error: { code, message, hint }, exitCode }`. The exit code in the object is
 * the one the process ends with. `login` prints `{ login: { service, account, tokenFile }, exitCode }`.
 * `sync --every/--cron` runs until stopped and prints one such object a line per run (JSON Lines), each with
 * `schedule: { pattern, timeZone, nextRun }`.
 */
import type { CliFailure } from './errors.ts'
import type { ExitCode } from './exit-codes.ts'

export interface RunsJson<Run> {
  runs: Run[]
  exitCode: ExitCode
}

export interface ErrorJson {
  error: { code: string; message: string; hint: string | null }
  exitCode: ExitCode
}

export function runsJson<Run>(runs: Run[], exitCode: ExitCode): RunsJson<Run> {
  return { runs, exitCode }
}

export function errorJson(failure: Pick<CliFailure, 'code' | 'message' | 'hint' | 'exitCode'>): ErrorJson {
  return { error: { code: failure.code, message: failure.message, hint: failure.hint ?? null }, exitCode: failure.exitCode }
}

/** What `login --json` prints: which service was signed in to, as whom (when the service says), and where the token is. */
export interface LoginJson {
  login: { service: 'timeline-cloud' | 'google'; account: string | null; tokenFile: string }
  exitCode: ExitCode
}

export function loginJson(login: LoginJson['login'], exitCode: ExitCode): LoginJson {
  return { login, exitCode }
}
