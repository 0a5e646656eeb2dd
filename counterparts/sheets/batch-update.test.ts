/**
 * spreadsheets.batchUpdate as a whole through the real `@googleapis/sheets` client (reference/sheets-api.md §6):
 * one reply per request, atomicity and its error names, the grid limits, and rows that carry their developer
 * metadata when sorted, inserted around or deleted. The single requests the tool sends are in requests.test.ts.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { failure, mountSheetsApi, testStore } from './test-support.ts'

let store: SheetsStore
const { api, newSpreadsheet, put } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store } = testStore())
})

describe('spreadsheets.batchUpdate (§6)', () => {
  test('replies one per request, addSheet reply, later requests see earlier ones', async () => {
    const id = newSpreadsheet()
    const res = await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [
          { addSheet: { properties: { title: 'Activities', sheetId: 42, gridProperties: { rowCount: 10, columnCount: 12 } } } },
          {
            updateSheetProperties: {
              properties: { sheetId: 42, gridProperties: { frozenRowCount: 1 } },
              fields: 'gridProperties.frozenRowCount',
            },
          },
          { addProtectedRange: { protectedRange: { range: { sheetId: 0, startRowIndex: 0, endRowIndex: 1 }, warningOnly: true } } },
        ],
      },
    })
    expect(res.data.replies?.[0]).toEqual({
      addSheet: {
        properties: { sheetId: 42, title: 'Activities', index: 1, sheetType: 'GRID', gridProperties: { rowCount: 10, columnCount: 12 } },
      },
    })
    expect(res.data.replies?.[1]).toEqual({})
    expect(res.data.replies?.[2]?.addProtectedRange?.protectedRange).toMatchObject({
      range: { startRowIndex: 0, endRowIndex: 1 },
      warningOnly: true,
      requestingUserCanEdit: true,
      editors: {},
    })
    expect(res.data.replies?.[2]?.addProtectedRange?.protectedRange?.range).not.toHaveProperty('sheetId')
    const props = await api.spreadsheets.get({ spreadsheetId: id, fields: 'sheets.properties' })
    expect(props.data.sheets?.[1]?.properties?.gridProperties).toEqual({ rowCount: 10, columnCount: 12, frozenRowCount: 1 })
  })

  test('hiding the last visible sheet is refused', async () => {
    const id = newSpreadsheet()
    const error = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: { requests: [{ updateSheetProperties: { properties: { sheetId: 0, hidden: true }, fields: 'hidden' } }] },
      }),
    )
    expect(error.message).toBe("Invalid requests[0].updateSheetProperties: You can't hide all the sheets in a document.")
  })

  test('atomic: a failing request undoes the ones before it; errors carry Invalid requests[i].<name>', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['keep']])
    const error = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: {
          requests: [
            { addSheet: { properties: { title: 'New' } } },
            { insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 3 } } },
            { updateSheetProperties: { properties: { sheetId: 0, hidden: true }, fields: 'hidden' } },
            { deleteSheet: { sheetId: 0 } },
            { deleteSheet: { sheetId: 99 } },
          ],
        },
      }),
    )
    expect(error.status).toBe(400)
    expect(error.message).toBe('Invalid requests[4].deleteSheet: No sheet with id: 99')
    const after = await api.spreadsheets.get({ spreadsheetId: id })
    expect(after.data.sheets?.map((s) => s.properties)).toEqual([
      { sheetId: 0, title: 'Sheet1', index: 0, sheetType: 'GRID', gridProperties: { rowCount: 1000, columnCount: 26 } },
    ])
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })).data.values).toEqual([['keep']])
  })

  test('unknown request names, empty requests, DURATION format type, missing fields mask', async () => {
    const id = newSpreadsheet()
    const unknown = await failure(
      api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [{ frobnicate: {} } as never] } }),
    )
    expect(unknown.message).toBe(`Invalid JSON payload received. Unknown name "frobnicate" at 'requests[0]': Cannot find field.`)
    const empty = await failure(api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [] } }))
    expect(empty.message).toBe('Must specify at least one request.')
    const duration = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: {
          requests: [
            {
              repeatCell: {
                range: { sheetId: 0 },
                cell: { userEnteredFormat: { numberFormat: { type: 'DURATION' as never, pattern: '[h]:mm' } } },
                fields: 'userEnteredFormat.numberFormat',
              },
            },
          ],
        },
      }),
    )
    expect(duration.message).toContain(`"DURATION"`)
    const mask = await failure(
      api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [{ repeatCell: { range: { sheetId: 0 }, cell: {} } }] } }),
    )
    expect(mask.message).toBe(
      "Invalid requests[0].repeatCell: At least one field must be listed in 'fields'. (Use '*' to indicate all fields.)",
    )
    const grid = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: {
          requests: [
            {
              repeatCell: { range: { sheetId: 0, startRowIndex: 1000, startColumnIndex: 0, endColumnIndex: 2 }, cell: {}, fields: 'note' },
            },
          ],
        },
      }),
    )
    expect(grid.message).toBe('Invalid requests[0].repeatCell: Range (Sheet1!A1001:B) exceeds grid limits. Max rows: 1000, max columns: 26')
    const noGrid = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: { requests: [{ repeatCell: { range: { sheetId: 3 }, cell: {}, fields: 'note' } }] },
      }),
    )
    expect(noGrid.message).toBe('Invalid requests[0].repeatCell: No grid with id: 3')
  })

  test('a number format applied by repeatCell shows in FORMATTED_VALUE; deleteDimension limits', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [[45293.5, 0.0625]])
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [
          {
            repeatCell: {
              range: { sheetId: 0, startColumnIndex: 0, endColumnIndex: 1 },
              cell: { userEnteredFormat: { numberFormat: { type: 'DATE_TIME', pattern: 'yyyy-mm-dd hh:mm' } } },
              fields: 'userEnteredFormat.numberFormat',
            },
          },
          {
            repeatCell: {
              range: { sheetId: 0, startColumnIndex: 1, endColumnIndex: 2 },
              cell: { userEnteredFormat: { numberFormat: { type: 'TIME', pattern: '[h]:mm' } } },
              fields: 'userEnteredFormat.numberFormat',
            },
          },
        ],
      },
    })
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:B1' })).data.values).toEqual([
      ['2024-01-02 12:00', '1:30'],
    ])
    const tooFar = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: { requests: [{ deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 999, endIndex: 1001 } } }] },
      }),
    )
    expect(tooFar.message).toBe(
      "Invalid requests[0].deleteDimension: Cannot delete a row that doesn't exist. Tried to delete row index 1000 but there are only 1000 rows.",
    )
    const all = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: { requests: [{ deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1000 } } }] },
      }),
    )
    expect(all.message).toBe("Invalid requests[0].deleteDimension: You can't delete all the rows on the sheet.")
  })

  test('10,000,000-cell limit on appendDimension, checked after rowCount on resize', async () => {
    const id = newSpreadsheet()
    const error = await failure(
      api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: { requests: [{ appendDimension: { sheetId: 0, dimension: 'ROWS', length: 383_616 } }] },
      }),
    )
    expect(error.message).toBe(
      'Invalid requests[0].appendDimension: This action would increase the number of cells in the workbook above the limit of 10000000 cells.',
    )
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ appendDimension: { sheetId: 0, dimension: 'ROWS', length: 383_615 } }] },
    })
    expect(store.spreadsheets.get(id)!.sheets[0]!.properties.gridProperties.rowCount).toBe(384_615)
  })
})

describe('rows move with their metadata (§6.3)', () => {
  test('sortRange keeps the header and carries row metadata; insert/delete shift it; search finds it', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [
      ['Key', 'Name'],
      ['k3', 'c'],
      ['k1', 'a'],
      ['k2', 'b'],
    ])
    const created = await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [
          {
            createDeveloperMetadata: {
              developerMetadata: {
                metadataKey: 'row',
                metadataValue: 'k3',
                visibility: 'DOCUMENT',
                location: { dimensionRange: { sheetId: 0, dimension: 'ROWS', startIndex: 1, endIndex: 2 } },
              },
            },
          },
        ],
      },
    })
    const meta = created.data.replies?.[0]?.createDeveloperMetadata?.developerMetadata
    expect(meta?.location).toEqual({ locationType: 'ROW', dimensionRange: { dimension: 'ROWS', startIndex: 1, endIndex: 2 } })
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [{ sortRange: { range: { sheetId: 0, startRowIndex: 1 }, sortSpecs: [{ dimensionIndex: 0, sortOrder: 'ASCENDING' }] } }],
      },
    })
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:B4' })).data.values).toEqual([
      ['Key', 'Name'],
      ['k1', 'a'],
      ['k2', 'b'],
      ['k3', 'c'],
    ])
    const search = async () =>
      (
        await api.spreadsheets.developerMetadata.search({
          spreadsheetId: id,
          requestBody: { dataFilters: [{ developerMetadataLookup: { metadataKey: 'row' } }] },
        })
      ).data
    expect((await search()).matchedDeveloperMetadata?.[0]?.developerMetadata?.location?.dimensionRange).toEqual({
      dimension: 'ROWS',
      startIndex: 3,
      endIndex: 4,
    })
    const manager = createManager(store)
    manager.insertRows(id, 'Sheet1', 2, 2)
    expect((await search()).matchedDeveloperMetadata?.[0]?.developerMetadata?.location?.dimensionRange).toEqual({
      dimension: 'ROWS',
      startIndex: 5,
      endIndex: 6,
    })
    manager.deleteRows(id, 'Sheet1', 6)
    expect(await search()).toEqual({})
  })
})
