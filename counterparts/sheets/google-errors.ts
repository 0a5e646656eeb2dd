/**
 * Google's error envelope (reference/sheets-api.md §7.1): numeric `code`,
 * `message`, a `google.rpc.Code` name as `status`, typed `details`, and never an
 * `errors[]` array, because gaxios would then build `err.message` differently.
 */

export type RpcStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'FAILED_PRECONDITION'

const STATUS_BY_HTTP: Record<number, RpcStatus> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
}

/** A failure the fake answers with Google's envelope. Thrown anywhere below the handler. */
export class SheetsApiError extends Error {
  readonly httpStatus: number
  readonly status: RpcStatus
  readonly details: unknown[] | undefined

  constructor(httpStatus: number, message: string, details?: unknown[], status?: RpcStatus) {
    super(message)
    this.name = 'SheetsApiError'
    this.httpStatus = httpStatus
    this.status = status ?? STATUS_BY_HTTP[httpStatus] ?? 'INTERNAL'
    this.details = details
  }

  /** The same error with a prefix such as `Invalid requests[2].addSheet: `. */
  prefixed(prefix: string): SheetsApiError {
    return new SheetsApiError(this.httpStatus, `${prefix}${this.message}`, this.details, this.status)
  }
}

/** 400 INVALID_ARGUMENT with the given message. */
export function invalidArgument(message: string): SheetsApiError {
  return new SheetsApiError(400, message)
}

/** 400 with a BadRequest field violation, as for bad `fields` masks and bad JSON. */
export function badRequest(message: string, field: string, description: string): SheetsApiError {
  return new SheetsApiError(400, message, [
    { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description }] },
  ])
}

/** The JSON body of an error. */
export function errorBody(error: SheetsApiError): unknown {
  const body: Record<string, unknown> = { code: error.httpStatus, message: error.message, status: error.status }
  if (error.details && error.details.length > 0) body.details = error.details
  return { error: body }
}

/** Google's JSON content type; gaxios parses a body only when it says application/json. */
export const JSON_CONTENT_TYPE = 'application/json; charset=UTF-8'

/** A JSON response with Google's content type. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_CONTENT_TYPE, ...headers } })
}

/** The error as a Response. */
export function errorResponse(error: SheetsApiError): Response {
  return jsonResponse(errorBody(error), error.httpStatus)
}

/** `google.apps.sheets.v4.SpreadsheetsService.<Method>` names used in ErrorInfo metadata (§7.4). */
export type MethodName =
  | 'GetSpreadsheet'
  | 'CreateSpreadsheet'
  | 'BatchUpdateSpreadsheet'
  | 'GetValues'
  | 'BatchGetValues'
  | 'UpdateValues'
  | 'BatchUpdateValues'
  | 'AppendValues'
  | 'ClearValues'
  | 'BatchClearValues'
  | 'BatchGetValuesByDataFilter'
  | 'BatchUpdateValuesByDataFilter'
  | 'SearchDeveloperMetadata'
  | 'GetDeveloperMetadata'
  /** Drive API v3 `files.get` (drive-files.ts). */
  | 'DriveFilesGet'

function errorInfo(reason: string, method: MethodName): unknown {
  // Drive's ErrorInfo names its own service and RPC, as its insufficient-scopes body does.
  const metadata =
    method === 'DriveFilesGet'
      ? { service: 'drive.googleapis.com', method: 'google.apps.drive.v3.DriveFiles.Get' }
      : { service: 'sheets.googleapis.com', method: `google.apps.sheets.v4.SpreadsheetsService.${method}` }
  return { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'googleapis.com', metadata }
}

const AUTH_HELP =
  'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.'

/** 401 for a request without credentials (§7.2). */
export function credentialsMissing(method: MethodName): SheetsApiError {
  return new SheetsApiError(401, `Request is missing required authentication credential. ${AUTH_HELP}`, [
    errorInfo('CREDENTIALS_MISSING', method),
  ])
}

/** 401 for an unknown or expired token (§10.5). */
export function tokenExpired(method: MethodName): SheetsApiError {
  return new SheetsApiError(401, `Request had invalid authentication credentials. ${AUTH_HELP}`, [
    errorInfo('ACCESS_TOKEN_EXPIRED', method),
  ])
}

/** 403 for a token without a scope the method needs. */
export function scopeInsufficient(method: MethodName): SheetsApiError {
  return new SheetsApiError(403, 'Request had insufficient authentication scopes.', [errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', method)])
}

/** 429 with the exact body of §7.3, for the read or write bucket, per user or per project. */
export function quotaExceeded(kind: 'read' | 'write', scope: 'user' | 'project', limit: number, projectNumber: string): SheetsApiError {
  const Metric = kind === 'read' ? 'Read' : 'Write'
  const limitName = scope === 'user' ? `${Metric} requests per minute per user` : `${Metric} requests per minute`
  return new SheetsApiError(
    429,
    `Quota exceeded for quota metric '${Metric} requests' and limit '${limitName}' of service 'sheets.googleapis.com' for consumer 'project_number:${projectNumber}'.`,
    [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'googleapis.com',
        metadata: {
          quota_limit_value: String(limit),
          service: 'sheets.googleapis.com',
          consumer: `projects/${projectNumber}`,
          quota_unit: scope === 'user' ? '1/min/{project}/{user}' : '1/min/{project}',
          quota_location: 'global',
          quota_metric: `sheets.googleapis.com/${kind}_requests`,
          quota_limit: `${Metric}RequestsPerMinute${scope === 'user' ? 'PerUser' : 'PerProject'}`,
        },
      },
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [{ description: 'Request a higher quota limit.', url: 'https://cloud.google.com/docs/quotas/help/request_increase' }],
      },
    ],
  )
}

/** `Requested entity was not found.` */
export function notFound(): SheetsApiError {
  return new SheetsApiError(404, 'Requested entity was not found.')
}

/** `The caller does not have permission`: a file not shared with the caller, or a viewer's write (§7.2). */
export function permissionDenied(): SheetsApiError {
  return new SheetsApiError(403, 'The caller does not have permission')
}

/** `Unable to parse range: <as sent>` */
export function unableToParseRange(range: string): SheetsApiError {
  return invalidArgument(`Unable to parse range: ${range}`)
}

/** `Range (<open form>) exceeds grid limits. Max rows: R, max columns: C` */
export function exceedsGridLimits(openRange: string, rowCount: number, columnCount: number): SheetsApiError {
  return invalidArgument(`Range (${openRange}) exceeds grid limits. Max rows: ${rowCount}, max columns: ${columnCount}`)
}

/** The 10,000,000-cell limit message. */
export function cellLimit(limit: number): SheetsApiError {
  return invalidArgument(`This action would increase the number of cells in the workbook above the limit of ${limit} cells.`)
}
