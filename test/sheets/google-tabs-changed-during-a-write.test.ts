/**
 * A tab renamed while rows are being written fails the write as a Sheets error that says so and how to go on,
 * also when it happens after the backend learned the tab ids afresh (stale hints), never as an unexpected
 * error (a bug).
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import type { TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()

// onUnhandledFrame is msw 3's name for onUnhandledRequest.
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

describe('a tab renamed while rows are being written', () => {
  it('after the tab ids were learned afresh: a Sheets error saying the tabs changed, not a bug', async () => {
    const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
    const sheets = createSheetsHandler(store)
    const spreadsheetId = store.createSpreadsheet().spreadsheetId
    // The tab list the backend asks for after its hinted ids turned out stale; a person renames the tab right after.
    let renameAfterTabList = false
    server.resetHandlers(
      mswHandlerFor(ROOT, async (request) => {
        const response = await sheets(request)
        const url = new URL(request.url)
        if (renameAfterTabList && request.method === 'GET' && /^\/v4\/spreadsheets\/[^/:]+$/.test(url.pathname)) {
          renameAfterTabList = false
          await sheets(rename(spreadsheetId, sheetId, 'Activities (old)'))
        }
        return response
      }),
    )
    const first = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    await first.ensureLayout(TABS, { timeZone: 'UTC' })
    await first.write([{ tab: 'Activities', keyColumn: KEY, appends: [['u1', 'a', 'key/1']] }], await first.read(['Activities']))
    const sheetId = (first.exportHints!().sheetIds as Record<string, number>)['Activities']!

    const later = createGoogleSpreadsheet({
      spreadsheetId,
      auth: signInWithStaticToken(TOKEN),
      rootUrl: ROOT,
      retry: { sleep: async () => undefined },
    })
    later.importHints!({ sheetIds: { Activities: 987654 } })
    const basis = await later.read(['Activities'])
    renameAfterTabList = true
    const error = await later.write([{ tab: 'Activities', keyColumn: KEY, updates: [{ row: 2, column: 1, values: ['b'] }] }], basis).then(
      () => undefined,
      (failure: unknown) => failure,
    )

    expect(renameAfterTabList).toBe(false)
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect(error).toMatchObject({
      code: 'TS_SHEETS_API',
      message: `A tab of spreadsheet ${spreadsheetId} was deleted, made again or renamed while rows were being written; nothing more was written`,
      hint: 'Someone changed the tabs during the run. Run again: the next run reads the sheet afresh.',
    })
  })
})

/** A person's rename of a tab, as the Sheets API receives it. */
function rename(spreadsheetId: string, sheetId: number, title: string): Request {
  return new Request(`${ROOT}v4/spreadsheets/${spreadsheetId}:batchUpdate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ requests: [{ updateSheetProperties: { properties: { sheetId, title }, fields: 'title' } }] }),
  })
}
