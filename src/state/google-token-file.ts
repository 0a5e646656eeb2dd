/**
 * The Google token file the installed-app sign-in keeps between runs: the
 * refresh token, owner-only (0600), written by the one atomic writer
 * (`atomic-file.ts`), in the same `authorized_user` shape gcloud writes, so that
 * application default credentials can read it too.
 */
import { readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import { TimelineSheetsError } from '../errors.ts'
import { writeFileAtomic } from './atomic-file.ts'
import { fileAccessError } from './file-access.ts'
import { assertOwnerOnly } from './owner-only.ts'
import { HOST_PLATFORM, type Platform } from './platform.ts'

/** What the installed-app flow keeps between runs. */
export const storedTokenSchema = z.object({
  type: z.literal('authorized_user'),
  client_id: z.string().min(1),
  refresh_token: z.string().min(1),
  scope: z.string().optional(),
})

export type StoredToken = z.infer<typeof storedTokenSchema>

/** Writes a file readable by its owner only, through the one atomic writer (`atomic-file.ts`). */
export async function writeOwnerOnlyFile(file: string, content: string): Promise<void> {
  try {
    await writeFileAtomic(file, content, { mode: 0o600, keepOld: false })
  } catch (error) {
    throw tokenFileError(error, file, 'write', 'Check that the directory exists and this user may write to it.')
  }
}

/**
 * Reads a stored refresh token; `undefined` when there is none yet. Refuses a file that group or others can read or
 * write (on POSIX systems; `owner-only.ts`).
 */
export async function readStoredToken(file: string, platform: Platform = HOST_PLATFORM): Promise<StoredToken | undefined> {
  let mode: number
  try {
    mode = (await stat(file)).mode
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw tokenFileError(error, file, 'read', 'Check the file permissions, or delete it and run `timeline-sheets login` again.')
  }
  assertOwnerOnly(file, mode, 'timeline-sheets login --google', platform)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw tokenFileError(error, file, 'read', 'Check the file permissions, or delete it and run `timeline-sheets login` again.')
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  const parsed = storedTokenSchema.safeParse(json)
  if (!parsed.success) {
    throw new TimelineSheetsError('TS_STATE', `The token file ${file} is not a timeline-sheets Google token`, {
      hint: 'Delete it and run `timeline-sheets login` again.',
    })
  }
  return parsed.data
}

/** Writes the token file (owner-only, atomically). */
export async function writeStoredToken(file: string, token: StoredToken): Promise<void> {
  await writeOwnerOnlyFile(file, `${JSON.stringify(storedTokenSchema.parse(token), null, 2)}\n`)
}

/** A refusal the system gave (named as such), or any other failure to read or write the token file. */
function tokenFileError(error: unknown, file: string, action: 'read' | 'write', hint: string): TimelineSheetsError {
  const refused = fileAccessError(error, { what: 'the token file', file, action, setting: 'google.auth.tokenFile' })
  if (refused) return refused
  return new TimelineSheetsError(
    'TS_STATE',
    `Cannot ${action} the token file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    {
      hint,
    },
  )
}
