/**
 * The values of a Google write, against the Sheets fake: rows of a tab without a Key go with the first claimed
 * rows' values, and are written once, also when a person's typing leaves none of the claimed rows anything to write.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import type { TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'value-writes-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const TABS: TabSpec[] = [
  {
    title: 'Activities',
    columns: [
      { name: 'User', kind: 'text' },
      { name: 'Status', kind: 'text' },
      { name: 'Key', kind: 'text', hidden: true, protected: true },
    ],
  },
  {
    title: 'Periods',
    columns: [
      { name: 'User', kind: 'text' },
      { name: 'Status', kind: 'text' },
    ],
  },
]
const KEY = 2

describe('the values of a Google write', () => {
  it('write the rows of a tab without a Key once when a person typed into every claimed row', async () => {
    const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
    server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
    const spreadsheetId = store.createSpreadsheet().spreadsheetId
    const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT, retry: { limit: 0 } })
    await sheet.ensureLayout(TABS, { timeZone: 'UTC' })
    await sheet.write(
      [
        { tab: 'Activities', keyColumn: KEY, appends: [['ann', '', 'key/1']] },
        { tab: 'Periods', appends: [['ann', '']] },
      ],
      await sheet.read(['Activities', 'Periods']),
    )
    const basis = await sheet.read(['Activities', 'Periods'])
    // Between the read and the write a person types the Status the write is about to set: the claimed row keeps
    // the person's cell and has nothing left to write.
    createManager(store).editCell(spreadsheetId, 'Activities', 'B2', 'typed by a person')
    store.resetStats()
    const report = await sheet.write(
      [
        { tab: 'Activities', keyColumn: KEY, updates: [{ row: 2, column: 1, values: ['from the tool'] }] },
        { tab: 'Periods', updates: [{ row: 2, column: 1, values: ['written'] }] },
      ],
      basis,
    )
    const manager = createManager(store)
    expect(manager.readTab(spreadsheetId, 'Activities')[1]![1]).toBe('typed by a person')
    expect(manager.readTab(spreadsheetId, 'Periods')[1]![1]).toBe('written')
    expect(report.skipped).toEqual([{ tab: 'Activities', row: 2, reason: 'changed' }])
    expect(store.stats().byMethod.BatchUpdateValuesByDataFilter).toBe(1)
  })
})
