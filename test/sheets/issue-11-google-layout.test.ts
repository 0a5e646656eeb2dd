/**
 * Issue 11, the Google layout a manager opens: no empty default tab left in front, a basic filter on
 * Activities, counts as integers and times with their zone. Through the real @googleapis/sheets client
 * against the Sheets fake.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { activitiesTab, allowedTagsTab, syncLogTab } from '../../src/core/columns.ts'
import type { Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { directClient } from './google-fixture.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const TABS: TabSpec[] = [activitiesTab(), allowedTagsTab(), syncLogTab()]
const LAYOUT = { timeZone: 'Europe/Berlin' }

function setup(): { store: SheetsStore; spreadsheetId: string; sheet: Spreadsheet } {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
  return { store, spreadsheetId, sheet }
}

const api = () => directClient(signInWithStaticToken(TOKEN).client, ROOT)

async function tabs(spreadsheetId: string) {
  const { data } = await api().spreadsheets.get({ spreadsheetId, fields: 'sheets(properties(sheetId,title),basicFilter)' })
  return data.sheets ?? []
}

describe('issue 11: the empty default tab', () => {
  it('is removed when the tool sets the spreadsheet up, so Activities is the first tab', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    expect((await tabs(s.spreadsheetId)).map((t) => t.properties?.title)).toEqual(['Activities', 'Allowed tags', 'Sync log'])
  })

  it('stays when someone typed into it', async () => {
    const s = setup()
    await api().spreadsheets.values.update({
      spreadsheetId: s.spreadsheetId,
      range: 'Sheet1!C7',
      valueInputOption: 'RAW',
      requestBody: { values: [['my notes']] },
    })
    await s.sheet.ensureLayout(TABS, LAYOUT)
    expect((await tabs(s.spreadsheetId)).map((t) => t.properties?.title)).toEqual(['Sheet1', 'Activities', 'Allowed tags', 'Sync log'])
  })

  it('stays when the spreadsheet already had the tool’s tabs, or other tabs', async () => {
    const s = setup()
    await api().spreadsheets.batchUpdate({
      spreadsheetId: s.spreadsheetId,
      requestBody: { requests: [{ addSheet: { properties: { title: 'Budget' } } }] },
    })
    await s.sheet.ensureLayout(TABS, LAYOUT)
    expect((await tabs(s.spreadsheetId)).map((t) => t.properties?.title)).toEqual([
      'Sheet1',
      'Budget',
      'Activities',
      'Allowed tags',
      'Sync log',
    ])
  })
})

describe('issue 11: filter, counts and zone', () => {
  it('puts a basic filter on Activities only, and keeps a manager’s criteria when the layout changes', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    const laid = await tabs(s.spreadsheetId)
    const activities = laid.find((t) => t.properties?.title === 'Activities')!
    expect(activities.basicFilter?.range).toMatchObject({ startRowIndex: 0, startColumnIndex: 0 })
    expect(laid.filter((t) => t.basicFilter).map((t) => t.properties?.title)).toEqual(['Activities'])
    const sheetId = activities.properties?.sheetId ?? 0
    const criteria = { '0': { hiddenValues: ['DOMAIN\\someone'] } }
    await api().spreadsheets.batchUpdate({
      spreadsheetId: s.spreadsheetId,
      requestBody: { requests: [{ setBasicFilter: { filter: { range: { sheetId }, criteria } } }] },
    })
    // Another zone is another layout: it is applied again, the filter left alone.
    expect((await s.sheet.ensureLayout(TABS, { timeZone: 'Europe/Paris' })).changed).toBe(true)
    const after = (await tabs(s.spreadsheetId)).find((t) => t.properties?.title === 'Activities')!
    expect(after.basicFilter?.criteria).toEqual(criteria)
  })

  it('shows Sync log counts as integers and its times with the zone they are in', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    await api().spreadsheets.values.update({
      spreadsheetId: s.spreadsheetId,
      range: "'Sync log'!A2:E2",
      valueInputOption: 'RAW',
      requestBody: { values: [[46349.5, 'r1', 'export', 'Done', 925]] },
    })
    const { data } = await api().spreadsheets.values.get({ spreadsheetId: s.spreadsheetId, range: "'Sync log'!A2:E2" })
    expect(data.values?.[0]).toEqual(['2026-11-23 12:00 Europe/Berlin', 'r1', 'export', 'Done', '925'])
  })
})

describe('issue 11: rows past the grid stay in the filter', () => {
  it('grows the Activities filter with the rows the tool inserts, past the first 1,000', async () => {
    const s = setup()
    await s.sheet.ensureLayout(TABS, LAYOUT)
    const basis = await s.sheet.read(['Activities'])
    const row = (n: number) => ['DOMAIN\\u', 46300 + n, 0.375, 0.4, 0.025, 'A, B', '', '', false, '', `key/${n}`, '']
    await s.sheet.write([{ tab: 'Activities', keyColumn: 10, appends: Array.from({ length: 1200 }, (_, i) => row(i + 1)) }], basis)
    const activities = (await tabs(s.spreadsheetId)).find((t) => t.properties?.title === 'Activities')!
    expect(activities.basicFilter?.range?.endRowIndex).toBe(2200)
  })
})
