/**
 * Reading values through the real `@googleapis/sheets` client (reference/sheets-api.md §4): what a read
 * trims and echoes, the render options, RAW against USER_ENTERED, the errors of a bad range, and values a
 * person types by hand read back both as shown and as serials.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { failure, mountSheetsApi, NO_RETRY, testStore } from './test-support.ts'

let store: SheetsStore
const { api, newSpreadsheet, put } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store } = testStore())
})

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
