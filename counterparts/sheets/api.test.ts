/**
 * The fake through the real `@googleapis/sheets` client, mounted in msw.
 * Each test pins a behaviour of reference/sheets-api.md that the sync tool observes.
 */
import type { GaxiosError } from 'gaxios'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { countElementReads, countGets } from '../element-reads.ts'
import { mswHandlerFor } from '../mount.ts'
import { createSheetsHandler } from './handler.ts'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { type ManualClock, sheetsClient, testStore } from './test-support.ts'

const ROOT = 'http://sheets.test/'
let store: SheetsStore
let clock: ManualClock
const server = setupServer(mswHandlerFor(ROOT, (request) => createSheetsHandler(store)(request)))
const api = sheetsClient(ROOT, 'test-token')
const NO_RETRY = { retry: false } as const

// onUnhandledFrame is msw 3's name for onUnhandledRequest.
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  ;({ store, clock } = testStore())
})

function newSpreadsheet(sheets: { title: string; sheetId: number; columnCount?: number }[] = [{ title: 'Sheet1', sheetId: 0 }]): string {
  return store.createSpreadsheet({ title: 'T', sheets }).spreadsheetId
}

async function failure(promise: Promise<unknown>): Promise<GaxiosError> {
  try {
    await promise
  } catch (error) {
    return error as GaxiosError
  }
  throw new Error('expected the call to fail')
}

async function put(spreadsheetId: string, range: string, values: unknown[][], valueInputOption = 'RAW') {
  return api.spreadsheets.values.update({ spreadsheetId, range, valueInputOption, requestBody: { values } }, NO_RETRY)
}

describe('reads (§4)', () => {
  test('trims trailing cells and rows, keeps interior [] rows, omits values when empty', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['A1', 'B1', '', 'D1'], ['', 'b2', '', ''], [], ['A4', 'B4', '', 'D4'], ['', '']])
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:D6' })
    expect(read.data).toEqual({
      range: 'Sheet1!A1:D6',
      majorDimension: 'ROWS',
      values: [['A1', 'B1', '', 'D1'], ['', 'b2'], [], ['A4', 'B4', '', 'D4']],
    })
    const empty = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!F4' })
    expect(empty.data).toEqual({ range: 'Sheet1!F4', majorDimension: 'ROWS' })
    const columns = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:A', majorDimension: 'COLUMNS' })
    expect(columns.data).toEqual({ range: 'Sheet1!A1:A1000', majorDimension: 'COLUMNS', values: [['A1', '', '', 'A4']] })
  })

  test('echoes ranges normalised: sheet always present, quotes only when needed, bounded, corners fixed', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'My Sheet', sheetId: 1 },
      { title: 'D3', sheetId: 2 },
    ])
    const batch = await api.spreadsheets.values.batchGet({
      spreadsheetId: id,
      ranges: ['A:A', "'Sheet1'", 'My Sheet!D4:A1', "'D3'!A1:D4", 'Sheet1!A2:2', 'Sheet1!A1:ZZ1'],
    })
    expect(batch.data.spreadsheetId).toBe(id)
    expect(batch.data.valueRanges?.map((v) => v.range)).toEqual([
      'Sheet1!A1:A1000',
      'Sheet1!A1:Z1000',
      "'My Sheet'!A1:D4",
      "'D3'!A1:D4",
      'Sheet1!A2:Z2',
      'Sheet1!A1:Z1',
    ])
  })

  test('render options table of §4.4', async () => {
    const id = newSpreadsheet()
    await put(
      id,
      'Sheet1!A1',
      [
        ['=4/2', '2020-01-01', 'string', 53],
        ['=3/2', 0.12, '1999-01-02', ''],
      ],
      'USER_ENTERED',
    )
    const read = async (valueRenderOption: string, dateTimeRenderOption?: string) =>
      (
        await api.spreadsheets.values.get({
          spreadsheetId: id,
          range: 'Sheet1',
          valueRenderOption,
          ...(dateTimeRenderOption ? { dateTimeRenderOption } : {}),
        })
      ).data.values
    expect(await read('FORMATTED_VALUE')).toEqual([
      ['2', '2020-01-01', 'string', '53'],
      ['1.5', '0.12', '1999-01-02'],
    ])
    expect(await read('UNFORMATTED_VALUE', 'SERIAL_NUMBER')).toEqual([
      [2, 43831, 'string', 53],
      [1.5, 0.12, 36162],
    ])
    expect(await read('UNFORMATTED_VALUE', 'FORMATTED_STRING')).toEqual([
      [2, '2020-01-01', 'string', 53],
      [1.5, 0.12, '1999-01-02'],
    ])
    expect(await read('FORMULA')).toEqual([
      ['=4/2', 43831, 'string', 53],
      ['=3/2', 0.12, 36162],
    ])
  })

  test('RAW keeps text as text; USER_ENTERED parses it', async () => {
    const id = newSpreadsheet()
    const row = ['=1+1', '0042', '2020-01-01', 'TRUE', '+1', 1, true]
    await put(id, 'Sheet1!A1', [row], 'RAW')
    await put(id, 'Sheet1!A2', [row], 'USER_ENTERED')
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:G2', valueRenderOption: 'UNFORMATTED_VALUE' })
    expect(read.data.values).toEqual([
      ['=1+1', '0042', '2020-01-01', 'TRUE', '+1', 1, true],
      [2, 42, 43831, true, 1, 1, true],
    ])
  })

  test('unknown sheet → 400 Unable to parse range; unknown spreadsheet → 404', async () => {
    const id = newSpreadsheet()
    const bad = await failure(api.spreadsheets.values.get({ spreadsheetId: id, range: 'NOPE!A5:F15' }, NO_RETRY))
    expect(bad.status).toBe(400)
    expect(bad.message).toBe('Unable to parse range: NOPE!A5:F15')
    expect(bad.response?.data).toEqual({ error: { code: 400, message: 'Unable to parse range: NOPE!A5:F15', status: 'INVALID_ARGUMENT' } })
    expect(bad.response?.headers.get('content-type')).toBe('application/json; charset=UTF-8')
    const missing = await failure(api.spreadsheets.get({ spreadsheetId: 'nope' }, NO_RETRY))
    expect(missing.status).toBe(404)
    expect(missing.message).toBe('Requested entity was not found.')
    expect((missing.response?.data as { error: { status: string } }).error.status).toBe('NOT_FOUND')
  })

  test('start outside the grid → exceeds grid limits, with the open form', async () => {
    const id = newSpreadsheet()
    const error = await failure(api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1001:B' }, NO_RETRY))
    expect(error.message).toBe('Range (Sheet1!A1001:B) exceeds grid limits. Max rows: 1000, max columns: 26')
  })
})

describe('values.update (§5.1)', () => {
  test('expands an anchor to the data, shrinks a range to it, counts non-null cells', async () => {
    const id = newSpreadsheet()
    const anchor = await put(id, "'Sheet1'!A1", [
      ['a', 'b', 'c', 'd'],
      ['a', 'b', 'c', 'd'],
      ['a', 'b', 'c', 'd'],
      ['a', 'b', 'c', 'd'],
    ])
    expect(anchor.data).toEqual({ spreadsheetId: id, updatedRange: 'Sheet1!A1:D4', updatedRows: 4, updatedColumns: 4, updatedCells: 16 })
    const shrink = await put(id, 'Sheet1!A1:B2', [['x', 'y']])
    expect(shrink.data).toMatchObject({ updatedRange: 'Sheet1!A1:B1', updatedRows: 1 })
    const sparse = await put(id, 'Sheet1!A1:D6', [['p', null, null, null], [null], [], [], [], [null, null, null, 'q']])
    expect(sparse.data).toEqual({ spreadsheetId: id, updatedRange: 'Sheet1!A1:D6', updatedRows: 2, updatedColumns: 2, updatedCells: 2 })
    const ragged = await put(id, 'Sheet1!A1', [
      ['A1', 'B1', 'C1'],
      [1, 2, 3, 4],
    ])
    expect(ragged.data).toMatchObject({ updatedRange: 'Sheet1!A1:D2', updatedRows: 2, updatedColumns: 4, updatedCells: 7 })
    const single = await put(id, 'Sheet1!A1:A1', [['z']])
    expect(single.data.updatedRange).toBe('Sheet1!A1')
  })

  test('null leaves a cell, "" clears it', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['a', 'b', 'c']])
    await put(id, 'Sheet1!A1', [[null, '', 'C']])
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:C1' })
    expect(read.data.values).toEqual([['a', '', 'C']])
  })

  test('never grows the grid: overflow of the range or the grid is an error and writes nothing', async () => {
    const id = newSpreadsheet([{ title: 'Full', sheetId: 0, rowCount: 13, columnCount: 26 } as never])
    const rows = await failure(put(id, "'Full'!A11", [['1'], ['2'], ['3'], ['4']]))
    expect(rows.message).toBe("Requested writing within range ['Full'!A11], but tried writing to row [14]")
    const cols = await failure(put(id, 'Full!A1:B1', [['a', 'b', 'c']]))
    expect(cols.message).toBe('Requested writing within range [Full!A1:B1], but tried writing to column [C]')
    const start = await failure(put(id, 'Full!Y20', [['x']]))
    expect(start.message).toBe('Range (Full!Y20) exceeds grid limits. Max rows: 13, max columns: 26')
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Full' })
    expect(read.data.values).toBeUndefined()
    expect(store.spreadsheets.get(id)!.sheets[0]!.properties.gridProperties.rowCount).toBe(13)
  })

  test('valueInputOption is required; values must be a list of lists', async () => {
    const id = newSpreadsheet()
    const missing = await failure(
      api.spreadsheets.values.update({ spreadsheetId: id, range: 'Sheet1!A1', requestBody: { values: [['x']] } }, NO_RETRY),
    )
    expect(missing.message).toBe("'valueInputOption' is required but not specified")
    const shape = await failure(
      api.spreadsheets.values.update(
        { spreadsheetId: id, range: 'Sheet1!A1', valueInputOption: 'RAW', requestBody: { values: 'X' as never } },
        NO_RETRY,
      ),
    )
    expect(shape.message).toBe(`Invalid value at 'data.values' (type.googleapis.com/google.protobuf.ListValue), "X"`)
    expect((shape.response?.data as { error: { details: unknown[] } }).error.details[0]).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
    })
  })

  test('more than 50,000 characters in a cell is refused', async () => {
    const id = newSpreadsheet()
    const error = await failure(put(id, 'Sheet1!A1', [['x'.repeat(50_001)]]))
    expect(error.message).toBe('Your input contains more than the maximum of 50000 characters in a single cell.')
    await put(id, 'Sheet1!A1', [['x'.repeat(50_000)]])
  })

  test('a sheet grows to 18,278 columns (ZZZ) and no further', async () => {
    ;({ store } = testStore({ cellLimit: 100_000_000 }))
    const id = newSpreadsheet()
    const grow = (length: number) =>
      api.spreadsheets.batchUpdate(
        { spreadsheetId: id, requestBody: { requests: [{ appendDimension: { sheetId: 0, dimension: 'COLUMNS', length } }] } },
        NO_RETRY,
      )
    await grow(18_278 - 26)
    const error = await failure(grow(1))
    expect(error.response?.status).toBe(400)
    expect(error.message).toMatch(/^Invalid requests\[0\]\.appendDimension: .*18278 columns/)
  })

  test('more than 50,000 characters in a cell set through updateCells fails the whole batch too', async () => {
    const id = newSpreadsheet()
    const cells = (text: string) => ({
      updateCells: {
        start: { sheetId: 0, rowIndex: 1, columnIndex: 0 },
        rows: [{ values: [{ userEnteredValue: { stringValue: 'before' } }] }, { values: [{ userEnteredValue: { stringValue: text } }] }],
        fields: 'userEnteredValue',
      },
    })
    const error = await failure(
      api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [cells('x'.repeat(50_001))] } }, NO_RETRY),
    )
    expect(error.message).toBe(
      'Invalid requests[0].updateCells: Your input contains more than the maximum of 50000 characters in a single cell.',
    )
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:A3' })
    expect(read.data.values).toBeUndefined()
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [cells('x'.repeat(50_000))] } }, NO_RETRY)
  })

  test('values.batchUpdate: totals, per-item responses, Invalid data[i] and all-or-nothing', async () => {
    const id = newSpreadsheet()
    const ok = await api.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'RAW',
        data: [
          { range: 'Sheet1!A1', values: [[1, 2, 3, 4]] },
          { range: 'Sheet1!A2:D2', values: [[5, 6, 7, 8]] },
        ],
      },
    })
    expect(ok.data).toEqual({
      spreadsheetId: id,
      totalUpdatedRows: 2,
      // Distinct columns across the batch, as Google counts them: A–D once, not 4 + 4.
      totalUpdatedColumns: 4,
      totalUpdatedCells: 8,
      totalUpdatedSheets: 1,
      responses: [
        { spreadsheetId: id, updatedRange: 'Sheet1!A1:D1', updatedRows: 1, updatedColumns: 4, updatedCells: 4 },
        { spreadsheetId: id, updatedRange: 'Sheet1!A2:D2', updatedRows: 1, updatedColumns: 4, updatedCells: 4 },
      ],
    })
    const bad = await failure(
      api.spreadsheets.values.batchUpdate({
        spreadsheetId: id,
        requestBody: {
          valueInputOption: 'RAW',
          data: [
            { range: 'Sheet1!A3', values: [['kept?']] },
            { range: 'Nope!A1', values: [['x']] },
          ],
        },
      }),
    )
    expect(bad.message).toBe('Invalid data[1]: Unable to parse range: Nope!A1')
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A3' })
    expect(read.data.values).toBeUndefined()
  })
})

describe('values.batchUpdate totals count distinct rows, columns, cells and sheets', () => {
  test("Google's recorded answer: A1:D1 plus A4:D4 → 2 rows, 4 columns, 8 cells, 1 sheet", async () => {
    const id = newSpreadsheet()
    const res = await api.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'RAW',
        data: [
          { range: "'Sheet1'!A1:D1", values: [['A1', 'B1', '', 'D1']] },
          { range: "'Sheet1'!A4:D4", values: [['A4', 'B4', '', 'D4']] },
        ],
      },
    })
    expect(res.data).toEqual({
      spreadsheetId: id,
      totalUpdatedRows: 2,
      totalUpdatedColumns: 4,
      totalUpdatedCells: 8,
      totalUpdatedSheets: 1,
      responses: [
        { spreadsheetId: id, updatedRange: 'Sheet1!A1:D1', updatedRows: 1, updatedColumns: 4, updatedCells: 4 },
        { spreadsheetId: id, updatedRange: 'Sheet1!A4:D4', updatedRows: 1, updatedColumns: 4, updatedCells: 4 },
      ],
    })
  })

  test('a cell written twice counts once; rows and columns of two sheets are different rows and columns', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Other', sheetId: 3 },
    ])
    const res = await api.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'RAW',
        data: [
          {
            range: 'Sheet1!A1:B2',
            values: [
              ['a', 'b'],
              [null, 'd'],
            ],
          },
          { range: 'Sheet1!B2:C2', values: [['again', 'c']] },
          { range: 'Other!A1', values: [['x']] },
        ],
      },
    })
    expect(res.data).toMatchObject({ totalUpdatedRows: 3, totalUpdatedColumns: 4, totalUpdatedCells: 5, totalUpdatedSheets: 2 })
  })
})

describe('values.append table detection (§5.3)', () => {
  const append = (spreadsheetId: string, range: string, values: unknown[][], extra: Record<string, string> = {}) =>
    api.spreadsheets.values.append({ spreadsheetId, range, valueInputOption: 'RAW', requestBody: { values }, ...extra })

  test('1: empty sheet → A1, no tableRange', async () => {
    const id = newSpreadsheet()
    const res = await append(id, 'Sheet1', [['a', 'b', 'c']])
    expect(res.data).toEqual({
      spreadsheetId: id,
      updates: { spreadsheetId: id, updatedRange: 'Sheet1!A1:C1', updatedRows: 1, updatedColumns: 3, updatedCells: 3 },
    })
  })
  test('2: contiguous block → written below it', async () => {
    const id = newSpreadsheet()
    await put(
      id,
      'Sheet1!A1',
      Array.from({ length: 3 }, () => Array.from({ length: 10 }, (_, i) => `v${i}`)),
    )
    const res = await append(id, 'Sheet1', [Array.from({ length: 10 }, () => 'n')])
    expect(res.data.tableRange).toBe('Sheet1!A1:J3')
    expect(res.data.updates?.updatedRange).toBe('Sheet1!A4:J4')
  })
  test('3 and 4: a header with a gap shifts the row to column C; an A1 range does not', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['X', '', 'Y']])
    const shifted = await append(id, 'Sheet1', [['1', '2', '3']])
    expect(shifted.data.tableRange).toBe('Sheet1!C1')
    expect(shifted.data.updates?.updatedRange).toBe('Sheet1!C2:E2')
    const id2 = newSpreadsheet()
    await put(id2, 'Sheet1!A1', [['X', '', 'Y']])
    const anchored = await append(id2, "'Sheet1'!A1", [['1', '2', '3']])
    expect(anchored.data.tableRange).toBe('Sheet1!A1')
    expect(anchored.data.updates?.updatedRange).toBe('Sheet1!A2:C2')
  })
  test('5: an empty inserted row at the range → written there, the row below untouched', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['h1', 'h2'], [], ['r3', 'x'], ['r4', 'y']])
    const res = await append(id, "'Sheet1'!A2", [['new', 'row']])
    expect(res.data.tableRange).toBeUndefined()
    expect(res.data.updates?.updatedRange).toBe('Sheet1!A2:B2')
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:B4' })
    expect(read.data.values).toEqual([
      ['h1', 'h2'],
      ['new', 'row'],
      ['r3', 'x'],
      ['r4', 'y'],
    ])
  })
  test('append grows the grid; INSERT_ROWS inserts rows', async () => {
    const id = newSpreadsheet([{ title: 'S', sheetId: 0, rowCount: 2, columnCount: 2 } as never])
    await put(id, 'S!A1', [
      ['a', 'b'],
      ['c', 'd'],
    ])
    const res = await append(id, 'S', [['e', 'f', 'g'], ['h']])
    expect(res.data.updates?.updatedRange).toBe('S!A3:C4')
    expect(store.spreadsheets.get(id)!.sheets[0]!.properties.gridProperties).toEqual({ rowCount: 4, columnCount: 3 })
    await append(id, 'S!A1', [['i']], { insertDataOption: 'INSERT_ROWS' })
    expect(store.spreadsheets.get(id)!.sheets[0]!.properties.gridProperties.rowCount).toBe(5)
  })
  test('append past the 10,000,000-cell limit → 400 without a requests prefix', async () => {
    ;({ store, clock } = testStore({ cellLimit: 30 }))
    const id = newSpreadsheet([{ title: 'S', sheetId: 0, rowCount: 5, columnCount: 5 } as never])
    await put(id, 'S!A1', [['a'], ['b'], ['c'], ['d'], ['e']])
    const error = await failure(append(id, 'S', [['f'], ['g']]))
    expect(error.message).toBe('This action would increase the number of cells in the workbook above the limit of 30 cells.')
    expect(store.spreadsheets.get(id)!.sheets[0]!.properties.gridProperties.rowCount).toBe(5)
  })
})

describe('clear (§5.4)', () => {
  test('clears values only and echoes the bounded range', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['a', 'b']])
    const res = await api.spreadsheets.values.clear({ spreadsheetId: id, range: 'Sheet1', requestBody: {} })
    expect(res.data).toEqual({ spreadsheetId: id, clearedRange: 'Sheet1!A1:Z1000' })
    const batch = await failure(
      api.spreadsheets.values.batchClear({ spreadsheetId: id, requestBody: { ranges: ['Sheet1!A1:B1', 'Sheet1!A1001:ZZ'] } }),
    )
    expect(batch.message).toBe('Invalid range[1]: Range (Sheet1!A1001:ZZ) exceeds grid limits. Max rows: 1000, max columns: 26')
  })
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

describe('values by data filter (README "Data filters")', () => {
  const ROW_KEY = 'row'
  /** Anchors sheet rows (1-based) of sheet 0 with metadata `row` = value. */
  async function anchor(spreadsheetId: string, rows: Record<string, number>, sheetId = 0) {
    await api.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: {
        requests: Object.entries(rows).map(([value, row]) => ({
          createDeveloperMetadata: {
            developerMetadata: {
              metadataKey: ROW_KEY,
              metadataValue: value,
              visibility: 'DOCUMENT',
              location: { dimensionRange: { sheetId, dimension: 'ROWS', startIndex: row - 1, endIndex: row } },
            },
          },
        })),
      },
    })
  }
  const byValue = (value: string, sheetId = 0) => ({
    developerMetadataLookup: { metadataKey: ROW_KEY, metadataValue: value, locationType: 'ROW', metadataLocation: { sheetId } },
  })

  test('batchGetByDataFilter: a row anchor selects its whole row across the grid, wherever a sort or an insert moved it', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [
      ['Key', 'Name'],
      ['k3', 'c'],
      ['k1', 'a'],
      ['k2', 'b'],
    ])
    await anchor(id, { k3: 2, k1: 3 })
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ sortRange: { range: { sheetId: 0, startRowIndex: 1 }, sortSpecs: [{ dimensionIndex: 0 }] } }] },
    })
    createManager(store).insertRows(id, 'Sheet1', 2)
    store.resetStats()
    const res = await api.spreadsheets.values.batchGetByDataFilter({
      spreadsheetId: id,
      requestBody: { dataFilters: [byValue('k3'), byValue('k1'), byValue('nope')], valueRenderOption: 'UNFORMATTED_VALUE' },
    })
    expect(res.config.url?.toString()).toMatch(/\/v4\/spreadsheets\/[^/]+\/values:batchGetByDataFilter$/)
    expect(res.config.method).toBe('POST')
    expect(res.data).toEqual({
      spreadsheetId: id,
      valueRanges: [
        { valueRange: { range: 'Sheet1!A5:Z5', majorDimension: 'ROWS', values: [['k3', 'c']] }, dataFilters: [byValue('k3')] },
        { valueRange: { range: 'Sheet1!A3:Z3', majorDimension: 'ROWS', values: [['k1', 'a']] }, dataFilters: [byValue('k1')] },
      ],
    })
    // A retrieval, so a read (though it is a POST).
    expect(store.stats()).toMatchObject({ reads: 1, writes: 0, byMethod: { BatchGetValuesByDataFilter: 1 } })
  })

  test('batchGetByDataFilter: a1Range and gridRange filters; a range two filters select comes once, with both; nothing matched → no valueRanges', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [
      ['a', 'b'],
      ['c', 'd'],
    ])
    await anchor(id, { first: 1 })
    const res = await api.spreadsheets.values.batchGetByDataFilter({
      spreadsheetId: id,
      requestBody: {
        dataFilters: [
          { a1Range: 'Sheet1!A1:B1' },
          { gridRange: { sheetId: 0, startRowIndex: 1, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 1 } },
          { gridRange: { startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: 2 } },
        ],
      },
    })
    expect(res.data.valueRanges).toEqual([
      {
        valueRange: { range: 'Sheet1!A1:B1', majorDimension: 'ROWS', values: [['a', 'b']] },
        dataFilters: [
          { a1Range: 'Sheet1!A1:B1' },
          { gridRange: { startRowIndex: 0, endRowIndex: 1, startColumnIndex: 0, endColumnIndex: 2 } },
        ],
      },
      {
        valueRange: { range: 'Sheet1!A2', majorDimension: 'ROWS', values: [['c']] },
        dataFilters: [{ gridRange: { sheetId: 0, startRowIndex: 1, endRowIndex: 2, startColumnIndex: 0, endColumnIndex: 1 } }],
      },
    ])
    const none = await api.spreadsheets.values.batchGetByDataFilter({
      spreadsheetId: id,
      requestBody: { dataFilters: [byValue('missing')] },
    })
    expect(none.data).toEqual({ spreadsheetId: id })
    const bad = await failure(
      api.spreadsheets.values.batchGetByDataFilter({
        spreadsheetId: id,
        requestBody: { dataFilters: [byValue('first'), { gridRange: { sheetId: 9 } }] },
      }),
    )
    expect(bad.status).toBe(400)
    expect(bad.message).toBe('Invalid dataFilters[1]: No grid with id: 9')
  })

  test('a sheet location matches the rows of that sheet (INTERSECTING, the default) but not with EXACT_LOCATION', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Copy', sheetId: 5 },
    ])
    await anchor(id, { k: 2 })
    await anchor(id, { k: 2 }, 5)
    const res = await api.spreadsheets.values.batchGetByDataFilter({ spreadsheetId: id, requestBody: { dataFilters: [byValue('k', 5)] } })
    expect(res.data.valueRanges?.map((r) => r.valueRange?.range)).toEqual(['Copy!A2:Z2'])
    const exact = await api.spreadsheets.developerMetadata.search({
      spreadsheetId: id,
      requestBody: {
        dataFilters: [
          {
            developerMetadataLookup: { metadataKey: ROW_KEY, metadataLocation: { sheetId: 5 }, locationMatchingStrategy: 'EXACT_LOCATION' },
          },
        ],
      },
    })
    expect(exact.data).toEqual({})
  })

  test('batchUpdateByDataFilter: values go from the selected row\'s first cell, null leaves a cell, "" clears, RAW text stays text; one response per range', async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [
      ['Key', 'Name', 'Notes'],
      ['k1', 'a', 'n1'],
      ['k2', 'b', 'n2'],
    ])
    await anchor(id, { k1: 2, k2: 3 })
    createManager(store).sortTab(id, 'Sheet1', 0, 'DESCENDING')
    store.resetStats()
    const res = await api.spreadsheets.values.batchUpdateByDataFilter({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'RAW',
        data: [
          { dataFilter: byValue('k1'), values: [[null, '=1+1', '']] },
          { dataFilter: byValue('k2'), values: [[null, null, 'x', true]] },
          { dataFilter: byValue('gone'), values: [['never']] },
        ],
      },
    })
    expect(res.config.url?.toString()).toMatch(/\/values:batchUpdateByDataFilter$/)
    expect(store.stats()).toMatchObject({ reads: 0, writes: 1, byMethod: { BatchUpdateValuesByDataFilter: 1 } })
    expect(res.data).toEqual({
      spreadsheetId: id,
      totalUpdatedRows: 2,
      totalUpdatedColumns: 3,
      totalUpdatedCells: 4,
      totalUpdatedSheets: 1,
      responses: [
        { updatedRange: 'Sheet1!A3:C3', updatedRows: 1, updatedColumns: 2, updatedCells: 2, dataFilter: byValue('k1') },
        { updatedRange: 'Sheet1!A2:D2', updatedRows: 1, updatedColumns: 2, updatedCells: 2, dataFilter: byValue('k2') },
      ],
    })
    expect(
      (await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1', valueRenderOption: 'UNFORMATTED_VALUE' })).data.values,
    ).toEqual([
      ['Key', 'Name', 'Notes'],
      ['k2', 'b', 'x', true],
      ['k1', '=1+1'],
    ])
  })

  test('batchUpdateByDataFilter: values wider than the selected range fail the whole request; a filter selecting two rows writes both', async () => {
    const id = newSpreadsheet([{ title: 'Narrow', sheetId: 0, columnCount: 2 }])
    await anchor(id, { a: 2, b: 3 })
    await anchor(id, { a: 4 })
    const wide = await failure(
      api.spreadsheets.values.batchUpdateByDataFilter({
        spreadsheetId: id,
        requestBody: {
          valueInputOption: 'RAW',
          data: [
            { dataFilter: byValue('b'), values: [['fits']] },
            { dataFilter: byValue('a'), values: [['x', 'y', 'z']] },
          ],
        },
      }),
    )
    expect(wide.status).toBe(400)
    expect(wide.message).toBe('Invalid data[1]: Requested writing within range [Narrow!A2:B2], but tried writing to column [C]')
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Narrow' })).data.values).toBeUndefined()
    const tall = await failure(
      api.spreadsheets.values.batchUpdateByDataFilter({
        spreadsheetId: id,
        requestBody: { valueInputOption: 'RAW', data: [{ dataFilter: byValue('b'), values: [['x'], ['y']] }] },
      }),
    )
    expect(tall.message).toBe('Invalid data[0]: Requested writing within range [Narrow!A3:B3], but tried writing to row [4]')
    const both = await api.spreadsheets.values.batchUpdateByDataFilter({
      spreadsheetId: id,
      requestBody: { valueInputOption: 'RAW', data: [{ dataFilter: byValue('a'), values: [['twice']] }] },
    })
    expect(both.data.responses?.map((r) => r.updatedRange)).toEqual(['Narrow!A2', 'Narrow!A4'])
    expect(both.data.totalUpdatedRows).toBe(2)
    const missing = await failure(
      api.spreadsheets.values.batchUpdateByDataFilter({
        spreadsheetId: id,
        requestBody: { data: [{ dataFilter: byValue('a'), values: [['x']] }] },
      }),
    )
    expect(missing.message).toBe("'valueInputOption' is required but not specified")
  })

  test('100,000 anchored rows: anchors are created, looked up, followed through a sort and written through, without a scan per filter', async () => {
    // Far more metadata than Google stores (metadata-budget.test.ts): the limit is lifted to exercise the index alone.
    ;({ store } = testStore({ metadataLimits: { sheet: 10_000_000 } }))
    const id = store.createSpreadsheet({ sheets: [{ title: 'Big', sheetId: 0, rowCount: 100_001, columnCount: 3 }] }).spreadsheetId
    const ss = store.spreadsheets.get(id)!
    const manager = createManager(store)
    manager.pasteBlock(
      id,
      'Big',
      'A2',
      Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 100_000 - i]),
      { raw: true },
    )
    // The work is counted, not timed: rows read from the grid and metadata records read from the store. A scan
    // per anchor or per filter multiplies either count by the 100,000 rows, on any machine.
    const grid = countElementReads(ss.sheets[0]!.rows)
    ss.sheets[0]!.rows = grid.array
    const records = countGets(ss.metadata)
    const work = () => {
      const done = { rows: grid.reads(), records: records.reads() }
      grid.reset()
      records.reset()
      return done
    }
    for (let part = 0; part < 10; part++) {
      await api.spreadsheets.batchUpdate({
        spreadsheetId: id,
        requestBody: {
          requests: Array.from({ length: 10_000 }, (_, j) => {
            const i = part * 10_000 + j
            return {
              createDeveloperMetadata: {
                developerMetadata: {
                  metadataKey: ROW_KEY,
                  metadataValue: `k${i}`,
                  visibility: 'DOCUMENT',
                  location: { dimensionRange: { dimension: 'ROWS', startIndex: i + 1, endIndex: i + 2 } },
                },
              },
            }
          }),
        },
      })
    }
    expect(ss.metadata.size).toBe(100_000)
    const created = work()
    // An anchor reads its row once; the storage limit reads what is stored before and after each of the 10 batches.
    expect(created.rows).toBeLessThanOrEqual(2 * 100_000)
    expect(created.records).toBeLessThanOrEqual(2 * 10 * 100_000)
    manager.sortTab(id, 'Big', 1)
    // The sort reads each row a few times, not once per comparison.
    expect(work().rows).toBeLessThanOrEqual(5 * 100_001)
    const wanted = Array.from({ length: 2_000 }, (_, j) => `k${j * 50}`)
    const read = await api.spreadsheets.values.batchGetByDataFilter({
      spreadsheetId: id,
      requestBody: { dataFilters: wanted.map((k) => byValue(k)), valueRenderOption: 'UNFORMATTED_VALUE' },
    })
    expect(read.data.valueRanges).toHaveLength(2_000)
    // 2,000 filters: a few rows and records each, and one pass over the rows (two reads a row) to learn where the
    // sort put them; a scan per filter would read 100,000 rows or records for each.
    const looked = work()
    expect(looked.rows).toBeLessThanOrEqual(2 * 100_001 + 10 * 2_000)
    expect(looked.records).toBeLessThanOrEqual(10 * 2_000)
    // Sorted by the second column ascending: k0 (value 100,000) went to the last row.
    expect(read.data.valueRanges?.find((r) => r.dataFilters?.[0]?.developerMetadataLookup?.metadataValue === 'k0')?.valueRange?.range).toBe(
      'Big!A100001:C100001',
    )
    await api.spreadsheets.values.batchUpdateByDataFilter({
      spreadsheetId: id,
      requestBody: { valueInputOption: 'RAW', data: wanted.map((k) => ({ dataFilter: byValue(k), values: [[null, null, `seen ${k}`]] })) },
    })
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: wanted.map((k) => ({ deleteDeveloperMetadata: { dataFilter: byValue(k) } })) },
    })
    // 4,000 more filters (write, delete), the rows already found: a few rows and records each.
    const written = work()
    expect(written.rows).toBeLessThanOrEqual(10 * 4_000)
    expect(written.records).toBeLessThanOrEqual(10 * 4_000)
    expect(ss.metadata.size).toBe(98_000)
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Big!A100001:C100001' })).data.values).toEqual([
      ['k0', '100000', 'seen k0'],
    ])
  }, 60_000)
})

describe('auth, quota and faults (§7, §10)', () => {
  test('missing token → 401 CREDENTIALS_MISSING; unknown → 401 ACCESS_TOKEN_EXPIRED; read-only scope → 403 on writes', async () => {
    const id = newSpreadsheet()
    const raw = await fetch(`${ROOT}v4/spreadsheets/${id}`)
    expect(raw.status).toBe(401)
    expect(((await raw.json()) as { error: { details: { reason: string }[] } }).error.details[0]!.reason).toBe('CREDENTIALS_MISSING')
    const expired = await failure(sheetsClient(ROOT, 'garbage').spreadsheets.values.get({ spreadsheetId: id, range: 'A1' }))
    expect(expired.status).toBe(401)
    expect(expired.message).toMatch(/^Request had invalid authentication credentials\./)
    expect((expired.response?.data as { error: { status: string; details: unknown[] } }).error).toMatchObject({
      status: 'UNAUTHENTICATED',
      details: [
        {
          reason: 'ACCESS_TOKEN_EXPIRED',
          metadata: { service: 'sheets.googleapis.com', method: 'google.apps.sheets.v4.SpreadsheetsService.GetValues' },
        },
      ],
    })
    store.auth.addStaticToken('reader', { scopes: ['https://www.googleapis.com/auth/spreadsheets.readonly'] })
    const reader = sheetsClient(ROOT, 'reader')
    await reader.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })
    const denied = await failure(
      reader.spreadsheets.values.update(
        { spreadsheetId: id, range: 'A1', valueInputOption: 'RAW', requestBody: { values: [[1]] } },
        NO_RETRY,
      ),
    )
    expect(denied.status).toBe(403)
    expect(denied.message).toBe('Request had insufficient authentication scopes.')
  })

  test('sharing: not shared → 403 on every call (after 404 for an unknown id); a viewer reads, writes get 403', async () => {
    store.auth.addStaticToken('viewer', { subject: 'viewer@test' })
    store.auth.addStaticToken('stranger', { subject: 'stranger@test' })
    const id = store.createSpreadsheet({
      title: 'T',
      sharedWith: { 'static-user@test': 'writer', 'viewer@test': 'reader' },
    }).spreadsheetId
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ addProtectedRange: { protectedRange: { range: { sheetId: 0, startRowIndex: 0, endRowIndex: 1 } } } }] },
    })
    const stranger = sheetsClient(ROOT, 'stranger')
    const hidden = await failure(stranger.spreadsheets.get({ spreadsheetId: id }, NO_RETRY))
    expect(hidden.status).toBe(403)
    expect(hidden.message).toBe('The caller does not have permission')
    expect((hidden.response?.data as { error: { status: string } }).error.status).toBe('PERMISSION_DENIED')
    expect((await failure(stranger.spreadsheets.get({ spreadsheetId: 'no-such-id' }, NO_RETRY))).status).toBe(404)

    const viewer = sheetsClient(ROOT, 'viewer')
    const seen = await viewer.spreadsheets.get({ spreadsheetId: id })
    expect(seen.data.sheets![0]!.protectedRanges![0]!.requestingUserCanEdit).toBeUndefined()
    const owner = await api.spreadsheets.get({ spreadsheetId: id })
    expect(owner.data.sheets![0]!.protectedRanges![0]!.requestingUserCanEdit).toBe(true)
    const write = await failure(
      viewer.spreadsheets.values.update(
        { spreadsheetId: id, range: 'A1', valueInputOption: 'RAW', requestBody: { values: [[1]] } },
        NO_RETRY,
      ),
    )
    expect(write.status).toBe(403)
    expect(write.message).toBe('The caller does not have permission')
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })).data.values).toBeUndefined()
  })

  test('60 reads a minute per user, then 429 with the exact body; a new minute refills; writes have their own bucket', async () => {
    const id = newSpreadsheet()
    for (let i = 0; i < 60; i++) await api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })
    const limited = await failure(api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' }, NO_RETRY))
    expect(limited.status).toBe(429)
    expect(limited.message).toBe(
      "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:603366585132'.",
    )
    expect(
      (limited.response?.data as { error: { status: string; details: { metadata?: Record<string, string> }[] } }).error.details[0]!
        .metadata,
    ).toEqual({
      quota_limit_value: '60',
      service: 'sheets.googleapis.com',
      consumer: 'projects/603366585132',
      quota_unit: '1/min/{project}/{user}',
      quota_location: 'global',
      quota_metric: 'sheets.googleapis.com/read_requests',
      quota_limit: 'ReadRequestsPerMinutePerUser',
    })
    // A batch is one request, and writes count in their own bucket.
    await api.spreadsheets.values.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        valueInputOption: 'RAW',
        data: [
          { range: 'A1', values: [[1]] },
          { range: 'B1', values: [[2]] },
        ],
      },
    })
    // developerMetadata.search is a read.
    const search = await failure(api.spreadsheets.developerMetadata.search({ spreadsheetId: id, requestBody: { dataFilters: [] } }))
    expect(search.status).toBe(429)
    clock.advance(60_000)
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'A1' })
    expect(store.stats()).toMatchObject({
      reads: 63,
      writes: 1,
      quotaRejections: 2,
      byMethod: { GetValues: 62, BatchUpdateValues: 1, SearchDeveloperMetadata: 1 },
    })
  })

  test('the project bucket names the per-minute limit without "per user"', async () => {
    ;({ store, clock } = testStore({ quota: { writePerProject: 1 } }))
    const id = newSpreadsheet()
    await put(id, 'A1', [[1]])
    const error = await failure(put(id, 'A1', [[2]]))
    expect(error.message).toBe(
      "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute' of service 'sheets.googleapis.com' for consumer 'project_number:603366585132'.",
    )
  })

  test('injected 503 after the write is applied: the data is there although the call failed', async () => {
    const id = newSpreadsheet()
    store.faults.inject({ status: 503, method: 'AppendValues', applyThenFail: true })
    const error = await failure(
      api.spreadsheets.values.append({ spreadsheetId: id, range: 'Sheet1', valueInputOption: 'RAW', requestBody: { values: [['once']] } }),
    )
    expect(error.status).toBe(503)
    expect(error.message).toBe('The service is currently unavailable.')
    expect((await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1' })).data.values).toEqual([['once']])
    expect(store.stats().faultsInjected).toBe(1)
  })

  test('injected 429 on a PUT is retried by the client (3 retries) and then succeeds', async () => {
    const id = newSpreadsheet()
    store.faults.inject({ status: 429, times: 2, method: 'UpdateValues' })
    const res = await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['x']] },
    })
    expect(res.status).toBe(200)
    expect(store.stats().byMethod.UpdateValues).toBe(3)
    store.faults.inject({ status: 500, method: 'BatchUpdateSpreadsheet' })
    const post = await failure(
      api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [{ clearBasicFilter: { sheetId: 0 } }] } }),
    )
    expect(post.status).toBe(500)
    expect(store.stats().byMethod.BatchUpdateSpreadsheet).toBe(1)
  })

  test('a body over 10 MiB is refused', async () => {
    ;({ store, clock } = testStore({ maxPayloadBytes: 1000 }))
    const id = newSpreadsheet()
    const error = await failure(put(id, 'A1', [['x'.repeat(2000)]]))
    expect(error.message).toBe('Request payload size exceeds the limit: 1000 bytes.')
  })
})

describe('manager edits as a person types', () => {
  test('dates, times and formulas typed by hand read back as a person sees them and as serials', async () => {
    const id = newSpreadsheet()
    const manager = createManager(store)
    manager.editCell(id, 'Sheet1', 'A1', '2026-03-02')
    manager.editCell(id, 'Sheet1', 'B1', '3/2/2026')
    manager.editCell(id, 'Sheet1', 'C1', '13:45')
    manager.editCell(id, 'Sheet1', 'D1', '1:45 PM')
    manager.editCell(id, 'Sheet1', 'E1', '=D1-C1')
    expect(manager.readTab(id, 'Sheet1')).toEqual([['2026-03-02', '3/2/2026', '13:45', '1:45 PM', '0']])
    const serial = 46083
    expect(
      (await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:E1', valueRenderOption: 'UNFORMATTED_VALUE' })).data.values,
    ).toEqual([[serial, serial, 13.75 / 24, 13.75 / 24, 0]])
    expect(manager.readTab(id, 'Sheet1', 'FORMULA')[0]![4]).toBe('=D1-C1')
  })
})
