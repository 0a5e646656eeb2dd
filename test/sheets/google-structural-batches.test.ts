/**
 * The structural batches of a big append are built while the one before is in flight, and still go
 * one at a time, in order: the next is sent only when the one before was answered, and a batch the service
 * refuses is the last one sent. Through the real client against the Sheets fake on a loopback port; and, with
 * the write's I/O stubbed, the next batch is encoded (compressed) before the one in flight is answered.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { sheets_v4 } from '@googleapis/sheets'
import type { EncodedBody } from '../../src/sheets/google/gzip-requests.ts'
import { runStructural, structuralPart } from '../../src/sheets/google/structural.ts'
import type { TabState, WriteDeps } from '../../src/sheets/google/write-targets.ts'
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

describe('the batch after the one in flight', () => {
  it('is encoded while the one before is in flight, and sent only after its answer', async () => {
    const events: string[] = []
    const answers: (() => void)[] = []
    let sent = 0
    const tab = { write: { tab: 'Activities' }, sheetId: 7 } as unknown as TabState
    const deps = {
      maxPayloadBytes: 200,
      idConfirmed: () => true,
      confirmId: () => undefined,
      encodeBody: async (pieces: string | readonly string[]) => {
        const json = typeof pieces === 'string' ? pieces : pieces.join('')
        events.push(`encoded ${JSON.parse(json).requests[0].insertDimension.range.startIndex}`)
        return { bytes: new TextEncoder().encode(json) as Uint8Array<ArrayBuffer>, gzip: false }
      },
      batchUpdate: (body: EncodedBody) => {
        const n = ++sent
        const { requests } = JSON.parse(new TextDecoder().decode(body.bytes)) as { requests: sheets_v4.Schema$Request[] }
        events.push(`sent ${requests[0]!.insertDimension!.range!.startIndex}`)
        return new Promise<void>((resolve) =>
          answers.push(() => {
            events.push(`answered ${n}`)
            resolve()
          }),
        )
      },
    } as unknown as WriteDeps
    // Each part alone fills a batch, so three parts are three batches.
    const parts = [1, 2, 3].map((at) =>
      structuralPart(tab, [{ insertDimension: { range: { sheetId: 7, dimension: 'ROWS', startIndex: at, endIndex: at + 1 } } }], {
        bytes: 150,
      }),
    )
    const run = runStructural(deps, [tab], parts)
    for (let n = 1; n <= 3; n++) {
      await until(() => sent === n, `batch ${n} sent`)
      // The next batch is ready before this one is answered.
      if (n < 3) await until(() => events.includes(`encoded ${n + 1}`), `batch ${n + 1} encoded while batch ${n} is in flight`)
      answers[n - 1]!()
    }
    await run
    expect(events).toEqual(['encoded 1', 'sent 1', 'encoded 2', 'answered 1', 'sent 2', 'encoded 3', 'answered 2', 'sent 3', 'answered 3'])
  })
})

/** Waits, turn by turn of the event loop, for `done`; fails after many turns without it. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 1_000; turn++) {
    if (done()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`never happened: ${what}`)
}
