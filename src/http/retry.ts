/**
 * The one retry policy of the tool. Both service adapters (Timeline, Google
 * Sheets) wrap their calls in `retry()`; they differ only in how they classify
 * an outcome (`RetryVerdict`). Option names follow ky's.
 */
import { setTimeout as sleepFor } from 'node:timers/promises'
import { TimelineSheetsError } from '../errors.ts'
import { checkOptions } from '../core/options.ts'
import type { RequestWatch } from './watch.ts'

export interface RetryOptions {
  /** How many times a call is repeated after the first attempt. @default 5 */
  limit: number
  /** First back-off delay in milliseconds, doubled per attempt. @default 500 */
  baseDelay: number
  /** Largest delay in milliseconds, Retry-After included. @default 60_000 */
  backoffLimit: number
  /** Adds up to this share of random delay, so parallel clients do not retry in step. @default 0.25 */
  jitter: number
  /** Injected in tests. */
  sleep?: (ms: number) => Promise<void>
  /** Injected in tests. */
  random?: () => number
  /** Told about each retry before it waits (for progress and logs). */
  onRetry?: (event: RetryEvent) => void
  /**
   * The run's deadline: once aborted, no retry is started and a wait is cut
   * short; the call ends with the signal's reason (the last error as cause).
   */
  signal?: AbortSignal
  /**
   * The service's watch (src/http/watch.ts): once the run's time for its timed-out requests is spent, a failure
   * is not repeated; and the failure a call ends with says how often it was tried.
   */
  watch?: Pick<RequestWatch, 'spent' | 'final'>
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number
  /** Attempts the call may make in all (the first and `limit` repeats). */
  attempts: number
  delayMs: number
  reason: string
  /** What the attempt failed with, for saying what failed. */
  error: unknown
}

export type RetryVerdict =
  | { retry: false }
  | {
      retry: true
      reason: string
      /** Server-given wait (Retry-After, quota window); wins over back-off when larger. */
      retryAfterMs?: number
    }

export const DEFAULT_RETRY: RetryOptions = {
  limit: 5,
  baseDelay: 500,
  backoffLimit: 60_000,
  jitter: 0.25,
}

export function retryOptions(partial: Partial<RetryOptions> = {}): RetryOptions {
  const options = { ...DEFAULT_RETRY, ...partial }
  checkOptions(options, ['limit', 'baseDelay', 'backoffLimit', 'jitter'], 'a finite number >= 0')
  return options
}

/** Delay before retry number `attempt` (1-based), without the server's Retry-After. */
export function backoffDelay(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const exponential = Math.min(options.backoffLimit, options.baseDelay * 2 ** (attempt - 1))
  return Math.min(options.backoffLimit, Math.round(exponential * (1 + options.jitter * random())))
}

/** Parses a Retry-After header (seconds or HTTP date) into milliseconds from now. */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!header) return undefined
  const trimmed = header.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

/**
 * Runs `operation` until it succeeds, `classify` says the outcome is final, the
 * limit is reached or the watch's budget is spent. The last error is rethrown as
 * the watch's `final` makes it (a timeout then says how often it was tried),
 * otherwise unchanged.
 */
export async function retry<T>(
  operation: (attempt: number) => Promise<T>,
  classify: (error: unknown) => RetryVerdict,
  options: RetryOptions = DEFAULT_RETRY,
): Promise<T> {
  const { signal } = options
  const sleep =
    options.sleep ??
    ((ms: number) =>
      sleepFor(ms, undefined, signal ? { signal } : {}).then(
        () => undefined,
        () => undefined,
      ))
  const random = options.random ?? Math.random
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt)
    } catch (error) {
      const verdict = classify(error)
      if (!verdict.retry || attempt > options.limit || options.watch?.spent) {
        throw options.watch ? options.watch.final(error, attempt) : error
      }
      if (signal?.aborted) throw stoppedBy(signal, error)
      const backoff = backoffDelay(attempt, options, random)
      const delayMs = Math.min(
        options.backoffLimit,
        verdict.retryAfterMs === undefined
          ? backoff
          : Math.max(verdict.retryAfterMs + Math.round(options.baseDelay * options.jitter * random()), backoff / 2),
      )
      options.onRetry?.({ attempt, attempts: options.limit + 1, delayMs, reason: verdict.reason, error })
      await sleep(delayMs)
      if (signal?.aborted) throw stoppedBy(signal, error)
    }
  }
}

/** The error that ends a retry loop whose signal fired: its reason, saying what the last attempt met. */
function stoppedBy(signal: AbortSignal, lastError: unknown): unknown {
  const reason: unknown = signal.reason
  if (!(reason instanceof TimelineSheetsError)) return lastError
  const last = lastError instanceof Error ? lastError.message : String(lastError)
  return new TimelineSheetsError(reason.code, `${reason.message}; the last attempt had failed: ${last}`, {
    cause: lastError,
    ...(reason.hint === undefined ? {} : { hint: reason.hint }),
  })
}
