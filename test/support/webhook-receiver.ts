/** A webhook receiver on loopback for the notice tests: records each JSON body, answers 200, or never answers. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

export interface Receiver {
  /** `http://127.0.0.1:<port>/hooks/SECRET-PART`: a path that stands for a Slack webhook's key. */
  readonly url: string
  readonly bodies: unknown[]
  close(): Promise<void>
}

/** `answer`: `ok` (200), `fail` (500) or `hang` (reads the body, then never answers). */
export async function startReceiver(answer: 'ok' | 'fail' | 'hang' = 'ok'): Promise<Receiver> {
  const bodies: unknown[] = []
  const hanging: ServerResponse[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = ''
    request.on('data', (chunk: Buffer) => (text += chunk.toString()))
    request.on('end', () => {
      bodies.push(JSON.parse(text))
      if (answer === 'hang') hanging.push(response)
      else response.writeHead(answer === 'ok' ? 200 : 500).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/hooks/T000-SECRET-PART`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
