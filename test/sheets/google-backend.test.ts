/**
 * The Google backend through the real @googleapis/sheets client against the
 * Sheets fake, in-process (msw). Request counts are the fake's own.
 */
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore, type SheetsStoreOptions } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { HttpError, isTimelineSheetsError } from '../../src/errors.ts'
import type { RetryOptions } from '../../src/http/retry.ts'
import type { Snapshot, Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithServiceAccount, signInWithStaticToken, type ServiceAccountKey } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet, type GoogleSheetsEvent, type GoogleSpreadsheetOptions } from '../../src/sheets/google/backend.ts'
import { directClient, managerActionsOverApi } from './google-fixture.ts'
import { STATUS_RULES } from '../../src/core/status.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()

// onUnhandledFrame is msw 3's name for onUnhandledRequest.
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const TABS: TabSpec[] = [
  {
    title: 'Activities',
    statusColumn: 'Status',
    columns: [
      { name: 'User', kind: 'text' },
      { name: 'Date', kind: 'date' },
      { name: 'Start', kind: 'time' },
      { name: 'Duration', kind: 'duration', protected: true },
      { name: 'Tags', kind: 'text', dropdown: { tab: 'Allowed tags', column: 'Tags' } },
      { name: 'Notes', kind: 'text', wrap: true },
      { name: 'Delete', kind: 'checkbox' },
      { name: 'Status', kind: 'text', protected: true },
      { name: 'Key', kind: 'text', hidden: true, protected: true },
    ],
  },
  {
    title: 'Allowed tags',
    columns: [
      { name: 'Applies to', kind: 'text' },
      { name: 'Tags', kind: 'text' },
    ],
  },
  {
    title: 'Sync log',
    readOnly: true,
    columns: [
      { name: 'When', kind: 'datetime' },
      { name: 'Rows', kind: 'number' },
    ],
  },
]
const LAYOUT = { timeZone: 'Europe/Berlin' }

interface Setup {
  store: SheetsStore
  spreadsheetId: string
  sheet: Spreadsheet
  events: GoogleSheetsEvent[]
  sleeps: number[]
}

function setup(
  storeOptions: SheetsStoreOptions = {},
  backend: Partial<GoogleSpreadsheetOptions> & { retry?: Partial<RetryOptions> } = {},
): Setup {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false, ...storeOptions })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const events: GoogleSheetsEvent[] = []
  const sleeps: number[] = []
  const sheet = createGoogleSpreadsheet({
    spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: ROOT,
    log: (event) => events.push(event),
    ...backend,
    retry: {
      sleep: async (ms) => {
        sleeps.push(ms)
      },
      ...backend.retry,
    },
  })
  return { store, spreadsheetId, sheet, events, sleeps }
}

function row(n: number): (string | number | boolean)[] {
  return [`DOMAIN\\u${n}`, 45293 + n, 0.375, 0.125, 'Client, Project', `note ${n}`, false, 'ok', `key/${n}`]
}

const KEY = 8

/** Lays out and adds `count` rows; `keyed` writes them with the Key column. */
async function withRows(s: Setup, count: number, keyed = false): Promise<Snapshot> {
  await s.sheet.ensureLayout(TABS, LAYOUT)
  const empty = await s.sheet.read(['Activities'])
  await s.sheet.write(
    [{ tab: 'Activities', ...(keyed ? { keyColumn: KEY } : {}), appends: Array.from({ length: count }, (_, i) => row(i + 1)) }],
    empty,
  )
  return s.sheet.read(['Activities'])
}

/** Every developer metadata in the spreadsheet, as `key=value`, straight from the fake's store. */
function allMetadata(s: Setup): string[] {
  const ss = s.store.spreadsheets.get(s.spreadsheetId)!
  return [...ss.metadata.values()].map((m) => `${m.metadataKey}=${m.metadataValue ?? ''}`)
}

/** The row claims left on the sheets (none once a write is done). */
function claimsLeft(s: Setup): string[] {
  return allMetadata(s).filter((m) => /^ts[0-9a-z]+=/.test(m))
}

function keys(snapshot: Snapshot): unknown[] {
  return snapshot.tabs['Activities']!.rows.map((r) => r[8])
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('request economy', () => {
  it('lays out once, then an unchanged layout costs one read and no write', async () => {
    const s = setup()
    const first = await s.sheet.ensureLayout(TABS, LAYOUT)
    expect(first).toEqual({ createdTabs: ['Activities', 'Allowed tags', 'Sync log'], changed: true })
    // The tab list, and the values of the default Sheet1, which goes when it is empty.
    expect(s.store.stats()).toMatchObject({ reads: 2, writes: 1, byMethod: { GetSpreadsheet: 1, BatchGetValues: 1 } })
    s.store.resetStats()
    expect(await s.sheet.ensureLayout(TABS, LAYOUT)).toEqual({ createdTabs: [], changed: false })
    expect(s.store.stats()).toMatchObject({ reads: 1, writes: 0, byMethod: { GetSpreadsheet: 1 } })
    expect(s.sheet.requestCounts()).toEqual({ reads: 3, writes: 1 })
  })

  it('applies the layout the fake can show: frozen header, time zone, protections, hidden Key, formats', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    const { data } = await directClient(signInWithStaticToken(TOKEN).client, ROOT).spreadsheets.get({ spreadsheetId: s.spreadsheetId })
    expect(data.properties?.timeZone).toBe('Europe/Berlin')
    const activities = data.sheets!.find((sh) => sh.properties?.title === 'Activities')!
    expect(activities.properties?.gridProperties?.frozenRowCount).toBe(1)
    expect(activities.protectedRanges?.map((p) => p.description)).toEqual([
      'timeline-sheets: Activities header',
      'timeline-sheets: Activities / Duration',
      'timeline-sheets: Activities / Status',
      'timeline-sheets: Activities / Key',
    ])
    expect(activities.protectedRanges?.every((p) => p.warningOnly)).toBe(true)
    expect(activities.conditionalFormats).toHaveLength(STATUS_RULES.length)
    const header = await s.sheet.read(['Activities'])
    expect(header.tabs['Activities']!.header).toEqual(TABS[0]!.columns.map((c) => c.name))
  })

  it('reads any number of tabs with one batchGet and takes the grid size from the echo', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    // Another run's backend: it did not make the tabs, so it reads them.
    const later = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    s.store.resetStats()
    const snapshot = await later.read(['Activities', 'Allowed tags', 'Sync log'])
    expect(s.store.stats()).toMatchObject({ total: 1, byMethod: { BatchGetValues: 1 } })
    expect(snapshot.tabs['Activities']).toMatchObject({ exists: true, rows: [], gridRowCount: 1000 })
  })

  describe('tabs the layout has just made', () => {
    const TITLES = ['Activities', 'Allowed tags', 'Sync log']

    it('are read without a request, and show exactly what a read of them shows', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      s.store.resetStats()
      const made = await s.sheet.read(TITLES)
      expect(s.store.stats()).toMatchObject({ total: 0 })
      const later = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
      expect(made).toEqual(await later.read(TITLES))
      // What the backend keeps for later runs is what a read would have taught it.
      expect(s.sheet.exportHints!()['headers']).toEqual(later.exportHints!()['headers'])
    })

    it('are read again once anything was written, or after 5 s', async () => {
      let clock = 1_000_000
      const s = setup({}, { quota: { now: () => clock } })
      await s.sheet.ensureLayout(TABS, LAYOUT)
      clock += 5_001
      s.store.resetStats()
      await s.sheet.read(TITLES)
      expect(s.store.stats()).toMatchObject({ total: 1, byMethod: { BatchGetValues: 1 } })

      const t = setup({}, { quota: { now: () => clock } })
      await t.sheet.ensureLayout(TABS, LAYOUT)
      const empty = await t.sheet.read(['Sync log'])
      await t.sheet.write([{ tab: 'Sync log', appends: [[46000.5, 3]] }], empty)
      t.store.resetStats()
      const read = await t.sheet.read(TITLES)
      expect(t.store.stats()).toMatchObject({ total: 1, byMethod: { BatchGetValues: 1 } })
      expect(read.tabs['Sync log']!.rows).toEqual([[46000.5, 3]])
    })

    it('are read when one asked for was not made here', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      s.store.resetStats()
      await s.sheet.read(['Activities', 'Sheet1'])
      expect(s.store.stats().total).toBeGreaterThan(0)
    })

    it('keep a row a person typed between the layout and the first write: new rows go above it, nothing is written over', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      const made = await s.sheet.read(['Activities'])
      createManager(s.store).editCell(s.spreadsheetId, 'Activities', 'F2', 'typed meanwhile')
      await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(1), row(2)] }], made)
      const after = await s.sheet.read(['Activities'])
      expect(keys(after)).toEqual(['key/1', 'key/2', undefined])
      expect(after.tabs['Activities']!.rows[2]![5]).toBe('typed meanwhile')
    })

    it('deleted between the layout and the first write: the write stops with what to do, and writes nowhere else', async () => {
      const s = setup()
      await s.sheet.ensureLayout(TABS, LAYOUT)
      const made = await s.sheet.read(['Activities', 'Sync log'])
      const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
      const { data } = await api.spreadsheets.get({ spreadsheetId: s.spreadsheetId })
      const id = data.sheets!.find((sh) => sh.properties?.title === 'Activities')!.properties!.sheetId ?? 0
      await api.spreadsheets.batchUpdate({ spreadsheetId: s.spreadsheetId, requestBody: { requests: [{ deleteSheet: { sheetId: id } }] } })
      const error = await caught(
        s.sheet.write(
          [
            { tab: 'Activities', keyColumn: KEY, appends: [row(1)] },
            { tab: 'Sync log', appends: [[46000.5, 1]] },
          ],
          made,
        ),
      )
      expect(isTimelineSheetsError(error) && error.code).toBe('TS_SHEETS_API')
      expect((error as Error).message).toMatch(/deleted, made again or renamed/)
      expect(createManager(s.store).readTab(s.spreadsheetId, 'Sync log')).toEqual([['When', 'Rows']])
    })
  })

  it('a first layout after a read that found its tabs missing plans on that read: one spreadsheets.get, not two', async () => {
    const s = setup()
    const before = await s.sheet.read(['Activities', 'Sync log'])
    expect(before.tabs['Activities']!.exists).toBe(false)
    expect(s.store.stats()).toMatchObject({ byMethod: { BatchGetValues: 1, GetSpreadsheet: 1 } })
    s.store.resetStats()
    expect(await s.sheet.ensureLayout(TABS, LAYOUT)).toMatchObject({ createdTabs: ['Activities', 'Allowed tags', 'Sync log'] })
    // The values of the default Sheet1 (it goes when empty), then the layout's one write.
    expect(s.store.stats()).toMatchObject({ reads: 1, writes: 1, byMethod: { BatchGetValues: 1 } })
    expect(s.store.stats().byMethod['GetSpreadsheet']).toBeUndefined()
  })

  it('a read told its tabs may be missing lists them first: one request on a new spreadsheet, and the same snapshot', async () => {
    const s = setup()
    const first = await s.sheet.read(['Activities', 'Sync log'], { tabsMayBeMissing: true })
    expect(s.store.stats()).toMatchObject({ total: 1, byMethod: { GetSpreadsheet: 1 } })
    expect(first.tabs['Activities']).toEqual({ title: 'Activities', exists: false, header: [], rows: [], gridRowCount: 0 })
    await withRows(s, 3)
    const later = () => createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    s.store.resetStats()
    const listed = await later().read(['Activities', 'Sync log', 'Nope'], { tabsMayBeMissing: true })
    expect(s.store.stats()).toMatchObject({ total: 2, byMethod: { GetSpreadsheet: 1, BatchGetValues: 1 } })
    expect(listed).toEqual(await later().read(['Activities', 'Sync log', 'Nope']))
  })

  it('a layout that changes a tab that exists reads the tab list itself, however fresh the last one', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS.slice(1), LAYOUT)
    const later = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    expect((await later.read(['Activities', 'Sync log'])).tabs['Activities']!.exists).toBe(false)
    s.store.resetStats()
    await later.ensureLayout(TABS, LAYOUT)
    expect(s.store.stats().byMethod['GetSpreadsheet']).toBe(1)
  })

  it('a tab list older than 5 s, or with a write since, is read again', async () => {
    let clock = 1_000_000
    const s = setup({}, { quota: { now: () => clock } })
    await s.sheet.read(['Activities'])
    clock += 5_001
    s.store.resetStats()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    expect(s.store.stats().byMethod['GetSpreadsheet']).toBe(1)
  })

  it('reports a missing tab as exists:false, spending extra requests only then', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    s.store.resetStats()
    const snapshot = await s.sheet.read(['Activities', 'Nope'])
    expect(snapshot.tabs['Nope']).toEqual({ title: 'Nope', exists: false, header: [], rows: [], gridRowCount: 0 })
    expect(snapshot.tabs['Activities']!.exists).toBe(true)
    expect(s.store.stats()).toMatchObject({ reads: 3, byMethod: { BatchGetValues: 2, GetSpreadsheet: 1 } })
  })

  it('without a key column: one read confirms the positions, one value write, one batchUpdate adds the rows; removals empty their rows', async () => {
    const s = setup()
    const basis = await withRows(s, 5)
    s.store.resetStats()
    const report = await s.sheet.write(
      [
        {
          tab: 'Activities',
          updates: [{ row: 5, column: 5, values: ['fourth, edited'] }],
          deleteRows: [2, 4],
          appends: [row(6)],
        },
      ],
      basis,
    )
    expect(s.store.stats()).toMatchObject({
      reads: 1,
      writes: 2,
      byMethod: { BatchGetValues: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 },
    })
    expect(report).toEqual({ appended: { Activities: { firstRow: 7, count: 1 } }, skipped: [] })
    const after = await s.sheet.read(['Activities'])
    expect(keys(after)).toEqual([undefined, 'key/2', undefined, 'key/4', 'key/5', 'key/6'])
    expect(after.tabs['Activities']!.rows[3]![5]).toBe('fourth, edited')
  })

  it('with a key column: rows are claimed where the basis showed them, read back through the claims and written through them; no claim stays', async () => {
    const s = setup()
    const basis = await withRows(s, 5, true)
    expect(claimsLeft(s)).toEqual([])
    s.store.resetStats()
    const report = await s.sheet.write(
      [
        {
          tab: 'Activities',
          keyColumn: KEY,
          updates: [{ row: 5, column: 5, values: ['fourth, edited'] }],
          deleteRows: [2, 4],
          appends: [row(6)],
        },
      ],
      basis,
    )
    // The claims, their read-back, the values through them, the new row with the claims' removal.
    expect(s.store.stats()).toMatchObject({
      reads: 1,
      writes: 3,
      byMethod: { BatchGetValuesByDataFilter: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 2 },
    })
    expect(report).toEqual({ appended: { Activities: { firstRow: 7, count: 1 } }, skipped: [] })
    const after = await s.sheet.read(['Activities'])
    expect(keys(after)).toEqual([undefined, 'key/2', undefined, 'key/4', 'key/5', 'key/6'])
    expect(after.tabs['Activities']!.rows[3]![5]).toBe('fourth, edited')
    expect(allMetadata(s).filter((m) => !m.startsWith('timeline-sheets:layout'))).toEqual([])
  })

  it('rows sorted since the basis was read: the claims land on other rows, so the rows are claimed again where a fresh read finds them', async () => {
    const s = setup()
    const basis = await withRows(s, 3, true)
    createManager(s.store).sortTab(s.spreadsheetId, 'Activities', 5, 'DESCENDING')
    s.store.resetStats()
    const report = await s.sheet.write(
      [{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 2, column: 7, values: ['first, found'] }] }],
      basis,
    )
    expect(report.skipped).toEqual([])
    // Claim where the basis showed it, read it back (another row), read the tab, claim again, read back, write, clean up.
    expect(s.store.stats().byMethod).toEqual({
      BatchGetValuesByDataFilter: 2,
      BatchGetValues: 1,
      BatchUpdateSpreadsheet: 3,
      BatchUpdateValuesByDataFilter: 1,
    })
    const after = await s.sheet.read(['Activities'])
    expect(after.tabs['Activities']!.rows.find((r) => r[KEY] === 'key/1')![7]).toBe('first, found')
    expect(after.tabs['Activities']!.rows.filter((r) => r[7] === 'first, found')).toHaveLength(1)
    expect(claimsLeft(s)).toEqual([])
  })

  it('a new row getting its Key is claimed where the basis showed it: no read of the tab', async () => {
    const s = setup()
    const first = await withRows(s, 2, true)
    await s.sheet.write([{ tab: 'Activities', appends: [['DOMAIN\\new', 45300, 0.5, 0.1, 'Client', 'typed by a manager']] }], first)
    const basis = await s.sheet.read(['Activities'])
    s.store.resetStats()
    const report = await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 4, column: 8, values: ['key/3'] }] }], basis)
    expect(report.skipped).toEqual([])
    expect(s.store.stats().byMethod).toEqual({
      BatchUpdateSpreadsheet: 2,
      BatchGetValuesByDataFilter: 1,
      BatchUpdateValuesByDataFilter: 1,
    })
    expect(keys(await s.sheet.read(['Activities']))).toEqual(['key/1', 'key/2', 'key/3'])
    expect(claimsLeft(s)).toEqual([])
  })

  it('a row marked pending, then typed into and sorted while its activity is created: the Key still lands on it, found by its mark', async () => {
    const s = setup()
    const first = await withRows(s, 2, true)
    await s.sheet.write([{ tab: 'Activities', appends: [['DOMAIN\\new', 45300, 0.5, 0.1, 'Client', 'typed by a manager']] }], first)
    const basis = await s.sheet.read(['Activities'])
    await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 4, column: KEY, values: ['pending:run-1:4'] }] }], basis)
    expect(claimsLeft(s)).toEqual([])
    const marked = await s.sheet.read(['Activities'])
    createManager(s.store).editCell(s.spreadsheetId, 'Activities', 'F4', 'typed meanwhile')
    createManager(s.store).sortTab(s.spreadsheetId, 'Activities', 5, 'DESCENDING')
    const report = await s.sheet.write(
      [{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 4, column: 7, values: ['Created on the server.', 'key/3'] }] }],
      marked,
    )
    expect(report.skipped).toEqual([])
    const after = (await s.sheet.read(['Activities'])).tabs['Activities']!.rows
    const created = after.find((r) => r[KEY] === 'key/3')!
    expect([created[5], created[7]]).toEqual(['typed meanwhile', 'Created on the server.'])
    expect(after.map((r) => r[KEY]).sort()).toEqual(['key/1', 'key/2', 'key/3'])
    expect(claimsLeft(s)).toEqual([])
  })

  it('an anchored row a person typed into since the read: cells they did not touch are written, theirs never, and it is not removed', async () => {
    const s = setup()
    const basis = await withRows(s, 3, true)
    createManager(s.store).editCell(s.spreadsheetId, 'Activities', 'E3', 'typed meanwhile')
    const report = await s.sheet.write(
      [
        {
          tab: 'Activities',
          keyColumn: KEY,
          updates: [
            { row: 3, column: 7, values: ['status written'] },
            { row: 3, column: 4, values: ['tags planned'] },
          ],
          deleteRows: [4],
        },
      ],
      basis,
    )
    expect(report.skipped).toEqual([{ tab: 'Activities', row: 3, reason: 'changed' }])
    const rows = (await s.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(rows[1]![4]).toBe('typed meanwhile')
    expect(rows[1]![7]).toBe('status written')
    // Row 4 was emptied in place; an empty last row reads as nothing.
    expect(rows).toHaveLength(2)
    const removal = await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, deleteRows: [3] }], basis)
    expect(removal.skipped).toEqual([{ tab: 'Activities', row: 3, reason: 'changed' }])
    expect(keys(await s.sheet.read(['Activities']))).toEqual(['key/1', 'key/2'])
  })

  it('rows whose Key is on two rows are each found by their cells, and the claims are gone afterwards', async () => {
    const s = setup()
    await withRows(s, 2, true)
    const first = await s.sheet.read(['Activities'])
    const copy = [...row(2)]
    copy[5] = 'pasted copy'
    await s.sheet.write([{ tab: 'Activities', appends: [copy] }], first)
    const basis = await s.sheet.read(['Activities'])
    const report = await s.sheet.write(
      [
        {
          tab: 'Activities',
          keyColumn: KEY,
          updates: [
            { row: 3, column: 7, values: ['original'] },
            { row: 4, column: 7, values: ['copy'] },
          ],
        },
      ],
      basis,
    )
    expect(report.skipped).toEqual([])
    const after = (await s.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(after.map((r) => [r[5], r[7]])).toEqual([
      ['note 1', 'ok'],
      ['note 2', 'original'],
      ['pasted copy', 'copy'],
    ])
    expect(claimsLeft(s)).toEqual([])
  })

  it('a row deleted just before the claims land: the claim that hit another row is tried again, so the new row still gets its Key', async () => {
    let armed = false
    const s = setup(
      {},
      {
        log: (event) => {
          // A person deletes the first row at the very moment the claims leave.
          if (armed && event.type === 'request' && event.operation === 'spreadsheets.batchUpdate') {
            armed = false
            createManager(s.store).deleteRows(s.spreadsheetId, 'Activities', 2)
          }
        },
      },
    )
    const first = await withRows(s, 3, true)
    await s.sheet.write([{ tab: 'Activities', appends: [['DOMAIN\\new', 45300, 0.5, 0.1, 'Client', 'typed by a manager']] }], first)
    const basis = await s.sheet.read(['Activities'])
    armed = true
    const report = await s.sheet.write(
      [{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 5, column: 7, values: ['Created on the server.', 'key/99'] }] }],
      basis,
    )
    expect(report.skipped).toEqual([])
    const after = (await s.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(after.map((r) => [r[5], r[KEY]])).toEqual([
      ['note 2', 'key/2'],
      ['note 3', 'key/3'],
      ['typed by a manager', 'key/99'],
    ])
    expect(claimsLeft(s)).toEqual([])
  })

  it('a claim found on two rows (another tab carries one with its value, as a copy of the tab would) is never written through', async () => {
    const values = ['c0', 'c1', 'c2', 'c3']
    const s = setup({}, { claimValues: () => ({ next: () => values.shift()!, round: () => undefined }) })
    const basis = await withRows(s, 2, true)
    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    await api.spreadsheets.batchUpdate({
      spreadsheetId: s.spreadsheetId,
      requestBody: { requests: [{ addSheet: { properties: { title: 'Copy', sheetId: 77 } } }] },
    })
    await api.spreadsheets.values.update({
      spreadsheetId: s.spreadsheetId,
      range: "'Copy'!A2",
      valueInputOption: 'RAW',
      requestBody: { values: [row(1), row(2)] },
    })
    const activities = s.store.spreadsheets.get(s.spreadsheetId)!.sheets.find((sh) => sh.properties.title === 'Activities')!
    const key = `ts${activities.properties.sheetId.toString(36)}`
    await api.spreadsheets.batchUpdate({
      spreadsheetId: s.spreadsheetId,
      requestBody: {
        requests: [
          {
            createDeveloperMetadata: {
              developerMetadata: {
                metadataKey: key,
                metadataValue: 'c0',
                visibility: 'DOCUMENT',
                location: { dimensionRange: { sheetId: 77, dimension: 'ROWS', startIndex: 2, endIndex: 3 } },
              },
            },
          },
        ],
      },
    })
    const report = await s.sheet.write(
      [{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 3, column: 7, values: ['mine only'] }] }],
      basis,
    )
    expect(report.skipped).toEqual([])
    expect((await s.sheet.read(['Activities'])).tabs['Activities']!.rows[1]![7]).toBe('mine only')
    const copy = await api.spreadsheets.values.get({ spreadsheetId: s.spreadsheetId, range: "'Copy'!H3" })
    expect(copy.data.values).toEqual([['ok']])
    // The second claim (c1, after a fresh read) carried the value; every claim with the tab's key is gone.
    expect(values).toEqual(['c2', 'c3'])
    expect(claimsLeft(s)).toEqual([])
  })

  it('a sort between the read-back and the value write still lands every cell on its own row', async () => {
    const s = setup(
      {},
      {
        log: (event) => {
          // A person sorts at the very moment the value write leaves.
          if (event.type === 'request' && event.operation === 'values.batchUpdateByDataFilter')
            createManager(s.store).sortTab(s.spreadsheetId, 'Activities', 5, 'DESCENDING')
        },
      },
    )
    const basis = await withRows(s, 4, true)
    const report = await s.sheet.write(
      [
        {
          tab: 'Activities',
          keyColumn: KEY,
          updates: [2, 3, 4, 5].map((r) => ({ row: r, column: 7, values: [`status of key/${r - 1}`] })),
        },
      ],
      basis,
    )
    expect(report.skipped).toEqual([])
    const after = (await s.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(after.map((r) => r[KEY])).toEqual(['key/4', 'key/3', 'key/2', 'key/1'])
    for (const r of after) expect(r[7]).toBe(`status of ${String(r[KEY])}`)
  })

  it('a later run that takes the tab ids and row formats from hints adds rows without asking for them', async () => {
    const s = setup()
    await withRows(s, 4, true)
    const hints = s.sheet.exportHints!()
    expect(hints).toMatchObject({
      rowFormats: {
        Activities: {
          Date: { numberFormat: { type: 'DATE', pattern: 'yyyy-mm-dd' } },
          Delete: { dataValidation: { condition: { type: 'BOOLEAN' } } },
        },
      },
    })
    const later = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    later.importHints!(hints)
    const basis = await later.read(['Activities'])
    s.store.resetStats()
    await later.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(5)] }], basis)
    // One batchUpdate, which also checks the hinted id still names the tab (a rename to its own title).
    expect(s.store.stats().byMethod).toEqual({ BatchUpdateSpreadsheet: 1 })
    expect(keys(await later.read(['Activities']))).toEqual(['key/1', 'key/2', 'key/3', 'key/4', 'key/5'])
    const grid = await directClient(signInWithStaticToken(TOKEN).client, ROOT).spreadsheets.get({
      spreadsheetId: s.spreadsheetId,
      ranges: ["'Activities'!B6:G6"],
      fields: 'sheets.data.rowData.values(userEnteredFormat.numberFormat,dataValidation.condition.type)',
    })
    const cells = grid.data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values ?? []
    expect(cells[0]?.userEnteredFormat?.numberFormat).toEqual({ type: 'DATE', pattern: 'yyyy-mm-dd' })
    expect(cells[5]?.dataValidation?.condition?.type).toBe('BOOLEAN')
  })

  it('hints this version cannot read in part keep the part it can: row formats garbled, tab ids still used', async () => {
    const s = setup()
    await withRows(s, 1, true)
    const { sheetIds } = s.sheet.exportHints!()
    const later = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    later.importHints!({ sheetIds, rowFormats: { Activities: { Date: { numberFormat: 'yyyy' } } } })
    const basis = await later.read(['Activities'])
    s.store.resetStats()
    await later.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(2)] }], basis)
    expect(s.store.stats().byMethod).toEqual({ BatchUpdateSpreadsheet: 1 })
    expect(later.exportHints!()).not.toHaveProperty('rowFormats.Activities')
  })

  it('stale hints (the tab was made again under a new id) cost one request, never a wrong write', async () => {
    const s = setup()
    await withRows(s, 4, true)
    const later = createGoogleSpreadsheet({
      spreadsheetId: s.spreadsheetId,
      auth: signInWithStaticToken(TOKEN),
      rootUrl: ROOT,
      retry: { sleep: async () => undefined },
    })
    later.importHints!({ sheetIds: { Activities: 987654 } })
    const basis = await later.read(['Activities'])
    s.store.resetStats()
    await later.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(5)] }], basis)
    expect(s.store.stats().byMethod).toEqual({ BatchUpdateSpreadsheet: 2, GetSpreadsheet: 1 })
    expect(keys(await later.read(['Activities']))).toEqual(['key/1', 'key/2', 'key/3', 'key/4', 'key/5'])
    // The same for a write that claims rows: the claims' batch refuses the stale id before it claims anything.
    const again = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    again.importHints!({ sheetIds: { Activities: 987654 } })
    const basis2 = await again.read(['Activities'])
    s.store.resetStats()
    await again.write([{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 2, column: 7, values: ['x'] }] }], basis2)
    expect(s.store.stats().byMethod).toEqual({
      BatchUpdateSpreadsheet: 3,
      GetSpreadsheet: 1,
      BatchGetValuesByDataFilter: 1,
      BatchUpdateValuesByDataFilter: 1,
    })
    expect((await again.read(['Activities'])).tabs['Activities']!.rows[0]![7]).toBe('x')
    expect(claimsLeft(s)).toEqual([])
  })

  it('a hinted id that now names another tab: the batch refuses before it adds anything, and the rows land in the right tab', async () => {
    const s = setup()
    await withRows(s, 2, true)
    const ids = s.sheet.exportHints!().sheetIds as Record<string, number>
    const later = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    later.importHints!({ sheetIds: { Activities: ids['Allowed tags']!, 'Allowed tags': ids['Activities']! } })
    const basis = await later.read(['Activities', 'Allowed tags'])
    await later.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(3)] }], basis)
    const after = await later.read(['Activities', 'Allowed tags'])
    expect(keys(after)).toEqual(['key/1', 'key/2', 'key/3'])
    expect(after.tabs['Allowed tags']!.rows).toEqual([])
  })

  it('updates alone cost the claims, one read-back, one value write and the claims removed, however large the sheet', async () => {
    const s = setup()
    const basis = await withRows(s, 300, true)
    s.store.resetStats()
    await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 150, column: 7, values: ['error: x'] }] }], basis)
    expect(s.store.stats()).toMatchObject({
      total: 4,
      byMethod: { BatchUpdateSpreadsheet: 2, BatchGetValuesByDataFilter: 1, BatchUpdateValuesByDataFilter: 1 },
    })
  })

  it('grows the grid when appends run past it, and rows 1001+ carry their column formats, checkbox and dropdown', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    const basis = await s.sheet.read(['Activities'])
    await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: Array.from({ length: 1200 }, (_, i) => row(i + 1)) }], basis)
    const after = await s.sheet.read(['Activities'])
    expect(after.tabs['Activities']!.rows).toHaveLength(1200)
    // Rows are inserted after the last data row, never written over: the grid keeps its empty rows below.
    expect(after.tabs['Activities']!.gridRowCount).toBe(2200)
    const { data } = await directClient(signInWithStaticToken(TOKEN).client, ROOT).spreadsheets.get({
      spreadsheetId: s.spreadsheetId,
      ranges: ["'Activities'!A1001:I1201"],
      fields: 'sheets.data.rowData.values(userEnteredValue,userEnteredFormat(numberFormat,wrapStrategy),dataValidation)',
    })
    const rows = data.sheets?.[0]?.data?.[0]?.rowData ?? []
    expect(rows).toHaveLength(201)
    for (const r of rows) {
      const [user, date, start, duration, tags, notes, checkbox] = r.values ?? []
      expect(user?.userEnteredFormat?.numberFormat).toEqual({ type: 'TEXT' })
      expect(date?.userEnteredFormat?.numberFormat).toEqual({ type: 'DATE', pattern: 'yyyy-mm-dd' })
      expect(start?.userEnteredFormat?.numberFormat).toEqual({ type: 'TIME', pattern: 'hh:mm' })
      expect(duration?.userEnteredFormat?.numberFormat).toEqual({ type: 'TIME', pattern: '[h]:mm' })
      expect(tags?.dataValidation).toMatchObject({
        condition: { type: 'ONE_OF_RANGE', values: [{ userEnteredValue: "='Allowed tags'!$B$2:$B" }] },
        showCustomUi: true,
      })
      expect(notes?.userEnteredFormat?.wrapStrategy).toBe('WRAP')
      expect(checkbox?.dataValidation).toEqual({ condition: { type: 'BOOLEAN' }, strict: true })
      expect(checkbox?.userEnteredValue).toEqual({ boolValue: false })
    }
  })

  it('splits writes only to stay under the payload limit', async () => {
    const s = setup({}, { maxPayloadBytes: 4_000 })
    const basis = await withRows(s, 0)
    s.store.resetStats()
    await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: Array.from({ length: 100 }, (_, i) => row(i + 1)) }], basis)
    const writes = s.store.stats().byMethod.BatchUpdateSpreadsheet ?? 0
    expect(writes).toBeGreaterThan(1)
    const after = await s.sheet.read(['Activities'])
    expect(keys(after)).toEqual(Array.from({ length: 100 }, (_, i) => `key/${i + 1}`))
    expect(claimsLeft(s)).toEqual([])
  })
})

describe('values round-trip as written', () => {
  const texts = ['=IMPORTDATA("https://example.com/x")', '0042', '+1 555 0100', 'line one\nline two', 'TRUE', '2024-01-02', ' padded ']

  it('stores free text as text: never a formula, a number or a date', async () => {
    const s = setup()
    const basis = await withRows(s, 1)
    await s.sheet.write([{ tab: 'Activities', appends: texts.map((text) => [text]) }], basis)
    const snapshot = await s.sheet.read(['Activities'])
    expect(snapshot.tabs['Activities']!.rows.slice(1).map((r) => r[0])).toEqual(texts)
    // FORMULA rendering shows a formula as its text too, so check the stored values unformatted.
    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    const { data } = await api.spreadsheets.values.get({
      spreadsheetId: s.spreadsheetId,
      range: "'Activities'!A3:A9",
      valueRenderOption: 'UNFORMATTED_VALUE',
    })
    expect(data.values?.map((r) => r[0])).toEqual(texts)
  })

  it('keeps numbers, booleans and serials as numbers', async () => {
    const s = setup()
    const basis = await withRows(s, 0)
    await s.sheet.write([{ tab: 'Activities', appends: [['u', 45293, 9.5 / 24, 1.5, 'x', 'n', true, 'ok', 'k']] }], basis)
    const r = (await s.sheet.read(['Activities'])).tabs['Activities']!.rows[0]!
    expect(r.slice(1, 4)).toEqual([45293, 9.5 / 24, 1.5])
    expect(r[6]).toBe(true)
  })
})

describe('quota and faults', () => {
  it('429 storm: holds the lane until the quota window passes and succeeds', async () => {
    let clock = Date.UTC(2026, 0, 1, 12, 0, 10)
    const s = setup(
      { now: () => clock, quota: { readPerUser: 2, writePerUser: 100 } },
      {
        quota: { now: () => clock, random: () => 0 },
        retry: {
          sleep: async (ms) => {
            clock += ms
          },
        },
      },
    )
    const start = clock
    for (let i = 0; i < 5; i++) await s.sheet.read(['Sheet1'])
    const stats = s.store.stats()
    expect(stats.quotaRejections).toBeGreaterThanOrEqual(2)
    // Five reads at two per minute need two more windows.
    expect(clock - start).toBeGreaterThanOrEqual(2 * 60_000 - 10_000)
    expect(s.events.filter((e) => e.type === 'retry').every((e) => e.type === 'retry' && e.reason.includes('429'))).toBe(true)
  })

  it('429 that never ends: gives up with the quota hint after the retry limit', async () => {
    const s = setup({ faults: [{ status: 429, times: 100 }] }, { retry: { limit: 2 } })
    const error = await caught(s.sheet.read(['Sheet1']))
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).status).toBe(429)
    expect((error as HttpError).hint).toContain('quota')
    expect(s.store.stats().total).toBe(3)
  })

  it('503 backs off and then succeeds', async () => {
    const s = setup({ faults: [{ status: 503, times: 2, method: 'BatchGetValues' }] })
    await s.sheet.read(['Sheet1'])
    expect(s.sleeps).toHaveLength(2)
    expect(s.sleeps[1]!).toBeGreaterThan(s.sleeps[0]! * 1.2)
  })

  it('values written, then 503: the repeat writes the same cells, nothing more', async () => {
    const s = setup()
    const basis = await withRows(s, 2, true)
    s.store.faults.inject({ status: 503, method: 'BatchUpdateValuesByDataFilter', applyThenFail: true })
    const report = await s.sheet.write(
      [{ tab: 'Activities', keyColumn: KEY, appends: [row(3)], updates: [{ row: 2, column: 5, values: ['edited'] }] }],
      basis,
    )
    expect(report.appended).toEqual({ Activities: { firstRow: 4, count: 1 } })
    const after = await s.sheet.read(['Activities'])
    expect(keys(after)).toEqual(['key/1', 'key/2', 'key/3'])
    expect(after.tabs['Activities']!.rows[0]![5]).toBe('edited')
    expect(s.store.stats().byMethod.BatchUpdateValuesByDataFilter).toBe(2)
  })

  it('rows added, then 503: their Keys show the batch landed, so the rows are not added again', async () => {
    const s = setup()
    const basis = await withRows(s, 2, true)
    s.store.faults.inject({ status: 503, method: 'BatchUpdateSpreadsheet', applyThenFail: true })
    s.store.resetStats()
    await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(3), row(4)] }], basis)
    // One look at the tab; an answer came (503), so no wait for Google's processing window.
    expect(s.store.stats().byMethod).toEqual({ BatchUpdateSpreadsheet: 1, BatchGetValues: 1 })
    expect(keys(await s.sheet.read(['Activities']))).toEqual(['key/1', 'key/2', 'key/3', 'key/4'])
    expect(s.events).toContainEqual({ type: 'structural-repeat', outcome: 'applied' })
    expect(s.events.some((e) => e.type === 'write-unanswered')).toBe(false)
  })

  it('rows without a Key added, then 503: a look at the tab shows they landed', async () => {
    const s = setup()
    const basis = await withRows(s, 2)
    s.store.faults.inject({ status: 503, method: 'BatchUpdateSpreadsheet', applyThenFail: true })
    await s.sheet.write([{ tab: 'Activities', appends: [row(3)] }], basis)
    expect(keys(await s.sheet.read(['Activities']))).toEqual(['key/1', 'key/2', 'key/3'])
    expect(s.events).toContainEqual({ type: 'structural-repeat', outcome: 'applied' })
  })

  it("rows without a Key added after an emptied row, then 503: the look is not fooled by the write's own changes", async () => {
    const s = setup()
    const basis = await withRows(s, 3)
    s.store.faults.inject({ status: 503, method: 'BatchUpdateSpreadsheet', applyThenFail: true })
    await s.sheet.write(
      [{ tab: 'Activities', deleteRows: [3], updates: [{ row: 2, column: 5, values: ['edited'] }], appends: [row(4)] }],
      basis,
    )
    const after = await s.sheet.read(['Activities'])
    expect(keys(after)).toEqual(['key/1', undefined, 'key/3', 'key/4'])
    expect(after.tabs['Activities']!.rows[0]![5]).toBe('edited')
    expect(s.events).toContainEqual({ type: 'structural-repeat', outcome: 'applied' })
  })

  it('503 before the rows were added: their Keys are not there, so the batch is sent again', async () => {
    const s = setup()
    const basis = await withRows(s, 2, true)
    s.store.faults.inject({ status: 503, method: 'BatchUpdateSpreadsheet' })
    await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(3)] }], basis)
    expect(keys(await s.sheet.read(['Activities']))).toEqual(['key/1', 'key/2', 'key/3'])
    expect(s.events).toContainEqual({ type: 'structural-repeat', outcome: 'not-applied' })
  })

  it('a manager edit between the lost answer and the repeat of rows without anchors: stops instead of guessing', async () => {
    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    let edited = false
    const s: Setup = setup(
      {},
      {
        retry: {
          sleep: async () => {
            if (edited) return
            edited = true
            await managerActionsOverApi(api, s.spreadsheetId).insertBlankRow('Activities', 2)
          },
        },
      },
    )
    const basis = await withRows(s, 4)
    s.store.faults.inject({ status: 503, method: 'BatchUpdateSpreadsheet' })
    const error = await caught(s.sheet.write([{ tab: 'Activities', appends: [row(5)] }], basis))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_SHEETS_API')
    expect((error as Error).message).toContain('changed while rows were being added')
    expect(keys(await s.sheet.read(['Activities']))).toEqual([undefined, 'key/1', 'key/2', 'key/3', 'key/4'])
  })

  it('rows with new Keys: a manager insert between the lost answer and the look does not matter, the Keys tell', async () => {
    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    let edited = false
    const s: Setup = setup(
      {},
      {
        retry: {
          sleep: async () => {
            if (edited) return
            edited = true
            await managerActionsOverApi(api, s.spreadsheetId).insertBlankRow('Activities', 2)
          },
        },
      },
    )
    const basis = await withRows(s, 4, true)
    s.store.faults.inject({ status: 503, method: 'BatchUpdateSpreadsheet', applyThenFail: true })
    await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: [row(5)] }], basis)
    expect(keys(await s.sheet.read(['Activities']))).toEqual([undefined, 'key/1', 'key/2', 'key/3', 'key/4', 'key/5'])
    expect(s.events).toContainEqual({ type: 'structural-repeat', outcome: 'applied' })
  })

  it('layout applied, then 503: plans again from what is there and adds nothing twice', async () => {
    const s = setup({ faults: [{ status: 503, method: 'BatchUpdateSpreadsheet', applyThenFail: true }] })
    const report = await s.sheet.ensureLayout(TABS, LAYOUT)
    expect(report).toEqual({ createdTabs: ['Activities', 'Allowed tags', 'Sync log'], changed: true })
    expect(s.store.stats().byMethod.BatchUpdateSpreadsheet).toBe(1)
    expect(await s.sheet.ensureLayout(TABS, LAYOUT)).toEqual({ createdTabs: [], changed: false })
  })
})

describe('errors say what to do', () => {
  it.each([
    ['NaN in an update', { updates: [{ row: 3, column: 5, values: ['ok', Number.NaN] }] }, "Cannot write NaN to 'Activities'!G3"],
    [
      'Infinity in an append',
      { appends: [row(3), [...row(4).slice(0, 2), Number.POSITIVE_INFINITY]] },
      'Activities appended row 2, cell 3',
    ],
  ])('refuses %s, naming the cell, and writes nothing', async (_label, write, message) => {
    const s = setup()
    const basis = await withRows(s, 2, true)
    s.store.resetStats()
    const error = await caught(s.sheet.write([{ tab: 'Activities', keyColumn: KEY, ...write }], basis))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_VALIDATION')
    expect((error as Error).message).toContain(message)
    expect(s.store.stats().total).toBe(0)
  })

  it('404: the id is wrong or the spreadsheet is not shared', async () => {
    const s = setup()
    const other = createGoogleSpreadsheet({ spreadsheetId: 'doesNotExist', auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    const error = await caught(other.read(['Activities']))
    expect(error).toBeInstanceOf(HttpError)
    expect((error as HttpError).status).toBe(404)
    expect((error as HttpError).message).toContain('Requested entity was not found.')
    expect((error as HttpError).hint).toContain('doesNotExist')
    expect(s.store.stats().total).toBe(1)
  })

  it('403: share the spreadsheet with the service account as editor', async () => {
    const pair = await generateKeyPair('RS256', { extractable: true })
    const s = setup({ faults: [{ status: 403 }] })
    const key: ServiceAccountKey = {
      type: 'service_account',
      client_email: 'bridge@p.iam.gserviceaccount.com',
      private_key: await exportPKCS8(pair.privateKey),
      private_key_id: 'k',
      token_uri: `${ROOT}token`,
    }
    s.store.auth.registerServiceAccount({ clientEmail: key.client_email, publicKey: await exportSPKI(pair.publicKey) })
    const sheet = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithServiceAccount(key), rootUrl: ROOT })
    const error = await caught(sheet.read(['Sheet1']))
    expect((error as HttpError).status).toBe(403)
    expect((error as HttpError).hint).toBe('Share the spreadsheet with bridge@p.iam.gserviceaccount.com as editor.')
  })

  it('401: the credentials were refused, and the token is not in the message', async () => {
    const s = setup()
    const sheet = createGoogleSpreadsheet({
      spreadsheetId: s.spreadsheetId,
      auth: signInWithStaticToken('ya29.not-known-here'),
      rootUrl: ROOT,
    })
    const error = await caught(sheet.read(['Sheet1']))
    expect((error as HttpError).status).toBe(401)
    expect((error as HttpError).hint).toContain('credentials')
    expect(JSON.stringify({ m: (error as Error).message, d: (error as HttpError).data, h: (error as HttpError).hint })).not.toContain(
      'ya29.not-known-here',
    )
  })

  it('refuses a spreadsheet id that cannot be one before any request', () => {
    expect(() => createGoogleSpreadsheet({ spreadsheetId: 'https://docs.google.com/x', auth: signInWithStaticToken(TOKEN) })).toThrow(
      /not a Google spreadsheet id/,
    )
  })
})

describe('service-account sign-in against the fake token endpoint', () => {
  let key: ServiceAccountKey
  let publicPem: string

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true })
    publicPem = await exportSPKI(pair.publicKey)
    key = {
      type: 'service_account',
      client_email: 'sync@proj.iam.gserviceaccount.com',
      private_key: await exportPKCS8(pair.privateKey),
      private_key_id: 'kid-9',
      token_uri: `${ROOT}token`,
    }
  })

  beforeEach(() => undefined)

  it('exchanges a JWT at token_uri once and reuses the token', async () => {
    const s = setup()
    s.store.auth.registerServiceAccount({ clientEmail: key.client_email, publicKey: publicPem })
    const sheet = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithServiceAccount(key), rootUrl: ROOT })
    await sheet.read(['Sheet1'])
    await sheet.read(['Sheet1'])
    const tokenRequests = s.store.auth.tokenRequests()
    expect(tokenRequests).toHaveLength(1)
    expect(tokenRequests[0]).toMatchObject({ grantType: 'urn:ietf:params:oauth:grant-type:jwt-bearer', status: 200 })
  })

  it('a busy token endpoint (503) is retried by the same policy, then the read succeeds', async () => {
    const s = setup()
    s.store.auth.registerServiceAccount({ clientEmail: key.client_email, publicKey: publicPem })
    server.use(http.post(`${ROOT}token`, () => HttpResponse.json({ error: 'backend_error' }, { status: 503 }), { once: true }))
    const sheet = createGoogleSpreadsheet({
      spreadsheetId: s.spreadsheetId,
      auth: signInWithServiceAccount(key),
      rootUrl: ROOT,
      retry: { sleep: async (ms) => void s.sleeps.push(ms) },
    })
    await sheet.read(['Sheet1'])
    expect(s.sleeps).toHaveLength(1)
    expect(s.store.auth.tokenRequests()).toHaveLength(1)
  })

  it('invalid_grant (unknown account) fails with TS_AUTH_FAILED and is not retried', async () => {
    const s = setup()
    const sheet = createGoogleSpreadsheet({
      spreadsheetId: s.spreadsheetId,
      auth: signInWithServiceAccount(key, { source: '/keys/sa.json' }),
      rootUrl: ROOT,
    })
    const error = await caught(sheet.read(['Sheet1']))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_FAILED')
    expect((error as Error).message).toContain('/keys/sa.json')
    expect((error as Error).message).toContain('invalid_grant')
    expect(s.store.auth.tokenRequests()).toHaveLength(1)
    expect(s.store.stats().total).toBe(0)
  })
})
