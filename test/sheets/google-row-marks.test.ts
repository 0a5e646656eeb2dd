/**
 * Row marks on a Google tab without a Key (`TabWrite.rowsToRevisit`, src/sheets/google/row-marks.ts), against the
 * Sheets fake: a write keeps one on each row to revisit and none on others; a later backend's read sees them in
 * its one request and its write goes through them with no read of its own, onto the same rows after a sort; when
 * Google has no room for them, the write goes on without them and the next one reads its rows as before.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { metadataUsage } from '../../counterparts/sheets/metadata-budget.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import type { Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { MARK_KEY, MARKS_PER_SHEET, markFilter, marksStale, rebuildMarks, seenMarks } from '../../src/sheets/google/row-marks.ts'
import { directClient, othersMetadata } from './google-fixture.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'row-marks-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const TABS: TabSpec[] = [
  {
    title: 'Periods',
    columns: [
      { name: 'User', kind: 'text' },
      { name: 'Period', kind: 'text' },
      { name: 'Status', kind: 'text' },
    ],
  },
  { title: 'Log', columns: [{ name: 'Message', kind: 'text' }] },
]
const PEOPLE = ['ann', 'bob', 'cid', 'dee']

interface World {
  store: SheetsStore
  spreadsheetId: string
  sheetId: number
  /** A backend as a new process starts one, with the hints the last one left. */
  backend(): Spreadsheet
  /** Moves the backends' clock on. */
  wait(ms: number): void
}

async function world(): Promise<World> {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  let hints: Record<string, unknown> | undefined
  let last: Spreadsheet | undefined
  let clock = Date.parse('2026-11-10T02:00:00Z')
  const backend = () => {
    if (last) hints = last.exportHints!()
    last = createGoogleSpreadsheet({
      spreadsheetId,
      auth: signInWithStaticToken(TOKEN),
      rootUrl: ROOT,
      retry: { limit: 0 },
      quota: { now: () => clock },
    })
    if (hints) last.importHints!(hints)
    return last
  }
  const first = backend()
  await first.ensureLayout(TABS, { timeZone: 'UTC' })
  const sheetId = store.spreadsheets.get(spreadsheetId)!.sheets.find((s) => s.properties.title === 'Periods')!.properties.sheetId
  const empty = await first.read(['Periods', 'Log'])
  const rows = PEOPLE.map((user) => [user, '2026-W45', 'new'])
  // Rows made without marks, as a version before them made them.
  await first.write(
    [
      { tab: 'Periods', appends: rows },
      { tab: 'Log', appends: [['laid out']] },
    ],
    empty,
  )
  return { store, spreadsheetId, sheetId, backend, wait: (ms) => void (clock += ms) }
}

function marksOn(w: World): number {
  const ss = w.store.spreadsheets.get(w.spreadsheetId)!
  return [...ss.metadata.values()].filter((m) => m.metadataKey === MARK_KEY).length
}

/** Status of each user's row, as the tab holds them now. */
function statuses(w: World): Record<string, string> {
  const rows = createManager(w.store).readTab(w.spreadsheetId, 'Periods')
  return Object.fromEntries(rows.slice(1).map((r) => [String(r[0]), String(r[2] ?? '')]))
}

/** Sets every user's Status to `status <user>` on a read, after `between` acts, and counts the write's requests. */
async function writeStatuses(w: World, between?: () => void) {
  const sheet = w.backend()
  const basis = await sheet.read(['Periods', 'Log'])
  const rows = basis.tabs['Periods']!.rows
  between?.()
  w.store.resetStats()
  const report = await sheet.write(
    [
      {
        tab: 'Periods',
        updates: rows.map((cells, i) => ({ row: i + 2, column: 2, values: [`status ${String(cells[0])}`] })),
        rowsToRevisit: rows.map((_, i) => i + 2),
      },
      { tab: 'Log', appends: [['a night']] },
    ],
    basis,
  )
  return { report, byMethod: w.store.stats().byMethod }
}

describe('row marks on a tab without a Key (Google)', () => {
  it('are kept on the rows to revisit, and a later write goes through them with no read, onto the rows a sort moved', async () => {
    const w = await world()
    // The first write of the rows makes their marks, in the batch that appends the Log row.
    const made = await writeStatuses(w)
    expect(made.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
    expect(marksOn(w)).toBe(PEOPLE.length)

    const sorted = await writeStatuses(w, () => createManager(w.store).sortTab(w.spreadsheetId, 'Periods', 0, 'DESCENDING'))
    expect(sorted.report.skipped).toEqual([])
    expect(sorted.byMethod).toEqual({ BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
    expect(statuses(w)).toEqual(Object.fromEntries(PEOPLE.map((u) => [u, `status ${u}`])))
    // Nothing changed about which rows to revisit: the marks were left as they were.
    expect(marksOn(w)).toBe(PEOPLE.length)
  })

  it('stand for where the rows are for 5 s after the read; a later write reads the rows first', async () => {
    const w = await world()
    await writeStatuses(w)
    const late = await writeStatuses(w, () => w.wait(5_001))
    expect(late.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
    expect(statuses(w)).toEqual(Object.fromEntries(PEOPLE.map((u) => [u, `status ${u}`])))
  })

  it('leave the rows that are no longer to be revisited', async () => {
    const w = await world()
    await writeStatuses(w)
    const sheet = w.backend()
    const basis = await sheet.read(['Periods', 'Log'])
    await sheet.write(
      [
        { tab: 'Periods', updates: [{ row: 2, column: 2, values: ['only this one'] }], rowsToRevisit: [2] },
        { tab: 'Log', appends: [['a night']] },
      ],
      basis,
    )
    expect(marksOn(w)).toBe(1)
  })

  it('are kept on as many rows as the budget holds, new rows first, and not made again for the rows beyond', async () => {
    const w = await world()
    const ids = () =>
      [...w.store.spreadsheets.get(w.spreadsheetId)!.metadata.values()]
        .filter((m) => m.metadataKey === MARK_KEY)
        .map((m) => m.metadataId)
        .sort((a, b) => a - b)
    const many = Array.from({ length: MARKS_PER_SHEET + 5 }, (_, i) => [`u${i}`, '2026-W46', 'new'])
    let sheet = w.backend()
    let basis = await sheet.read(['Periods', 'Log'])
    await sheet.write(
      [
        { tab: 'Periods', appends: many, rowsToRevisit: [2, 3, 4, 5] },
        { tab: 'Log', appends: [['more']] },
      ],
      basis,
    )
    expect(marksOn(w)).toBe(MARKS_PER_SHEET)
    const before = ids()
    sheet = w.backend()
    basis = await sheet.read(['Periods', 'Log'])
    const all = basis.tabs['Periods']!.rows.map((_, i) => i + 2)
    const newFirst = [...all.slice(PEOPLE.length), ...all.slice(0, PEOPLE.length)]
    await sheet.write(
      [
        { tab: 'Periods', updates: [{ row: 2, column: 2, values: ['again'] }], rowsToRevisit: newFirst },
        { tab: 'Log', appends: [['a night']] },
      ],
      basis,
    )
    expect(ids()).toEqual(before)
  })

  it('leave a read of a tab deleted since as the plain read answers it: the tab missing, the others read', async () => {
    const w = await world()
    await writeStatuses(w)
    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    await api.spreadsheets.batchUpdate({
      spreadsheetId: w.spreadsheetId,
      requestBody: { requests: [{ deleteSheet: { sheetId: w.sheetId } }] },
    })
    const read = await w.backend().read(['Periods', 'Log'])
    expect(read.tabs['Periods']!.exists).toBe(false)
    expect(read.tabs['Log']!.rows.map((r) => r[0])).toEqual(['laid out', 'a night'])
  })

  it('are left out when Google has no room for them: the write goes on, and the next one reads its rows first', async () => {
    const w = await world()
    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    await api.spreadsheets.batchUpdate({ spreadsheetId: w.spreadsheetId, requestBody: { requests: othersMetadata(w.sheetId, 30_000, 4) } })
    const refused = await writeStatuses(w)
    expect(refused.report.skipped).toEqual([])
    expect(marksOn(w)).toBe(0)
    expect(statuses(w)).toEqual(Object.fromEntries(PEOPLE.map((u) => [u, `status ${u}`])))
    const log = createManager(w.store).readTab(w.spreadsheetId, 'Log')
    expect(log.slice(1).map((r) => r[0])).toEqual(['laid out', 'a night'])
    expect(metadataUsage(w.store.spreadsheets.get(w.spreadsheetId)!).get(w.sheetId)).toBe(30_000)

    const next = await writeStatuses(w, () => createManager(w.store).sortTab(w.spreadsheetId, 'Periods', 0, 'DESCENDING'))
    expect(next.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 2 })
    expect(statuses(w)).toEqual(Object.fromEntries(PEOPLE.map((u) => [u, `status ${u}`])))
  })
})

describe('what a read answer shows of the marks', () => {
  const tab = { title: 'Periods', exists: true, header: ['User'], rows: [['ann'], ['bob']], gridRowCount: 3 }
  const answer = (id: number, range: string, user: string) => ({
    valueRange: { range, values: [[user]] },
    dataFilters: [markFilter(id)],
  })

  it('uses a mark that selects one row of the tab holding what the tab shows there', () => {
    const seen = seenMarks([answer(7, 'Periods!A2:C2', 'ann'), answer(8, 'Periods!A3:C3', 'bob')], tab, 1, 0)
    expect([...seen.byRow]).toEqual([
      [2, 7],
      [3, 8],
    ])
    expect(seen.unusable).toBe(false)
  })

  it('leaves a mark on two rows, on another tab, or on a row that shows other cells, and says so', () => {
    for (const ranges of [
      [answer(7, 'Periods!A2:C2', 'ann'), answer(7, "'Copy of Periods'!A2:C2", 'ann')],
      [answer(7, "'Copy of Periods'!A2:C2", 'ann')],
      [answer(7, 'Periods!A2:C2', 'bob')],
      [answer(7, 'Periods!A2:C3', 'ann')],
    ]) {
      const seen = seenMarks(ranges, tab, 1, 0)
      expect(seen.byRow.size).toBe(0)
      expect(seen.unusable).toBe(true)
      expect(seen.found).toEqual([7])
    }
  })

  it('makes the marks again only when the rows to keep them on changed, and at most as many as the budget holds', () => {
    const seen = seenMarks([answer(7, 'Periods!A2:C2', 'ann'), answer(8, 'Periods!A3:C3', 'bob')], tab, 1, 0)
    expect(marksStale(seen, [3, 2], 0)).toBe(false)
    expect(marksStale(seen, [2], 0)).toBe(true)
    expect(marksStale(seen, [2, 3], 1)).toBe(true)
    const rows = Array.from({ length: MARKS_PER_SHEET + 10 }, (_, i) => i + 2)
    const { requests, marked } = rebuildMarks(1, rows, [7, 8], () => 0.5)
    expect(marked.count).toBe(MARKS_PER_SHEET)
    expect(requests.filter((r) => r.deleteDeveloperMetadata)).toHaveLength(2)
    expect(requests.filter((r) => r.createDeveloperMetadata)).toHaveLength(MARKS_PER_SHEET)
    expect(MARKS_PER_SHEET * MARK_KEY.length).toBeLessThanOrEqual(10_000)
  })
})
