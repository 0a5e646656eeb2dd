/**
 * The JSON answers every route of the reference Timeline server shares: a body
 * in the vendor's media type, the `{ errorCode, message }` error shape, and the
 * 404, 405 and 403 answers. Routes and the router build their responses here so
 * that an error looks the same whichever route gives it.
 */
import type { TimelineStore } from './store.ts'

export function json(store: TimelineStore, body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': `${store.vendor.mediaType}; charset=utf-8`, ...headers },
  })
}

export function errorResponse(store: TimelineStore, status: number, errorCode: string, message: string): Response {
  return json(store, { errorCode, message }, status)
}

export function notFound(store: TimelineStore, url: URL): Response {
  return errorResponse(store, 404, 'NotFound', `Nothing at ${url.pathname}.`)
}

export function methodNotAllowed(store: TimelineStore, allowed: string[]): Response {
  return json(store, { errorCode: 'MethodNotAllowed', message: `Allowed: ${allowed.join(', ')}.` }, 405, { allow: allowed.join(', ') })
}

export function forbidden(store: TimelineStore, message: string): Response {
  return errorResponse(store, 403, 'Forbidden', message)
}
