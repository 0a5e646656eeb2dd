/**
 * The Summary tab in the workbook. The formulas the workbook holds are evaluated by the Sheets
 * fake's formula evaluator (the same functions, SUMIFS, COUNTIFS, SUM, MIN, MAX, WEEKDAY and ROUND, over whole columns): the
 * Summary's formulas and the Activities values are copied into a fake spreadsheet as they are read back from
 * the file. LibreOffice computes the same numbers from the demo workbook (decisions/0007-summary-tab.md).
 */
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { approvalsTab } from '../../src/core/approvals-tab.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import { summaryShape, summaryTab } from '../../src/core/summary.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { directClient } from './google-fixture.ts'
import { activitiesCells, cell, expectSummary, LAYOUT, specs, summaryRows, type SummaryRow } from './summary-expected.ts'
import { createWorkbookFixture, type WorkbookFixture } from './workbook-fixture.ts'
import { zipText } from './xlsx-package.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

let fixture: WorkbookFixture | undefined
afterEach(async () => {
  await fixture?.cleanup()
  fixture = undefined
})

async function withRows(rows: readonly SummaryRow[]): Promise<WorkbookFixture> {
  fixture = await createWorkbookFixture()
  await fixture.spreadsheet.ensureLayout(specs(), LAYOUT)
  const basis = await fixture.spreadsheet.read(['Activities'])
  await fixture.spreadsheet.write([{ tab: 'Activities', keyColumn: 10, appends: rows.map((r, i) => activitiesCells(r, i + 1)) }], basis)
  return fixture
}

/** The workbook's Summary as the evaluator computes it from the file's formulas and Activities values, by A1 cell. */
async function evaluated(f: WorkbookFixture, others: string[] = []): Promise<Map<string, unknown>> {
  const snapshot = await f.spreadsheet.read(['Activities', ...others, 'Summary'])
  const tab = (title: string): CellValue[][] => [snapshot.tabs[title]!.header, ...snapshot.tabs[title]!.rows]
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const titles = ['Activities', ...others]
  const spreadsheetId = store.createSpreadsheet({ sheets: [...titles, 'Summary'].map((title) => ({ title })) }).spreadsheetId
  const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
  const values = (rows: CellValue[][]) => rows.map((row) => Array.from(row, (v) => v ?? ''))
  for (const title of titles) {
    await api.spreadsheets.values.update({
      spreadsheetId,
      range: `'${title}'!A1`,
      valueInputOption: 'RAW',
      requestBody: { values: values(tab(title)) },
    })
  }
  await api.spreadsheets.values.update({
    spreadsheetId,
    range: 'Summary!A1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: values(tab('Summary')) },
  })
  const { data } = await api.spreadsheets.values.get({ spreadsheetId, range: 'Summary', valueRenderOption: 'UNFORMATTED_VALUE' })
  const out = new Map<string, unknown>()
  ;(data.values ?? []).forEach((row, r) => row.forEach((value, c) => out.set(cell(c, r + 1), value)))
  return out
}

describe('the Summary tab in the workbook', () => {
  it('holds formulas that sum hours per person and per client / project per week, without rows with Delete ticked', async () => {
    const rows = summaryRows()
    const f = await withRows(rows)
    const snapshot = await f.spreadsheet.read(['Summary'])
    const shape = summaryShape(specs()[3]!.summary!)
    const summary = snapshot.tabs['Summary']!
    expect(summary.rows[shape.peopleRows[0] - 2]?.[0]).toBe('DOMAIN\\ann')
    expect(String(summary.rows[shape.peopleRows[0] - 2]?.[1])).toMatch(/^=ROUND\(24\*\(SUMIFS\('Activities'!\$E:\$E,'Activities'!\$A:\$A,/)
    expectSummary(await evaluated(f), rows)
  })

  it('follows a manager’s corrections: a changed duration and a ticked Delete', async () => {
    const rows = summaryRows()
    const f = await withRows(rows)
    const basis = await f.spreadsheet.read(['Activities'])
    await f.spreadsheet.write(
      [
        {
          tab: 'Activities',
          updates: [
            { row: 3, column: 4, values: [2.25 / 24] },
            { row: 5, column: 8, values: [true] },
          ],
        },
      ],
      basis,
    )
    const edited = rows.map((r, i) => (i === 1 ? { ...r, duration: 2.25 / 24 } : i === 3 ? { ...r, deleted: true } : r))
    expectSummary(await evaluated(f), edited)
  })

  it('asks Excel and LibreOffice to compute on opening, is written again only when it changes, and keeps a manager’s column', async () => {
    const rows = summaryRows()
    const f = await withRows(rows)
    // The Summary is the fourth tab the layout made.
    expect(await zipText(f.file, 'xl/worksheets/sheet4.xml')).toMatch(/<\/sheetData><sheetCalcPr fullCalcOnLoad="1"\/>/)
    expect(await zipText(f.file, 'xl/workbook.xml')).not.toContain('fullCalcOnLoad')
    expect(await f.spreadsheet.ensureLayout(specs(), LAYOUT)).toEqual({ createdTabs: [], changed: false })
    const basis = await f.spreadsheet.read(['Summary'])
    await f.spreadsheet.write([{ tab: 'Summary', updates: [{ row: 4, column: 11, values: ['my note'] }] }], basis)
    const people = ['DOMAIN\\bob', 'DOMAIN\\ann', 'DOMAIN\\cy']
    expect((await f.spreadsheet.ensureLayout(specs(people), LAYOUT)).changed).toBe(true)
    const after = await f.spreadsheet.read(['Summary'])
    expect(after.tabs['Summary']!.rows[2]?.[11]).toBe('my note')
    expect(after.tabs['Summary']!.rows[4]?.[0]).toBe('DOMAIN\\cy')
    const values = await evaluated(f)
    expectSummary(values, rows, people)
    expect(values.get('L4')).toBe('my note')
  })

  it('sums approved and open hours over the Approvals tab’s columns as the workbook lays them out', async () => {
    fixture = await createWorkbookFixture()
    const withApprovals = [
      ...specs().slice(0, 3),
      approvalsTab(),
      summaryTab({ people: ['DOMAIN\\ann'], tags: [], approvals: 'Approvals' }),
    ]
    await fixture.spreadsheet.ensureLayout(withApprovals, LAYOUT)
    const rows = summaryRows()
    const basis = await fixture.spreadsheet.read(['Activities', 'Approvals'])
    const monday = localDateToSerial('2026-11-09')
    await fixture.spreadsheet.write(
      [
        { tab: 'Activities', keyColumn: 10, appends: rows.map((r, i) => activitiesCells(r, i + 1)) },
        // ann's week of 2026-11-09 approved and taken (Approved at filled in).
        { tab: 'Approvals', appends: [['DOMAIN\\ann', '2026-W46', monday, monday + 6, 0, true, 'Mia', monday + 7.5]] },
      ],
      basis,
    )
    const values = await evaluated(fixture, ['Approvals'])
    const rowOf = (label: string) => [...values].find(([, v]) => v === label)![0].slice(1)
    // Eight weeks up to 2026-11-23: the week of 11-09 is the sixth (column G); ann has 2 h and 1.5 h in it.
    expect(values.get(`G${rowOf('DOMAIN\\ann: approved')}`)).toBeCloseTo(3.5, 9)
    expect(values.get(`G${rowOf('DOMAIN\\ann: open')}`)).toBeCloseTo(0, 9)
    expect(values.get(`I${rowOf('DOMAIN\\ann: approved')}`)).toBeCloseTo(0, 9)
    expect(values.get(`I${rowOf('DOMAIN\\ann: open')}`)).toBeCloseTo(3.75, 9)
  })
})
