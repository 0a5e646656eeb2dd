/**
 * The one loopback receiver for both browser sign-ins, the cloud login (`timeline/auth/login.ts`) and Google's
 * installed-app login (`sheets/google/auth.ts`): a server on a loopback address that waits for the browser to come
 * back from the login server with this login's `state`, and answers the browser once the login knows how it ended.
 *
 * Only a GET on the callback's path that carries `code` or `error` is the callback; anything else (a favicon, a
 * prefetch, a reload without the answer) gets 404 and leaves the login waiting. A callback whose `state` this login
 * did not send ends the login, refused. A callback after the first is told the login has finished.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface LoopbackCallbackOptions {
  /** Where to listen: a loopback host, a port (0 picks a free one), and the one path that answers. */
  url: URL
  /** The `state` the authorization request sent. */
  state: string
  /** How long to wait for the browser. */
  timeoutMs: number
  /** The errors each sign-in words its own way. */
  errors: {
    /** The port cannot be listened on (`EADDRINUSE`, `EACCES`…). */
    listen: (errno: string | undefined) => Error
    wrongState: () => Error
    timeout: () => Error
  }
  /** What the browser shows: for a refused callback, for one after the login ended, for one left unanswered. */
  pages: { refused: string; finished: string; failed: string }
}

export interface LoopbackCallback {
  /** The port listened on (the one asked for, or the one given for port 0). */
  readonly port: number
  /** The callback's URL with its query, once one with this login's state came. */
  readonly url: Promise<URL>
  /** Answers the browser's callback request; only the first answer counts. */
  answer(status: number, text: string): void
  /** Ends the wait with `error` (a browser that could not be opened). */
  fail(error: unknown): void
  /** Answers a callback left unanswered with the `failed` page, then stops listening. */
  close(): Promise<void>
}

/** Listens for the sign-in's callback on a loopback address. */
export async function listenForCallback(options: LoopbackCallbackOptions): Promise<LoopbackCallback> {
  let settle!: { resolve: (url: URL) => void; reject: (error: unknown) => void }
  const url = new Promise<URL>((resolve, reject) => (settle = { resolve, reject }))
  url.catch(() => undefined)
  let done = false
  const finish = (error: unknown, callback?: URL) => {
    if (done) return
    done = true
    if (callback) settle.resolve(callback)
    else settle.reject(error)
  }
  let pending: http.ServerResponse | undefined
  const answer = (res: http.ServerResponse, status: number, text: string) => {
    if (res.headersSent) return
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(text)
  }

  // The callback as the browser asked for it, on the port listened on (not port 0).
  let base = options.url
  const server = http.createServer((req, res) => {
    const requested = new URL(req.url ?? '/', base)
    const params = requested.searchParams
    if (req.method !== 'GET' || requested.pathname !== options.url.pathname || (!params.has('code') && !params.has('error'))) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found')
      return
    }
    if (done) {
      answer(res, 400, options.pages.finished)
      return
    }
    if (params.get('state') !== options.state) {
      answer(res, 400, options.pages.refused)
      finish(options.errors.wrongState())
      return
    }
    pending = res
    finish(undefined, requested)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(options.errors.listen(error.code)))
    server.listen(Number(options.url.port || 80), options.url.hostname.replace(/^\[|\]$/g, ''), () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  base = new URL(options.url.href)
  base.port = String(port)
  const timer = setTimeout(() => finish(options.errors.timeout()), options.timeoutMs)
  timer.unref()

  return {
    port,
    url,
    answer: (status, text) => {
      if (pending) answer(pending, status, text)
    },
    fail: (error) => finish(error),
    close: () =>
      new Promise<void>((resolve) => {
        clearTimeout(timer)
        if (pending) answer(pending, 400, options.pages.failed)
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
