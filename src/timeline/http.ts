/**
 * The Timeline client's one way to the wire: vendor media type on every call,
 * one pace lane, the one retry policy with a classifier that knows which calls
 * are safe to repeat, and status codes turned into typed errors. Secrets from
 * the sign-in never reach a message or a log.
 *
 * Longer than most files because every wire concern of a Timeline call (media type, pace, which calls may be
 * repeated, status codes to typed errors) belongs together: split, the retry rules would drift from the calls
 * they guard.
 */
import {
  ConcurrencyError,
  HttpError,
  RequestTimeoutError,
  ResponseTooLargeError,
  redactSecrets,
  redactUrl,
  redactUserInfo,
  TimelineSheetsError,
  type ErrorCode,
} from '../errors.ts'
import { createPace, type Pace, type PaceOptions } from '../http/pace.ts'
import { parseRetryAfter, retry, retryOptions, type RetryOptions, type RetryVerdict } from '../http/retry.ts'
import type { SignIn } from './auth/sign-in.ts'
import { ErrorBodySchema } from './schemas.ts'
import type { VendorIdentifiers } from './vendor.ts'

/**
 * How safe a call is to send again after a failure:
 * - `idempotent`: GET, and PUT/DELETE of activities — always;
 * - `unprocessed-only`: POST create — only when the failure proves the server
 *   did nothing (429, connection refused or timed out before sending).
 */
export type RepeatSafety = 'idempotent' | 'unprocessed-only'

/** One call to the Timeline API. */
export interface TimelineCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  url: string
  /** JSON body; sent with `Content-Type: <media type>`. */
  body?: unknown
  /** @default 'idempotent' for GET, PUT and DELETE; 'unprocessed-only' for POST */
  repeat?: RepeatSafety
  /** The permission a 403 means is missing, for the message (e.g. `Content editor`). */
  role?: string
  /** Set on activity writes: a 409/412 (or a 400 naming the last change) becomes a `ConcurrencyError`. */
  concurrency?: { timelineKey: string; expectedLastChangeId: string | undefined }
  /** What the call is about, for messages (e.g. `the Tags timeline of alice`). */
  subject?: string
  /**
   * A range read whose caller halves the range when the answer means "too
   * large" (`meansRangeTooLarge`): such answers are then not repeated here.
   */
  splittable?: boolean
}

/** A log line per attempt; URLs are redacted, secrets masked. */
export interface TimelineHttpLogEvent {
  method: string
  url: string
  attempt: number
  /** Absent when the call failed before an answer. */
  status?: number
  ms: number
  error?: string
}

export interface TimelineHttpOptions {
  signIn: SignIn
  vendor: VendorIdentifiers
  /** A shared lane, or options for a new one (concurrency, requests per interval). */
  pace?: Pace | Partial<PaceOptions>
  retry?: Partial<RetryOptions>
  log?: (event: TimelineHttpLogEvent) => void
}

export interface TimelineHttp {
  /** Sends the call; resolves with the parsed JSON of a 2xx answer, throws a typed error otherwise. */
  json(call: TimelineCall): Promise<unknown>
  readonly vendor: VendorIdentifiers
  readonly pace: Pace
}

const RETRY_STATUSES = new Set([429, 502, 503, 504])
/**
 * Answers to a range read that say the range was too much for the server
 * (decisions/0005-timeline-read-ranges.md): a refusal of the request as such
 * (400, 413, 422), a server that failed or gave up building it (500, 504).
 */
const RANGE_REFUSALS = new Set([400, 413, 422, 500, 504])
/** Errors that prove the request never left (nothing can have been processed). */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'])

const retryAfterOf = new WeakMap<object, number>()

/** Creates the Timeline HTTP layer over a sign-in. */
export function createTimelineHttp(options: TimelineHttpOptions): TimelineHttp {
  const { signIn, vendor, log } = options
  const pace = isPace(options.pace) ? options.pace : createPace(options.pace)
  const retrySettings = retryOptions(options.retry)
  const scrub = (text: string) => redactUserInfo(redactSecrets(text, signIn.secrets()))

  async function attempt(call: TimelineCall, attemptNo: number): Promise<unknown> {
    const started = Date.now()
    let response: Response
    try {
      response = await signIn.send(timelineRequest(call, vendor))
    } catch (error) {
      const wrapped = asNetworkError(call, error, scrub)
      log?.({ method: call.method, url: redactUrl(call.url), attempt: attemptNo, ms: Date.now() - started, error: wrapped.message })
      throw wrapped
    }
    log?.({ method: call.method, url: redactUrl(call.url), attempt: attemptNo, status: response.status, ms: Date.now() - started })
    if (response.status === 429) {
      const wait = parseRetryAfter(response.headers.get('retry-after'))
      if (wait !== undefined) pace.holdFor(wait)
    }
    return processTimelineResponse(call, response, scrub)
  }

  return {
    vendor,
    pace,
    json: (call) =>
      retry(
        (attemptNo) => pace.run(() => attempt(call, attemptNo)),
        (error) => classifyTimelineError(call, error),
        retrySettings,
      ),
  }
}

/** Builds the `Request` for a call: vendor `Accept`, and `Content-Type` with a body. */
export function timelineRequest(call: TimelineCall, vendor: VendorIdentifiers): Request {
  const headers = new Headers({ accept: vendor.mediaType })
  let body: string | undefined
  if (call.body !== undefined) {
    headers.set('content-type', vendor.mediaType)
    body = JSON.stringify(call.body)
  }
  return new Request(call.url, { method: call.method, headers, body })
}

/**
 * Reads an answer: the JSON of a 2xx, or the typed error its status means.
 * `scrub` masks secrets in anything taken from the body.
 */
export async function processTimelineResponse(
  call: TimelineCall,
  response: Response,
  scrub: (text: string) => string = (text) => text,
): Promise<unknown> {
  const text = await response.text()
  if (response.ok) {
    if (text.trim() === '') return undefined
    try {
      return JSON.parse(text)
    } catch (cause) {
      throw new TimelineSheetsError(
        'TS_RESPONSE_INVALID',
        `Unexpected response from ${redactUrl(call.url)}: (body) expected JSON, got ${describeText(text, scrub)}`,
        { cause, hint: 'Check that the configured server URL points at the Timeline API.' },
      )
    }
  }
  throw errorForStatus(call, response, text, scrub)
}

function errorForStatus(call: TimelineCall, response: Response, text: string, scrub: (t: string) => string): Error {
  const status = response.status
  const data = parseMaybeJson(text)
  const body = ErrorBodySchema.safeParse(data)
  const errorCode = body.success ? body.data.errorCode : undefined
  const serverMessage = scrub(
    (body.success ? (body.data.message ?? body.data.error_description ?? body.data.error) : undefined) ??
      (typeof data === 'string' ? data.slice(0, 300) : ''),
  ).trim()
  const where = `${call.method} ${redactUrl(call.url)}`
  const about = call.subject ? ` (${call.subject})` : ''
  const said = serverMessage ? `: ${serverMessage}` : ''
  const make = (code: ErrorCode, message: string, hint?: string) => {
    const error = new HttpError({ status, method: call.method, url: call.url, data, message, code }, { hint })
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'))
    if (retryAfter !== undefined) retryAfterOf.set(error, retryAfter)
    return error
  }

  if (call.concurrency && isConcurrencyRejection(status, errorCode, serverMessage)) {
    const { timelineKey, expectedLastChangeId } = call.concurrency
    return new ConcurrencyError(
      timelineKey,
      expectedLastChangeId,
      `${where}${about} was rejected because the timeline changed since it was read (expected last change ${expectedLastChangeId ?? 'none'})${said}`,
      make('TS_CONCURRENCY', `${where} answered ${status}${said}`),
    )
  }
  switch (status) {
    case 401:
      return make(
        'TS_AUTH_FAILED',
        `${where} answered 401 after signing in (${describeMode(response)})${said}`,
        'The credentials were accepted but the server refused the token. Check the account, then sign in again.',
      )
    case 403:
      return make(
        'TS_FORBIDDEN',
        `${where}${about} was refused (403)${said}${call.role ? `. This needs the ${call.role} permission` : ''}`,
        call.role
          ? `Give the transfer account the ${call.role} permission on the Timeline server.`
          : 'The transfer account lacks a permission on the Timeline server.',
      )
    case 404:
      return make('TS_NOT_FOUND', `${where}${about} was not found (404)${said}`, 'Check the timeline key or the entity id.')
  }
  if (status === 400 && errorCode?.startsWith('TimelineConstraint/')) {
    return make(
      'TS_TIMELINE_CONSTRAINT',
      `${where}${about} was refused by the timeline (${errorCode})${said}`,
      'Only Tags timelines accept activity writes.',
    )
  }
  if (status === 400 && errorCode === 'Validation') {
    return make('TS_VALIDATION', `${where}${about} was refused as invalid${said}`)
  }
  return make('TS_HTTP', `${where}${about} answered ${status}${said}`)
}

/**
 * 409 or 412 on a write, or a 400 whose body names the last change. Timeline API: the spec shows neither the
 * status nor the body of a refused `expectedLastChangeId` (timeline-api.md §7), so a 400 whose error code says
 * nothing is read by its message too.
 */
export function isConcurrencyRejection(status: number, errorCode: string | undefined, message: string): boolean {
  if (status === 409 || status === 412) return true
  if (status !== 400) return false
  return /concurrency|timestamp/i.test(errorCode ?? '') || /last ?change/i.test(message)
}

/**
 * True when a range read's failure means the range was too large: refused
 * (400, 413, 422), failed or given up on by the server (500, 504), not
 * answered in time (first-byte, idle-body or whole-request timeout), or an
 * answer larger than the transport holds. Reading the halves is then the cure,
 * not repeating the same range; unless the service's time for timed-out requests in this run is spent.
 */
export function meansRangeTooLarge(error: unknown): boolean {
  if (error instanceof ResponseTooLargeError) return true
  // Once the run's time for timed-out requests is spent, the halves would only time out too.
  if (error instanceof RequestTimeoutError)
    return !error.budgetSpent && (error.limit === 'firstByte' || error.limit === 'idleBody' || error.limit === 'total')
  return error instanceof HttpError && RANGE_REFUSALS.has(error.status)
}

/** Which failures the call may be repeated after, honouring Retry-After. */
export function classifyTimelineError(call: TimelineCall, error: unknown): RetryVerdict {
  // Its caller reads the halves instead.
  if (call.splittable && meansRangeTooLarge(error)) return { retry: false }
  const repeat = call.repeat ?? (call.method === 'POST' ? 'unprocessed-only' : 'idempotent')
  if (error instanceof HttpError && RETRY_STATUSES.has(error.status)) {
    if (repeat === 'unprocessed-only' && error.status !== 429) return { retry: false }
    const retryAfterMs = retryAfterOf.get(error)
    return retryAfterMs === undefined
      ? { retry: true, reason: `${error.status}` }
      : { retry: true, reason: `${error.status}`, retryAfterMs }
  }
  // A timeout counts like a 503: the request may or may not have been processed.
  if (error instanceof RequestTimeoutError) {
    if (error.limit === 'deadline' || error.budgetSpent) return { retry: false }
    if (repeat === 'unprocessed-only' && !error.unsent) return { retry: false }
    return { retry: true, reason: `${error.limit} timeout` }
  }
  if (error instanceof TimelineSheetsError && error.code === 'TS_NETWORK') {
    const code = networkCode(error.cause)
    if (repeat === 'unprocessed-only' && !(code && NOT_SENT_CODES.has(code))) return { retry: false }
    return { retry: true, reason: code ?? 'network error' }
  }
  return { retry: false }
}

/** The `code` (ECONNREFUSED…) somewhere in an error's cause chain. */
export function networkCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (typeof current !== 'object') return undefined
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && code !== 'TS_NETWORK') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

function asNetworkError(call: TimelineCall, error: unknown, scrub: (t: string) => string): Error {
  // Sign-in failures are already typed and say what to do.
  if (error instanceof TimelineSheetsError) return error
  const code = networkCode(error)
  const detail = scrub(error instanceof Error ? error.message : String(error))
  return new TimelineSheetsError(
    'TS_NETWORK',
    `${call.method} ${redactUrl(call.url)} failed before an answer: ${detail}${code ? ` (${code})` : ''}`,
    { cause: error, hint: 'Check the server URL and that the Timeline server is reachable.' },
  )
}

function describeMode(response: Response): string {
  const challenge = response.headers.get('www-authenticate')
  return challenge ? `server asks for ${challenge.split(/[ ,]/)[0]}` : 'token refused'
}

function describeText(text: string, scrub: (t: string) => string): string {
  const start = scrub(text.trim().slice(0, 60))
  return start === '' ? 'an empty body' : JSON.stringify(start)
}

function parseMaybeJson(text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function isPace(value: unknown): value is Pace {
  return typeof value === 'object' && value !== null && typeof (value as Pace).run === 'function'
}
