/**
 * The one way to the network for both services (the Timeline API and its
 * sign-ins, Google Sheets and Google's token endpoint): `fetch` with a
 * timeout on every phase of a request and one redirect policy.
 *
 * - Timeouts: connect, first byte (headers), idle body (the longest pause
 *   between two chunks) and the whole request, plus the run's deadline. A
 *   timeout is a `RequestTimeoutError` naming the service, the URL and the
 *   limit. Each request is reported to its service's watch (src/http/watch.ts),
 *   which counts the time lost to timeouts and says what the run waits for.
 * - Redirects: only GET and HEAD follow one, and only within the origin they
 *   were sent to (auth headers go along, as the request carried them). Any
 *   other redirect is refused with an error naming both origins: a request's
 *   credential (a token, a password in a form, an NTLM leg, an assertion)
 *   never reaches another origin, and a POST is never repeated elsewhere.
 *
 * `globalThis.fetch` is looked up on every call, so msw still intercepts
 * in-process tests; the undici dispatcher (for the connect timeout) is passed
 * along as a fetch option, which msw ignores.
 *
 * Longer than most files because the timeouts and the redirect policy wrap the same fetch call, and only read
 * together can one check that no phase is left without a limit.
 */
import type { Dispatcher } from 'undici'
import { undiciAgent } from './agent.ts'
import {
  deadlinePassed,
  formatDuration,
  redactUrl,
  RequestTimeoutError,
  ResponseTooLargeError,
  TimelineSheetsError,
  type TimeoutLimit,
} from '../errors.ts'
import { checkOptions } from '../core/options.ts'
import type { RequestWatch } from './watch.ts'

/** Per-request limits in milliseconds; the names are the config's (`timeouts.<name>`). */
export interface Timeouts {
  /** Setting up the TCP (and TLS) connection. @default 10_000 */
  connectMs: number
  /** From sending the request to the response headers. @default 30_000 */
  firstByteMs: number
  /** Longest pause between two chunks of the response body. @default 30_000 */
  idleBodyMs: number
  /** The whole request, redirects and body included. @default 120_000 */
  totalMs: number
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, firstByteMs: 30_000, idleBodyMs: 30_000, totalMs: 120_000 }

/** The time by which the whole run must end; every request after it fails at once. */
export interface Deadline {
  /** Epoch milliseconds. */
  readonly at: number
  /** Its length, for messages. */
  readonly ms: number
  /** How it was set, for messages: `--deadline 30m` or `timeouts.runMs`. */
  readonly setting: string
  /** Aborted when the deadline passes; its reason is the error to end with (retry waits listen to it). */
  readonly signal: AbortSignal
}

/** A deadline `ms` from now. */
export function createDeadline(ms: number, setting: string, now: () => number = Date.now): Deadline {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(deadlinePassed(setting)), ms)
  // The deadline must not keep a finished run alive.
  timer.unref()
  return { at: now() + ms, ms, setting, signal: controller.signal }
}

/** `fetch` for one request: resolves with the response (body guarded by the idle and whole-request limits). */
export type Transport = (request: Request) => Promise<Response>

/** Longer limits for some requests of a service (a Sheets write, which Google may work on for minutes), and the setting that sets them. */
export type LimitsFor = (request: Request) => { limits: Partial<Timeouts>; setting: string } | undefined

export interface TransportOptions {
  timeouts?: Partial<Timeouts>
  deadline?: Deadline
  /** The service's watch: its budget for timed-out requests and its progress lines. */
  watch?: RequestWatch
  /** Limits other than `timeouts` for the requests it picks. */
  limitsFor?: LimitsFor
  /**
   * The connection pool. @default an undici Agent with the connect timeout.
   * NTLM passes its single-connection Client (made with `dispatcherOptions`).
   */
  dispatcher?: Dispatcher
  /** Redirects followed within the origin before giving up. @default 5 */
  maxRedirects?: number
  /** Largest response body in bytes; a larger one is refused (a text that big cannot even be held). @default 500 MiB */
  maxResponseBytes?: number
  /** Injected in tests. @default globalThis.fetch, looked up at each call */
  fetch?: (request: Request, init: RequestInit) => Promise<Response>
  /** Clock for the deadline. @default Date.now */
  now?: () => number
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const DEFAULT_MAX_RESPONSE_BYTES = 500 * 1024 * 1024
const SETTING: Record<Exclude<TimeoutLimit, 'deadline'>, string> = {
  connect: 'timeouts.connectMs',
  firstByte: 'timeouts.firstByteMs',
  idleBody: 'timeouts.idleBodyMs',
  total: 'timeouts.totalMs',
}

/** Validates and completes a partial set of timeouts. */
export function resolveTimeouts(partial: Partial<Timeouts> = {}): Timeouts {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...partial }
  checkOptions(timeouts, Object.keys(timeouts) as (keyof Timeouts)[], 'a finite number > 0')
  return timeouts
}

/**
 * Options for an undici dispatcher used under the transport: the connect
 * timeout, and undici's own header and body timers off (the transport's
 * fire first and say which limit it was).
 */
export function dispatcherOptions(timeouts: Timeouts): { connect: { timeout: number }; headersTimeout: 0; bodyTimeout: 0 } {
  return { connect: { timeout: timeouts.connectMs }, headersTimeout: 0, bodyTimeout: 0 }
}

/** The services a run talks to, as watches and log fields name them. */
export type ServiceKey = 'timeline' | 'google'

/** What a service's adapters need to build their transport: the limits, the run's deadline and the service's watch. */
export interface NetworkSettings {
  timeouts?: Partial<Timeouts>
  deadline?: Deadline
  /** The watch of the service these settings are for (`forService`). */
  watch?: RequestWatch
  /** The run's watches, one a service; `forService` picks one as `watch`. */
  watches?: Partial<Record<ServiceKey, RequestWatch>>
}

/** The settings for one service's transports: the run's limits and deadline, with that service's watch. */
export function forService(network: NetworkSettings, service: ServiceKey): NetworkSettings {
  const { watches, watch: _chosen, ...rest } = network
  // Settings already for one service stay as they are.
  if (!watches) return network
  const watch = watches[service]
  return watch ? { ...rest, watch } : rest
}

/**
 * The transport as a `fetch(input, init)` for libraries that take one
 * (gaxios' `fetchImplementation`, openid-client's `customFetch`). The
 * library's own redirect setting is overridden: the transport's policy holds.
 */
export function asFetch(transport: Transport): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return (input, init) => {
    const body = init?.body
    const streamed = typeof body === 'object' && body !== null && (body instanceof ReadableStream || Symbol.asyncIterator in body)
    return transport(new Request(input, streamed ? ({ ...init, duplex: 'half' } as RequestInit) : init))
  }
}

/** Creates a transport; one per service is enough (it pools connections). */
export function createTransport(options: TransportOptions = {}): Transport {
  const timeouts = resolveTimeouts(options.timeouts)
  const maxRedirects = options.maxRedirects ?? 5
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  const now = options.now ?? Date.now
  const { deadline, watch } = options
  let dispatcher = options.dispatcher
  const doFetch = options.fetch ?? ((request: Request, init: RequestInit) => globalThis.fetch(request, init))

  return async function send(original: Request): Promise<Response> {
    const left = deadline ? deadline.at - now() : Number.POSITIVE_INFINITY
    const special = options.limitsFor?.(original)
    const limits: Timeouts = special ? { ...timeouts, ...special.limits } : timeouts
    const settingOf = (limit: Exclude<TimeoutLimit, 'deadline'>) =>
      special && special.limits[`${limit}Ms`] !== undefined ? special.setting : SETTING[limit]
    const timeoutError = (limit: TimeoutLimit, request: Request) =>
      new RequestTimeoutError({
        limit,
        method: request.method,
        url: request.url,
        ms: limit === 'deadline' ? deadline!.ms : limits[`${limit}Ms`],
        setting: limit === 'deadline' ? deadline!.setting : settingOf(limit),
        ...(watch ? { service: watch.service } : {}),
      })
    if (left <= 0) throw timeoutError('deadline', original)
    const refused = watch?.refusal(original.method, original.url)
    if (refused) throw refused
    const watched = watch?.begin(original.method, original.url, describeLimits(limits))

    let current = original
    const controller = new AbortController()
    let fired: RequestTimeoutError | undefined
    let rejectExpired: (error: Error) => void = () => undefined
    // Settles only when a limit fires; every wait below races against it.
    const expired = new Promise<never>((_, reject) => (rejectExpired = reject))
    expired.catch(() => undefined)
    const fire = (limit: TimeoutLimit) => {
      if (fired) return
      fired = timeoutError(limit, current)
      watched?.end(fired)
      controller.abort(fired)
      rejectExpired(fired)
    }
    const wholeLimit: TimeoutLimit = left < limits.totalMs ? 'deadline' : 'total'
    const wholeTimer = setTimeout(() => fire(wholeLimit), Math.min(left, limits.totalMs))
    // A response whose body nobody reads must not keep the process alive.
    wholeTimer.unref()
    // The status of the last answer, for the watch's tally (a redirect's is replaced by the answer it leads to).
    let status: number | undefined
    const finish = () => {
      clearTimeout(wholeTimer)
      watched?.end(undefined, status)
    }

    const headers = async (request: Request): Promise<Response> => {
      const timer = setTimeout(() => fire('firstByte'), limits.firstByteMs)
      try {
        dispatcher ??= new (undiciAgent())(dispatcherOptions(timeouts))
        const init = { redirect: 'manual', signal: AbortSignal.any([controller.signal, request.signal]), dispatcher }
        return await Promise.race([doFetch(request, init as RequestInit), expired])
      } catch (error) {
        if (fired) throw fired
        if (hasCode(error, 'UND_ERR_CONNECT_TIMEOUT')) {
          const timeout = timeoutError('connect', request)
          watched?.end(timeout)
          throw timeout
        }
        throw error
      } finally {
        clearTimeout(timer)
      }
    }

    try {
      for (let hops = 0; ; hops++) {
        const response = await headers(current)
        status = response.status
        const location = response.headers.get('location')
        if (!REDIRECT_STATUSES.has(response.status) || location === null) {
          return guardBody(response, current, { idleMs: limits.idleBodyMs, maxBytes, expired, fire, finish, fired: () => fired })
        }
        response.body?.cancel().catch(() => undefined)
        const target = redirectTarget(current, response.status, location)
        if (hops >= maxRedirects) {
          throw new TimelineSheetsError(
            'TS_UNSAFE_REDIRECT',
            `${current.method} ${redactUrl(original.url)} was redirected more than ${maxRedirects} times; not followed further`,
            {
              hint: 'Check the server URL in the config; a redirect loop usually means a misconfigured server or proxy.',
            },
          )
        }
        current = new Request(target, { method: current.method, headers: current.headers, signal: current.signal })
      }
    } catch (error) {
      finish()
      controller.abort()
      throw error
    }
  }
}

/** The limits a request waits under, for progress lines. */
function describeLimits(limits: Timeouts): string {
  return `answer within ${formatDuration(limits.firstByteMs)}, all of it within ${formatDuration(limits.totalMs)}`
}

/**
 * Where a redirect may go, or the error that refuses it: GET and HEAD within
 * their origin only. Nothing is sent to the other origin.
 */
export function redirectTarget(request: Request, status: number, location: string): string {
  const from = new URL(request.url)
  let to: URL
  try {
    to = new URL(location, from)
  } catch {
    throw new TimelineSheetsError(
      'TS_UNSAFE_REDIRECT',
      `${request.method} ${redactUrl(request.url)} answered ${status} with a Location that is not a URL; not followed`,
      {
        hint: 'Check the server URL in the config; a proxy or a wrong address may be answering.',
      },
    )
  }
  if (to.origin !== from.origin) {
    throw new TimelineSheetsError(
      'TS_UNSAFE_REDIRECT',
      `${request.method} ${redactUrl(request.url)} answered ${status}, a redirect from ${from.origin} to another origin, ${to.origin}; not followed, nothing was sent to ${to.origin}`,
      {
        hint: `Requests (and their credentials) only go where the config points. If the service moved to ${to.origin}, put that address in the config; otherwise a proxy or a wrong address may be answering.`,
      },
    )
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new TimelineSheetsError(
      'TS_UNSAFE_REDIRECT',
      `${request.method} ${redactUrl(request.url)} answered ${status}, a redirect to ${redactUrl(to.href)}; a ${request.method} is never redirected, so it was not sent again`,
      { hint: 'Check the server URL in the config (a missing or extra path part, http instead of https).' },
    )
  }
  if (to.username || to.password) {
    throw new TimelineSheetsError(
      'TS_UNSAFE_REDIRECT',
      `${request.method} ${redactUrl(request.url)} answered ${status}, a redirect to a URL with a user name or password; not followed`,
    )
  }
  return to.href
}

interface BodyGuard {
  idleMs: number
  maxBytes: number
  expired: Promise<never>
  fire: (limit: TimeoutLimit) => void
  finish: () => void
  fired: () => RequestTimeoutError | undefined
}

/**
 * The response with its body read through the idle and size limits; a body
 * that breaks off becomes a `TS_NETWORK` error naming the URL.
 */
function guardBody(response: Response, request: Request, guard: BodyGuard): Response {
  if (response.body === null) {
    guard.finish()
    return response
  }
  const reader = response.body.getReader()
  let received = 0
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(stream) {
        const idle = setTimeout(() => guard.fire('idleBody'), guard.idleMs)
        try {
          const chunk = await Promise.race([reader.read(), guard.expired])
          if (chunk.done) {
            guard.finish()
            stream.close()
            return
          }
          received += chunk.value.byteLength
          if (received > guard.maxBytes) {
            throw new ResponseTooLargeError(request.method, request.url, guard.maxBytes)
          }
          stream.enqueue(chunk.value)
        } catch (error) {
          guard.finish()
          reader.cancel().catch(() => undefined)
          stream.error(guard.fired() ?? bodyError(request, error))
        } finally {
          clearTimeout(idle)
        }
      },
      cancel(reason) {
        guard.finish()
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

function bodyError(request: Request, error: unknown): Error {
  if (error instanceof TimelineSheetsError) return error
  const code = causeCode(error)
  return new TimelineSheetsError(
    'TS_NETWORK',
    `${request.method} ${redactUrl(request.url)}: the connection broke while the answer was arriving${code ? ` (${code})` : ''}`,
    { cause: error, hint: 'Run again; if it keeps happening, check the network between here and the server.' },
  )
}

function hasCode(error: unknown, code: string): boolean {
  return causeCode(error) === code
}

/** The first `code` (ECONNRESET, UND_ERR_SOCKET…) in an error's cause chain. */
function causeCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}
