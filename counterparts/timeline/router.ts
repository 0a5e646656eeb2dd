/**
 * Routes of the reference Timeline server as data, in the manner of msw's
 * request handlers: each route is a method, a path pattern and a function, and
 * a request goes to the first route in the table whose method and path match.
 * A table is a plain array, so a test puts its own route in front of the
 * built-in ones and leaves every other request to them. A path that some route
 * matches under another method answers 405 with those methods in `Allow`; a
 * path no route matches answers 404.
 */
import { methodNotAllowed, notFound } from './responses.ts'
import type { TimelineStore, UserRecord } from './store.ts'

/** What a route's function gets: the request, who sent it and where the API lives. */
export interface RouteContext {
  readonly request: Request
  readonly url: URL
  readonly store: TimelineStore
  /** `{origin}{basePath}api`, the base of every link in an answer. */
  readonly apiUrl: string
  /** The signed-in caller: routes run after authentication. */
  readonly user: UserRecord
  /** The segments the path's `:name` parts took, percent-decoded, in the caller's case. */
  readonly params: Readonly<Record<string, string>>
}

export type RouteHandler = (context: RouteContext) => Response | Promise<Response>

export interface Route {
  /** An HTTP method (any case), or `'*'` for every method. */
  readonly method: string
  /**
   * Path below the handler's base path, `/`-separated; `/` is the base path
   * itself. A literal segment matches case-insensitively after
   * percent-decoding; `:name` takes any one segment into `params.name`.
   * Empty segments (`//`, a trailing `/`) are ignored on both sides.
   */
  readonly path: string
  /**
   * Conditions on what `:name` parts took. When one is false the path does not
   * match this route at all, so the request answers 404 rather than 405.
   */
  readonly where?: Readonly<Record<string, (value: string) => boolean>>
  readonly handle: RouteHandler
}

type Segment = { literal: string } | { param: string }

interface CompiledRoute {
  route: Route
  method: string
  segments: Segment[]
}

/** The answer to a signed-in request, from the first matching route of `routes`. */
export type Router = (context: Omit<RouteContext, 'params'>, basePath: string) => Promise<Response>

export function createRouter(routes: readonly Route[]): Router {
  const compiled = routes.map(compile)
  return async (context, basePath) => {
    const { request, url, store } = context
    if (!url.pathname.startsWith(basePath)) return notFound(store, url)
    const segments = url.pathname
      .slice(basePath.length)
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => safeDecode(segment))
    const method = request.method.toUpperCase()
    const allowed: string[] = []
    for (const entry of compiled) {
      const params = matchPath(entry, segments)
      if (params === undefined) continue
      if (entry.method === '*' || entry.method === method) return entry.route.handle({ ...context, params })
      if (!allowed.includes(entry.method)) allowed.push(entry.method)
    }
    return allowed.length > 0 ? methodNotAllowed(store, allowed) : notFound(store, url)
  }
}

function compile(route: Route): CompiledRoute {
  const segments = route.path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment): Segment => (segment.startsWith(':') ? { param: segment.slice(1) } : { literal: segment.toLowerCase() }))
  return { route, method: route.method.toUpperCase(), segments }
}

function matchPath(entry: CompiledRoute, segments: string[]): Record<string, string> | undefined {
  if (segments.length !== entry.segments.length) return undefined
  const params: Record<string, string> = {}
  for (const [index, pattern] of entry.segments.entries()) {
    const segment = segments[index]!
    if ('literal' in pattern) {
      if (segment.toLowerCase() !== pattern.literal) return undefined
    } else {
      const accept = entry.route.where?.[pattern.param]
      if (accept && !accept(segment)) return undefined
      params[pattern.param] = segment
    }
  }
  return params
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    // A malformed escape cannot name anything here; keep it raw so it falls through to 404.
    return segment
  }
}
