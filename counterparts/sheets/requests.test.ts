/**
 * The batchUpdate requests issue 11 makes the tool send — merges, filters,
 * charts, tabs, formats — through the real `@googleapis/sheets` client, with
 * Google's recorded answers where there are some (reference/sheets-api.md §6).
 */
import type { GaxiosError } from 'gaxios'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import type { sheets_v4 } from '@googleapis/sheets'
import { mswHandlerFor } from '../mount.ts'
import { createSheetsHandler } from './handler.ts'
import type { SheetsStore } from './store.ts'
import { sheetsClient, testStore } from './test-support.ts'

const ROOT = 'http://sheets.test/'
let store: SheetsStore
const server = setupServer(mswHandlerFor(ROOT, (request) => createSheetsHandler(store)(request)))
const api = sheetsClient(ROOT, 'test-token')

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  ;({ store } = testStore({ quota: false }))
})

async function failure(promise: Promise<unknown>): Promise<GaxiosError> {
  try {
    await promise
  } catch (error) {
    return error as GaxiosError
  }
  throw new Error('expected the call to fail')
}

function newSpreadsheet(sheets: { title: string; sheetId: number; rowCount?: number; columnCount?: number }[] = [{ title: 'Sheet1', sheetId: 0 }]): string {
  return store.createSpreadsheet({ title: 'T', sheets }).spreadsheetId
}

const batch = (spreadsheetId: string, requests: sheets_v4.Schema$Request[]) => api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } })
const values = async (spreadsheetId: string, range: string) => (await api.spreadsheets.values.get({ spreadsheetId, range })).data.values
const sheetsOf = async (spreadsheetId: string, fields?: string) => (await api.spreadsheets.get({ spreadsheetId, ...(fields ? { fields } : {}) })).data.sheets ?? []

describe('issue 11: mergeCells and unmergeCells', () => {
  const range = (r0: number, r1: number, c0: number, c1: number) => ({ sheetId: 0, startRowIndex: r0, endRowIndex: r1, startColumnIndex: c0, endColumnIndex: c1 })

  test("Google's recorded answers: MERGE_ROWS is one merge per row, MERGE_ALL over them replaces them, unmerge removes it", async () => {
    const id = newSpreadsheet()
    await api.spreadsheets.values.update({ spreadsheetId: id, range: "'Sheet1'!A1:B2", valueInputOption: 'RAW', requestBody: { values: [[42, 43], [43, 44]] } })
    expect((await batch(id, [{ mergeCells: { mergeType: 'MERGE_ROWS', range: range(0, 2, 0, 2) } }])).data.replies).toEqual([{}])
    expect((await sheetsOf(id))[0]).toEqual({
      properties: { sheetId: 0, title: 'Sheet1', index: 0, sheetType: 'GRID', gridProperties: { rowCount: 1000, columnCount: 26 } },
      merges: [range(0, 1, 0, 2), range(1, 2, 0, 2)].map(({ sheetId: _omitted, ...rest }) => rest),
    })
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_ALL', range: range(0, 2, 0, 2) } }])
    expect((await sheetsOf(id))[0]?.merges).toEqual([{ startRowIndex: 0, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 2 }])
    await batch(id, [{ unmergeCells: { range: range(0, 2, 0, 2) } }])
    expect((await sheetsOf(id))[0]).not.toHaveProperty('merges')
  })

  test("Google's recorded answers: MERGE_COLUMNS is one merge per column; top-left values stay; one unmerge over all", async () => {
    const id = newSpreadsheet()
    await batch(id, [{ updateSheetProperties: { properties: { sheetId: 0, gridProperties: { rowCount: 4, columnCount: 4 } }, fields: 'gridProperties/rowCount,gridProperties/columnCount' } }])
    await api.spreadsheets.values.update({ spreadsheetId: id, range: "'Sheet1'!A1:D4", valueInputOption: 'RAW', requestBody: { values: [['1', '', '2', '3'], ['', '', '', ''], ['', '4', '', ''], ['', '5', '', '']] } })
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_ALL', range: range(0, 2, 0, 2) } }])
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_COLUMNS', range: range(0, 2, 2, 4) } }])
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_ROWS', range: range(2, 4, 1, 3) } }])
    expect(await values(id, "'Sheet1'!A1:D4")).toEqual([['1', '', '2', '3'], [], ['', '4'], ['', '5']])
    expect((await sheetsOf(id))[0]?.merges).toEqual([
      { startRowIndex: 0, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 2 },
      { startRowIndex: 0, endRowIndex: 2, startColumnIndex: 2, endColumnIndex: 3 },
      { startRowIndex: 0, endRowIndex: 2, startColumnIndex: 3, endColumnIndex: 4 },
      { startRowIndex: 2, endRowIndex: 3, startColumnIndex: 1, endColumnIndex: 3 },
      { startRowIndex: 3, endRowIndex: 4, startColumnIndex: 1, endColumnIndex: 3 },
    ])
    await batch(id, [{ unmergeCells: { range: range(0, 4, 0, 4) } }])
    expect((await sheetsOf(id))[0]).not.toHaveProperty('merges')
    expect(await values(id, "'Sheet1'!A1:D4")).toEqual([['1', '', '2', '3'], [], ['', '4'], ['', '5']])
  })

  test('values other than the top-left are cleared, formats stay; merges of another sheet keep their sheetId', async () => {
    const id = newSpreadsheet([{ title: 'Sheet1', sheetId: 0 }, { title: 'Summary', sheetId: 7 }])
    await api.spreadsheets.values.update({ spreadsheetId: id, range: 'Summary!A1', valueInputOption: 'RAW', requestBody: { values: [['Title', 'lost', 'lost too'], ['also lost']] } })
    await batch(id, [
      { repeatCell: { range: { sheetId: 7, startRowIndex: 0, endRowIndex: 1, startColumnIndex: 1, endColumnIndex: 2 }, cell: { userEnteredFormat: { textFormat: { bold: true } } }, fields: 'userEnteredFormat.textFormat.bold' } },
      { mergeCells: { range: { sheetId: 7, startRowIndex: 0, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 3 } } },
    ])
    expect(await values(id, 'Summary!A1:C2')).toEqual([['Title']])
    const summary = (await sheetsOf(id))[1]!
    expect(summary.merges).toEqual([{ sheetId: 7, startRowIndex: 0, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 3 }])
    const grid = await api.spreadsheets.get({ spreadsheetId: id, ranges: ['Summary!B1'], fields: 'sheets.data.rowData.values.userEnteredFormat' })
    expect(grid.data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.userEnteredFormat).toEqual({ textFormat: { bold: true } })
  })

  test('a merge that partly covers another, across frozen rows or columns, or across a filter edge is refused, and nothing is applied', async () => {
    const id = newSpreadsheet()
    await batch(id, [{ mergeCells: { range: range(0, 2, 0, 2) } }])
    const partial = await failure(batch(id, [{ mergeCells: { range: range(1, 3, 1, 3) } }]))
    expect(partial.status).toBe(400)
    expect(partial.message).toBe('Invalid requests[0].mergeCells: You must select all cells in a merged range to merge or unmerge them.')
    const unmerge = await failure(batch(id, [{ unmergeCells: { range: range(0, 1, 0, 5) } }]))
    expect(unmerge.message).toBe('Invalid requests[0].unmergeCells: You must select all cells in a merged range to merge or unmerge them.')
    await batch(id, [{ updateSheetProperties: { properties: { sheetId: 0, gridProperties: { frozenRowCount: 3, frozenColumnCount: 1 } }, fields: 'gridProperties(frozenRowCount,frozenColumnCount)' } }])
    const rows = await failure(batch(id, [{ mergeCells: { range: range(2, 4, 3, 4) } }]))
    expect(rows.message).toBe("Invalid requests[0].mergeCells: You can't merge frozen and non-frozen rows.")
    const columns = await failure(batch(id, [{ mergeCells: { mergeType: 'MERGE_ROWS', range: range(5, 6, 0, 3) } }]))
    expect(columns.message).toBe("Invalid requests[0].mergeCells: You can't merge frozen and non-frozen columns.")
    await batch(id, [{ setBasicFilter: { filter: { range: range(10, 20, 0, 5) } } }])
    const filter = await failure(batch(id, [{ mergeCells: { range: range(9, 11, 2, 4) } }]))
    expect(filter.message).toBe("Invalid requests[0].mergeCells: You can't merge cells that cross the borders of an existing filter.")
    const atomic = await failure(batch(id, [{ mergeCells: { range: range(5, 6, 3, 6) } }, { mergeCells: { mergeType: 'MERGE_SIDEWAYS' as never, range: range(7, 8, 3, 6) } }]))
    expect(atomic.message).toBe(`Invalid value at 'requests[1].merge_cells.merge_type' (type.googleapis.com/google.apps.sheets.v4.MergeType), "MERGE_SIDEWAYS"`)
    expect((await sheetsOf(id))[0]?.merges).toEqual([{ startRowIndex: 0, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 2 }])
  })

  test('merges move with inserted and deleted rows; a merge cut to one cell is gone', async () => {
    const id = newSpreadsheet()
    await batch(id, [{ mergeCells: { range: range(2, 4, 0, 2) } }, { mergeCells: { range: range(6, 8, 0, 1) } }])
    await batch(id, [{ insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } }, { deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 7, endIndex: 8 } } }])
    expect((await sheetsOf(id))[0]?.merges).toEqual([{ startRowIndex: 3, endRowIndex: 5, startColumnIndex: 0, endColumnIndex: 2 }])
  })
})
