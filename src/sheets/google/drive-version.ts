/**
 * The spreadsheet's Drive `version`, which `sync --watch` asks each interval instead of reading the sheet:
 * Drive documents it as "A monotonically increasing version number for the file. This reflects every change
 * made to the file on the server, even those not visible to the user." One `files.get` with
 * `fields=version,modifiedTime` answers in about 100 bytes whatever the spreadsheet's size, and costs 5 of Drive's
 * quota units (325,000 a minute per user, 1,000,000 per project; a project that used Drive between November 2025
 * and April 2026 keeps its earlier quotas), none of the Sheets quota of 60 requests a minute.
 *
 * The call needs a Drive scope; the narrowest that reads another person's file is `drive.metadata.readonly`,
 * which the sign-in asks for only when the config's `google.watch` is set (decisions/0016). Google lists it as
 * Restricted: an installed-app OAuth client asking for it requires Google's verification (decisions/0020).
 */
import { z } from 'zod'
import { TimelineSheetsError } from '../../errors.ts'
import { retry, type RetryOptions, type RetryVerdict } from '../../http/retry.ts'
import { classifySheetsFailure, readApiFailure, toSheetsError } from './api-errors.ts'
import type { GoogleSignIn } from './auth.ts'

/** The narrowest Drive scope that reads a shared file's metadata: "See information about your Google Drive files" (Restricted). */
export const DRIVE_METADATA_READONLY_SCOPE = 'https://www.googleapis.com/auth/drive.metadata.readonly'

/** Drive's API root; a config's `google.rootUrl` (the bundled fake) serves both APIs. */
const DRIVE_ROOT = 'https://www.googleapis.com/'

const fileVersionSchema = z.object({
  version: z.string().regex(/^\d+$/, 'must be a number in a string (int64)'),
  modifiedTime: z.string().optional(),
})

export interface DriveVersion {
  version: string
  modifiedTime: string | undefined
}

export interface DriveVersionOptions {
  fileId: string
  auth: GoogleSignIn
  /** The API root; tests point it at the fake. @default 'https://www.googleapis.com/' */
  rootUrl?: string | undefined
  retry: RetryOptions
}

/** Reads the file's `version` and `modifiedTime`: one request, repeated only as the one retry policy says. */
export async function readDriveVersion(options: DriveVersionOptions): Promise<DriveVersion> {
  const url = new URL(`drive/v3/files/${encodeURIComponent(options.fileId)}`, withSlash(options.rootUrl ?? DRIVE_ROOT))
  url.searchParams.set('fields', 'version,modifiedTime')
  // A spreadsheet on a shared drive is found only with this set.
  url.searchParams.set('supportsAllDrives', 'true')
  let data: unknown
  try {
    data = await retry(
      async () => (await options.auth.client.request({ url: url.toString(), method: 'GET', retry: false })).data,
      classifyDriveFailure,
      options.retry,
    )
  } catch (error) {
    throw toDriveError(error, options)
  }
  const parsed = fileVersionSchema.safeParse(data)
  if (!parsed.success) {
    throw new TimelineSheetsError(
      'TS_RESPONSE_INVALID',
      `Google Drive answered files.get for spreadsheet ${options.fileId} without a usable version: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`,
      { hint: 'The Drive API answered in a shape this version does not understand; `sync --watch` cannot tell an untouched spreadsheet.' },
    )
  }
  return { version: parsed.data.version, modifiedTime: parsed.data.modifiedTime }
}

/**
 * Drive's own rate limits answer 403 `userRateLimitExceeded` / `rateLimitExceeded` (or 429): back off like a 5xx.
 * Everything else as a Sheets read.
 */
export function classifyDriveFailure(error: unknown): RetryVerdict {
  const failure = readApiFailure(error)
  if (failure?.status === 403 && /rateLimitExceeded/i.test(driveReason(failure.data) ?? '')) {
    return { retry: true, reason: 'Google Drive rate limit (403)' }
  }
  if (failure?.status === 429) return { retry: true, reason: 'Google Drive rate limit (429)' }
  return classifySheetsFailure(error, { now: Date.now(), quotaWindowMs: 60_000, kind: 'read' })
}

function toDriveError(error: unknown, options: DriveVersionOptions): TimelineSheetsError {
  const failure = readApiFailure(error)
  const scopeMissing =
    failure?.status === 403 &&
    (failure.reason === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' || driveReason(failure.data) === 'insufficientPermissions')
  if (scopeMissing) {
    return new TimelineSheetsError(
      'TS_FORBIDDEN',
      `Google Drive refused to show the version of spreadsheet ${options.fileId}: the sign-in lacks the read-only Drive metadata scope`,
      {
        hint: `Set "watch": true in the config's "google" section (it asks for ${DRIVE_METADATA_READONLY_SCOPE}); with your own account run \`timeline-sheets login --google\` again, with application default credentials add that scope to \`gcloud auth application-default login --scopes=…\`.`,
      },
    )
  }
  if (failure?.status === 403 && failure.reason === 'SERVICE_DISABLED') {
    return new TimelineSheetsError('TS_FORBIDDEN', `The Google Drive API is not enabled for these credentials`, {
      hint: 'Enable the Google Drive API in the Google Cloud project of these credentials (sync --watch asks it for the spreadsheet version).',
    })
  }
  return toSheetsError(error, {
    spreadsheetId: options.fileId,
    operation: 'files.get',
    service: 'Google Drive',
    principal: options.auth.principal,
    secrets: options.auth.secrets(),
  })
}

/** Drive's `errors[0].reason` (`insufficientPermissions`, `userRateLimitExceeded`, `notFound`). */
function driveReason(data: unknown): string | undefined {
  const errors = (data as { error?: { errors?: { reason?: unknown }[] } } | undefined)?.error?.errors
  const reason = Array.isArray(errors) ? errors[0]?.reason : undefined
  return typeof reason === 'string' ? reason : undefined
}

function withSlash(root: string): string {
  return root.endsWith('/') ? root : `${root}/`
}
