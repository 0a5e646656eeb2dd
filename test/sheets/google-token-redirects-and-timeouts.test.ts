/**
 * No redirect followed and every request under timeouts, for google-auth-library's own token calls (refresh
 * of an authorized_user or installed-app sign-in) and our JWT-bearer token
 * request: real loopback sockets, a witness on another host.
 */
import http from 'node:http'
import { mkdtemp, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { exportPKCS8, generateKeyPair } from 'jose'
import { afterEach, describe, expect, it } from 'vitest'
import { RequestTimeoutError, TimelineSheetsError } from '../../src/errors.ts'
import { createTransport } from '../../src/http/transport.ts'
import { requestServiceAccountToken } from '../../src/sheets/google/auth.ts'
import { signInWithApplicationDefault } from '../../src/sheets/google/adc.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'

interface Server {
  origin: string
  seen: { method: string; url: string; body: string; authorization: string | undefined }[]
  close(): Promise<void>
}

const open: Server[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()))
})

async function serve(host: string, answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Server> {
  const seen: Server['seen'] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, authorization: req.headers.authorization })
      answer(req, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const entry = {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  open.push(entry)
  return entry
}

const witness = () =>
  serve('127.0.0.2', (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"ya29.w","expires_in":3600}'),
  )

describe('Google token requests follow no redirect', () => {
  it('the refresh of an authorized_user sign-in redirected to another host: refused, the refresh token and client secret never sent there', async () => {
    const other = await witness()
    const google = await serve('127.0.0.1', (_req, res) => res.writeHead(307, { location: `${other.origin}/token` }).end())
    const dir = await mkdtemp(path.join(tmpdir(), 'ts-issue-8-adc-'))
    const file = path.join(dir, 'adc.json')
    await writeFile(
      file,
      JSON.stringify({ type: 'authorized_user', client_id: 'cid', client_secret: 'client-secret-x', refresh_token: 'refresh-token-x' }),
    )
    const signIn = await signInWithApplicationDefault({
      env: { GOOGLE_APPLICATION_CREDENTIALS: file },
      home: dir,
      tokenUrl: `${google.origin}/token`,
      transport: createTransport(),
    })
    const sheet = createGoogleSpreadsheet({ spreadsheetId: 'abcdefghij', auth: signIn, rootUrl: `${google.origin}/`, retry: { limit: 0 } })
    const error = await sheet.read(['Activities']).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_UNSAFE_REDIRECT')
    expect((error as Error).message).toContain(other.origin)
    expect(other.seen).toEqual([])
    expect(google.seen.map((r) => r.url)).toEqual(['/token'])
  })

  it('the JWT-bearer token POST redirected within its own origin: refused, the assertion sent once', async () => {
    const google = await serve('127.0.0.1', (_req, res) => res.writeHead(308, { location: '/token2' }).end())
    const pair = await generateKeyPair('RS256', { extractable: true })
    const key = {
      type: 'service_account' as const,
      client_email: 'b@p.iam.gserviceaccount.com',
      private_key: await exportPKCS8(pair.privateKey),
      private_key_id: 'k',
      token_uri: `${google.origin}/token`,
    }
    const error = await requestServiceAccountToken(key, { transport: createTransport() }).catch((e: unknown) => e)
    expect((error as TimelineSheetsError).code).toBe('TS_UNSAFE_REDIRECT')
    expect(google.seen.map((r) => r.url)).toEqual(['/token'])
  })
})

describe('Google token requests have timeouts', () => {
  it('a token endpoint that never answers ends at the first-byte timeout, naming the URL', async () => {
    const google = await serve('127.0.0.1', () => undefined)
    const pair = await generateKeyPair('RS256', { extractable: true })
    const key = {
      type: 'service_account' as const,
      client_email: 'b@p.iam.gserviceaccount.com',
      private_key: await exportPKCS8(pair.privateKey),
      private_key_id: 'k',
      token_uri: `${google.origin}/token`,
    }
    const error = await requestServiceAccountToken(key, { transport: createTransport({ timeouts: { firstByteMs: 300 } }) }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as Error).message).toBe(`POST ${google.origin}/token: no answer within 300 ms (first-byte timeout, timeouts.firstByteMs)`)
  })
})
