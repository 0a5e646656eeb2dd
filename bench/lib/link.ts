/**
 * A shaped link in front of a loopback server: a TCP proxy that lets bytes through no faster than an uplink
 * (client → server) and a downlink (server → client) allow, so a run's wall time includes what its bytes cost
 * on a real connection. The rates can change between runs; connections opened earlier follow the new rates.
 */
import net from 'node:net'
import { Transform, type TransformCallback } from 'node:stream'

export interface LinkRates {
  /** Megabits a second from the client to the server; 0 = unshaped. */
  upMbit: number
  /** Megabits a second from the server to the client; 0 = unshaped. */
  downMbit: number
}

export interface ShapedLink {
  /** Origin with a trailing slash. */
  readonly url: string
  rates: LinkRates
  close(): Promise<void>
}

/** Holds each chunk back until the link would have carried it, one link per direction and connection. */
class Pace extends Transform {
  private freeAt = 0
  private readonly mbit: () => number
  constructor(mbit: () => number) {
    super()
    this.mbit = mbit
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const mbit = this.mbit()
    if (mbit <= 0) return done(null, chunk)
    const now = performance.now()
    const start = Math.max(now, this.freeAt)
    this.freeAt = start + (chunk.length * 8) / (mbit * 1000)
    setTimeout(() => done(null, chunk), this.freeAt - now)
  }
}

/** Starts a shaped proxy to `target` (a loopback origin) on a free port. */
export async function shapedLink(target: string, rates: LinkRates): Promise<ShapedLink> {
  const { hostname, port } = new URL(target)
  const link = { rates }
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(new Pace(() => link.rates.upMbit)).pipe(upstream)
    upstream.pipe(new Pace(() => link.rates.downMbit)).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as net.AddressInfo
  return {
    url: `http://127.0.0.1:${address.port}/`,
    get rates() {
      return link.rates
    },
    set rates(next: LinkRates) {
      link.rates = next
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
