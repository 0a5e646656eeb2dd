/**
 * The Google backend within Google's developer-metadata budget (30,000 characters a sheet, enforced by the
 * fake): at most 10,000 characters of its claims on a sheet at any moment, none between writes, whatever the
 * sheet's size or the write's; when others have taken most of the budget, the write goes on in smaller
 * chunks and says so once; with no room at all, it writes nothing to existing rows and says what to do.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { metadataUsage } from '../../counterparts/sheets/metadata-budget.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import type { Snapshot, Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet, type GoogleSheetsEvent } from '../../src/sheets/google/backend.ts'
import { CLAIM_CHARS_PER_SHEET } from '../../src/sheets/google/row-claims.ts'
import { directClient, othersMetadata } from './google-fixture.ts'

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
]
const KEY = 2

interface World {
  store: SheetsStore
  spreadsheetId: string
  sheet: Spreadsheet
  events: GoogleSheetsEvent[]
  /** The most characters of metadata the Activities sheet held after any request, and after the last one. */
  peak: () => number
  now: () => number
}

async function world(rows: number): Promise<World> {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  let sheetId = -1
  let peak = 0
  const usage = () => {
    const ss = store.spreadsheets.get(spreadsheetId)
    return ss && sheetId >= 0 ? (metadataUsage(ss).get(sheetId) ?? 0) : 0
  }
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store, { onRequest: () => void (peak = Math.max(peak, usage())) })))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const events: GoogleSheetsEvent[] = []
  const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT, log: (e) => events.push(e) })
  await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
  sheetId = store.spreadsheets.get(spreadsheetId)!.sheets.find((s) => s.properties.title === 'Activities')!.properties.sheetId
  const empty = await sheet.read(['Activities'])
  await sheet.write(
    [{ tab: 'Activities', keyColumn: KEY, appends: Array.from({ length: rows }, (_, i) => [`u${i}`, `note ${i}`, `tl-ben/${i}`]) }],
    empty,
  )
  return { store, spreadsheetId, sheet, events, peak: () => peak, now: usage }
}

/** Metadata of someone else's on the Activities sheet, `chars` characters in all, on its first rows. */
async function othersTake(w: World, chars: number, key?: string): Promise<void> {
  const ss = w.store.spreadsheets.get(w.spreadsheetId)!
  const sheetId = ss.sheets.find((s) => s.properties.title === 'Activities')!.properties.sheetId
  const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
  await api.spreadsheets.batchUpdate({ spreadsheetId: w.spreadsheetId, requestBody: { requests: othersMetadata(sheetId, chars, 50, key) } })
}

/** An update of the Notes of every `step`-th row of the basis. */
function everyNth(basis: Snapshot, step: number, text: string) {
  const rows = basis.tabs['Activities']!.rows
  const updates = []
  for (let i = 0; i < rows.length; i += step) updates.push({ row: i + 2, column: 1, values: [`${text} ${i}`] })
  return [{ tab: 'Activities', keyColumn: KEY, updates }]
}

describe('developer metadata a write keeps on a sheet', () => {
  it('a first export of 5,000 rows and an update of 3,000 of them stay within 10,000 characters, none left after', async () => {
    const w = await world(5_000)
    expect(w.peak()).toBe(0)
    const basis = await w.sheet.read(['Activities'])
    const report = await w.sheet.write(
      everyNth(basis, 1, 'edited').map((t) => ({ ...t, updates: t.updates.slice(0, 3_000) })),
      basis,
    )
    expect(report.skipped).toEqual([])
    // 3,000 claims of about 12 characters do not fit one chunk: several chunks, never two at once.
    expect(w.store.stats().byMethod.BatchUpdateValuesByDataFilter).toBeGreaterThanOrEqual(4)
    expect(w.peak()).toBeGreaterThan(0)
    expect(w.peak()).toBeLessThanOrEqual(CLAIM_CHARS_PER_SHEET)
    expect(w.now()).toBe(0)
    const after = (await w.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(after.slice(0, 3_000).every((r, i) => r[1] === `edited ${i}`)).toBe(true)
    expect(after[3_000]![1]).toBe('note 3000')
  })

  it('with most of the budget taken by others, the rows are claimed in smaller chunks and the run says so once', async () => {
    const w = await world(1_200)
    await othersTake(w, 25_000)
    const basis = await w.sheet.read(['Activities'])
    const report = await w.sheet.write(everyNth(basis, 1, 'edited'), basis)
    expect(report.skipped).toEqual([])
    const rooms = w.events.filter((e) => e.type === 'metadata-room')
    expect(rooms).toHaveLength(1)
    expect(rooms[0]).toMatchObject({ tab: 'Activities' })
    expect((rooms[0] as { chars: number }).chars).toBeLessThanOrEqual(5_000)
    expect(w.now()).toBe(25_000)
    expect(w.peak()).toBeLessThanOrEqual(30_000)
    const after = (await w.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(after.every((r, i) => r[1] === `edited ${i}`)).toBe(true)
  })

  it('with no room at all, nothing is written to existing rows, and the error says how much the sheet holds and what to do', async () => {
    const w = await world(50)
    await othersTake(w, 30_000)
    const basis = await w.sheet.read(['Activities'])
    const error = await w.sheet.write(everyNth(basis, 1, 'edited'), basis).catch((e: unknown) => e)
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_SHEETS_API')
    expect((error as Error).message).toContain('no room left for developer metadata on the tab "Activities"')
    expect((error as { hint?: string }).hint).toContain('30,000 characters')
    const after = (await w.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(after.every((r, i) => r[1] === `note ${i}`)).toBe(true)
  })

  it('row anchors an earlier version left on every row are removed when they leave no room, and the write goes on', async () => {
    const w = await world(900)
    // About 35 characters a row, as the earlier version kept: 31,000 characters would not even have fit.
    await othersTake(w, 29_990, 'timeline-sheets:row')
    const basis = await w.sheet.read(['Activities'])
    const report = await w.sheet.write(everyNth(basis, 3, 'edited'), basis)
    expect(report.skipped).toEqual([])
    expect(w.events).toContainEqual(expect.objectContaining({ type: 'legacy-anchors-removed' }))
    expect(w.events.some((e) => e.type === 'metadata-room')).toBe(false)
    expect(w.now()).toBe(0)
    const after = (await w.sheet.read(['Activities'])).tabs['Activities']!.rows
    expect(after[3]![1]).toBe('edited 3')
  })
})
