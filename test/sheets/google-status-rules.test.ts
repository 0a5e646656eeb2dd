/**
 * The status colours through the Google backend and the real client against the Sheets fake.
 * The product's own tabs are laid out, rows carrying every status word are written, and the rules read
 * back from the API are evaluated on each row as Google evaluates `=LEFT($K2,n)="Word"`: every Status
 * row and every Sync log result meets exactly the rule of its word, with that word's colours.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { activitiesTab, allowedTagsTab, columnIndex, syncLogTab, SYNC_LOG_COLUMN, ACTIVITY_COLUMN } from '../../src/core/columns.ts'
import { STATUS_RULES, statusText, type StatusWord } from '../../src/core/status.ts'
import { syncLogRow } from '../../src/core/sync-log.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { googleColor } from '../../src/sheets/google/status-colours.ts'
import { directClient } from './google-fixture.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

/** What Google computes for our rule formula on one data row, or undefined for a formula of another shape. */
function meets(formula: string, row: readonly CellValue[]): boolean | undefined {
  // Relative to the range's first row, which is the header (row 1): data row i is `$K(1 + i)`.
  const m = /^=LEFT\(\$([A-Z]+)1,(\d+)\)="([^"]*)"$/.exec(formula)
  if (!m) return undefined
  const column = [...m[1]!].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1
  const cell = row[column]
  const text = cell === null || cell === undefined ? '' : String(cell)
  return text.slice(0, Number(m[2])).toLowerCase() === m[3]!.toLowerCase()
}

function rulesOf(data: sheets_v4.Schema$Spreadsheet, title: string): sheets_v4.Schema$ConditionalFormatRule[] {
  return data.sheets!.find((s) => s.properties?.title === title)!.conditionalFormats ?? []
}

describe('status colours on Google', () => {
  it('lays out one rule per word on Activities and the Sync log, and every written status meets exactly its own', async () => {
    const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
    server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
    const spreadsheetId = store.createSpreadsheet().spreadsheetId
    const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    const tabs = [activitiesTab(), allowedTagsTab(), syncLogTab()]
    await sheet.ensureLayout(tabs, { timeZone: 'Europe/Berlin' })

    const activities = tabs[0]!
    const width = activities.columns.length
    const statusAt = activities.columns.findIndex((c) => c.name === ACTIVITY_COLUMN.status)
    const rows = STATUS_RULES.map((rule, i) => {
      const cells: CellValue[] = Array.from({ length: width }, () => null)
      cells[0] = 'ACME\\anna'
      cells[statusAt] = statusText({ word: rule.word, reason: `Reason ${i}.` }, '2026-11-22')
      return cells
    })
    const counts = { created: 1, updated: 0, deleted: 0, conflicts: 0, invalid: 0, waiting: 0 }
    const logRows = (['success', 'partial', 'refused', 'incomplete'] as const).map((result) =>
      syncLogRow({
        when: new Date('2026-11-22T10:00:00Z'),
        timeZone: 'Europe/Berlin',
        runId: 'r1',
        command: 'import',
        result,
        counts: { ...counts, conflicts: 1 },
        message: '',
      }),
    )
    const before = await sheet.read(['Activities', 'Sync log'])
    await sheet.write(
      [
        { tab: 'Activities', appends: rows },
        { tab: 'Sync log', appends: logRows },
      ],
      before,
    )

    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    const { data } = await api.spreadsheets.get({ spreadsheetId })
    const after = await sheet.read(['Activities', 'Sync log'])
    for (const [title, statusName] of [
      ['Activities', ACTIVITY_COLUMN.status],
      ['Sync log', SYNC_LOG_COLUMN.result],
    ] as const) {
      const rules = rulesOf(data, title)
      expect(rules, title).toHaveLength(STATUS_RULES.length)
      const tab = after.tabs[title]!
      const statusColumn = columnIndex(tab.header, statusName)
      expect(tab.rows.length).toBeGreaterThan(0)
      for (const row of tab.rows) {
        const met = rules.filter((r) => meets(r.booleanRule!.condition!.values![0]!.userEnteredValue!, row))
        expect(met, `${title}: ${String(row[statusColumn])}`).toHaveLength(1)
        const word = String(row[statusColumn]).split(/[ (]/)[0] as StatusWord
        const rule = STATUS_RULES.find((r) => r.word === word)!
        expect(met[0]!.booleanRule!.format).toEqual({
          backgroundColor: googleColor(rule.fill),
          textFormat: { foregroundColor: googleColor(rule.font) },
        })
        // The whole row is coloured, not only the status cell, and the range still reaches from the header down
        // after the first rows were inserted right under it.
        expect(met[0]!.ranges).toEqual([{ sheetId: expect.any(Number), startColumnIndex: 0, endColumnIndex: tab.header.length }])
        // The header meets none.
        expect(rules.filter((r) => meets(r.booleanRule!.condition!.values![0]!.userEnteredValue!, tab.header))).toEqual([])
      }
    }
    expect(after.tabs['Activities']!.rows.map((r) => String(r[statusAt]).split(' ')[0])).toEqual(STATUS_RULES.map((r) => r.word))
    expect(after.tabs['Sync log']!.rows.map((r) => r[columnIndex(after.tabs['Sync log']!.header, SYNC_LOG_COLUMN.result)])).toEqual([
      'Done',
      'Conflict',
      'Error',
      'Waiting',
    ])
  })
})
