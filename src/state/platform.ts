/**
 * Where Node behaves differently on Windows, the code asks this instead of `process.platform`, so that the
 * Windows behaviour is tested on every machine by injecting `WINDOWS` (decisions/0025-open-workbooks.md):
 *
 * - Paths: `path.win32` (drive letters, `\\server\share`, either slash) instead of `path.posix`.
 * - Replacing a file another program holds open: on Windows the rename is refused (`EPERM` for a file opened
 *   without delete sharing, as Excel opens a workbook; `EBUSY` for a sharing violation, `EACCES` from some
 *   shares), where POSIX replaces the file and the other program keeps the old one. So on Windows those codes
 *   mean "open elsewhere", and on POSIX `EPERM`/`EACCES` mean a missing permission (only `EBUSY` is "busy",
 *   as an SMB mount of a file a Windows client holds open answers).
 * - File modes: Windows has none. Node's `chmod` only sets the read-only attribute and `stat` shows 0o666 or
 *   0o444 for every file; who may read a file is its access-control list, inherited from its folder, which Node
 *   cannot read. Owner-only there means a folder only the user may read, as the user's profile
 *   (`%APPDATA%`, `%LOCALAPPDATA%`) is by default.
 */
import path from 'node:path'

/** The behaviours of the operating system the tool runs on, where Windows and POSIX systems differ. */
export interface Platform {
  readonly windows: boolean
  /** `path.win32` on Windows, `path.posix` elsewhere. */
  readonly path: path.PlatformPath
  /** Whether a file's mode bits say who may read it (not on Windows). */
  readonly fileModes: boolean
}

export const WINDOWS: Platform = { windows: true, path: path.win32, fileModes: false }
export const POSIX: Platform = { windows: false, path: path.posix, fileModes: true }

/** The platform this process runs on. */
export const HOST_PLATFORM: Platform = process.platform === 'win32' ? WINDOWS : POSIX

/** Whether a refusal to replace a file (its errno code) means another program holds the file open. */
export function isHeldOpen(errno: string | undefined, platform: Platform): boolean {
  if (errno === 'EBUSY') return true
  return platform.windows && (errno === 'EPERM' || errno === 'EACCES')
}
