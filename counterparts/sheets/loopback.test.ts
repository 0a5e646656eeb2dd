/**
 * The fake on a real loopback port with the real client: URL encoding of
 * quoted, spaced and unicode ranges over the wire, answers compressed as
 * Google compresses them, and a sheet of 100,000 rows.
 */
import http from 'node:http'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { countElementReads } from '../element-reads.ts'
import { startSheetsFake, type SheetsFake } from './server.ts'
import { sheetsClient } from './test-support.ts'

let fake: SheetsFake
beforeAll(async () => {
  fake = await startSheetsFake({ quota: false })
})
afterAll(() => fake.close())

test('quoted titles with apostrophes, spaces and unicode travel percent-encoded and come back normalised', async () => {
  const ss = fake.store.createSpreadsheet({ sheets: [{ title: "Jon's Data ☃", sheetId: 0 }] })
  const api = sheetsClient(fake.rootUrl, fake.staticToken)
  const update = await api.spreadsheets.values.update({
    spreadsheetId: ss.spreadsheetId,
    range: "'Jon''s Data ☃'!A1",
    valueInputOption: 'RAW',
    requestBody: { values: [['a+b', 'c:d']] },
  })
  expect(update.data.updatedRange).toBe("'Jon''s Data ☃'!A1:B1")
  const cleared = await api.spreadsheets.values.clear({ spreadsheetId: ss.spreadsheetId, range: "'Jon''s Data ☃'!B1:C1", requestBody: {} })
  expect(cleared.data.clearedRange).toBe("'Jon''s Data ☃'!B1:C1")
  const batch = await api.spreadsheets.values.batchGet({ spreadsheetId: ss.spreadsheetId, ranges: ["'Jon''s Data ☃'!A:C"] })
  expect(batch.data.valueRanges).toEqual([{ range: "'Jon''s Data ☃'!A1:C1000", majorDimension: 'ROWS', values: [['a+b']] }])
})

/** A raw GET on the fake with exactly these headers: the encoding of the answer and its body as text. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ encoding: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      new URL(path, fake.rootUrl),
      { headers: { authorization: `Bearer ${fake.staticToken}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const body = Buffer.concat(chunks)
          const encoding = res.headers['content-encoding']
          resolve({ encoding, text: (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8') })
        })
      },
    )
    request.on('error', reject)
  })
}

test('an answer is gzip-compressed when the request sets Accept-Encoding gzip and names gzip in its user agent, and only then', async () => {
  const ss = fake.store.createSpreadsheet({ sheets: [{ title: 'Sheet1', sheetId: 0 }] })
  const api = sheetsClient(fake.rootUrl, fake.staticToken)
  await api.spreadsheets.values.update({
    spreadsheetId: ss.spreadsheetId,
    range: 'Sheet1!A1',
    valueInputOption: 'RAW',
    requestBody: { values: [['compressed', 1]] },
  })
  const path = `v4/spreadsheets/${ss.spreadsheetId}/values/Sheet1!A1:B1`
  const both = await rawGet(path, { 'accept-encoding': 'gzip', 'user-agent': 'my program (gzip)' })
  expect(both.encoding).toBe('gzip')
  expect(JSON.parse(both.text)).toEqual({ range: 'Sheet1!A1:B1', majorDimension: 'ROWS', values: [['compressed', '1']] })
  expect((await rawGet(path, { 'accept-encoding': 'gzip', 'user-agent': 'my program' })).encoding).toBeUndefined()
  expect((await rawGet(path, { 'user-agent': 'my program (gzip)' })).encoding).toBeUndefined()
  expect((await rawGet(path, { 'accept-encoding': 'deflate, br', 'user-agent': 'my program (gzip)' })).encoding).toBeUndefined()
  // The googleapis client asks for it (Accept-Encoding gzip, "(gzip)" in its user agent) and reads it as ever.
  const read = await api.spreadsheets.values.get({ spreadsheetId: ss.spreadsheetId, range: 'Sheet1!A1:B1' })
  expect(read.data.values).toEqual([['compressed', '1']])
})

test('100,000 rows × 12 columns: written, sorted, read and trimmed in one request each, reading each row a bounded number of times', async () => {
  const ss = fake.store.createSpreadsheet({ sheets: [{ title: 'Activities', sheetId: 0, rowCount: 100_001, columnCount: 12 }] })
  const api = sheetsClient(fake.rootUrl, fake.staticToken)
  const rows = Array.from({ length: 100_000 }, (_, i) => Array.from({ length: 12 }, (_, c) => (c === 0 ? 100_000 - i : `r${i}c${c}`)))
  fake.store.resetStats()
  // The work is counted, not timed: rows read from the grid, which a busy machine does not change.
  const grid = countElementReads(ss.sheets[0]!.rows)
  ss.sheets[0]!.rows = grid.array
  // Four writes: the whole block would be over the 10 MiB payload limit, as with Google.
  for (let part = 0; part < 4; part++) {
    const values = rows.slice(part * 25_000, (part + 1) * 25_000)
    await api.spreadsheets.values.update({
      spreadsheetId: ss.spreadsheetId,
      range: `Activities!A${2 + part * 25_000}`,
      valueInputOption: 'RAW',
      requestBody: { values },
    })
  }
  await api.spreadsheets.batchUpdate({
    spreadsheetId: ss.spreadsheetId,
    requestBody: { requests: [{ sortRange: { range: { sheetId: 0, startRowIndex: 1 }, sortSpecs: [{ dimensionIndex: 0 }] } }] },
  })
  const read = await api.spreadsheets.values.get({
    spreadsheetId: ss.spreadsheetId,
    range: 'Activities',
    valueRenderOption: 'UNFORMATTED_VALUE',
  })
  expect(read.data.values).toHaveLength(100_001)
  expect(read.data.values?.[0]).toEqual([])
  expect(read.data.values?.[1]?.slice(0, 2)).toEqual([1, 'r99999c1'])
  expect(fake.store.stats().byMethod).toEqual({ UpdateValues: 4, BatchUpdateSpreadsheet: 1, GetValues: 1 })
  // A write reads a row twice per cell, the sort a few times per row, the read once per row; work per row that
  // grows with the sheet (a scan per row written or trimmed) would multiply this by the 100,000 rows.
  expect(grid.reads()).toBeLessThanOrEqual((2 * 12 + 5 + 1) * 100_001)
})

test('a dropped connection, applied or not: the client gets no answer, and the store shows which', async () => {
  const ss = fake.store.createSpreadsheet({ sheets: [{ title: 'A', sheetId: 0 }] })
  const api = sheetsClient(fake.rootUrl, fake.staticToken)
  const write = (text: string) =>
    api.spreadsheets.values.update(
      { spreadsheetId: ss.spreadsheetId, range: 'A!A1', valueInputOption: 'RAW', requestBody: { values: [[text]] } },
      { retry: false },
    )
  fake.store.faults.inject({ status: 200, method: 'UpdateValues', dropUnapplied: true })
  await expect(write('not applied')).rejects.toThrow()
  fake.store.faults.inject({ status: 200, method: 'UpdateValues', thenAnswer: 'drop' })
  await expect(write('applied')).rejects.toThrow()
  const read = await api.spreadsheets.values.get({ spreadsheetId: ss.spreadsheetId, range: 'A!A1' })
  expect(read.data.values).toEqual([['applied']])
})
