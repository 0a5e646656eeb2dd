/**
 * A hostile network on loopback, real sockets: a proxy in front of a
 * counterpart (the reference Timeline server, the Sheets fake) that passes
 * requests through unless a rule makes it misbehave, and a witness on
 * another host (127.0.0.2) that records anything that reaches it, so a test
 * can prove no credential left for another origin.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the proxy does with one request instead of passing it through. */
export type Behaviour =
  /** Answers with a redirect. */
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }
  /** Reads the request and never answers. */
  | { kind: 'hang' }
  /** Sends the headers and `first`, then one byte every `intervalMs`, for ever. */
  | { kind: 'trickle'; intervalMs: number; first?: string }
  /** Sends the headers, then a chunk every `intervalMs`, for ever: an endless body. */
  | { kind: 'endless'; intervalMs: number; chunk?: string }
  /** Answers with this status, headers and body. */
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body: string | Buffer }
  /** Passes the request through and answers with the upstream JSON as `edit` changes it. */
  | { kind: 'rewrite'; edit: (json: unknown) => unknown }

/** A request as the proxy saw it. */
export interface SeenRequest {
  method: string
  path: string
  headers: http.IncomingHttpHeaders
  body: string
}

export type Rule = (request: SeenRequest) => Behaviour | undefined

export interface HostileProxy {
  /** `http://127.0.0.1:PORT/`; the Host header is passed on, so the upstream's links point here. */
  readonly url: string
  readonly origin: string
  readonly seen: SeenRequest[]
  /** Replaces the rule (undefined: pass everything through). */
  setRule(rule: Rule | undefined): void
  close(): Promise<void>
}

async function listen(server: http.Server, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, () => resolve())
  })
  return `http://${host}:${(server.address() as AddressInfo).port}`
}

function closer(server: http.Server, timers: Set<NodeJS.Timeout>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const timer of timers) clearInterval(timer)
      server.closeAllConnections()
      server.close(() => resolve())
    })
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/** Starts a proxy in front of `upstream` (an origin such as `http://127.0.0.1:1234`). */
export async function startHostileProxy(upstream: string): Promise<HostileProxy> {
  const target = new URL(upstream)
  const seen: SeenRequest[] = []
  const timers = new Set<NodeJS.Timeout>()
  let rule: Rule | undefined

  const server = http.createServer((req, res) => {
    void readBody(req).then((body) => {
      const request: SeenRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString() }
      seen.push(request)
      const behaviour = rule?.(request)
      if (!behaviour) return forward(req, body, res)
      switch (behaviour.kind) {
        case 'redirect':
          res.writeHead(behaviour.status, { location: behaviour.location, 'content-length': '0' }).end()
          return
        case 'hang':
          return
        case 'trickle':
        case 'endless': {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.write(behaviour.kind === 'trickle' ? (behaviour.first ?? '{') : '{"timelines":[')
          const piece = behaviour.kind === 'trickle' ? ' ' : (behaviour.chunk ?? '{"timelineKey":"x"},')
          const timer = setInterval(() => res.write(piece), behaviour.intervalMs)
          timers.add(timer)
          res.on('close', () => {
            clearInterval(timer)
            timers.delete(timer)
          })
          return
        }
        case 'answer':
          res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers }).end(behaviour.body)
          return
        case 'rewrite':
          return forward(req, body, res, behaviour.edit)
      }
    })
  })

  function forward(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse, edit?: (json: unknown) => unknown): void {
    const upstreamRequest = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (!edit) {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
          return
        }
        void readBody(answer).then((raw) => {
          let text = raw.toString()
          if ((answer.statusCode ?? 0) < 300) text = JSON.stringify(edit(JSON.parse(text)))
          const headers = { ...answer.headers }
          delete headers['content-length']
          delete headers['transfer-encoding']
          res.writeHead(answer.statusCode ?? 502, headers).end(text)
        })
      },
    )
    upstreamRequest.on('error', () => res.destroy())
    upstreamRequest.end(body)
  }

  const origin = await listen(server, '127.0.0.1')
  return { url: `${origin}/`, origin, seen, setRule: (next) => void (rule = next), close: closer(server, timers) }
}

export interface Witness {
  /** `http://127.0.0.2:PORT`: another host, so another origin. */
  readonly origin: string
  /** Every request that reached it. */
  readonly seen: SeenRequest[]
  close(): Promise<void>
}

/**
 * The other host a hostile server redirects to. It answers every request
 * with a plausible success (a token, an empty list), so a client that
 * followed would go on as if nothing happened.
 */
export async function startWitness(): Promise<Witness> {
  const seen: SeenRequest[] = []
  const server = http.createServer((req, res) => {
    void readBody(req).then((body) => {
      seen.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString() })
      const answer =
        req.method === 'POST'
          ? { token: 'witness-token', access_token: 'witness-token', expires_in: 3600 }
          : { timelines: [], links: [], valueRanges: [] }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
    })
  })
  const origin = await listen(server, '127.0.0.2')
  return { origin, seen, close: closer(server, new Set()) }
}
