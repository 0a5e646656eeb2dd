/**
 * values.batchGetByDataFilter and values.batchUpdateByDataFilter through the real `@googleapis/sheets` client
 * (README "Data filters"): what a row anchor, an A1 range, a GridRange or a sheet location selects, how values
 * are written through a filter, and that 100,000 anchored rows need no scan per filter.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import { countElementReads, countGets } from '../element-reads.ts'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { failure, mountSheetsApi, testStore } from './test-support.ts'

let store: SheetsStore
const { api, newSpreadsheet, put } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store } = testStore())
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
