/**
 * Rows a manager protected against the tool's account (decisions/0021-protected-ranges.md), through the real
 * `@googleapis/sheets` client against the Sheets fake, which refuses such writes whole as Google does: the
 * backend leaves those rows out, says which range holds them, and writes every other row; a refusal it cannot
 * pin to rows stops the write with an error that names the range, with nothing of the refused request applied.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import { protectedRowsWarnings } from '../../src/engine/protected-rows.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { Snapshot, Spreadsheet, TabSpec } from '../../src/sheets/port.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'tool-token'
const MANAGER = 'manager@example.com'
const server = setupServer()

// onUnhandledFrame is msw 3's name for onUnhandledRequest.
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const TABS: TabSpec[] = [
  {
    title: 'Activities',
    statusColumn: 'Status',
    columns: [
      { name: 'User', kind: 'text' },
      { name: 'Notes', kind: 'text' },
      { name: 'Status', kind: 'text', protected: true },
      { name: 'Key', kind: 'text', hidden: true, protected: true },
    ],
  },
]
const KEY = 3

interface Setup {
  store: SheetsStore
  spreadsheetId: string
  sheet: Spreadsheet
}

async function setup(rows: number): Promise<Setup & { basis: Snapshot }> {
  const store = createSheetsStore({ staticTokens: { [TOKEN]: { subject: 'tool@test.iam.gserviceaccount.com' } }, quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
  await sheet.ensureLayout(TABS, { timeZone: 'Europe/Berlin' })
  const appends = Array.from({ length: rows }, (_, i) => [`u${i + 2}`, `note ${i + 2}`, 'Waiting', `key/${i + 2}`])
  await sheet.write([{ tab: 'Activities', keyColumn: KEY, appends }], await sheet.read(['Activities']))
  return { store, spreadsheetId, sheet, basis: await sheet.read(['Activities']) }
}

/** Status updates for sheet rows `from`…`to`. */
function statuses(from: number, to: number, word: string) {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ row: from + i, column: 2, values: [`${word} ${from + i}`] }))
}

function column(s: Setup, index: number): unknown[] {
  return createManager(s.store)
    .readTab(s.spreadsheetId, 'Activities')
    .slice(1)
    .map((r) => r[index])
}

describe('rows in a range protected against the tool', () => {
  it('are left out and named; every other row of the same write is written, those the tool may edit included', async () => {
    const s = await setup(6)
    const manager = createManager(s.store, { as: MANAGER })
    manager.protectRange(s.spreadsheetId, 'Activities', 'A3:D4', { description: 'March approved' })
    // Ranges that do not hold the write up: a warning only, one listing the tool, one on a cell it leaves alone.
    manager.protectRange(s.spreadsheetId, 'Activities', 'A5:D5', { warningOnly: true })
    manager.protectRange(s.spreadsheetId, 'Activities', 'A6:D6', { editors: ['tool@test.iam.gserviceaccount.com'] })
    manager.protectRange(s.spreadsheetId, 'Activities', 'B7')
    const report = await s.sheet.write(
      [{ tab: 'Activities', keyColumn: KEY, updates: statuses(2, 7, 'Done'), appends: [['u8', 'note 8', 'Done', 'key/8']] }],
      s.basis,
    )
    expect(report.skipped).toEqual([
      { tab: 'Activities', row: 3, reason: 'protected', protectedBy: `"March approved" ('Activities'!A3:D4)` },
      { tab: 'Activities', row: 4, reason: 'protected', protectedBy: `"March approved" ('Activities'!A3:D4)` },
    ])
    expect(column(s, 2)).toEqual(['Done 2', 'Waiting', 'Waiting', 'Done 5', 'Done 6', 'Done 7', 'Done'])
    expect(protectedRowsWarnings(report.skipped)).toEqual([
      `2 rows (3, 4) lie in the protected range "March approved" ('Activities'!A3:D4), which the Google account timeline-sheets signs in as may not edit: nothing was written to them. Ask whoever protected the range to add that account as an editor, or to remove the protection; the next run writes them then.`,
    ])
  })

  it('on a tab protected whole stop the write with an error naming the range, and no part of the refused batch lands', async () => {
    const s = await setup(2)
    createManager(s.store, { as: MANAGER }).protectRange(s.spreadsheetId, 'Activities', undefined, { description: 'Locked' })
    const error = await s.sheet.write([{ tab: 'Activities', keyColumn: KEY, appends: [['u4', 'note 4', 'Done', 'key/4']] }], s.basis).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_SHEETS_API')
    expect((error as Error).message).toContain(`the protected range "Locked" ('Activities')`)
    expect((error as { hint?: string }).hint).toMatch(/add the account timeline-sheets signs in as as an editor/)
    expect(column(s, 0)).toEqual(['u2', 'u3'])
    expect(s.store.spreadsheets.get(s.spreadsheetId)!.sheets[0]!.properties.gridProperties.rowCount).toBe(
      s.basis.tabs['Activities']!.gridRowCount,
    )
  })
})
