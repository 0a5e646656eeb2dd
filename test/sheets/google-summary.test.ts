/**
 * The Summary tab on Google, through the real @googleapis/sheets client against the Sheets fake,
 * whose formula evaluator computes it as Google does. Totals equal the sums of the rows, also after a
 * manager corrects a duration and ticks a Delete; the tab is written with the layout only; a manager's own
 * columns survive; a chart of hours per person per week sits under the tables.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { summaryShape } from '../../src/core/summary.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { directClient } from './google-fixture.ts'
import { activitiesCells, cell, expectSummary, LAYOUT, specs, summaryRows, type SummaryRow } from './summary-expected.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

function setup(): { store: SheetsStore; spreadsheetId: string; sheet: Spreadsheet } {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
  return { store, spreadsheetId, sheet }
}

const api = () => directClient(signInWithStaticToken(TOKEN).client, ROOT)

async function withRows(rows: readonly SummaryRow[], people?: string[]) {
  const s = setup()
  await s.sheet.ensureLayout(specs(people), LAYOUT)
  const basis = await s.sheet.read(['Activities'])
  await s.sheet.write([{ tab: 'Activities', keyColumn: 10, appends: rows.map((r, i) => activitiesCells(r, i + 1)) }], basis)
  return s
}

/** The Summary as Google computes it, by A1 cell. */
async function summaryValues(spreadsheetId: string): Promise<Map<string, unknown>> {
  const { data } = await api().spreadsheets.values.get({ spreadsheetId, range: 'Summary', valueRenderOption: 'UNFORMATTED_VALUE' })
  const out = new Map<string, unknown>()
  ;(data.values ?? []).forEach((row, r) => row.forEach((value, c) => out.set(cell(c, r + 1), value)))
  return out
}

describe('the Summary tab on Google', () => {
  it('sums hours per person and per client / project per week, leaving out rows with Delete ticked', async () => {
    const rows = summaryRows()
    const s = await withRows(rows)
    const values = await summaryValues(s.spreadsheetId)
    const shape = summaryShape(specs()[3]!.summary!)
    // People sorted, then everyone else and the total; clients each followed by their projects.
    expect(values.get(cell(0, shape.peopleRows[0]))).toBe('DOMAIN\\ann')
    expect(values.get(cell(0, shape.peopleTotalRow))).toBe('Total')
    expect(values.get(cell(0, shape.groupRows[0]))).toBe('Acme')
    expect(values.get(cell(0, shape.groupRows[0] + 1))).toBe('Acme, Support')
    expectSummary(values, rows)
    // Spot checks by hand: bob's all-dates hours (his 5 h row is ticked), and the grand total.
    expect(values.get(cell(9, shape.peopleRows[0] + 1))).toBeCloseTo(4.25, 9)
    expect(values.get(cell(9, shape.peopleTotalRow))).toBeCloseTo(2 + 1.5 + 3 + 4 + 0.25 + 6 + 0.75, 9)
  })

  it('follows a manager’s corrections at once: a changed duration and a ticked Delete', async () => {
    const rows = summaryRows()
    const s = await withRows(rows)
    // Row 3 of the sheet is rows[1]: 1.5 h becomes 2:15; row 5 (rows[3], bob's 4 h) is ticked.
    await api().spreadsheets.values.batchUpdate({
      spreadsheetId: s.spreadsheetId,
      requestBody: {
        valueInputOption: 'USER_ENTERED',
        data: [
          { range: 'Activities!E3', values: [['2:15']] },
          { range: 'Activities!I5', values: [[true]] },
        ],
      },
    })
    const edited = rows.map((r, i) => (i === 1 ? { ...r, duration: 2.25 / 24 } : i === 3 ? { ...r, deleted: true } : r))
    expectSummary(await summaryValues(s.spreadsheetId), edited)
  })

  it('is written with the layout only, and a manager’s own column beside it survives a new layout', async () => {
    const rows = summaryRows()
    const s = await withRows(rows)
    await api().spreadsheets.values.update({
      spreadsheetId: s.spreadsheetId,
      range: 'Summary!L4',
      valueInputOption: 'RAW',
      requestBody: { values: [['my note']] },
    })
    expect((await s.sheet.ensureLayout(specs(), LAYOUT)).changed).toBe(false)
    // A new person is a new layout: the Summary is rewritten with them listed.
    const people = ['DOMAIN\\bob', 'DOMAIN\\ann', 'DOMAIN\\cy']
    expect((await s.sheet.ensureLayout(specs(people), LAYOUT)).changed).toBe(true)
    const values = await summaryValues(s.spreadsheetId)
    expect(values.get('L4')).toBe('my note')
    expect(values.get(cell(0, 6))).toBe('DOMAIN\\cy')
    expectSummary(values, rows, people)
    const { data } = await api().spreadsheets.get({ spreadsheetId: s.spreadsheetId, fields: 'sheets(properties.title,charts)' })
    const charts = data.sheets?.find((t) => t.properties?.title === 'Summary')?.charts ?? []
    // One chart, replaced rather than added again: a series per person and one for everyone else.
    expect(charts).toHaveLength(1)
    expect(charts[0]!.spec?.title).toBe('Hours per person per week')
    expect(charts[0]!.spec?.basicChart?.series).toHaveLength(4)
    expect(charts[0]!.spec?.basicChart).toMatchObject({ chartType: 'COLUMN', stackedType: 'STACKED', headerCount: 1 })
  })
})
