/**
 * Drive API v3 `files.get` for the fake's spreadsheets: what `sync --watch` asks each interval instead of
 * reading a sheet. What Google documents, enforced:
 *
 * - `version`: "A monotonically increasing version number for the file. This reflects every change made to the
 *   file on the server, even those not visible to the user." (an int64, sent as a string of digits).
 *   `modifiedTime`: "The last time the file was modified by anyone (RFC 3339 date-time)." Both move when a
 *   change is applied (`commitTx` in model.ts), through the API or by a person (manager.ts).
 * - Without `fields`, files.get answers the default fields only (`kind`, `id`, `name`, `mimeType`): a client
 *   that does not ask for `version` does not get it.
 * - Scopes: only Drive's (the method's list); `spreadsheets` alone is refused with Google's
 *   insufficient-scopes body, and `drive.metadata.readonly` alone may call no Sheets method (auth.ts).
 * - An unknown file, or one the caller may not see: 404 `File not found: <id>.` with `location: fileId`.
 * - Drive's quota is its own (325,000 units a minute per user): a files.get spends none of the Sheets quota.
 */
import { jsonResponse } from './google-errors.ts'
import type { SpreadsheetData } from './sheet-data.ts'

/** The scopes Drive's reference lists for files.get. */
export const DRIVE_FILES_GET_SCOPES: ReadonlySet<string> = new Set(
  [
    'drive',
    'drive.file',
    'drive.readonly',
    'drive.metadata',
    'drive.metadata.readonly',
    'drive.appdata',
    'drive.photos.readonly',
    'drive.meet.readonly',
  ].map((scope) => `https://www.googleapis.com/auth/${scope}`),
)

/** The narrowest Drive scope that reads a shared file's metadata. */
export const DRIVE_METADATA_READONLY_SCOPE = 'https://www.googleapis.com/auth/drive.metadata.readonly'

const SPREADSHEET_MIME_TYPE = 'application/vnd.google-apps.spreadsheet'
const DEFAULT_FIELDS = ['kind', 'id', 'name', 'mimeType']

/** The file id of a `GET …/drive/v3/files/<id>`; undefined for any other URL. */
export function driveFileIdOf(httpMethod: string, rawPath: string): string | undefined {
  if (httpMethod !== 'GET') return undefined
  const m = /\/drive\/v3\/files\/([^/]+)$/.exec(rawPath)
  return m ? decodeURIComponent(m[1]!) : undefined
}

/** The file resource as Drive would show it, cut to `fields` (comma-separated top-level names, or `*`). */
export function fileResource(ss: SpreadsheetData, fields: string | null): Record<string, unknown> {
  const all: Record<string, unknown> = {
    kind: 'drive#file',
    id: ss.spreadsheetId,
    name: ss.properties.title,
    mimeType: SPREADSHEET_MIME_TYPE,
    version: String(ss.drive.version),
    modifiedTime: new Date(ss.drive.modifiedTime).toISOString(),
  }
  const wanted =
    fields === null || fields.trim() === ''
      ? DEFAULT_FIELDS
      : fields.trim() === '*'
        ? Object.keys(all)
        : fields.split(',').map((f) => f.trim())
  return Object.fromEntries(wanted.filter((name) => name in all).map((name) => [name, all[name]]))
}

/** 404 as Drive answers a file the caller cannot see. */
export function driveFileNotFound(fileId: string): Response {
  const message = `File not found: ${fileId}.`
  return jsonResponse(
    {
      error: {
        code: 404,
        message,
        errors: [{ message, domain: 'global', reason: 'notFound', location: 'fileId', locationType: 'parameter' }],
      },
    },
    404,
  )
}

/** 403 for a token without a Drive scope. */
export function driveScopeInsufficient(): Response {
  return jsonResponse(
    {
      error: {
        code: 403,
        message: 'Request had insufficient authentication scopes.',
        errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
        status: 'PERMISSION_DENIED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
            domain: 'googleapis.com',
            metadata: { service: 'drive.googleapis.com', method: 'google.apps.drive.v3.DriveFiles.Get' },
          },
        ],
      },
    },
    403,
  )
}

/** 401 for a missing, unknown or expired token, in Drive's shape. */
export function driveUnauthenticated(): Response {
  return jsonResponse(
    {
      error: {
        code: 401,
        message:
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        errors: [
          { message: 'Invalid Credentials', domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' },
        ],
        status: 'UNAUTHENTICATED',
      },
    },
    401,
  )
}
