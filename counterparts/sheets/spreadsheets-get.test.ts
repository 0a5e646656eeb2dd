/**
 * spreadsheets.get through the real `@googleapis/sheets` client (reference/sheets-api.md §2): the full
 * shape with proto3 omissions, the field masks the backend uses, and grid data for ranges.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import type { SheetsStore } from './store.ts'
import { failure, mountSheetsApi, NO_RETRY, testStore } from './test-support.ts'

let store: SheetsStore
const { api, newSpreadsheet } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store } = testStore())
})

describe('spreadsheets.get (§2)', () => {
  test('full shape with proto3 omissions', async () => {
    const id = newSpreadsheet()
    const res = await api.spreadsheets.get({ spreadsheetId: id })
    expect(res.data.sheets).toEqual([
      { properties: { sheetId: 0, title: 'Sheet1', index: 0, sheetType: 'GRID', gridProperties: { rowCount: 1000, columnCount: 26 } } },
    ])
    expect(res.data.properties).toMatchObject({ title: 'T', locale: 'en_US', timeZone: 'Etc/GMT' })
    expect(res.data.spreadsheetUrl).toBe(`https://docs.google.com/spreadsheets/d/${id}/edit`)
  })
  test('field masks the backend uses, and an unknown one', async () => {
    const id = newSpreadsheet()
    const masked = await api.spreadsheets.get({
      spreadsheetId: id,
      fields: 'sheets(properties(sheetId,title,gridProperties)),properties.timeZone',
    })
    expect(masked.data).toEqual({
      properties: { timeZone: 'Etc/GMT' },
      sheets: [{ properties: { sheetId: 0, title: 'Sheet1', gridProperties: { rowCount: 1000, columnCount: 26 } } }],
    })
    const tab = await api.spreadsheets.get({ spreadsheetId: id, fields: 'sheets.properties.tabColorStyle' })
    expect(tab.data).toEqual({ sheets: [{ properties: {} }] })
    const none = await api.spreadsheets.get({ spreadsheetId: id, fields: 'developerMetadata' })
    expect(none.data).toEqual({})
    const bad = await failure(api.spreadsheets.get({ spreadsheetId: id, fields: 'sheets.sheetProperties' }, NO_RETRY))
    expect(bad.status).toBe(400)
    expect(bad.message).toBe('Request contains an invalid argument.')
    expect(bad.response?.data).toEqual({
      error: {
        code: 400,
        message: 'Request contains an invalid argument.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [
              {
                field: 'sheets.sheetProperties',
                description: "Error expanding 'fields' parameter. Cannot find matching fields for path 'sheets.sheetProperties'.",
              },
            ],
          },
        ],
      },
    })
  })
  test('grid data for ranges: only intersecting sheets, notes', async () => {
    const id = newSpreadsheet([
      { title: 'A', sheetId: 0 },
      { title: 'B', sheetId: 5 },
    ])
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [
          {
            repeatCell: {
              range: { sheetId: 5, startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: 1 },
              cell: { note: 'hi' },
              fields: 'note',
            },
          },
        ],
      },
    })
    const res = await api.spreadsheets.get({ spreadsheetId: id, ranges: ['B!A1:B2'], fields: 'sheets.data.rowData.values.note' })
    expect(res.data).toEqual({ sheets: [{ data: [{ rowData: [{ values: [{ note: 'hi' }] }] }] }] })
  })
})
