/**
 * How the Google backend reads for a run that knows which rows it will write (`rowsToWrite`): an incremental
 * export reads the Key and Base columns of every row, then the rows it will write whole by position
 * (`rowsToWrite.everyRow`), instead of the whole tab. Whenever the answer cannot show all the plan needs (a
 * header moved, a Key on two rows, rows moved between the two requests) the backend reads the whole tab. A read
 * of a tab's header only. Through the real @googleapis/sheets client against the Sheets fake, in-process; the
 * assembly itself is also checked as a pure function, against every tab fast-check makes.
 */
import fc from 'fast-check'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import type { CellValue, ReadOptions, Snapshot, Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { assemblePartialTab, columnPositions } from '../../src/sheets/google/partial-read.ts'
import type { RowEcho } from '../../src/sheets/google/row-claims.ts'

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
      { name: 'Base', kind: 'text', hidden: true, protected: true },
    ],
  },
  { title: 'Sync log', readOnly: true, columns: [{ name: 'When', kind: 'text' }] },
]
const KEY = 2
const PARTIAL: ReadOptions = { rowsToWrite: { tab: 'Activities', keys: ['key/2'], everyRow: { key: 'Key', others: ['Base'] } } }

interface Setup {
  store: SheetsStore
  spreadsheetId: string
  sheet: Spreadsheet
}

/** A laid out spreadsheet with `count` rows `key/1`…, written by a backend that has read the tab once. */
async function setup(count = 4, onRequest?: (operation: string) => void): Promise<Setup> {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const sheet = createGoogleSpreadsheet({
    spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: ROOT,
    ...(onRequest ? { log: (event) => void (event.type === 'request' && onRequest(event.operation)) } : {}),
  })
  await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
  const empty = await sheet.read(['Activities', 'Sync log'])
  const rows = Array.from({ length: count }, (_, i) => [`u${i + 1}`, `note ${i + 1}`, `key/${i + 1}`, `b${i + 1}`])
  await sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: rows }], empty)
  store.resetStats()
  return { store, spreadsheetId, sheet }
}

/** A new process of the tool: a backend that knows only what the last run left in the state's hints. */
function nextRun(s: Setup, hints = s.sheet.exportHints?.(), onRequest?: (operation: string) => void): Spreadsheet {
  const sheet = createGoogleSpreadsheet({
    spreadsheetId: s.spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: ROOT,
    ...(onRequest ? { log: (event) => void (event.type === 'request' && onRequest(event.operation)) } : {}),
  })
  sheet.importHints?.(hints ?? {})
  return sheet
}

function notes(s: Setup): Record<string, string> {
  const rows = createManager(s.store).readTab(s.spreadsheetId, 'Activities').slice(1)
  return Object.fromEntries(rows.map((r) => [String(r[KEY]), String(r[1])]))
}

async function update(sheet: Spreadsheet, basis: Snapshot, key: string, value: string) {
  const row = basis.tabs['Activities']!.rows.findIndex((r) => r[KEY] === key) + 2
  return sheet.write(
    [
      { tab: 'Activities', keyColumn: KEY, updates: [{ row, column: 1, values: [value] }] },
      { tab: 'Sync log', appends: [['run']] },
    ],
    basis,
  )
}

function claimsLeft(s: Setup): number {
  return [...s.store.spreadsheets.get(s.spreadsheetId)!.metadata.values()].filter((m) => /^ts[0-9a-z]+$/.test(m.metadataKey)).length
}

describe('an incremental read of Key, Base and the rows to write', () => {
  it('reads two columns, then the wanted row whole by position; the write claims that row where the read showed it', async () => {
    const s = await setup()
    const whole = await nextRun(s).read(['Activities'])
    s.store.resetStats()
    const sheet = nextRun(s)
    const basis = await sheet.read(['Activities', 'Sync log'], PARTIAL)
    const tab = basis.tabs['Activities']!
    expect(tab.partial).toBe(true)
    expect(tab.header).toEqual(['User', 'Notes', 'Key', 'Base'])
    expect(tab.rows).toEqual([
      [null, null, 'key/1', 'b1'],
      ['u2', 'note 2', 'key/2', 'b2'],
      [null, null, 'key/3', 'b3'],
      [null, null, 'key/4', 'b4'],
    ])
    expect(tab.gridRowCount).toBe(whole.tabs['Activities']!.gridRowCount)
    expect(basis.tabs['Sync log']!.partial).toBeUndefined()
    const report = await sheet.write(
      [
        {
          tab: 'Activities',
          keyColumn: KEY,
          updates: [{ row: 3, column: 1, values: ['from the server'] }],
          appends: [['u9', 'n9', 'key/9', 'b9']],
        },
        { tab: 'Sync log', appends: [['run']] },
      ],
      basis,
    )
    expect(report.skipped).toEqual([])
    // Two reads, then the claim, its read-back, the value, and the new rows with the claim's removal.
    expect(s.store.stats().byMethod).toEqual({ BatchGetValuesByDataFilter: 3, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 2 })
    expect(claimsLeft(s)).toBe(0)
    const after = createManager(s.store).readTab(s.spreadsheetId, 'Activities')
    expect(after.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['u1', 'note 1', 'key/1'],
      ['u2', 'from the server', 'key/2'],
      ['u3', 'note 3', 'key/3'],
      ['u4', 'note 4', 'key/4'],
      ['u9', 'n9', 'key/9'],
    ])
  })

  it('reads the whole tab when the columns moved since the header was last seen', async () => {
    const s = await setup()
    const hints = s.sheet.exportHints?.() as { headers: Record<string, unknown> }
    const sheet = nextRun(s, { ...hints, headers: { ...hints.headers, Activities: ['User', 'Key', 'Notes', 'Base'] } })
    const basis = await sheet.read(['Activities', 'Sync log'], PARTIAL)
    expect(basis.tabs['Activities']!.partial).toBeUndefined()
    expect(basis.tabs['Activities']!.rows.map((r) => r[1])).toEqual(['note 1', 'note 2', 'note 3', 'note 4'])
  })

  it('reads the whole tab when no header is known yet', async () => {
    const s = await setup()
    const sheet = nextRun(s, { ...(s.sheet.exportHints?.() as object), headers: undefined })
    const basis = await sheet.read(['Activities', 'Sync log'], PARTIAL)
    expect(basis.tabs['Activities']!.partial).toBeUndefined()
    expect(basis.tabs['Activities']!.rows[0]).toEqual(['u1', 'note 1', 'key/1', 'b1'])
  })

  it('reads the whole tab when a wanted Key shows on two rows (a pasted copy)', async () => {
    const s = await setup()
    createManager(s.store).editCell(s.spreadsheetId, 'Activities', 'C4', 'key/2')
    const basis = await nextRun(s).read(['Activities', 'Sync log'], PARTIAL)
    const tab = basis.tabs['Activities']!
    expect(tab.partial).toBeUndefined()
    expect(tab.rows.every((r) => typeof r[0] === 'string' && typeof r[1] === 'string')).toBe(true)
  })

  it('a wanted Key a person moved to another row is read whole where it is now', async () => {
    const s = await setup()
    const manager = createManager(s.store)
    manager.editCell(s.spreadsheetId, 'Activities', 'C3', 'key/3b')
    manager.editCell(s.spreadsheetId, 'Activities', 'C5', 'key/2')
    const basis = await nextRun(s).read(['Activities', 'Sync log'], PARTIAL)
    const tab = basis.tabs['Activities']!
    expect(tab.partial).toBe(true)
    expect(tab.rows[3]).toEqual(['u4', 'note 4', 'key/2', 'b4'])
    expect(tab.rows[1]).toEqual([null, null, 'key/3b', 'b2'])
  })

  it('reads the whole tab when the rows moved between the two requests', async () => {
    const s = await setup()
    let sorted = false
    const sheet = nextRun(s, s.sheet.exportHints?.(), (operation) => {
      // A person sorts as the second request (the rows to write, by position) leaves.
      if (operation !== 'values.batchGetByDataFilter' || sorted) return
      if (s.store.stats().byMethod.BatchGetValuesByDataFilter !== 1) return
      sorted = true
      createManager(s.store).sortTab(s.spreadsheetId, 'Activities', 1, 'DESCENDING')
    })
    s.store.resetStats()
    const basis = await sheet.read(['Activities', 'Sync log'], PARTIAL)
    expect(sorted).toBe(true)
    const tab = basis.tabs['Activities']!
    expect(tab.partial).toBeUndefined()
    expect(tab.rows.map((r) => r[KEY])).toEqual(['key/4', 'key/3', 'key/2', 'key/1'])
  })

  it('without everyRow the tab is read whole in one request, and the write claims its rows: five requests in all', async () => {
    const s = await setup()
    const sheet = nextRun(s)
    const basis = await sheet.read(['Activities', 'Sync log'], { rowsToWrite: { tab: 'Activities', keys: ['key/2'] } })
    expect(basis.tabs['Activities']!.partial).toBeUndefined()
    expect(basis.tabs['Activities']!.rows).toHaveLength(4)
    expect(basis.tabs['Sync log']!.exists).toBe(true)
    const report = await update(sheet, basis, 'key/2', 'from the server')
    expect(report.skipped).toEqual([])
    expect(s.store.stats().byMethod).toEqual({
      BatchGetValues: 1,
      BatchGetValuesByDataFilter: 1,
      BatchUpdateValuesByDataFilter: 1,
      BatchUpdateSpreadsheet: 2,
    })
    expect(notes(s)).toEqual({ 'key/1': 'note 1', 'key/2': 'from the server', 'key/3': 'note 3', 'key/4': 'note 4' })
  })

  it('a person typing into a row after the read, before the write, keeps their cell', async () => {
    const s = await setup()
    const sheet = nextRun(s)
    const basis = await sheet.read(['Activities', 'Sync log'], PARTIAL)
    createManager(s.store).editCell(s.spreadsheetId, 'Activities', 'B3', 'typed by a manager')
    const report = await update(sheet, basis, 'key/2', 'from the server')
    expect(report.skipped).toEqual([{ tab: 'Activities', row: 3, reason: 'changed' }])
    expect(notes(s)['key/2']).toBe('typed by a manager')
    expect(claimsLeft(s)).toBe(0)
  })

  it('a missing tab falls back to the plain read, which says it does not exist', async () => {
    const s = await setup()
    const snapshot = await nextRun(s).read(['Activities', 'Nope'], PARTIAL)
    expect(snapshot.tabs['Nope']!.exists).toBe(false)
    expect(snapshot.tabs['Activities']!.rows).toHaveLength(4)
  })

  it('headerOnly reads row 1 of a tab, and refuses a write to its rows', async () => {
    const s = await setup()
    const snapshot = await s.sheet.read(['Activities', 'Sync log'], { headerOnly: ['Activities'] })
    const tab = snapshot.tabs['Activities']!
    expect(tab).toMatchObject({ exists: true, header: ['User', 'Notes', 'Key', 'Base'], rows: [], headerOnly: true })
    expect(s.store.stats().byMethod).toEqual({ BatchGetValues: 1 })
    const refused = await s.sheet
      .write([{ tab: 'Activities', keyColumn: KEY, appends: [['u9', 'n', 'key/9', 'b9']] }], snapshot)
      .catch((e: unknown) => e)
    expect(isTimelineSheetsError(refused) && refused.code).toBe('TS_INTERNAL')
    // The Sync log of the same read is whole and can be appended to.
    await s.sheet.write([{ tab: 'Sync log', appends: [['run']] }], snapshot)
    expect(createManager(s.store).readTab(s.spreadsheetId, 'Sync log')).toHaveLength(2)
  })
})

describe('assemblePartialTab', () => {
  const header = ['User', 'Notes', 'Key', 'Base']
  const echo = (row: number, cells: CellValue[]): RowEcho => ({ title: 'Activities', row, columnCount: 4, cells })

  it('finds named columns once each, or not at all', () => {
    expect(columnPositions(header, ['Key', 'Base'])).toEqual([2, 3])
    expect(columnPositions(header, ['Key', 'Nope'])).toBeUndefined()
    expect(columnPositions(['Key', 'Key'], ['Key'])).toBeUndefined()
    expect(columnPositions(undefined, ['Key'])).toBeUndefined()
  })

  // Any tab of keyed rows, blank rows and rows with Keys typed twice; the rows of wanted Keys read whole where they are.
  const tabs = fc
    .array(
      fc.oneof(
        fc.record({
          user: fc.string(),
          notes: fc.string(),
          key: fc.integer({ min: 1, max: 12 }).map((n) => ` key/${n} `),
          base: fc.string(),
        }),
        fc.constant(undefined),
      ),
      { maxLength: 30 },
    )
    .chain((rows) => fc.tuple(fc.constant(rows), fc.subarray(Array.from({ length: 12 }, (_, i) => `key/${i + 1}`))))

  it('gives every wanted row whole and every other row its Key and Base, or nothing when a wanted Key is on two rows', () => {
    fc.assert(
      fc.property(tabs, ([rows, keys]) => {
        const full: CellValue[][] = rows.map((r) => (r ? [r.user, r.notes, r.key, r.base] : []))
        const column = (at: number): CellValue[] => [header[at]!, ...full.map((r) => r[at] ?? null)]
        const whole = new Map<string, RowEcho[]>()
        full.forEach((cells, i) => {
          const key = typeof cells[2] === 'string' ? cells[2].trim() : undefined
          if (key) whole.set(key, [...(whole.get(key) ?? []), echo(i + 2, cells)])
        })
        const tab = assemblePartialTab({
          title: 'Activities',
          header,
          columns: [2, 3],
          names: ['Key', 'Base'],
          values: [column(2), column(3)],
          gridRowCount: full.length + 1,
          keyColumn: 0,
          keys,
          whole,
        })
        const twice = keys.some((key) => (whole.get(key)?.length ?? 0) > 1)
        if (twice) {
          expect(tab).toBeUndefined()
          return
        }
        expect(tab?.partial).toBe(true)
        const last = full.reduce((n, r, i) => (r.length > 0 ? i + 1 : n), 0)
        expect(tab!.rows).toHaveLength(last)
        tab!.rows.forEach((cells, i) => {
          const row = full[i]!
          const wanted = typeof row[2] === 'string' && keys.includes(row[2].trim())
          expect(cells).toEqual(wanted ? row : row.length === 0 ? [] : [null, null, row[2], row[3]])
        })
      }),
    )
  })

  it('refuses an answer whose header no longer shows the columns where the request looked', () => {
    const tab = assemblePartialTab({
      title: 'Activities',
      header: ['User', 'Key', 'Notes', 'Base'],
      columns: [2, 3],
      names: ['Key', 'Base'],
      values: [['Notes'], ['Base']],
      gridRowCount: 1,
      keyColumn: 0,
      keys: [],
      whole: new Map(),
    })
    expect(tab).toBeUndefined()
  })

  it('refuses a wanted row read whole on another row, in another tab, or no longer holding its Key', () => {
    for (const found of [
      echo(3, ['u', 'n', 'key/1', 'b']),
      { ...echo(2, ['u', 'n', 'key/1', 'b']), title: 'Copy of Activities' },
      echo(2, ['u', 'n', 'key/7', 'b']),
    ]) {
      const tab = assemblePartialTab({
        title: 'Activities',
        header,
        columns: [2, 3],
        names: ['Key', 'Base'],
        values: [
          ['Key', 'key/1'],
          ['Base', 'b'],
        ],
        gridRowCount: 2,
        keyColumn: 0,
        keys: ['key/1'],
        whole: new Map([['key/1', [found]]]),
      })
      expect(tab).toBeUndefined()
    }
  })
})
