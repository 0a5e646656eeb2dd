/**
 * A refused batchUpdate leaves the spreadsheet exactly as it was, including
 * rows the batch itself created and then filled (their cells are undone with
 * the row, not one by one), and rows that existed before it.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { beforeEach, expect, test } from 'vitest'
import type { SheetsStore } from './store.ts'
import { mountSheetsApi, testStore } from './test-support.ts'

let store: SheetsStore
const { api } = mountSheetsApi(() => store)
beforeEach(() => {
  ;({ store } = testStore({ quota: false }))
})

const text = (stringValue: string): sheets_v4.Schema$CellData => ({ userEnteredValue: { stringValue } })
const grid = async (spreadsheetId: string) => (await api.spreadsheets.get({ spreadsheetId, includeGridData: true })).data.sheets

async function refusedAfter(spreadsheetId: string, requests: sheets_v4.Schema$Request[]): Promise<void> {
  // The last request names a sheet that does not exist, so Google refuses the whole batch after applying the rest.
  const failing = { deleteSheet: { sheetId: 99 } }
  await expect(api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests: [...requests, failing] } })).rejects.toMatchObject({
    status: 400,
  })
}

test('a refused batch that appended rows and filled them leaves the grid as it was', async () => {
  const id = store.createSpreadsheet({ title: 'T', sheets: [{ title: 'Sheet1', sheetId: 0, rowCount: 3, columnCount: 4 }] }).spreadsheetId
  await api.spreadsheets.values.update({
    spreadsheetId: id,
    range: 'Sheet1!A1:B2',
    valueInputOption: 'RAW',
    requestBody: {
      values: [
        ['h1', 'h2'],
        ['a', 'b'],
      ],
    },
  })
  const before = await grid(id)
  await refusedAfter(id, [
    { appendDimension: { sheetId: 0, dimension: 'ROWS', length: 3 } },
    {
      updateCells: {
        start: { sheetId: 0, rowIndex: 3, columnIndex: 0 },
        rows: [{ values: [text('x'), text('y')] }, { values: [text('z')] }],
        fields: 'userEnteredValue',
      },
    },
    {
      repeatCell: {
        range: { sheetId: 0, startRowIndex: 3, endRowIndex: 6 },
        cell: { userEnteredFormat: { numberFormat: { type: 'TEXT' } } },
        fields: 'userEnteredFormat.numberFormat',
      },
    },
    {
      updateCells: {
        start: { sheetId: 0, rowIndex: 1, columnIndex: 0 },
        rows: [{ values: [text('changed')] }],
        fields: 'userEnteredValue',
      },
    },
  ])
  expect(await grid(id)).toEqual(before)
})

test('a refused batch that inserted rows inheriting formats, filled them and sorted leaves the grid as it was', async () => {
  const id = store.createSpreadsheet({ title: 'T', sheets: [{ title: 'Sheet1', sheetId: 0, rowCount: 4, columnCount: 3 }] }).spreadsheetId
  await api.spreadsheets.values.update({
    spreadsheetId: id,
    range: 'Sheet1!A1:A4',
    valueInputOption: 'RAW',
    requestBody: { values: [['d'], ['b'], ['c'], ['a']] },
  })
  await api.spreadsheets.batchUpdate({
    spreadsheetId: id,
    requestBody: {
      requests: [
        {
          repeatCell: {
            range: { sheetId: 0, startRowIndex: 1, endRowIndex: 2 },
            cell: { userEnteredFormat: { numberFormat: { type: 'TEXT' } } },
            fields: 'userEnteredFormat.numberFormat',
          },
        },
      ],
    },
  })
  const before = await grid(id)
  await refusedAfter(id, [
    { insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 2, endIndex: 4 }, inheritFromBefore: true } },
    {
      updateCells: {
        start: { sheetId: 0, rowIndex: 2, columnIndex: 0 },
        rows: [{ values: [text('new1')] }, { values: [text('new2'), text('more')] }],
        fields: 'userEnteredValue',
      },
    },
    { sortRange: { range: { sheetId: 0, startRowIndex: 0, endRowIndex: 6 }, sortSpecs: [{ dimensionIndex: 0, sortOrder: 'ASCENDING' }] } },
    {
      updateCells: {
        start: { sheetId: 0, rowIndex: 0, columnIndex: 1 },
        rows: [{ values: [text('after sort')] }],
        fields: 'userEnteredValue',
      },
    },
  ])
  expect(await grid(id)).toEqual(before)
})

test('the same batch without the refusal applies: the refusal, not the requests, is what leaves the grid unchanged', async () => {
  const id = store.createSpreadsheet({ title: 'T', sheets: [{ title: 'Sheet1', sheetId: 0, rowCount: 3, columnCount: 4 }] }).spreadsheetId
  await api.spreadsheets.batchUpdate({
    spreadsheetId: id,
    requestBody: {
      requests: [
        { appendDimension: { sheetId: 0, dimension: 'ROWS', length: 3 } },
        {
          updateCells: {
            start: { sheetId: 0, rowIndex: 3, columnIndex: 0 },
            rows: [{ values: [text('x'), text('y')] }, { values: [text('z')] }],
            fields: 'userEnteredValue',
          },
        },
      ],
    },
  })
  const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:B6' })
  expect(read.data.values).toEqual([[], [], [], ['x', 'y'], ['z']])
})
