/**
 * What a run lets one service cost it in requests that time out, and what it says while they are outstanding.
 *
 * - Budget: every attempt that ends in a timeout (not the deadline) spends the time it took from the service's
 *   budget (`timeouts.retryBudgetMs`). Once the budget is spent, a timed-out call is not tried again (nor a range
 *   read split), and a new request to the service is not sent: a service that does not answer ends the run in
 *   bounded time, whatever the per-request limits and the number of requests the run still had to make.
 * - Progress: while a request is outstanding, a line says what the run waits for, at least every 30 s, so a
 *   quiet run is not taken for a hung one.
 *
 * Each service has its own watch: a hung Timeline server does not end a run's Google requests, nor the reverse.
 * The transport begins and ends requests on it; the retry loop asks it whether a repeat is still allowed.
 */
import { formatDuration, RequestTimeoutError, redactUrl, TimeoutBudgetError, TimelineSheetsError } from '../errors.ts'

/** A line for the person or scheduler watching the run. */
export interface WatchLine {
  text: string
  fields: Record<string, unknown>
}

export interface RequestWatchOptions {
  /** The service as messages name it: `Timeline service`, `Google Sheets`. */
  service: string
  /** The service's key in log fields: `timeline`, `google`. */
  key: string
  /** Time the run may spend in requests to this service that time out. */
  budgetMs: number
  /** The setting that sets `budgetMs`, for messages. @default 'timeouts.retryBudgetMs' */
  budgetSetting?: string
  /** Told while requests are outstanding. */
  say?: (line: WatchLine) => void
  /**
   * How often the outstanding requests are looked at; a line is said when the oldest has waited at least half
   * of this since it began or since the last line, so no request waits silently longer than 1.5 times this.
   * @default 20_000
   */
  progressEveryMs?: number
  /** @default Date.now */
  now?: () => number
  /** Told of every request as it ends, each timeout and each wait for a quota (the metrics' figures). */
  tally?: RequestTally
}

/** How a request ended, as the metrics count it: the answer's status class (a 429 apart), a timeout, or no answer. */
export type RequestAnswer = '1xx' | '2xx' | '3xx' | '4xx' | '429' | '5xx' | 'timeout' | 'error'

/**
 * Counts what a service's requests came to, for `sync --watch --listen` and `--metrics-file`. The watch is told of
 * every request by the transport anyway, so the counts are made here once rather than in each adapter.
 */
export interface RequestTally {
  request(method: string, answer: RequestAnswer): void
  /** A request passed one of its limits (`connect`, `firstByte`, `idleBody`, `total`, `deadline`). */
  timeout(limit: string): void
  /** The run waited for a quota: a 429 to be tried again after, or a pace that held requests back. */
  quotaWait(): void
}

/** One request as the transport reports it to the watch. */
export interface WatchedRequest {
  /**
   * The request ended: with the timeout that ended it, or without one (an answer, with its status, or another
   * failure).
   */
  end(timeout?: RequestTimeoutError, status?: number): void
}

export interface RequestWatch {
  readonly service: string
  /** True once the budget is spent: no repeat after a failure, no new request. */
  readonly spent: boolean
  /** The error a new request to the service meets instead of being sent, once the budget is spent. */
  refusal(method: string, url: string): TimeoutBudgetError | undefined
  /** A request starts; the transport ends it exactly once. */
  begin(method: string, url: string, limits: string): WatchedRequest
  /** A call's last failure as it ends the call: a timeout says how often the call was tried and why not again. */
  final(error: unknown, attempts: number): unknown
  /** The run waits for the service's quota (a 429 answer, a pace's hold): counted, nothing else. */
  quotaWait(): void
}

interface Outstanding {
  method: string
  url: string
  limits: string
  started: number
}

/** A watch for one service of one run. */
export function createRequestWatch(options: RequestWatchOptions): RequestWatch {
  const now = options.now ?? Date.now
  const every = options.progressEveryMs ?? 20_000
  const setting = options.budgetSetting ?? 'timeouts.retryBudgetMs'
  const outstanding = new Set<Outstanding>()
  let timedOutMs = 0
  let timeouts = 0
  let last: RequestTimeoutError | undefined
  let lastSaid = 0
  let timer: NodeJS.Timeout | undefined

  const spentText = () =>
    `${timeouts === 1 ? 'a request' : `${timeouts} requests`} to it timed out, ${formatDuration(timedOutMs)} of the ${formatDuration(options.budgetMs)} a run allows (${setting})`

  const look = () => {
    if (outstanding.size === 0 || !options.say) return
    const oldest = [...outstanding].reduce((a, b) => (a.started <= b.started ? a : b))
    const waited = now() - oldest.started
    if (now() - Math.max(lastSaid, oldest.started) < every / 2) return
    lastSaid = now()
    const others = outstanding.size - 1
    options.say({
      text: `${options.service}: still waiting for ${oldest.method} ${redactUrl(oldest.url)}, ${formatDuration(waited)} so far (${oldest.limits})${others > 0 ? `; ${others} more ${others === 1 ? 'request' : 'requests'} outstanding` : ''}`,
      fields: { service: options.key, waitedMs: waited, outstanding: outstanding.size },
    })
  }

  return {
    service: options.service,
    get spent() {
      return timedOutMs >= options.budgetMs
    },
    refusal(method, url) {
      if (timedOutMs < options.budgetMs) return undefined
      return new TimeoutBudgetError({ service: options.service, method, url, spent: spentText(), last: last?.message })
    },
    begin(method, url, limits) {
      const entry: Outstanding = { method, url, limits, started: now() }
      outstanding.add(entry)
      if (!timer && options.say) {
        timer = setInterval(look, every)
        // The watch must not keep a finished run alive.
        timer.unref()
      }
      let ended = false
      return {
        end(timeout, status) {
          if (ended) return
          ended = true
          options.tally?.request(method, timeout ? 'timeout' : answerOf(status))
          if (timeout) options.tally?.timeout(timeout.limit)
          outstanding.delete(entry)
          if (outstanding.size === 0 && timer) {
            clearInterval(timer)
            timer = undefined
          }
          if (timeout && timeout.limit !== 'deadline') {
            timedOutMs += now() - entry.started
            timeouts++
            last = timeout
          }
        },
      }
    },
    quotaWait() {
      options.tally?.quotaWait()
    },
    final(error, attempts) {
      const timeout = ownTimeout(error)
      if (!timeout || timeout.limit === 'deadline') return error
      return timeout.afterAttempts(attempts, timedOutMs >= options.budgetMs ? spentText() : undefined)
    },
  }
}

function answerOf(status: number | undefined): RequestAnswer {
  if (status === undefined) return 'error'
  if (status === 429) return '429'
  if (status >= 500) return '5xx'
  if (status >= 400) return '4xx'
  if (status >= 300) return '3xx'
  return status >= 200 ? '2xx' : '1xx'
}

/** The transport's timeout a library error wraps (gaxios puts it in `cause`), or the error itself. */
function ownTimeout(error: unknown): RequestTimeoutError | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (current instanceof RequestTimeoutError) return current
    // One of ours that says something else (the deadline's end, say) and keeps the timeout only as its cause.
    if (current instanceof TimelineSheetsError) return undefined
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
