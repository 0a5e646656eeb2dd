/**
 * The operating system's refusals to read or write one of the tool's own
 * files (state, locks, journals, token files), as errors that name the file,
 * the permission that is missing and the user who lacks it. Without this
 * they surfaced as raw `EACCES` and "This is a bug".
 *
 * Exit codes: a missing permission, a read-only disk or a path through a file
 * is the setup's to fix and running again changes nothing, so it is a
 * configuration problem (exit 2); a full disk can clear by itself or by
 * freeing space, and nothing was lost, so it is "run again" (exit 1).
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs'
import { userInfo } from 'node:os'
import path from 'node:path'
import { TimelineSheetsError } from '../errors.ts'

/** The errno codes this module explains. */
export const FILE_ACCESS_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR'])

export interface FileContext {
  /** What the file is, for the message: `the lock file`, `the journal`, `the token file`. */
  what: string
  file: string
  /** `use` when it is not known whether the file was being read or written. */
  action: 'read' | 'write' | 'use'
  /** The config field that chooses the place, for the hint: `stateDir`, `timeline.auth.tokenFile`. */
  setting?: string
}

/** A file of the tool's that the system refused to read or write. */
export class FileAccessError extends TimelineSheetsError {
  /** The errno code: `EACCES`, `EROFS`, `ENOSPC`… */
  readonly errno: string
  readonly path: string

  constructor(errno: string, file: string, message: string, hint: string, cause: unknown) {
    super(errno === 'ENOSPC' || errno === 'EDQUOT' ? 'TS_DISK_FULL' : 'TS_FILE_ACCESS', message, { hint, cause })
    this.errno = errno
    this.path = file
  }
}

/** Runs `task`, turning a refusal to read or write `context.file` into a `FileAccessError`. */
export async function withFileAccess<T>(context: FileContext, task: () => Promise<T>): Promise<T> {
  try {
    return await task()
  } catch (error) {
    throw fileAccessError(error, context) ?? error
  }
}

/** The `FileAccessError` an errno error means, or `undefined` for anything else. */
export function fileAccessError(error: unknown, context: FileContext): FileAccessError | undefined {
  if (error instanceof TimelineSheetsError) return undefined
  const errno = (error as NodeJS.ErrnoException | undefined)?.code
  if (typeof errno !== 'string' || !FILE_ACCESS_CODES.has(errno)) return undefined
  // The path the system named is the one that failed (a folder on mkdir, the temp file on open…).
  const failed = (error as NodeJS.ErrnoException).path ?? context.file
  const elsewhere = (where: string) => (context.setting ? `, or set "${context.setting}" in the config to ${where}` : '')
  const start = `Cannot ${context.action} ${context.what} ${context.file}`
  const user = whoAmI()
  switch (errno) {
    case 'EACCES':
    case 'EPERM': {
      const missing = missingPermission(failed, context.action, user.login)
      return new FileAccessError(
        errno,
        failed,
        `${start}: permission denied (${errno}); the user running timeline-sheets (${user.label}) ${missing.sentence}`,
        `Give ${user.login} ${missing.grant} (for example \`${missing.command}\`)${elsewhere(`a place it may ${context.action === 'read' ? 'read' : 'write'}`)}.`,
        error,
      )
    }
    case 'EROFS':
      return new FileAccessError(
        errno,
        failed,
        `${start}: the file system is read-only (EROFS)`,
        `Use a writable disk${elsewhere('a folder on one')}.`,
        error,
      )
    case 'ENOTDIR':
      return new FileAccessError(
        errno,
        failed,
        `${start}: a part of the path ${failed} is a file, not a folder (ENOTDIR)`,
        `Move that file aside${elsewhere('another folder')}.`,
        error,
      )
    default:
      return new FileAccessError(
        errno,
        failed,
        `${start}: the disk is full (${errno === 'EDQUOT' ? 'EDQUOT, the disk quota is used up' : 'ENOSPC'})`,
        `Free some space on the disk of ${path.dirname(context.file)} and run again; nothing was lost.`,
        error,
      )
  }
}

/** Says which permission is missing where, checking the path and the folders above it. */
function missingPermission(
  file: string,
  action: 'read' | 'write' | 'use',
  login: string,
): { sentence: string; grant: string; command: string } {
  const exists = existsSync(file)
  if (exists && !allowed(file, action === 'read' ? constants.R_OK : constants.R_OK | constants.W_OK)) {
    const kind = isFolder(file) ? 'folder' : 'file'
    const grant = action === 'use' ? 'read and write' : action
    return { sentence: `may not ${action} the ${kind} ${file}`, grant: `${grant} permission on ${file}`, command: `chown ${login} ${file}` }
  }
  // Creating, renaming and removing files needs write permission on the folder that holds them.
  let folder = exists ? path.dirname(file) : file
  while (!existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder)
  const needed = action === 'read' ? constants.R_OK | constants.X_OK : constants.W_OK | constants.X_OK
  if (!allowed(folder, needed)) {
    return {
      sentence: action === 'read' ? `may not read in the folder ${folder}` : `may not create or change files in the folder ${folder}`,
      grant: `${action === 'read' ? 'read' : 'write'} permission on the folder ${folder}`,
      command: `chown -R ${login} ${folder}`,
    }
  }
  return {
    sentence: `may not ${action} ${file}, though its permissions look right (an access-control list, SELinux or AppArmor may refuse it)`,
    grant: `${action === 'use' ? 'read and write' : action} permission on ${file}`,
    command: `ls -ld ${path.dirname(file)} ${file}`,
  }
}

function allowed(file: string, mode: number): boolean {
  try {
    accessSync(file, mode)
    return true
  } catch {
    return false
  }
}

function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory()
  } catch {
    return false
  }
}

/** Who runs the tool: `nobody (uid 65534)` for messages, `nobody` for commands. */
function whoAmI(): { label: string; login: string } {
  const uid = process.getuid?.()
  try {
    const login = userInfo().username
    return { label: uid === undefined ? login : `${login}, uid ${uid}`, login }
  } catch {
    // A uid without an entry in /etc/passwd (containers).
    return uid === undefined ? { label: 'this user', login: '$USER' } : { label: `uid ${uid}`, login: String(uid) }
  }
}
