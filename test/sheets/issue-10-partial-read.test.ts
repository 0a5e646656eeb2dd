/**
 * Issue 10: an incremental export reads the Key and Base columns of every row and, in the same request, the
 * rows it will write whole through their anchors (`rowsToWrite.everyRow`), instead of the whole tab. Whenever
 * the answer cannot show all the plan needs (a header moved, a Key on two rows, a row its anchor does not find),
 * the backend reads the whole tab as before. Through the real @googleapis/sheets client against the Sheets
 * fake, in-process; the assembly itself is also checked as a pure function, against every tab fast-check makes.
 */
import fc from 'fast-check'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import type { CellValue, ReadOptions, Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { assemblePartialTab, columnPositions } from '../../src/sheets/google/partial-read.ts'
import type { RowEcho } from '../../src/sheets/google/row-anchors.ts'

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

/** A laid out spreadsheet with `count` anchored rows `key/1`…, written by a backend that has read the tab once. */
async function setup(count = 4): Promise<Setup> {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
  await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
  const empty = await sheet.read(['Activities', 'Sync log'])
  const rows = Array.from({ length: count }, (_, i) => [`u${i + 1}`, `note ${i + 1}`, `key/${i + 1}`, `b${i + 1}`])
  await sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: rows }], empty)
  store.resetStats()
  return { store, spreadsheetId, sheet }
}

/** A new process of the tool: a backend that knows only what the last run left in the state's hints. */
function nextRun(s: Setup, hints = s.sheet.exportHints?.()): Spreadsheet {
  const sheet = createGoogleSpreadsheet({ spreadsheetId: s.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
  sheet.importHints?.(hints ?? {})
  return sheet
}

describe('issue 10: an incremental read of Key, Base and the rows to write (Google)', () => {
  it('reads two columns and the wanted row whole in one request, and the write on it needs no read-back', async () => {
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
    expect(s.store.stats().byMethod).toEqual({ BatchGetValuesByDataFilter: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
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

  it('reads the whole tab when a wanted Key shows on two rows (a pasted copy) or on a row its anchor does not find', async () => {
    for (const edit of ['copy', 'moved key'] as const) {
      const s = await setup()
      const manager = createManager(s.store)
      if (edit === 'copy') manager.editCell(s.spreadsheetId, 'Activities', 'C4', 'key/2')
      else {
        manager.editCell(s.spreadsheetId, 'Activities', 'C3', 'key/3b')
        manager.editCell(s.spreadsheetId, 'Activities', 'C5', 'key/2')
      }
      const basis = await nextRun(s).read(['Activities', 'Sync log'], PARTIAL)
      const tab = basis.tabs['Activities']!
      expect(tab.partial, edit).toBeUndefined()
      expect(
        tab.rows.every((r) => typeof r[0] === 'string' && typeof r[1] === 'string'),
        edit,
      ).toBe(true)
    }
  })

  it('without everyRow the tab is read whole, as before', async () => {
    const s = await setup()
    const basis = await nextRun(s).read(['Activities', 'Sync log'], { rowsToWrite: { tab: 'Activities', keys: ['key/2'] } })
    expect(basis.tabs['Activities']!.partial).toBeUndefined()
    expect(basis.tabs['Activities']!.rows).toHaveLength(4)
  })
})

describe('issue 10: assemblePartialTab', () => {
  const header = ['User', 'Notes', 'Key', 'Base']
  const echo = (row: number, cells: CellValue[]): RowEcho => ({ title: 'Activities', row, columnCount: 4, cells })

  it('finds named columns once each, or not at all', () => {
    expect(columnPositions(header, ['Key', 'Base'])).toEqual([2, 3])
    expect(columnPositions(header, ['Key', 'Nope'])).toBeUndefined()
    expect(columnPositions(['Key', 'Key'], ['Key'])).toBeUndefined()
    expect(columnPositions(undefined, ['Key'])).toBeUndefined()
  })

  // Any tab of keyed rows, blank rows and rows with Keys typed twice; anchors that find the rows they name.
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
        const anchored = new Map<string, RowEcho[]>()
        full.forEach((cells, i) => {
          const key = typeof cells[2] === 'string' ? cells[2].trim() : undefined
          if (key) anchored.set(key, [...(anchored.get(key) ?? []), echo(i + 2, cells)])
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
          anchored,
        })
        const twice = keys.some((key) => (anchored.get(key)?.length ?? 0) > 1)
        if (twice) {
          expect(tab).toBeUndefined()
          return
        }
        expect(tab?.partial).toBe(true)
        const last = full.reduce((n, r, i) => (r.length > 0 ? i + 1 : n), 0)
        expect(tab!.rows).toHaveLength(last)
        tab!.rows.forEach((cells, i) => {
          const whole = full[i]!
          const wanted = typeof whole[2] === 'string' && keys.includes(whole[2].trim())
          expect(cells).toEqual(wanted ? whole : whole.length === 0 ? [] : [null, null, whole[2], whole[3]])
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
      anchored: new Map(),
    })
    expect(tab).toBeUndefined()
  })

  it('refuses a wanted row that its anchor finds on another row or another tab', () => {
    for (const found of [echo(3, ['u', 'n', 'key/1', 'b']), { ...echo(2, ['u', 'n', 'key/1', 'b']), title: 'Copy of Activities' }]) {
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
        anchored: new Map([['key/1', [found]]]),
      })
      expect(tab).toBeUndefined()
    }
  })
})
