/**
 * Each counterpart (reference Timeline server, Sheets API fake) is written once
 * as a Web-standard handler, `(request) => Promise<Response>`, and mounted two
 * ways: in msw for fast in-process tests, and on a loopback port for
 * end-to-end runs of the CLI as a subprocess.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { createGzip } from 'node:zlib'
import { http as mswHttp, type HttpHandler } from 'msw'

export type WebHandler = (request: Request) => Promise<Response>

/**
 * Header the loopback mount adds to every request: an id of the TCP
 * connection it came on. Connection-bound protocols (NTLM) key their
 * handshake state on it. msw requests never carry it.
 */
export const CONNECTION_HEADER = 'x-loopback-connection'

export interface LoopbackServer {
  /** Origin with a trailing slash, e.g. `http://127.0.0.1:41234/` */
  readonly url: string
  readonly port: number
  /** The node server, for tests that need socket-level control (dropped connections). */
  readonly server: http.Server
  close(): Promise<void>
}

export interface ServeOptions {
  port?: number
  host?: string
  /**
   * Called with the raw socket before the handler runs; return true to say the
   * request was taken over (for fault injection such as dropped connections).
   */
  intercept?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean
  /**
   * Whether a request's answer goes gzip-compressed, decided on its headers as a front end would. The
   * handler's response is compressed on its way out (`content-encoding: gzip`), so the handler stays the same
   * in msw. @default never
   */
  gzipAnswer?: (headers: http.IncomingHttpHeaders) => boolean
}

/** Serves a Web handler on a loopback port. Port 0 picks a free one. */
export async function serveOnLoopback(handler: WebHandler, options: ServeOptions = {}): Promise<LoopbackServer> {
  const host = options.host ?? '127.0.0.1'
  const connectionIds = new WeakMap<object, string>()
  let nextConnection = 1
  const server = http.createServer((req, res) => {
    let id = connectionIds.get(req.socket)
    if (id === undefined) {
      id = String(nextConnection++)
      connectionIds.set(req.socket, id)
    }
    req.headers[CONNECTION_HEADER] = id
    if (options.intercept?.(req, res)) return
    void respond(handler, req, res, host, options.gzipAnswer?.(req.headers) ?? false)
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://${host}:${port}/`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function respond(handler: WebHandler, req: http.IncomingMessage, res: http.ServerResponse, host: string, gzip: boolean) {
  try {
    const request = toWebRequest(req, host)
    const response = await handler(request)
    // A network error (`Response.error()`): the connection ends without an answer, as a dropped one does.
    if (response.type === 'error') {
      req.socket.destroy()
      return
    }
    res.statusCode = response.status
    if (response.statusText) res.statusMessage = response.statusText
    response.headers.forEach((value, name) => {
      if (name === 'set-cookie') return
      res.setHeader(name, value)
    })
    const cookies = response.headers.getSetCookie()
    if (cookies.length > 0) res.setHeader('set-cookie', cookies)
    if (response.body && gzip && !response.headers.has('content-encoding')) {
      res.setHeader('content-encoding', 'gzip')
      res.removeHeader('content-length')
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream)
        .pipe(createGzip())
        .pipe(res)
    } else if (response.body) {
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).pipe(res)
    } else {
      res.end()
    }
  } catch (error) {
    if (!res.headersSent) {
      res.statusCode = 500
      res.setHeader('content-type', 'text/plain')
    }
    res.end(`counterpart crashed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function toWebRequest(req: http.IncomingMessage, host: string): Request {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? host}`)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else headers.set(name, value)
  }
  const method = req.method ?? 'GET'
  const hasBody = method !== 'GET' && method !== 'HEAD'
  return new Request(url, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream) : undefined,
    // Required by undici when a stream is the body.
    duplex: hasBody ? 'half' : undefined,
  } as RequestInit)
}

/**
 * msw handler that sends every request under `baseUrl` to the Web handler.
 * `baseUrl` is an origin (and optional path prefix) such as `http://timeline.test/`.
 */
export function mswHandlerFor(baseUrl: string, handler: WebHandler): HttpHandler {
  const prefix = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`
  return mswHttp.all(`${prefix}*`, ({ request }) => handler(request))
}
