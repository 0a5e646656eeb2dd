/**
 * Request bodies as the fake takes them: plain JSON or gzip-compressed (`content-encoding: gzip`, what
 * Google's Java and .NET clients send by default), the payload limit applied to what a body unpacks to (or, turned the
 * other way, to the bytes as sent), and a body the fake cannot read refused whole, nothing of it applied.
 */
import { gzipSync } from 'node:zlib'
import { beforeEach, describe, expect, it } from 'vitest'
import { createSheetsHandler } from './handler.ts'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { testStore } from './test-support.ts'

const ROOT = 'http://sheets.test'
let store: SheetsStore
let id: string

beforeEach(() => {
  ;({ store } = testStore({ maxPayloadBytes: 4_000 }))
  id = store.createSpreadsheet({ title: 'Team time' }).spreadsheetId
})

function valuesOf(rows: number): string {
  const values = Array.from({ length: rows }, (_, i) => [`row ${i + 1}`, 'Client X, billable'])
  return JSON.stringify({ range: 'Sheet1!A1', majorDimension: 'ROWS', values })
}

function packed(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(gzipSync(text))
}

function put(body: Uint8Array<ArrayBuffer> | string, encoding?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: 'Bearer test-token', 'content-type': 'application/json' }
  if (encoding) headers['content-encoding'] = encoding
  const url = `${ROOT}/v4/spreadsheets/${id}/values/Sheet1!A1?valueInputOption=RAW`
  return createSheetsHandler(store)(new Request(url, { method: 'PUT', headers, body }))
}

async function errorOf(response: Response): Promise<{ status: number; message: string }> {
  const body = (await response.json()) as { error: { code: number; message: string } }
  return { status: body.error.code, message: body.error.message }
}

describe('request bodies', () => {
  it('applies a gzip-compressed body as it applies the same JSON sent plain', async () => {
    const response = await put(packed(valuesOf(3)), 'gzip')
    expect(response.status).toBe(200)
    expect(((await response.json()) as { updatedRows: number }).updatedRows).toBe(3)
    expect(createManager(store).readTab(id, 'Sheet1')[2]).toEqual(['row 3', 'Client X, billable'])
  })

  it('takes the encoding name in any case and identity as no encoding', async () => {
    expect((await put(packed(valuesOf(1)), 'GZip')).status).toBe(200)
    expect((await put(valuesOf(1), 'identity')).status).toBe(200)
  })

  it('holds a compressed body to the payload limit by what it unpacks to', async () => {
    const plain = valuesOf(200)
    const body = packed(plain)
    expect(body.byteLength).toBeLessThan(4_000)
    expect(plain.length).toBeGreaterThan(4_000)
    const response = await put(body, 'gzip')
    expect(await errorOf(response)).toEqual({ status: 400, message: 'Request payload size exceeds the limit: 4000 bytes.' })
    expect(createManager(store).readTab(id, 'Sheet1')).toEqual([])
  })

  it('with the limit counting bytes as sent, applies a compressed body that unpacks past it, and still refuses a larger one as sent', async () => {
    ;({ store } = testStore({ maxPayloadBytes: 4_000, undocumented: { payloadLimitCounts: 'sent' } }))
    id = store.createSpreadsheet({ title: 'Team time' }).spreadsheetId
    const plain = valuesOf(200)
    expect(plain.length).toBeGreaterThan(4_000)
    const response = await put(packed(plain), 'gzip')
    expect(response.status).toBe(200)
    expect(createManager(store).readTab(id, 'Sheet1')).toHaveLength(200)
    const incompressible = new Uint8Array(4_001).map((_, i) => (i * 7919) % 251)
    expect(await errorOf(await put(incompressible, 'gzip'))).toEqual({
      status: 400,
      message: 'Request payload size exceeds the limit: 4000 bytes.',
    })
  })

  it('refuses a body that says gzip and is not, applying nothing', async () => {
    const response = await put(valuesOf(2), 'gzip')
    expect(await errorOf(response)).toEqual({ status: 400, message: 'Invalid JSON payload received. The body is not valid gzip.' })
    expect(createManager(store).readTab(id, 'Sheet1')).toEqual([])
  })

  it('refuses an encoding other than gzip, applying nothing', async () => {
    const response = await put(valuesOf(2), 'br')
    expect(await errorOf(response)).toEqual({ status: 400, message: 'Invalid JSON payload received. Unsupported content encoding "br".' })
    expect(createManager(store).readTab(id, 'Sheet1')).toEqual([])
  })
})
