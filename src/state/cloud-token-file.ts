/**
 * The cloud token file: the refresh token (and the current access token) the
 * login wrote, for later runs. Owner-only (0600), written by the one atomic
 * writer (`atomic-file.ts`), so a crash never leaves half a token and a rotated refresh
 * token is never lost.
 */
import { readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import { TimelineSheetsError } from '../errors.ts'
import { writeFileAtomic } from './atomic-file.ts'
import { fileAccessError, withFileAccess, type FileContext } from './file-access.ts'
import { assertOwnerOnly } from './owner-only.ts'
import { HOST_PLATFORM, type Platform } from './platform.ts'

export const TOKEN_FILE_VERSION = 1

const tokenFileSchema = z.object({
  version: z.literal(TOKEN_FILE_VERSION),
  issuer: z.string().min(1),
  clientId: z.string().min(1),
  refreshToken: z.string().min(1),
  accessToken: z.string().min(1).optional(),
  /** Epoch milliseconds when the access token expires. */
  accessTokenExpiresAt: z.number().int().nonnegative().optional(),
  scope: z.string().optional(),
  subject: z.string().optional(),
  updatedAt: z.string(),
})

/** Contents of the token file. */
export type TokenFile = z.infer<typeof tokenFileSchema>

/** What `timeline-sheets login` tells the user when there is nothing usable to refresh with. */
export const LOGIN_HINT = 'Run `timeline-sheets login` to sign in to the cloud again.'

const OWNER_ONLY = 0o600

const tokenFileContext = (file: string, action: 'read' | 'write'): FileContext => ({
  what: 'the token file',
  file,
  action,
  setting: 'timeline.auth.tokenFile',
})

/**
 * Reads and validates the token file. Returns undefined when it does not exist.
 * Refuses a file that group or others can read or write (on POSIX systems; `owner-only.ts`).
 */
export async function readTokenFile(file: string, platform: Platform = HOST_PLATFORM): Promise<TokenFile | undefined> {
  let info
  try {
    info = await stat(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw (
      fileAccessError(error, tokenFileContext(file, 'read')) ??
      new TimelineSheetsError('TS_STATE', `Cannot read the token file ${file}`, { cause: error })
    )
  }
  assertOwnerOnly(file, info.mode, 'timeline-sheets login', platform)
  const text = await withFileAccess(tokenFileContext(file, 'read'), () => readFile(file, 'utf8'))
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // JSON.parse quotes the text around the fault, which may be a token: no cause.
    throw unreadable(file, 'is not valid JSON')
  }
  const result = tokenFileSchema.safeParse(parsed)
  if (!result.success) throw unreadable(file, `has invalid fields: ${fieldsOf(result.error)}`)
  return result.data
}

/** Writes the token file with mode 0600 through the one atomic writer (`atomic-file.ts`). */
export async function writeTokenFile(file: string, contents: TokenFile): Promise<void> {
  const checked = tokenFileSchema.safeParse(contents)
  if (!checked.success) {
    throw new TimelineSheetsError('TS_INTERNAL', `Refusing to write an invalid token file ${file}: ${fieldsOf(checked.error)}`)
  }
  const context = tokenFileContext(file, 'write')
  try {
    await writeFileAtomic(file, `${JSON.stringify(checked.data, null, 2)}\n`, { mode: OWNER_ONLY, keepOld: false })
  } catch (error) {
    throw fileAccessError(error, context) ?? new TimelineSheetsError('TS_STATE', `Cannot write the token file ${file}`, { cause: error })
  }
}

// Field names only: a zod message could quote a token.
function fieldsOf(error: z.ZodError): string {
  return error.issues.map((issue) => issue.path.join('.') || '(root)').join(', ')
}

function unreadable(file: string, problem: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_AUTH_REQUIRED', `The token file ${file} ${problem}`, { hint: LOGIN_HINT })
}
