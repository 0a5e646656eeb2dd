/**
 * One error base for the whole tool. Every failure a user can meet is a
 * `TimelineSheetsError` with a stable `code`, a message that says what and
 * where, and a `hint` that says how to fix it. Secrets never go into either.
 */
export type ErrorCode =
  | 'TS_CONFIG_INVALID'
  | 'TS_CONFIG_NOT_FOUND'
  | 'TS_USAGE'
  | 'TS_HTTP'
  | 'TS_NETWORK'
  | 'TS_TIMEOUT'
  | 'TS_UNSAFE_REDIRECT'
  | 'TS_RESPONSE_INVALID'
  | 'TS_AUTH_FAILED'
  | 'TS_AUTH_REQUIRED'
  | 'TS_FORBIDDEN'
  | 'TS_NOT_FOUND'
  | 'TS_CONCURRENCY'
  | 'TS_TIMELINE_CONSTRAINT'
  | 'TS_VALIDATION'
  | 'TS_LINK_MISSING'
  | 'TS_UNSAFE_TOKEN_LINK'
  | 'TS_SHEETS_API'
  | 'TS_SHEET_LAYOUT'
  | 'TS_WORKBOOK'
  | 'TS_WORKBOOK_OPEN'
  | 'TS_STATE'
  | 'TS_FILE_ACCESS'
  | 'TS_DISK_FULL'
  | 'TS_LOCKED'
  | 'TS_GUARD'
  | 'TS_OUTSIDE_TARGET'
  | 'TS_TAGS_CHANGED'
  | 'TS_ABORTED'
  | 'TS_INTERNAL'

export interface ErrorDetails {
  hint?: string
  cause?: unknown
}

/**
 * An error a module throws to its own caller, which catches it and either acts on it (a control-flow signal:
 * another attempt, another read) or turns it into a `TimelineSheetsError` that names the file or request. It
 * carries the code that conversion gives, so every error of the tool has a code from one union; one that
 * escapes unconverted is still reported as a bug (TS_INTERNAL), which is what it is.
 */
export abstract class InternalError extends Error {
  abstract readonly code: ErrorCode
  /** Where it is caught and converted, for the reader of the class. */
  abstract readonly convertedBy: string
}

export class TimelineSheetsError extends Error {
  readonly code: ErrorCode
  readonly hint: string | undefined

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = new.target.name
    this.code = code
    this.hint = details.hint
  }
}

/** What a failure that is a bug of the tool tells the user to do. */
export const BUG_HINT = 'This is a bug in timeline-sheets. Run again with --verbose and report the output (it contains no secrets).'

/** A state the code itself rules out was reached: a bug, coded `TS_INTERNAL` with the bug hint; the message says what and where. */
export function bugError(message: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_INTERNAL', message, { hint: BUG_HINT })
}

/** A non-2xx answer from one of the two services, with what a user needs to act on it. */
export class HttpError extends TimelineSheetsError {
  readonly status: number
  readonly method: string
  readonly url: string
  /** Parsed body (JSON when it was JSON, else text), for callers that read error codes. */
  readonly data: unknown

  constructor(
    init: { status: number; method: string; url: string; data: unknown; message?: string; code?: ErrorCode },
    details: ErrorDetails = {},
  ) {
    super(init.code ?? 'TS_HTTP', init.message ?? `${init.method} ${redactUrl(init.url)} answered ${init.status}`, details)
    this.status = init.status
    this.method = init.method
    this.url = redactUrl(init.url)
    this.data = init.data
  }
}

/** The server refused a write because the timeline changed since our last response. */
export class ConcurrencyError extends TimelineSheetsError {
  readonly timelineKey: string
  readonly expectedLastChangeId: string | undefined

  constructor(timelineKey: string, expectedLastChangeId: string | undefined, message: string, cause?: unknown) {
    super('TS_CONCURRENCY', message, {
      hint: 'Another writer changed this timeline. Re-read it and decide again.',
      cause,
    })
    this.timelineKey = timelineKey
    this.expectedLastChangeId = expectedLastChangeId
  }
}

/** A response that does not have the shape we rely on; names the field and the URL. */
export class ResponseShapeError extends TimelineSheetsError {
  readonly url: string
  readonly field: string

  constructor(url: string, field: string, problem: string) {
    super('TS_RESPONSE_INVALID', `Unexpected response from ${redactUrl(url)}: ${field} ${problem}`, {
      hint: 'The server answered with a shape this version of timeline-sheets does not understand. Check the server version and the vendor setting.',
    })
    this.url = redactUrl(url)
    this.field = field
  }
}

/** An answer larger than the transport will hold (`maxResponseBytes`); a range read halves its range on it. */
export class ResponseTooLargeError extends TimelineSheetsError {
  readonly url: string
  readonly maxBytes: number

  constructor(method: string, url: string, maxBytes: number) {
    super('TS_RESPONSE_INVALID', `${method} ${redactUrl(url)}: the answer is larger than ${describeBytes(maxBytes)}; refused`, {
      hint: 'Check the server URL in the config: no answer of this service is that large.',
    })
    this.url = redactUrl(url)
    this.maxBytes = maxBytes
  }
}

function describeBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.ceil(bytes / 1024)} KB`
}

/** Which limit ended a request: the four per-request timeouts, or the run's deadline. */
export type TimeoutLimit = 'connect' | 'firstByte' | 'idleBody' | 'total' | 'deadline'

const TIMEOUT_WORDS: Record<TimeoutLimit, { what: (duration: string) => string; label: string }> = {
  connect: { what: (d) => `could not connect within ${d}`, label: 'connect timeout' },
  firstByte: { what: (d) => `no answer within ${d}`, label: 'first-byte timeout' },
  idleBody: { what: (d) => `the answer stopped arriving: nothing for ${d}`, label: 'idle-body timeout' },
  total: { what: (d) => `not finished within ${d}`, label: 'whole-request timeout' },
  deadline: { what: (d) => `stopped at the run's deadline, ${d} after the run started`, label: 'deadline' },
}

const DEADLINE_HINT =
  'Run again: the next run resumes where this one stopped. To allow runs more time, give a longer --deadline or raise timeouts.runMs in the config.'

/**
 * A request ended by one of its timeouts or by the run's deadline. The
 * message names the URL (redacted), the limit and the config setting that
 * sets it; nothing is lost, so it ends the run with "run again" (exit 1).
 */
export class RequestTimeoutError extends TimelineSheetsError {
  readonly limit: TimeoutLimit
  readonly method: string
  readonly url: string
  readonly ms: number
  /** True when no connection was made: the request provably never reached the server, so even a create may be repeated. */
  readonly unsent: boolean
  /** True when its service's time for timed-out requests in this run is spent: the failure is final, not repeated nor split. */
  readonly budgetSpent: boolean
  private readonly init: RequestTimeoutInit

  constructor(init: RequestTimeoutInit) {
    const words = TIMEOUT_WORDS[init.limit]
    const why = init.limit === 'deadline' ? init.setting : `${words.label}, ${init.setting}`
    const service = init.service ? `${init.service}: ` : ''
    const tried = init.attempts === undefined ? '' : init.attempts === 1 ? '; tried once' : `; tried ${init.attempts} times`
    const spent = init.budgetSpent ? `; not tried again: ${init.budgetSpent}` : ''
    super(
      'TS_TIMEOUT',
      `${service}${init.method} ${redactUrl(init.url)}: ${words.what(formatDuration(init.ms))} (${why})${tried}${spent}`,
      {
        hint:
          init.limit === 'deadline'
            ? DEADLINE_HINT
            : `Run again: the next run resumes where this one stopped. If the server is slow rather than stuck, raise ${init.setting}${init.budgetSpent ? ' and timeouts.retryBudgetMs' : ''} in the config.`,
      },
    )
    this.init = init
    this.limit = init.limit
    this.method = init.method
    this.url = redactUrl(init.url)
    this.ms = init.ms
    this.unsent = init.limit === 'connect'
    this.budgetSpent = init.budgetSpent !== undefined
  }

  /** The same timeout as a call's final failure: how often the call was tried, and why it was not tried again. */
  afterAttempts(attempts: number, budgetSpent?: string): RequestTimeoutError {
    return new RequestTimeoutError({ ...this.init, attempts, ...(budgetSpent === undefined ? {} : { budgetSpent }) })
  }
}

export interface RequestTimeoutInit {
  limit: TimeoutLimit
  method: string
  url: string
  ms: number
  setting: string
  /** The service the request went to, for the message: `Timeline service`, `Google Sheets`. */
  service?: string
  /** How often the call was tried, once it is final. */
  attempts?: number
  /** Why the call was not tried again although a repeat could have helped: its service's time for timed-out requests is spent. */
  budgetSpent?: string
}

/**
 * A request not sent at all: its service's requests timed out for as long as the run allows
 * (`timeouts.retryBudgetMs`), so the run ends instead of waiting for more of them.
 */
export class TimeoutBudgetError extends TimelineSheetsError {
  readonly method: string
  readonly url: string
  /** Never sent: nothing can have been processed. */
  readonly unsent = true

  constructor(init: { service: string; method: string; url: string; spent: string; last: string | undefined }) {
    super(
      'TS_TIMEOUT',
      `${init.service}: ${init.method} ${redactUrl(init.url)} was not sent: ${init.spent}${init.last ? `; the last: ${init.last}` : ''}`,
      {
        hint: 'Run again later: the service did not answer in time. If it is slow rather than stuck, raise timeouts.retryBudgetMs and the limit that fired in the config.',
      },
    )
    this.method = init.method
    this.url = redactUrl(init.url)
  }
}

/** The error a run ends with when its deadline passes between requests (while waiting to repeat one). */
export function deadlinePassed(setting: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_TIMEOUT', `The run's deadline passed (${setting}) while it waited to repeat a request`, {
    hint: DEADLINE_HINT,
  })
}

/** `800 ms`, `30 s`, `1.5 s`, `2 min`, `1 h 30 min`: a duration as people read it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`
  if (ms < 3_600_000) return `${Math.round(ms / 6_000) / 10} min`
  const hours = Math.floor(ms / 3_600_000)
  const minutes = Math.round((ms - hours * 3_600_000) / 60_000)
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`
}

const SECRET_QUERY_KEYS = /^(access_token|token|code|password|client_secret|refresh_token|assertion|key|state)$/i

/** Removes credentials from a URL before it reaches a message or a log. */
export function redactUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return raw
  }
  if (url.username || url.password) {
    url.username = url.username ? '***' : ''
    url.password = url.password ? '***' : ''
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_QUERY_KEYS.test(key)) url.searchParams.set(key, '***')
  }
  return url.toString()
}

/**
 * Masks the user name and password of every URL in a text
 * (`http://user:secret@host/` → `http://***@host/`). The last line of defence
 * for anything printed: config refuses such URLs, but a server may send one.
 */
export function redactUserInfo(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*(?:@[^\s/?#@]*)*@/gi, '$1***@')
}

/** Masks every occurrence of the given secrets in a text (tokens, passwords, client secrets). */
export function redactSecrets(text: string, secrets: Iterable<string | undefined>): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***')
  }
  return out
}

export function isTimelineSheetsError(error: unknown): error is TimelineSheetsError {
  return error instanceof TimelineSheetsError
}
