/**
 * Request bodies leave for Google gzip-compressed from 1 KB on, as Google's Java and .NET clients send them, and the
 * fake applies them as it applies plain JSON (on Google, `doctor --write-test` checks that it does); `google.gzipRequests: false` sends every body as it is.
 */
import { gunzipSync } from 'node:zlib'
import { beforeEach, describe, expect, test } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { sheetsApi } from '../../src/sheets/google/api-client.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { COMPRESSED_MAX_PAYLOAD_BYTES, DEFAULT_MAX_PAYLOAD_BYTES } from '../../src/sheets/google/requests.ts'
import { encodeBody, GZIP_MIN_BYTES, gzipRequestBodies } from '../../src/sheets/google/gzip-requests.ts'
import type { Transport } from '../../src/http/transport.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'test-token'

interface Sent {
  method: string
  url: string
  encoding: string | null
  bytes: number
  /** The body as JSON, compression undone. */
  jsonBytes: number
}

let store: SheetsStore
let spreadsheetId: string
let sent: Sent[]

/** The fake, behind a transport that notes what each request carried on the wire. */
const recordingTransport: Transport = async (request) => {
  const body = request.body ? Buffer.from(await request.clone().arrayBuffer()) : Buffer.alloc(0)
  const encoding = request.headers.get('content-encoding')
  const jsonBytes = encoding === 'gzip' ? gunzipSync(body).byteLength : body.byteLength
  sent.push({ method: request.method, url: request.url, encoding, bytes: body.byteLength, jsonBytes })
  return createSheetsHandler(store)(request)
}

beforeEach(() => {
  store = createSheetsStore({ seed: 7, staticTokens: [TOKEN], quota: false })
  spreadsheetId = store.createSpreadsheet({ title: 'Team time' }).spreadsheetId
  sent = []
})

function api(gzipRequests?: boolean) {
  const auth = signInWithStaticToken(TOKEN, recordingTransport)
  return sheetsApi({
    spreadsheetId,
    auth,
    rootUrl: ROOT,
    transport: recordingTransport,
    ...(gzipRequests === undefined ? {} : { gzipRequests }),
  })
}

const rows = (count: number) => Array.from({ length: count }, (_, i) => [`mt-${1_000_000 + i}`, 'Alice Smith', 'Client X, billable'])

describe('request bodies on their way to Google', () => {
  test('a body in pieces leaves as the bytes of the pieces one after another, compressed or not', async () => {
    const pieces = ['{"a":"é', '\uD800', '","b":[', '1,2', ']}', 'x'.repeat(2000)]
    const whole = Buffer.from(pieces.join(''), 'utf8')
    const plain = await encodeBody(pieces, false)
    expect(plain.gzip).toBe(false)
    expect(Buffer.from(plain.bytes).equals(whole)).toBe(true)
    const packed = await encodeBody(pieces, true)
    expect(packed.gzip).toBe(true)
    expect(gunzipSync(packed.bytes).equals(whole)).toBe(true)
    expect(Buffer.from((await encodeBody(pieces.join(''), false)).bytes).equals(whole)).toBe(true)
  })

  test('a body of 1 KB or more leaves gzip-compressed, much smaller, and lands as the same rows', async () => {
    const values = rows(500)
    const plainBytes = Buffer.byteLength(JSON.stringify({ values }))
    await api().spreadsheets.values.update({ spreadsheetId, range: 'Sheet1!A1', valueInputOption: 'RAW', requestBody: { values } })
    expect(sent).toHaveLength(1)
    expect(sent[0]!.encoding).toBe('gzip')
    expect(sent[0]!.bytes).toBeLessThan(plainBytes / 5)
    expect(createManager(store).readTab(spreadsheetId, 'Sheet1')).toEqual(values)
  })

  test('a body under 1 KB and a request without a body leave as they are', async () => {
    const client = api()
    await client.spreadsheets.values.update({
      spreadsheetId,
      range: 'Sheet1!A1',
      valueInputOption: 'RAW',
      requestBody: { values: rows(2) },
    })
    await client.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A1:C2' })
    expect(sent.map((s) => [s.method, s.encoding])).toEqual([
      ['PUT', null],
      ['GET', null],
    ])
    expect(sent[0]!.bytes).toBeLessThan(GZIP_MIN_BYTES)
  })

  test('with gzipRequests off every body leaves as plain JSON', async () => {
    const values = rows(500)
    await api(false).spreadsheets.values.update({ spreadsheetId, range: 'Sheet1!A1', valueInputOption: 'RAW', requestBody: { values } })
    expect(sent[0]).toMatchObject({ encoding: null, bytes: Buffer.byteLength(JSON.stringify({ values })) })
    expect(createManager(store).readTab(spreadsheetId, 'Sheet1')).toHaveLength(500)
  })

  test.each([
    [true, COMPRESSED_MAX_PAYLOAD_BYTES, 2],
    [false, DEFAULT_MAX_PAYLOAD_BYTES, 5],
  ])(
    'new rows are packed by their JSON: with gzipRequests %s, requests of up to %i bytes of it (%i of them for 9 MB)',
    async (gzipRequests, limit, requests) => {
      const backend = createGoogleSpreadsheet({
        spreadsheetId,
        auth: signInWithStaticToken(TOKEN, recordingTransport),
        rootUrl: ROOT,
        transport: recordingTransport,
        gzipRequests,
      })
      await backend.ensureLayout(
        [{ title: 'Activities', columns: ['Key', 'User', 'Notes'].map((name) => ({ name, kind: 'text' as const })) }],
        {
          timeZone: 'UTC',
        },
      )
      const basis = await backend.read(['Activities'])
      const appends = Array.from({ length: 40_000 }, (_, i) => [
        `mt/${1_000_000 + i}`,
        `user ${i % 37}`,
        `notes of activity ${i} `.padEnd(90, 'x'),
      ])
      sent = []
      await backend.write([{ tab: 'Activities', keyColumn: 0, appends }], basis)
      const writes = sent.filter((s) => new URL(s.url).pathname.endsWith(':batchUpdate'))
      expect(writes).toHaveLength(requests)
      for (const w of writes) {
        expect(w.jsonBytes).toBeLessThanOrEqual(limit)
        // What Google recommends for a request's payload, whatever it counts.
        expect(w.bytes).toBeLessThanOrEqual(DEFAULT_MAX_PAYLOAD_BYTES)
      }
      expect(createManager(store).readTab(spreadsheetId, 'Activities')).toHaveLength(40_001)
    },
  )

  test('a body that says its encoding already passes through untouched', async () => {
    const seen: Request[] = []
    const send = gzipRequestBodies(async (request) => {
      seen.push(request)
      return new Response('{}')
    })
    const body = 'x'.repeat(4 * GZIP_MIN_BYTES)
    await send(new Request(ROOT, { method: 'POST', body, headers: { 'content-encoding': 'br' } }))
    expect(seen[0]!.headers.get('content-encoding')).toBe('br')
    expect(await seen[0]!.text()).toBe(body)
  })
})
