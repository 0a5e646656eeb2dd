/**
 * Fault injection for the reference Timeline server: latency, 429 with
 * Retry-After, 500/503, dropped connections, and "concurrent writers" that
 * change a timeline through the store between two client calls. Shares are
 * drawn from a seeded PRNG so a run repeats exactly. Change settings at
 * runtime with `set`/`clear`/`addConcurrentWriter`.
 */
import type http from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { CONNECTION_HEADER } from '../mount.ts'
import { createRandom, type TimelineStore } from './store.ts'

/** Which requests a fault applies to. Omitted fields match everything. */
export interface RequestMatch {
  /** `GET`, `POST`… or a list of them. */
  method?: string | string[]
  /** Substring or pattern of the URL path. */
  path?: string | RegExp
  /** Only POST, PUT and DELETE. */
  writesOnly?: boolean
}

/** Fires for the next `next` matching requests, or for a `share` (0..1) of them. */
export interface FaultTrigger {
  next?: number
  share?: number
  match?: RequestMatch
}

export interface FaultSettings {
  /** Delay before every answer, in ms. @default 0 */
  latencyMs?: number
  /** 429 with `Retry-After: retryAfterSeconds` (default 1). */
  rateLimit?: FaultTrigger & { retryAfterSeconds?: number }
  /** 500 or 503 (default 503; 503 also carries Retry-After when given). */
  serverError?: FaultTrigger & { status?: 500 | 503; retryAfterSeconds?: number }
  /** The connection is closed without an answer (loopback: socket destroyed; msw: network error). */
  drop?: FaultTrigger
}

/** A change made "by someone else" right before a matching request is handled. */
export interface ConcurrentWriter {
  /** Which request to run before. @default any request */
  before?: RequestMatch
  /** Run before the nth matching request (1-based). @default 1 */
  nth?: number
  run(store: TimelineStore): void | Promise<void>
}

export interface FaultCounts {
  requests: number
  delayed: number
  rateLimited: number
  serverErrors: number
  dropped: number
  concurrentWrites: number
}

export type FaultInjector = ReturnType<typeof createFaultInjector>

type Decision = { kind: 'drop' } | { kind: 'respond'; response: Response } | { kind: 'pass' }

/** Creates a fault injector; pass it as the handler's `faults` option (and the mount's `intercept`). */
export function createFaultInjector(initial: FaultSettings = {}, options: { seed?: number } = {}) {
  const random = createRandom(options.seed ?? 7)
  let settings: FaultSettings = structuredCloneSettings(initial)
  let writers: Array<ConcurrentWriter & { seen: number }> = []
  const counts: FaultCounts = { requests: 0, delayed: 0, rateLimited: 0, serverErrors: 0, dropped: 0, concurrentWrites: 0 }

  function fires(trigger: FaultTrigger | undefined, method: string, path: string): boolean {
    if (!trigger || !matches(trigger.match, method, path)) return false
    if (trigger.next !== undefined) {
      if (trigger.next <= 0) return false
      trigger.next -= 1
      return true
    }
    return trigger.share !== undefined && random() < trigger.share
  }

  function decideDrop(method: string, path: string): boolean {
    if (!fires(settings.drop, method, path)) return false
    counts.dropped++
    return true
  }

  const injector = {
    /** Merges settings; a key set to undefined removes that fault. */
    set(next: FaultSettings): void {
      settings = { ...settings, ...structuredCloneSettings(next) }
    },
    /** Removes every fault and pending concurrent writer. */
    clear(): void {
      settings = {}
      writers = []
    },
    settings(): FaultSettings {
      return structuredCloneSettings(settings)
    },
    /** Queues a change by "another writer", run right before a matching request. */
    addConcurrentWriter(writer: ConcurrentWriter): void {
      writers.push({ ...writer, seen: 0 })
    },
    /** Writers not yet run. */
    pendingWriters(): number {
      return writers.length
    },
    counts(): FaultCounts {
      return { ...counts }
    },
    /**
     * For `serveOnLoopback({ intercept })`: destroys the socket of a request
     * the drop fault picks. Requests that pass go on to the handler.
     */
    intercept(req: http.IncomingMessage, _res: http.ServerResponse): boolean {
      const path = new URL(req.url ?? '/', 'http://loopback').pathname
      if (!decideDrop(req.method ?? 'GET', path)) return false
      req.socket.destroy()
      return true
    },
    /** Runs in the handler before routing: concurrent writers, latency, then the faults that answer. */
    async before(request: Request, store: TimelineStore): Promise<Decision> {
      counts.requests++
      const method = request.method.toUpperCase()
      const path = new URL(request.url).pathname
      for (const writer of [...writers]) {
        if (!matches(writer.before, method, path)) continue
        writer.seen += 1
        if (writer.seen >= (writer.nth ?? 1)) {
          writers = writers.filter((w) => w !== writer)
          counts.concurrentWrites++
          await writer.run(store)
        }
      }
      if (settings.latencyMs) {
        counts.delayed++
        await sleep(settings.latencyMs)
      }
      // Loopback requests had their drop decided in `intercept`; only msw ones are decided here.
      if (!request.headers.has(CONNECTION_HEADER) && decideDrop(method, path)) return { kind: 'drop' }
      const rateLimit = settings.rateLimit
      if (fires(rateLimit, method, path)) {
        counts.rateLimited++
        const seconds = rateLimit?.retryAfterSeconds ?? 1
        return {
          kind: 'respond',
          response: faultResponse(store, 429, 'RateLimited', `Too many requests; retry after ${seconds} s.`, {
            'retry-after': String(seconds),
          }),
        }
      }
      const serverError = settings.serverError
      if (fires(serverError, method, path)) {
        counts.serverErrors++
        const status = serverError?.status ?? 503
        const headers: Record<string, string> =
          serverError?.retryAfterSeconds === undefined ? {} : { 'retry-after': String(serverError.retryAfterSeconds) }
        return {
          kind: 'respond',
          response: faultResponse(store, status, status === 503 ? 'ServiceUnavailable' : 'InternalError', 'Injected fault.', headers),
        }
      }
      return { kind: 'pass' }
    },
  }
  return injector
}

/** True when the request matches (an omitted match matches everything). */
export function matches(match: RequestMatch | undefined, method: string, path: string): boolean {
  if (!match) return true
  const upper = method.toUpperCase()
  if (match.writesOnly && !['POST', 'PUT', 'DELETE'].includes(upper)) return false
  if (match.method !== undefined) {
    const methods = (Array.isArray(match.method) ? match.method : [match.method]).map((m) => m.toUpperCase())
    if (!methods.includes(upper)) return false
  }
  if (match.path !== undefined) {
    if (typeof match.path === 'string' ? !path.includes(match.path) : !match.path.test(path)) return false
  }
  return true
}

function faultResponse(
  store: TimelineStore,
  status: number,
  errorCode: string,
  message: string,
  headers: Record<string, string>,
): Response {
  return new Response(JSON.stringify({ errorCode, message }), {
    status,
    headers: { 'content-type': `${store.vendor.mediaType}; charset=utf-8`, ...headers },
  })
}

// Triggers count down in place, so keep the caller's objects untouched.
function structuredCloneSettings(settings: FaultSettings): FaultSettings {
  const copy: FaultSettings = { ...settings }
  if (settings.rateLimit) copy.rateLimit = { ...settings.rateLimit }
  if (settings.serverError) copy.serverError = { ...settings.serverError }
  if (settings.drop) copy.drop = { ...settings.drop }
  return copy
}
