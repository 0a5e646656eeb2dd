/**
 * How the Google backend reads a failed call: whether to repeat it and after
 * how long (the one retry policy in src/http/retry.ts asks), and what the user
 * is told when it is final. Pure; `now` and `random` are injected.
 */
import { HttpError, RequestTimeoutError, TimeoutBudgetError, TimelineSheetsError, redactSecrets, redactUrl } from '../../errors.ts'
import { isFetchFailure } from '../../http/fetch-failure.ts'
import { parseRetryAfter, type RetryVerdict } from '../../http/retry.ts'

/** The parts of a GaxiosError (or any HTTP error) this module reads. */
export interface ApiFailure {
  status: number | undefined
  /** Google's `error.status`, e.g. `RESOURCE_EXHAUSTED`. */
  googleStatus: string | undefined
  /** Google's `error.message`, or the transport's message. */
  message: string
  /** `ErrorInfo.reason` from the details, e.g. `SERVICE_DISABLED`. */
  reason: string | undefined
  retryAfter: string | undefined
  /** Node's network error code (`ECONNRESET`…) when no answer came. */
  networkCode: string | undefined
  url: string | undefined
  method: string | undefined
  data: unknown
}

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'ECONNABORTED',
])

/**
 * Whether a Sheets API call changes the spreadsheet: every call but a GET and the reads Google takes as a POST
 * (`…ByDataFilter` reads, a metadata search). Token requests and anything outside `/v4/spreadsheets` are reads.
 */
export function sheetsCallKind(method: string, url: string): 'read' | 'write' {
  if (method === 'GET' || method === 'HEAD') return 'read'
  const path = URL.canParse(url) ? new URL(url).pathname : url
  if (!/\/v4\/spreadsheets(\/|:|$)/.test(path)) return 'read'
  return /(:getByDataFilter|:batchGetByDataFilter|developerMetadata:search)$/.test(path) ? 'read' : 'write'
}

/**
 * The transport's own error (a timeout, a request not sent because the run's time for timed-out requests is
 * spent, a refused redirect, a body that broke off) that a GaxiosError wraps as its cause, or that a token
 * request threw.
 */
export function transportFailure(error: unknown): TimelineSheetsError | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (current instanceof TimelineSheetsError) {
      return current instanceof RequestTimeoutError ||
        current instanceof TimeoutBudgetError ||
        current.code === 'TS_NETWORK' ||
        current.code === 'TS_UNSAFE_REDIRECT'
        ? current
        : undefined
    }
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** Reads a GaxiosError (duck-typed: several gaxios copies may be installed) into an `ApiFailure`. */
export function readApiFailure(error: unknown): ApiFailure | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  if (error instanceof TimelineSheetsError) return undefined
  const own = transportFailure(error)
  if (own && own.code !== 'TS_UNSAFE_REDIRECT') {
    // No answer came (or not all of it): a write may have been applied, as after a reset connection.
    const unsent = (own instanceof RequestTimeoutError && own.unsent) || own instanceof TimeoutBudgetError
    return {
      status: undefined,
      googleStatus: undefined,
      message: own.message,
      reason: undefined,
      retryAfter: undefined,
      networkCode: unsent ? 'UND_ERR_CONNECT_TIMEOUT' : own instanceof RequestTimeoutError ? 'ETIMEDOUT' : 'ECONNRESET',
      url: own instanceof RequestTimeoutError || own instanceof TimeoutBudgetError ? own.url : undefined,
      method: own instanceof RequestTimeoutError || own instanceof TimeoutBudgetError ? own.method : undefined,
      data: undefined,
    }
  }
  const e = error as {
    status?: unknown
    code?: unknown
    message?: unknown
    response?: { status?: unknown; data?: unknown; headers?: unknown }
    config?: { url?: unknown; method?: unknown }
    cause?: { code?: unknown }
  }
  const response = e.response
  const status = typeof response?.status === 'number' ? response.status : typeof e.status === 'number' ? e.status : undefined
  const networkCode = networkCodeOf(error)
  if (status === undefined && networkCode === undefined && !('config' in e)) return undefined
  const body = (response?.data ?? undefined) as { error?: { message?: unknown; status?: unknown; details?: unknown } } | undefined
  const googleError = typeof body === 'object' && body !== null ? body.error : undefined
  const details = Array.isArray(googleError?.details) ? (googleError.details as { reason?: unknown }[]) : []
  const reason = details.map((d) => d?.reason).find((r): r is string => typeof r === 'string')
  return {
    status,
    googleStatus: typeof googleError?.status === 'string' ? googleError.status : undefined,
    message: typeof googleError?.message === 'string' ? googleError.message : typeof e.message === 'string' ? e.message : 'no message',
    reason,
    retryAfter: headerValue(response?.headers, 'retry-after'),
    networkCode,
    url: typeof e.config?.url === 'string' ? e.config.url : e.config?.url instanceof URL ? e.config.url.toString() : undefined,
    method: typeof e.config?.method === 'string' ? e.config.method : undefined,
    data: response?.data,
  }
}

/**
 * The network failure under an error, if any: a known code anywhere in the cause chain, or fetch's own
 * failure (`isFetchFailure`; undici puts the socket's code a level below it: GaxiosError ← TypeError ← SocketError).
 */
function networkCodeOf(error: unknown): string | undefined {
  let fetchFailed = false
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown }
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code
    if (isFetchFailure(current)) fetchFailed = true
    current = cause
  }
  // No answer came, and nothing says why: a connection that broke.
  return fetchFailed ? 'ECONNRESET' : undefined
}

function headerValue(headers: unknown, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  if (typeof headers === 'object' && headers !== null) {
    const value = (headers as Record<string, unknown>)[name]
    return typeof value === 'string' ? value : undefined
  }
  return undefined
}

/**
 * Milliseconds until Google's per-minute quota has refilled: the end of the
 * current window plus a little jitter, so parallel clients do not all come
 * back in the same millisecond.
 */
export function quotaWaitMs(now: number, windowMs: number = 60_000, random: () => number = Math.random): number {
  const untilBoundary = windowMs - (now % windowMs)
  return untilBoundary + Math.round(random() * windowMs * 0.05)
}

export interface ClassifyContext {
  now: number
  quotaWindowMs: number
  random?: () => number
  /**
   * Whether the call reads or changes the spreadsheet. A write that timed out after it was sent is not repeated
   * here: Google may still be applying it (decisions/0015-hung-services.md); its caller checks what it did.
   * @default what the timed-out request's method and URL say (`sheetsCallKind`)
   */
  kind?: 'read' | 'write'
}

/**
 * Retry verdict for a Sheets call: 429 waits for the quota window, 5xx/408/network back off, a read's timeout
 * backs off too, a write's timeout and the rest are final.
 */
export function classifySheetsFailure(error: unknown, context: ClassifyContext): RetryVerdict {
  // The service-account token request reports a busy token endpoint this way;
  // a TS_SHEETS_API HttpError has already been through its own retries.
  if (error instanceof HttpError && error.code === 'TS_AUTH_FAILED' && (error.status === 429 || error.status >= 500)) {
    return { retry: true, reason: `Google token endpoint answered ${error.status}` }
  }
  // A read's timeout counts like a 503. The deadline, and a spent budget for timed-out requests, end the call.
  const own = transportFailure(error)
  if (own instanceof RequestTimeoutError) {
    if (own.limit === 'deadline' || own.budgetSpent) return { retry: false }
    // Sent and not answered in time: Google may still be working on it, so a repeat could apply it twice.
    if (!own.unsent && (context.kind ?? sheetsCallKind(own.method, own.url)) === 'write') return { retry: false }
    return { retry: true, reason: `${own.limit} timeout` }
  }
  if (own?.code === 'TS_NETWORK') return { retry: true, reason: 'the connection broke' }
  if (own) return { retry: false }
  const failure = readApiFailure(error)
  if (!failure) return { retry: false }
  if (failure.status === 429) {
    return {
      retry: true,
      reason: 'Google Sheets quota exceeded (429)',
      retryAfterMs: Math.max(
        quotaWaitMs(context.now, context.quotaWindowMs, context.random),
        parseRetryAfter(failure.retryAfter, context.now) ?? 0,
      ),
    }
  }
  if (failure.status !== undefined && (failure.status >= 500 || failure.status === 408)) {
    const retryAfterMs = parseRetryAfter(failure.retryAfter, context.now)
    return retryAfterMs === undefined
      ? { retry: true, reason: `Google Sheets answered ${failure.status}` }
      : { retry: true, reason: `Google Sheets answered ${failure.status}`, retryAfterMs }
  }
  if (failure.status === undefined && failure.networkCode !== undefined) {
    return { retry: true, reason: `network error ${failure.networkCode}` }
  }
  return { retry: false }
}

/** What a failed attempt met, in one line for the person watching: the transport's message, or Google's status. */
export function describeSheetsFailure(error: unknown): string {
  const own = transportFailure(error)
  if (own) return own.message
  const failure = readApiFailure(error)
  if (!failure) return error instanceof Error ? error.message : String(error)
  const where = failure.url ? `${(failure.method ?? 'GET').toUpperCase()} ${redactUrl(failure.url)} ` : ''
  if (failure.status === undefined) return `${where}failed before an answer: ${failure.networkCode ?? failure.message}`
  return `${where}answered ${failure.status}${failure.googleStatus ? ` ${failure.googleStatus}` : ''}`
}

export interface ErrorContext {
  spreadsheetId: string
  /** API method, e.g. `values.batchGet`. */
  operation: string
  /** The account the spreadsheet must be shared with, when known. */
  principal: string | undefined
  /** Strings that must never reach a message. */
  secrets: string[]
  /** The service the call went to, as messages name it. @default 'Google Sheets' */
  service?: 'Google Sheets' | 'Google Drive'
}

/**
 * A failed call as the user sees it: `TS_SHEETS_API` with Google's message
 * and status and a hint that says what to do. Our own errors pass unchanged.
 * The GaxiosError is not kept as `cause`: its config holds the bearer token.
 */
export function toSheetsError(error: unknown, context: ErrorContext): TimelineSheetsError {
  if (error instanceof TimelineSheetsError) return error
  // The transport's message already names the URL and the limit or the origins.
  const own = transportFailure(error)
  if (own) return own
  const failure = readApiFailure(error)
  const where = `spreadsheet ${context.spreadsheetId} (${context.operation})`
  const service = context.service ?? 'Google Sheets'
  const scrub = (text: string) => redactSecrets(text, context.secrets).replace(/Bearer\s+[A-Za-z0-9._~+/=-]+/g, 'Bearer ***')
  if (!failure) {
    const message = error instanceof Error ? error.message : String(error)
    return new TimelineSheetsError('TS_SHEETS_API', scrub(`${service} call failed for ${where}: ${message}`), {
      hint: 'Run again; if it persists, check the network and the Google credentials.',
    })
  }
  if (failure.status === undefined) {
    return new TimelineSheetsError(
      'TS_NETWORK',
      scrub(`Could not reach ${service} for ${where}: ${failure.networkCode ?? failure.message}`),
      {
        hint: 'Check the network connection and any proxy, then run again.',
      },
    )
  }
  const statusText = failure.googleStatus ? `${failure.status} ${failure.googleStatus}` : String(failure.status)
  return new HttpError(
    {
      status: failure.status,
      method: (failure.method ?? 'GET').toUpperCase(),
      url: redactUrl(failure.url ?? ''),
      data: failure.data === undefined ? undefined : (JSON.parse(scrub(JSON.stringify(failure.data))) as unknown),
      code: 'TS_SHEETS_API',
      message: scrub(`${service} answered ${statusText} for ${where}: ${failure.message}`),
    },
    { hint: hintFor(failure, context) },
  )
}

function hintFor(failure: ApiFailure, context: ErrorContext): string {
  const shareWith = context.principal ? ` with ${context.principal}` : ' with the account timeline-sheets signs in as'
  switch (failure.status) {
    case 401:
      return 'The Google credentials were refused (expired or revoked). Check the service-account key file, or sign in again with `timeline-sheets login`.'
    case 403:
      if (failure.reason === 'SERVICE_DISABLED') return 'Enable the Google Sheets API in the Google Cloud project of these credentials.'
      if (failure.reason === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT')
        return 'The token lacks the https://www.googleapis.com/auth/spreadsheets scope; sign in again.'
      return `Share the spreadsheet${shareWith} as editor.`
    case 404:
      return `Check the spreadsheet id "${context.spreadsheetId}" (the part of its URL between /d/ and /edit), and that the spreadsheet is shared${shareWith}.`
    case 429:
      return context.service === 'Google Drive'
        ? "Google Drive's quota for these credentials stayed exhausted; the next interval asks again."
        : 'The Google Sheets quota (60 reads and 60 writes per minute per user) stayed exhausted. Lower the pace or run again later.'
    default:
      if ((failure.status ?? 0) >= 500)
        return `${context.service ?? 'Google Sheets'} is having trouble. Run again later; writes are safe to repeat.`
      return 'Google rejected the request. If the spreadsheet was edited by hand (tabs renamed, rows limited), run `ensureLayout` again; otherwise report this as a bug.'
  }
}
