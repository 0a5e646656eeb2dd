/**
 * The one rule for a file that holds a refresh token (the cloud token file, the Google token file): only its owner
 * may read or write it, or the tool refuses to use it. It is not fixed with a chmod: a file others could read may
 * already have been read, and one others could write may hold someone else's token, which a chmod would silently
 * bless; the owner has to look (and may want to revoke the grant). The tool writes these files 0600 itself, so a
 * wider mode means something else changed it. Windows has no POSIX modes (src/state/platform.ts).
 */
import { TimelineSheetsError } from '../errors.ts'
import { HOST_PLATFORM, type Platform } from './platform.ts'

/**
 * Throws unless only the owner may read and write the file. Windows has no POSIX modes (every file shows 0o666
 * or 0o444): there the file is as private as the folder it is in, whose access-control list it inherits, which
 * Node cannot read; the README says to keep it under the user's profile (src/state/platform.ts).
 */
export function assertOwnerOnly(file: string, mode: number, login: string, platform: Platform = HOST_PLATFORM): void {
  if (!platform.fileModes) return
  if ((mode & 0o077) !== 0) {
    throw new TimelineSheetsError(
      'TS_STATE',
      `The token file ${file} can be read or written by other users (mode ${(mode & 0o777).toString(8)}); refusing to use it`,
      {
        hint: `Run \`chmod 600 ${file}\` if only you could have changed it, or delete it and run \`${login}\` again (revoking the old sign-in if someone else may have read it).`,
      },
    )
  }
}
