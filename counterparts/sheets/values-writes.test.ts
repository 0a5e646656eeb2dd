/**
 * Writing values through the real `@googleapis/sheets` client (reference/sheets-api.md §5): values.update
 * and its limits, the totals of values.batchUpdate, where values.append finds the table, and clear.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import type { SheetsStore } from './store.ts'
import { failure, mountSheetsApi, NO_RETRY, testStore } from './test-support.ts'

let store: SheetsStore
const { api, newSpreadsheet, put } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store } = testStore())
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
    ;({ store } = testStore({ cellLimit: 30 }))
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
