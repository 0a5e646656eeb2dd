/**
 * A connection that breaks under a Sheets call reaches the backend as fetch's own `fetch failed` TypeError, with
 * the socket's code a level or more below it (GaxiosError ← TypeError ← SocketError). However deep the code sits,
 * it is a network failure and the call is repeated: taken for final, it would end a 100k first export with exit 1
 * ("Could not reach Google Sheets … fetch failed"). Through the real client against the Sheets fake on a loopback
 * port that breaks the connection of chosen requests before answering.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { classifySheetsFailure } from '../../src/sheets/google/api-errors.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { TabSpec } from '../../src/sheets/port.ts'

const TOKEN = 'fetch-failed-token'
const TABS: TabSpec[] = [
  {
    title: 'Activities',
    columns: [
      { name: 'Notes', kind: 'text' },
      { name: 'Key', kind: 'text', hidden: true, protected: true },
    ],
  },
]
let served: LoopbackServer | undefined
afterEach(async () => served?.close())

describe('a connection that breaks under a Sheets call', () => {
  it('is a network failure however deep fetch puts the socket code, and with none at all', () => {
    const at = { now: 0, quotaWindowMs: 60_000 }
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })
    const gaxios = (cause: unknown) => Object.assign(new Error('fetch failed'), { name: 'GaxiosError', config: {}, cause })
    expect(classifySheetsFailure(gaxios(new TypeError('fetch failed', { cause: socket })), at)).toEqual({
      retry: true,
      reason: 'network error UND_ERR_SOCKET',
    })
    expect(classifySheetsFailure(gaxios(new TypeError('fetch failed')), at)).toMatchObject({ retry: true })
    // A TypeError of our own is still a bug, not a network failure.
    expect(classifySheetsFailure(new TypeError('bug'), at)).toEqual({ retry: false })
  })

  it('a batchUpdate whose connection breaks before it is applied is repeated and the rows land once', async () => {
    const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
    let breaks = 0
    served = await serveOnLoopback(createSheetsHandler(store), {
      intercept: (req) => {
        // The first structural write after the layout: the connection breaks before the fake sees it.
        if (req.method === 'POST' && /^[^?]*\/spreadsheets\/[^/]+:batchUpdate(\?|$)/.test(req.url ?? '') && appending && breaks === 0) {
          breaks++
          req.socket.destroy()
          return true
        }
        return false
      },
    })
    let appending = false
    const spreadsheetId = store.createSpreadsheet().spreadsheetId
    const retries: string[] = []
    const sheet = createGoogleSpreadsheet({
      spreadsheetId,
      auth: signInWithStaticToken(TOKEN),
      rootUrl: served.url,
      retry: { sleep: async () => undefined, onRetry: (event) => retries.push(String(event.reason)) },
    })
    await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
    const basis = await sheet.read(['Activities'])
    appending = true
    await sheet.write(
      [
        {
          tab: 'Activities',
          keyColumn: 1,
          appends: [
            ['n1', 'k1'],
            ['n2', 'k2'],
          ],
        },
      ],
      basis,
    )
    expect(breaks).toBe(1)
    expect(retries.length).toBeGreaterThanOrEqual(1)
    expect(createManager(store).readTab(spreadsheetId, 'Activities')).toEqual([
      ['Notes', 'Key'],
      ['n1', 'k1'],
      ['n2', 'k2'],
    ])
  })
})
