/**
 * Issue 10: a read that confirms the rows it will write through their anchors in the same request
 * (`rowsToWrite`), so the write on it needs no read-back; and a read of a tab's header only. Through the
 * real @googleapis/sheets client against the Sheets fake, in-process; request counts are the fake's own.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import type { Snapshot, Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const TABS: TabSpec[] = [
  {
    title: 'Activities',
    columns: [
      { name: 'User', kind: 'text' },
      { name: 'Notes', kind: 'text' },
      { name: 'Key', kind: 'text', hidden: true, protected: true },
    ],
  },
  { title: 'Sync log', readOnly: true, columns: [{ name: 'When', kind: 'text' }] },
]
const KEY = 2

interface Setup {
  store: SheetsStore
  spreadsheetId: string
  sheet: Spreadsheet
  clock: { now: number }
}

/** A laid out spreadsheet with `count` anchored rows `key/1`…, and a backend whose clock the test moves. */
async function setup(count = 3): Promise<Setup> {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const clock = { now: Date.parse('2026-11-10T11:00:00Z') }
  const sheet = createGoogleSpreadsheet({
    spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: ROOT,
    quota: { now: () => clock.now },
  })
  await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
  const empty = await sheet.read(['Activities', 'Sync log'])
  const rows = Array.from({ length: count }, (_, i) => [`u${i + 1}`, `note ${i + 1}`, `key/${i + 1}`])
  await sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: rows }], empty)
  store.resetStats()
  return { store, spreadsheetId, sheet, clock }
}

function notes(s: Setup): Record<string, string> {
  const rows = createManager(s.store).readTab(s.spreadsheetId, 'Activities').slice(1)
  return Object.fromEntries(rows.map((r) => [String(r[KEY]), String(r[1])]))
}

async function update(s: Setup, basis: Snapshot, key: string, value: string) {
  const row = basis.tabs['Activities']!.rows.findIndex((r) => r[KEY] === key) + 2
  return s.sheet.write(
    [
      { tab: 'Activities', keyColumn: KEY, updates: [{ row, column: 1, values: [value] }] },
      { tab: 'Sync log', appends: [['run']] },
    ],
    basis,
  )
}

describe('issue 10: rows confirmed by the read (Google)', () => {
  it('a read with rowsToWrite is one request, and the write on it needs no read-back: 3 requests in all', async () => {
    const s = await setup()
    const basis = await s.sheet.read(['Activities', 'Sync log'], { rowsToWrite: { tab: 'Activities', keys: ['key/2'] } })
    expect(basis.tabs['Activities']!.rows.map((r) => r[KEY])).toEqual(['key/1', 'key/2', 'key/3'])
    expect(basis.tabs['Sync log']!.exists).toBe(true)
    const report = await update(s, basis, 'key/2', 'from the server')
    expect(report.skipped).toEqual([])
    expect(s.store.stats().byMethod).toEqual({ BatchGetValuesByDataFilter: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
    expect(notes(s)).toEqual({ 'key/1': 'note 1', 'key/2': 'from the server', 'key/3': 'note 3' })
  })

  it('a row the read did not confirm is read back as before', async () => {
    const s = await setup()
    const basis = await s.sheet.read(['Activities', 'Sync log'], { rowsToWrite: { tab: 'Activities', keys: ['key/1'] } })
    await update(s, basis, 'key/3', 'changed')
    expect(s.store.stats().byMethod).toEqual({ BatchGetValuesByDataFilter: 2, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
    expect(notes(s)['key/3']).toBe('changed')
  })

  it('after a write, or seconds later, the write reads its rows back again: a person typing meanwhile keeps their cell', async () => {
    for (const gap of ['write', 'time'] as const) {
      const s = await setup()
      const basis = await s.sheet.read(['Activities', 'Sync log'], { rowsToWrite: { tab: 'Activities', keys: ['key/1'] } })
      if (gap === 'write') await s.sheet.write([{ tab: 'Sync log', appends: [['other']] }], basis)
      else s.clock.now += 6_000
      createManager(s.store).editCell(s.spreadsheetId, 'Activities', 'B2', 'typed by a manager')
      s.store.resetStats()
      const report = await update(s, basis, 'key/1', 'from the server')
      expect(report.skipped, gap).toEqual([{ tab: 'Activities', row: 2, reason: 'changed' }])
      expect(s.store.stats().byMethod.BatchGetValuesByDataFilter, gap).toBe(1)
      expect(notes(s)['key/1'], gap).toBe('typed by a manager')
    }
  })

  it('a missing tab falls back to the plain read, which says it does not exist', async () => {
    const s = await setup()
    const snapshot = await s.sheet.read(['Activities', 'Nope'], { rowsToWrite: { tab: 'Activities', keys: ['key/1'] } })
    expect(snapshot.tabs['Nope']!.exists).toBe(false)
    expect(snapshot.tabs['Activities']!.rows).toHaveLength(3)
  })

  it('headerOnly reads row 1 of a tab, and refuses a write to its rows', async () => {
    const s = await setup()
    const snapshot = await s.sheet.read(['Activities', 'Sync log'], { headerOnly: ['Activities'] })
    const tab = snapshot.tabs['Activities']!
    expect(tab).toMatchObject({ exists: true, header: ['User', 'Notes', 'Key'], rows: [], headerOnly: true })
    expect(s.store.stats().byMethod).toEqual({ BatchGetValues: 1 })
    const refused = await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: [['u9', 'n', 'key/9']] }], snapshot).catch((e) => e)
    expect(isTimelineSheetsError(refused) && refused.code).toBe('TS_INTERNAL')
    // The Sync log of the same read is whole and can be appended to.
    await s.sheet.write([{ tab: 'Sync log', appends: [['run']] }], snapshot)
    expect(createManager(s.store).readTab(s.spreadsheetId, 'Sync log')).toHaveLength(2)
  })
})
