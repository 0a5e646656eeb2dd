/**
 * A write Google may still be applying is never repeated blindly. Google may process one request for up to
 * 180 s: an append whose answer comes after the client's limit is not sent again (the next run reads the sheet
 * and finds the rows by their Keys), and one whose connection dropped is looked at only once that window has
 * passed. Against the Sheets fake, which applies the batch and then stalls or drops the connection.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import { createTransport } from '../../src/http/transport.ts'
import type { Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet, GOOGLE_PROCESSING_WINDOW_MS, type GoogleSheetsEvent } from '../../src/sheets/google/backend.ts'

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
      { name: 'Key', kind: 'text' },
    ],
  },
]

interface World {
  store: SheetsStore
  spreadsheetId: string
  sheet: Spreadsheet
  events: GoogleSheetsEvent[]
  sleeps: number[]
}

async function world(options: { firstByteMs?: number } = {}): Promise<World> {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const events: GoogleSheetsEvent[] = []
  const sleeps: number[] = []
  // The client's clock moves only when it sleeps: Google's processing window runs on it, not on the machine's time,
  // which a busy machine would spend before the client even saw a connection drop.
  let clock = Date.UTC(2026, 2, 2, 9)
  const sheet = createGoogleSpreadsheet({
    spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: ROOT,
    log: (e) => events.push(e),
    retry: {
      sleep: async (ms) => {
        sleeps.push(ms)
        clock += ms
      },
    },
    quota: { now: () => clock },
    ...(options.firstByteMs ? { transport: createTransport({ timeouts: { firstByteMs: options.firstByteMs, totalMs: 60_000 } }) } : {}),
  })
  await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
  return { store, spreadsheetId, sheet, events, sleeps }
}

const keys = (w: World) =>
  createManager(w.store)
    .readTab(w.spreadsheetId, 'Activities')
    .slice(1)
    .map((r) => r[1])

const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => [`u${from + i}`, `key/${from + i}`])

describe('a write whose answer does not come', () => {
  it('applied, and answered only after the client gave up: not sent again, and the rows are there once', async () => {
    const w = await world({ firstByteMs: 500 })
    const basis = await w.sheet.read(['Activities'])
    w.store.faults.inject({ status: 200, method: 'BatchUpdateSpreadsheet', thenAnswer: { stallMs: 3_000 } })
    w.store.resetStats()
    const error = await w.sheet.write([{ tab: 'Activities', keyColumn: 1, appends: rows(1, 3) }], basis).catch((e: unknown) => e)
    expect(isTimelineSheetsError(error)).toBe(true)
    expect((error as Error).message).toMatch(/no answer within/i)
    expect(w.store.stats().byMethod.BatchUpdateSpreadsheet).toBe(1)
    expect(keys(w)).toEqual(['key/1', 'key/2', 'key/3'])
    // The next run reads the sheet afresh and sees the rows by their Keys: a write of the same rows is an update.
    const next = await w.sheet.read(['Activities'])
    expect(next.tabs['Activities']!.rows.map((r) => r[1])).toEqual(['key/1', 'key/2', 'key/3'])
  })

  it('applied, and the connection dropped: the look waits out the processing window, sees the rows, adds nothing twice', async () => {
    const w = await world()
    const basis = await w.sheet.read(['Activities'])
    w.store.faults.inject({ status: 200, method: 'BatchUpdateSpreadsheet', thenAnswer: 'drop' })
    await w.sheet.write([{ tab: 'Activities', keyColumn: 1, appends: rows(1, 3) }], basis)
    const waits = w.events.filter((e) => e.type === 'write-unanswered') as { waitMs: number }[]
    // After the back-off the client waits out the rest of the window: the look comes once it has passed since the
    // batch was sent.
    const [backoff] = w.sleeps
    expect(waits).toEqual([{ type: 'write-unanswered', waitMs: GOOGLE_PROCESSING_WINDOW_MS - backoff! }])
    expect(w.sleeps).toEqual([backoff, GOOGLE_PROCESSING_WINDOW_MS - backoff!])
    expect(w.events).toContainEqual({ type: 'structural-repeat', outcome: 'applied' })
    expect(keys(w)).toEqual(['key/1', 'key/2', 'key/3'])
  })

  it('dropped before it was applied: after the window the look finds nothing, and the batch is sent once more', async () => {
    const w = await world()
    const basis = await w.sheet.read(['Activities'])
    // A connection dropped with nothing applied looks the same to the client as one dropped after applying.
    w.store.faults.inject({ status: 200, method: 'BatchUpdateSpreadsheet', dropUnapplied: true })
    await w.sheet.write([{ tab: 'Activities', keyColumn: 1, appends: rows(1, 2) }], basis)
    expect(w.events.filter((e) => e.type === 'write-unanswered')).toHaveLength(1)
    expect(w.events).toContainEqual({ type: 'structural-repeat', outcome: 'not-applied' })
    expect(keys(w)).toEqual(['key/1', 'key/2'])
  })
})
