/**
 * The one place where any failure becomes what the user reads and the exit
 * code a scheduler sees. Library errors (OIDC, Google, HTTP) arrive already
 * wrapped as TimelineSheetsError by their adapters; anything else is a bug.
 */
import { BUG_HINT, HttpError, redactUserInfo, TimelineSheetsError } from '../errors.ts'
import { fileAccessError } from '../state/file-access.ts'
import { EXIT, type ExitCode } from './exit-codes.ts'

export interface CliFailure {
  exitCode: ExitCode
  message: string
  hint: string | undefined
  code: string
}

export function toCliFailure(error: unknown): CliFailure {
  // A file the adapters did not name (the workbook, a key file): still the path and the permission, not "a bug".
  const path = (error as NodeJS.ErrnoException | undefined)?.path
  const refused = typeof path === 'string' ? fileAccessError(error, { what: 'the file', file: path, action: 'use' }) : undefined
  if (refused) return toCliFailure(refused)
  if (error instanceof TimelineSheetsError) {
    return { exitCode: exitCodeOf(error), message: error.message, hint: error.hint, code: error.code }
  }
  const message = error instanceof Error ? error.message : String(error)
  return {
    exitCode: EXIT.failure,
    message: `Unexpected error: ${message}`,
    hint: BUG_HINT,
    code: 'TS_INTERNAL',
  }
}

/**
 * The exit code an error ends a run with. Google's refusals arrive as one code with a status: a 401 or 403
 * (credentials refused, spreadsheet not shared, API disabled) is a refusal and a 404 a wrong spreadsheet id
 * — running again changes neither, so a retrying scheduler must not read them as "run it again".
 */
export function exitCodeOf(error: TimelineSheetsError): ExitCode {
  if (error instanceof HttpError && error.code === 'TS_SHEETS_API') {
    if (error.status === 401 || error.status === 403) return EXIT.refused
    if (error.status === 404) return EXIT.usage
  }
  return exitCodeFor(error.code)
}

/** The exit code a failure with this error code ends a run with. */
export function exitCodeFor(code: TimelineSheetsError['code']): ExitCode {
  switch (code) {
    // Bad usage or config, a missing permission or a read-only disk: running again changes nothing until the setup does.
    case 'TS_USAGE':
    case 'TS_CONFIG_INVALID':
    case 'TS_CONFIG_NOT_FOUND':
    case 'TS_FILE_ACCESS':
      return EXIT.usage
    case 'TS_GUARD':
    case 'TS_OUTSIDE_TARGET':
    case 'TS_TAGS_CHANGED':
      return EXIT.guard
    case 'TS_LOCKED':
      return EXIT.locked
    // Retrying a refused password repeats the refusal every night, and may lock the account.
    case 'TS_AUTH_FAILED':
    case 'TS_AUTH_REQUIRED':
    case 'TS_FORBIDDEN':
      return EXIT.refused
    case 'TS_STATE':
      return EXIT.critical
    case 'TS_WORKBOOK_OPEN':
      return EXIT.workbookOpen
    default:
      return EXIT.failure
  }
}

/**
 * Writes where a bug happened to stderr: the `at …` lines of its stack (not its first line, the message, which
 * the caller printed), redacted like every message. What the hint of an unexpected error asks a --verbose run for.
 */
export function writeBugStack(error: unknown, label?: string): void {
  const stack = error instanceof Error ? error.stack : undefined
  const frames = stack
    ?.split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n')
  if (frames) process.stderr.write(redactUserInfo(`${label ? `${label}:\n` : ''}${frames}\n`))
}
