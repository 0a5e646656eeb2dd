/**
 * The listener of `sync --watch --listen HOST:PORT`: `GET /healthz` (200, or 503 with the late and failing
 * targets), `GET /livez` (200 while intervals keep ending, whatever they came to: a Kubernetes liveness probe that
 * does not restart a watch because Google is down) and `GET /metrics` (Prometheus' text format). Plain HTTP, no
 * request body read; it answers nothing else.
 */
import { createServer, type Server } from 'node:http'
import type { WatchHealth } from '../core/watch-health.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { RunMetrics } from './metrics.ts'

export interface Listener {
  /** `http://127.0.0.1:9464`, the port as bound (`:0` picks one). */
  readonly url: string
  close(): Promise<void>
}

export interface ListenAddress {
  host: string
  port: number
}

/** `127.0.0.1:9464`, `[::1]:9464`, `:9464` (every address). */
export function parseListen(text: string): ListenAddress {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim())
  const port = m ? Number(m[3]) : Number.NaN
  if (!m || port > 65_535) {
    throw new TimelineSheetsError('TS_USAGE', `--listen ${text} is not HOST:PORT.`, {
      hint: 'For example --listen 127.0.0.1:9464 (this machine only) or --listen 0.0.0.0:9464 (a container, for its probes and Prometheus).',
    })
  }
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port }
}

export async function startListener(address: ListenAddress, health: () => WatchHealth, metrics: RunMetrics): Promise<Listener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
      response.end(request.method === 'HEAD' ? undefined : body)
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'text/plain; charset=utf-8', 'GET only\n')
    if (path === '/healthz' || path === '/livez') {
      const verdict = health()
      const ok = path === '/healthz' ? verdict.healthy : verdict.live
      return send(ok ? 200 : 503, 'application/json', `${JSON.stringify({ status: ok ? 'ok' : 'unhealthy', ...verdict })}\n`)
    }
    if (path === '/metrics') {
      metrics.text().then(
        (text) => send(200, metrics.contentType, text),
        () => send(500, 'text/plain; charset=utf-8', 'metrics unavailable\n'),
      )
      return
    }
    send(404, 'text/plain; charset=utf-8', 'GET /healthz, /livez or /metrics\n')
  })
  // A probe that never finishes its request must not hold a connection for ever.
  server.requestTimeout = 10_000
  server.headersTimeout = 10_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new TimelineSheetsError(
          'TS_USAGE',
          `--listen ${address.host}:${address.port}: cannot listen there (${error.code ?? error.message}).`,
          {
            hint: 'Another process may use the port: choose another one, or stop the other watch.',
            cause: error,
          },
        ),
      ),
    )
    server.listen(address.port, address.host, () => resolve())
  })
  const bound = server.address()
  const port = typeof bound === 'object' && bound ? bound.port : address.port
  const host = address.host.includes(':') ? `[${address.host}]` : address.host
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
