/**
 * The structural batches of a big append are built while the one before is in flight, and still go
 * one at a time, in order: the next is sent only when the one before was answered, and a batch the service
 * refuses is the last one sent. Through the real client against the Sheets fake on a loopback port.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { TabSpec } from '../../src/sheets/port.ts'

const TOKEN = 'structural-batches-token'
const TABS: TabSpec[] = [
  {
    title: 'Activities',
    columns: [
      { name: 'Notes', kind: 'text' },
      { name: 'Key', kind: 'text', hidden: true, protected: true },
    ],
  },
]
const BATCH_UPDATE = /\/spreadsheets\/[^/]+:batchUpdate$/
let served: LoopbackServer | undefined
afterEach(async () => served?.close())

/** The fake behind a handler that logs each structural batch's arrival and answer, and can refuse the n-th. */
async function setUp(refuse?: number) {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  const handler = createSheetsHandler(store)
  const events: string[] = []
  let counting = false
  let batches = 0
  served = await serveOnLoopback(async (request) => {
    if (!counting || request.method !== 'POST' || !BATCH_UPDATE.test(new URL(request.url).pathname)) return handler(request)
    const n = ++batches
    events.push(`sent ${n}`)
    // Answer late: a client that did not wait for the answer would send the next batch meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 30))
    const response =
      n === refuse
        ? Response.json(
            { error: { code: 400, message: 'Invalid requests[0]: refused by the test', status: 'INVALID_ARGUMENT' } },
            { status: 400 },
          )
        : await handler(request)
    events.push(`answered ${n}`)
    return response
  })
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const sheet = createGoogleSpreadsheet({
    spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: served.url,
    // About 20 rows a batch.
    maxPayloadBytes: 3_000,
    retry: { sleep: async () => undefined },
  })
  await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
  const basis = await sheet.read(['Activities'])
  counting = true
  const rows = Array.from({ length: 120 }, (_, i) => [`note ${i + 1}`, `k${i + 1}`])
  const write = sheet.write([{ tab: 'Activities', keyColumn: 1, appends: rows }], basis)
  return { write, events, rows, tab: () => createManager(store).readTab(spreadsheetId, 'Activities') }
}

describe('structural batches of a big append', () => {
  it('go one at a time and in order: each is sent after the one before was answered', async () => {
    const { write, events, rows, tab } = await setUp()
    await write
    const count = events.length / 2
    expect(count).toBeGreaterThan(3)
    expect(events).toEqual(Array.from({ length: count }, (_, i) => [`sent ${i + 1}`, `answered ${i + 1}`]).flat())
    expect(tab()).toEqual([['Notes', 'Key'], ...rows])
  })

  it('end at a batch the service refuses: none after it is sent, the rows before it stay', async () => {
    const { write, events, rows, tab } = await setUp(3)
    await expect(write).rejects.toThrow(/refused by the test/)
    expect(events).toEqual(['sent 1', 'answered 1', 'sent 2', 'answered 2', 'sent 3', 'answered 3'])
    const kept = tab().slice(1)
    expect(kept.length).toBeGreaterThan(0)
    expect(kept).toEqual(rows.slice(0, kept.length))
  })
})
