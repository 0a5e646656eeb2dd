/**
 * The fake on a real loopback port with the real client: URL encoding of
 * quoted, spaced and unicode ranges over the wire, and a sheet of 100,000 rows.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
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

test('100,000 rows × 12 columns: written, read, sorted and trimmed in reasonable time', async () => {
  const ss = fake.store.createSpreadsheet({ sheets: [{ title: 'Activities', sheetId: 0, rowCount: 100_001, columnCount: 12 }] })
  const api = sheetsClient(fake.rootUrl, fake.staticToken)
  const rows = Array.from({ length: 100_000 }, (_, i) => Array.from({ length: 12 }, (_, c) => (c === 0 ? 100_000 - i : `r${i}c${c}`)))
  fake.store.resetStats()
  const started = performance.now()
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
  expect(performance.now() - started).toBeLessThan(15_000)
  expect(fake.store.stats().byMethod).toEqual({ UpdateValues: 4, BatchUpdateSpreadsheet: 1, GetValues: 1 })
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
