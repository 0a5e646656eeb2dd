/**
 * Drive API v3 `files.get` for the fake's spreadsheets: what `sync --watch` asks each interval instead of
 * reading a sheet. `GET …/drive/v3/files/<id>` under any root, on the same handler as the Sheets routes.
 * What Google documents, enforced:
 *
 * - `version`: "A monotonically increasing version number for the file. This reflects every change made to the
 *   file on the server, even those not visible to the user." (an int64, sent as a string of digits).
 *   `modifiedTime`: "The last time the file was modified by anyone (RFC 3339 date-time)." Both move when a
 *   change is applied (`commitTx` in tx.ts), through the API or by a person (manager.ts).
 * - Drive v3 methods that return a resource answer the fields asked for in `fields`; without it files.get
 *   answers the default fields only (`kind`, `id`, `name`, `mimeType`): a client that does not ask for
 *   `version` does not get it. A name that is no field of the File resource is refused.
 * - Scopes: only those Drive's reference lists for files.get; `spreadsheets` alone is refused with Google's
 *   insufficient-scopes body, and `drive.metadata.readonly` alone may call no Sheets method (auth.ts).
 * - An unknown file, or one the caller may not see: 404 `File not found: <id>.` with `location: fileId`.
 * - Drive's quota is its own: a files.get spends 5 of Drive's quota units and none of the Sheets quota
 *   (drive-quota.ts).
 *
 * Drive's error bodies keep the `errors[]` array of its older format beside `status` and `details`.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { driveQuotaExceeded, FILES_GET_UNITS } from './drive-quota.ts'
import { applyMask, type MaskTree, parseMask } from './fields.ts'
import { credentialsMissing, jsonResponse, type MethodName, scopeInsufficient, type SheetsApiError, tokenExpired } from './google-errors.ts'
import { shownStamp } from './drive-version.ts'
import type { SpreadsheetData } from './sheet-data.ts'
import type { SheetsStore } from './store.ts'

const METHOD: MethodName = 'DriveFilesGet'

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

/** The narrowest Drive scope that reads a shared file's metadata (a Restricted one, on Google's Drive scopes page). */
export const DRIVE_METADATA_READONLY_SCOPE = 'https://www.googleapis.com/auth/drive.metadata.readonly'

const SPREADSHEET_MIME_TYPE = 'application/vnd.google-apps.spreadsheet'

/** What files.get answers without `fields`. */
const DEFAULT_FIELDS = ['kind', 'id', 'name', 'mimeType']

/**
 * Every top-level field of the Drive v3 File resource: a mask may name any of them (those the fake does not
 * model, such as `owners`, are simply absent, as `size` is for a Google Sheets file); any other name is refused.
 */
const FILE_FIELDS: ReadonlySet<string> = new Set([
  'appProperties',
  'capabilities',
  'contentHints',
  'contentRestrictions',
  'copyRequiresWriterPermission',
  'createdTime',
  'description',
  'downloadRestrictions',
  'driveId',
  'explicitlyTrashed',
  'exportLinks',
  'fileExtension',
  'folderColorRgb',
  'fullFileExtension',
  'hasAugmentedPermissions',
  'hasThumbnail',
  'headRevisionId',
  'iconLink',
  'id',
  'imageMediaMetadata',
  'inheritedPermissionsDisabled',
  'isAppAuthorized',
  'kind',
  'labelInfo',
  'lastModifyingUser',
  'linkShareMetadata',
  'md5Checksum',
  'mimeType',
  'modifiedByMe',
  'modifiedByMeTime',
  'modifiedTime',
  'name',
  'originalFilename',
  'ownedByMe',
  'owners',
  'parents',
  'permissionIds',
  'permissions',
  'properties',
  'quotaBytesUsed',
  'resourceKey',
  'sha1Checksum',
  'sha256Checksum',
  'shared',
  'sharedWithMeTime',
  'sharingUser',
  'shortcutDetails',
  'size',
  'spaces',
  'starred',
  'teamDriveId',
  'thumbnailLink',
  'thumbnailVersion',
  'trashed',
  'trashedTime',
  'trashingUser',
  'version',
  'videoMediaMetadata',
  'viewedByMe',
  'viewedByMeTime',
  'viewersCanCopyContent',
  'webContentLink',
  'webViewLink',
  'writersCanShare',
])

/** The file id of a `GET …/drive/v3/files/<id>`; undefined for any other URL. */
export function driveFileIdOf(httpMethod: string, rawPath: string): string | undefined {
  if (httpMethod !== 'GET') return undefined
  const m = /\/drive\/v3\/files\/([^/]+)$/.exec(rawPath)
  if (!m) return undefined
  try {
    return decodeURIComponent(m[1]!)
  } catch {
    return m[1]!
  }
}

/** The spreadsheet's Drive `version` as files.get answers it, for tests that compare what a client saw. */
export function driveVersionOf(store: SheetsStore, spreadsheetId: string): string {
  const ss = store.spreadsheets.get(spreadsheetId)
  if (!ss) throw new Error(`No spreadsheet ${spreadsheetId}`)
  return String(shownStamp(ss).version)
}

/** Every field the fake models, as Drive shows them for a Google Sheets file. */
function fullResource(ss: SpreadsheetData): Record<string, unknown> {
  const stamp = shownStamp(ss)
  return {
    kind: 'drive#file',
    id: ss.spreadsheetId,
    name: ss.properties.title,
    mimeType: SPREADSHEET_MIME_TYPE,
    // int64 fields travel as JSON strings.
    version: String(stamp.version),
    modifiedTime: new Date(stamp.modifiedTime).toISOString(),
  }
}

/** The first name of a mask that is no field of the File resource. */
function unknownField(mask: MaskTree): string | undefined {
  for (const name of mask.keys()) if (name !== '*' && !FILE_FIELDS.has(name)) return name
  return undefined
}

/** The file resource cut to `fields`, or the default fields without it. */
export function fileResource(ss: SpreadsheetData, fields: string | null): Record<string, unknown> {
  const all = fullResource(ss)
  if (fields === null || fields.trim() === '') return Object.fromEntries(DEFAULT_FIELDS.map((name) => [name, all[name]]))
  return applyMask(all, parseMask(fields)) as Record<string, unknown>
}

interface DriveErrorItem {
  message: string
  domain: string
  reason: string
  location?: string
  locationType?: string
}

/** Drive's error body: `code`, `message`, the `errors[]` entries, then `status` and `details` when it sends them. */
function driveError(code: number, message: string, errors: DriveErrorItem[], rpc?: SheetsApiError): Response {
  const error: Record<string, unknown> = { code, message, errors }
  if (rpc) {
    error.status = rpc.status
    if (rpc.details && rpc.details.length > 0) error.details = rpc.details
  }
  return jsonResponse({ error }, code)
}

/** Drive's envelope around one of the Sheets helpers' errors (401, 403 scope), with Drive's `errors[]` entry. */
function fromRpc(rpc: SheetsApiError, item: DriveErrorItem): Response {
  return driveError(rpc.httpStatus, rpc.message, [item], rpc)
}

/** 401 without a token: the Sheets routes' message and ErrorInfo, for Drive's service. */
export function driveCredentialsMissing(): Response {
  return fromRpc(credentialsMissing(METHOD), {
    message: 'Login Required.',
    domain: 'global',
    reason: 'required',
    location: 'Authorization',
    locationType: 'header',
  })
}

/** 401 for an unknown or expired token. */
export function driveTokenInvalid(): Response {
  return fromRpc(tokenExpired(METHOD), {
    message: 'Invalid Credentials',
    domain: 'global',
    reason: 'authError',
    location: 'Authorization',
    locationType: 'header',
  })
}

/** 403 for a token without a scope files.get accepts (`DRIVE_FILES_GET_SCOPES`). */
export function driveScopeInsufficient(): Response {
  return fromRpc(scopeInsufficient(METHOD), { message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' })
}

/** 404 as Drive answers a file the caller cannot see: the same whether it does not exist or is not shared. */
export function driveFileNotFound(fileId: string): Response {
  const message = `File not found: ${fileId}.`
  return driveError(404, message, [{ message, domain: 'global', reason: 'notFound', location: 'fileId', locationType: 'parameter' }])
}

/** 400 for a `fields` mask naming what the File resource does not have. */
export function driveInvalidFields(name: string): Response {
  const message = `Invalid field selection ${name}`
  return driveError(400, message, [
    { message, domain: 'global', reason: 'invalidParameter', location: 'fields', locationType: 'parameter' },
  ])
}

/** What Drive answers for an injected status: its rate-limit and backend-error bodies, else a plain one. */
function injectedFailure(status: number): Response {
  if (status === 429) {
    const message = 'Rate limit exceeded.'
    return driveError(429, message, [{ message, domain: 'usageLimits', reason: 'rateLimitExceeded' }])
  }
  if (status >= 500) return driveError(status, 'Backend Error', [{ message: 'Backend Error', domain: 'global', reason: 'backendError' }])
  const message = `Injected fault ${status}.`
  return driveError(status, message, [{ message, domain: 'global', reason: 'injectedFault' }])
}

function bearerOf(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (!header) return undefined
  const m = /^Bearer\s+(.+)$/i.exec(header)
  return m ? m[1]!.trim() : ''
}

/**
 * Answers one files.get, in the fake's order of checks: auth → Drive's own quota → injected faults → the file
 * (existence and sharing) → the `fields` mask. Counted in the stats as a read of method `DriveFilesGet`.
 */
export async function answerDriveFilesGet(
  store: SheetsStore,
  request: Request,
  fileId: string,
  onRequest?: (event: { method: MethodName; status: number; url: string }) => void,
): Promise<Response> {
  store.record(METHOD, 'read')
  const answer = (response: Response) => {
    onRequest?.({ method: METHOD, status: response.status, url: request.url })
    return response
  }
  const latency = store.faults.latency()
  if (latency > 0) await sleep(latency)
  const auth = store.auth.check(bearerOf(request), false, DRIVE_FILES_GET_SCOPES)
  if (!auth.ok) {
    if (auth.reason === 'missing') return answer(driveCredentialsMissing())
    if (auth.reason === 'invalid') return answer(driveTokenInvalid())
    return answer(driveScopeInsufficient())
  }
  const overQuota = store.takeDriveQuota(auth.grant.subject, FILES_GET_UNITS)
  if (overQuota) return answer(driveQuotaExceeded(overQuota, store.options.projectNumber))
  const fault = store.faults.decide(METHOD, 'read')
  if (fault) store.recordFault()
  // A read has nothing to apply: "dropped unapplied" and "applied, then dropped" are the same dropped answer.
  if (fault?.dropUnapplied || fault?.thenAnswer === 'drop') return answer(Response.error())
  if (fault && !fault.thenAnswer) return answer(injectedFailure(fault.status))
  const ss = store.spreadsheets.get(fileId)
  // Drive hides a file from a caller it is not shared with: the same 404 as a file that does not exist.
  const role = ss?.sharedWith ? ss.sharedWith[auth.grant.subject] : 'writer'
  if (!ss || role === undefined) return answer(driveFileNotFound(fileId))
  const fields = new URL(request.url).searchParams.get('fields')
  const bad = fields ? unknownField(parseMask(fields)) : undefined
  if (bad !== undefined) return answer(driveInvalidFields(bad))
  const body = fileResource(ss, fields)
  if (fault?.thenAnswer) await sleep(fault.thenAnswer.stallMs)
  return answer(jsonResponse(body))
}
