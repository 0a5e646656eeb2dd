/**
 * The batchUpdate requests the tool sends for its layout — merges, filters,
 * charts, tabs, formats — through the real `@googleapis/sheets` client, with
 * Google's recorded answers where there are some (reference/sheets-api.md §6).
 */
import { beforeEach, describe, expect, test } from 'vitest'
import type { sheets_v4 } from '@googleapis/sheets'
import type { SheetsStore } from './store.ts'
import { failure, mountSheetsApi, testStore } from './test-support.ts'

let store: SheetsStore
const { api, newSpreadsheet } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store } = testStore({ quota: false }))
})

const batch = (spreadsheetId: string, requests: sheets_v4.Schema$Request[]) =>
  api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } })
const values = async (spreadsheetId: string, range: string) => (await api.spreadsheets.values.get({ spreadsheetId, range })).data.values
const sheetsOf = async (spreadsheetId: string, fields?: string) =>
  (await api.spreadsheets.get({ spreadsheetId, ...(fields ? { fields } : {}) })).data.sheets ?? []

describe('mergeCells and unmergeCells', () => {
  const range = (r0: number, r1: number, c0: number, c1: number) => ({
    sheetId: 0,
    startRowIndex: r0,
    endRowIndex: r1,
    startColumnIndex: c0,
    endColumnIndex: c1,
  })

  test("Google's recorded answers: MERGE_ROWS is one merge per row, MERGE_ALL over them replaces them, unmerge removes it", async () => {
    const id = newSpreadsheet()
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: "'Sheet1'!A1:B2",
      valueInputOption: 'RAW',
      requestBody: {
        values: [
          [42, 43],
          [43, 44],
        ],
      },
    })
    expect((await batch(id, [{ mergeCells: { mergeType: 'MERGE_ROWS', range: range(0, 2, 0, 2) } }])).data.replies).toEqual([{}])
    expect((await sheetsOf(id))[0]).toEqual({
      properties: {
        sheetId: 0,
        title: 'Sheet1',
        index: 0,
        sheetType: 'GRID',
        gridProperties: { rowCount: 1000, columnCount: 26 },
      },
      merges: [range(0, 1, 0, 2), range(1, 2, 0, 2)].map(({ sheetId: _omitted, ...rest }) => rest),
    })
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_ALL', range: range(0, 2, 0, 2) } }])
    expect((await sheetsOf(id))[0]?.merges).toEqual([
      {
        startRowIndex: 0,
        endRowIndex: 2,
        startColumnIndex: 0,
        endColumnIndex: 2,
      },
    ])
    await batch(id, [{ unmergeCells: { range: range(0, 2, 0, 2) } }])
    expect((await sheetsOf(id))[0]).not.toHaveProperty('merges')
  })

  test("Google's recorded answers: MERGE_COLUMNS is one merge per column; top-left values stay; one unmerge over all", async () => {
    const id = newSpreadsheet()
    await batch(id, [
      {
        updateSheetProperties: {
          properties: {
            sheetId: 0,
            gridProperties: { rowCount: 4, columnCount: 4 },
          },
          fields: 'gridProperties/rowCount,gridProperties/columnCount',
        },
      },
    ])
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: "'Sheet1'!A1:D4",
      valueInputOption: 'RAW',
      requestBody: {
        values: [
          ['1', '', '2', '3'],
          ['', '', '', ''],
          ['', '4', '', ''],
          ['', '5', '', ''],
        ],
      },
    })
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_ALL', range: range(0, 2, 0, 2) } }])
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_COLUMNS', range: range(0, 2, 2, 4) } }])
    await batch(id, [{ mergeCells: { mergeType: 'MERGE_ROWS', range: range(2, 4, 1, 3) } }])
    expect(await values(id, "'Sheet1'!A1:D4")).toEqual([['1', '', '2', '3'], [], ['', '4'], ['', '5']])
    expect((await sheetsOf(id))[0]?.merges).toEqual([
      {
        startRowIndex: 0,
        endRowIndex: 2,
        startColumnIndex: 0,
        endColumnIndex: 2,
      },
      {
        startRowIndex: 0,
        endRowIndex: 2,
        startColumnIndex: 2,
        endColumnIndex: 3,
      },
      {
        startRowIndex: 0,
        endRowIndex: 2,
        startColumnIndex: 3,
        endColumnIndex: 4,
      },
      {
        startRowIndex: 2,
        endRowIndex: 3,
        startColumnIndex: 1,
        endColumnIndex: 3,
      },
      {
        startRowIndex: 3,
        endRowIndex: 4,
        startColumnIndex: 1,
        endColumnIndex: 3,
      },
    ])
    await batch(id, [{ unmergeCells: { range: range(0, 4, 0, 4) } }])
    expect((await sheetsOf(id))[0]).not.toHaveProperty('merges')
    expect(await values(id, "'Sheet1'!A1:D4")).toEqual([['1', '', '2', '3'], [], ['', '4'], ['', '5']])
  })

  test('values other than the top-left are cleared, formats stay; merges of another sheet keep their sheetId', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Summary', sheetId: 7 },
    ])
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Summary!A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['Title', 'lost', 'lost too'], ['also lost']] },
    })
    await batch(id, [
      {
        repeatCell: {
          range: {
            sheetId: 7,
            startRowIndex: 0,
            endRowIndex: 1,
            startColumnIndex: 1,
            endColumnIndex: 2,
          },
          cell: { userEnteredFormat: { textFormat: { bold: true } } },
          fields: 'userEnteredFormat.textFormat.bold',
        },
      },
      {
        mergeCells: {
          range: {
            sheetId: 7,
            startRowIndex: 0,
            endRowIndex: 2,
            startColumnIndex: 0,
            endColumnIndex: 3,
          },
        },
      },
    ])
    expect(await values(id, 'Summary!A1:C2')).toEqual([['Title']])
    const summary = (await sheetsOf(id))[1]!
    expect(summary.merges).toEqual([
      {
        sheetId: 7,
        startRowIndex: 0,
        endRowIndex: 2,
        startColumnIndex: 0,
        endColumnIndex: 3,
      },
    ])
    const grid = await api.spreadsheets.get({
      spreadsheetId: id,
      ranges: ['Summary!B1'],
      fields: 'sheets.data.rowData.values.userEnteredFormat',
    })
    expect(grid.data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values?.[0]?.userEnteredFormat).toEqual({ textFormat: { bold: true } })
  })

  test('partial overlaps, merges across frozen rows or columns or a filter edge are refused; nothing is applied', async () => {
    const id = newSpreadsheet()
    await batch(id, [{ mergeCells: { range: range(0, 2, 0, 2) } }])
    const partial = await failure(batch(id, [{ mergeCells: { range: range(1, 3, 1, 3) } }]))
    expect(partial.status).toBe(400)
    expect(partial.message).toBe('Invalid requests[0].mergeCells: You must select all cells in a merged range to merge or unmerge them.')
    const unmerge = await failure(batch(id, [{ unmergeCells: { range: range(0, 1, 0, 5) } }]))
    expect(unmerge.message).toBe('Invalid requests[0].unmergeCells: You must select all cells in a merged range to merge or unmerge them.')
    await batch(id, [
      {
        updateSheetProperties: {
          properties: {
            sheetId: 0,
            gridProperties: { frozenRowCount: 3, frozenColumnCount: 1 },
          },
          fields: 'gridProperties(frozenRowCount,frozenColumnCount)',
        },
      },
    ])
    const rows = await failure(batch(id, [{ mergeCells: { range: range(2, 4, 3, 4) } }]))
    expect(rows.message).toBe("Invalid requests[0].mergeCells: You can't merge frozen and non-frozen rows.")
    const columns = await failure(batch(id, [{ mergeCells: { mergeType: 'MERGE_ROWS', range: range(5, 6, 0, 3) } }]))
    expect(columns.message).toBe("Invalid requests[0].mergeCells: You can't merge frozen and non-frozen columns.")
    await batch(id, [{ setBasicFilter: { filter: { range: range(10, 20, 0, 5) } } }])
    const filter = await failure(batch(id, [{ mergeCells: { range: range(9, 11, 2, 4) } }]))
    expect(filter.message).toBe("Invalid requests[0].mergeCells: You can't merge cells that cross the borders of an existing filter.")
    const atomic = await failure(
      batch(id, [
        { mergeCells: { range: range(5, 6, 3, 6) } },
        {
          mergeCells: {
            mergeType: 'MERGE_SIDEWAYS' as never,
            range: range(7, 8, 3, 6),
          },
        },
      ]),
    )
    expect(atomic.message).toBe(
      `Invalid value at 'requests[1].merge_cells.merge_type' (type.googleapis.com/google.apps.sheets.v4.MergeType), "MERGE_SIDEWAYS"`,
    )
    expect((await sheetsOf(id))[0]?.merges).toEqual([
      {
        startRowIndex: 0,
        endRowIndex: 2,
        startColumnIndex: 0,
        endColumnIndex: 2,
      },
    ])
  })

  test('merges move with inserted and deleted rows; a merge cut to one cell is gone', async () => {
    const id = newSpreadsheet()
    await batch(id, [{ mergeCells: { range: range(2, 4, 0, 2) } }, { mergeCells: { range: range(6, 8, 0, 1) } }])
    await batch(id, [
      {
        insertDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 },
        },
      },
      {
        deleteDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 7, endIndex: 8 },
        },
      },
    ])
    expect((await sheetsOf(id))[0]?.merges).toEqual([
      {
        startRowIndex: 3,
        endRowIndex: 5,
        startColumnIndex: 0,
        endColumnIndex: 2,
      },
    ])
  })
})

const grid = (sheetId: number, r0: number, r1: number, c0: number, c1: number) => ({
  sheetId,
  startRowIndex: r0,
  endRowIndex: r1,
  startColumnIndex: c0,
  endColumnIndex: c1,
})

describe('setBasicFilter and clearBasicFilter', () => {
  test("Google's recorded answer: an unbounded range is stored bounded to the grid, sheetId 0 left out; clear removes it", async () => {
    const id = newSpreadsheet()
    expect((await batch(id, [{ setBasicFilter: { filter: { range: { sheetId: 0 } } } }])).data.replies).toEqual([{}])
    expect((await sheetsOf(id))[0]?.basicFilter).toEqual({
      range: {
        startRowIndex: 0,
        endRowIndex: 1000,
        startColumnIndex: 0,
        endColumnIndex: 26,
      },
    })
    expect((await batch(id, [{ clearBasicFilter: { sheetId: 0 } }])).data.replies).toEqual([{}])
    expect((await sheetsOf(id))[0]).not.toHaveProperty('basicFilter')
  })

  test('a new filter replaces the old; criteria come back as the column map and as filterSpecs; inserted rows grow it', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Activities', sheetId: 5, rowCount: 10, columnCount: 4 },
    ])
    await batch(id, [{ setBasicFilter: { filter: { range: grid(5, 0, 10, 0, 4) } } }])
    const hidden = { hiddenValues: ['x'] }
    await batch(id, [
      {
        setBasicFilter: {
          filter: {
            range: { sheetId: 5, startRowIndex: 0 },
            filterSpecs: [{ columnIndex: 2, filterCriteria: hidden }],
            sortSpecs: [{ dimensionIndex: 1, sortOrder: 'DESCENDING' }],
          },
        },
      },
    ])
    await batch(id, [
      {
        insertDimension: {
          range: { sheetId: 5, dimension: 'ROWS', startIndex: 3, endIndex: 5 },
        },
      },
    ])
    expect((await sheetsOf(id))[1]?.basicFilter).toEqual({
      range: grid(5, 0, 12, 0, 4),
      sortSpecs: [{ dimensionIndex: 1, sortOrder: 'DESCENDING' }],
      criteria: { '2': hidden },
      filterSpecs: [{ columnIndex: 2, filterCriteria: hidden }],
    })
    await batch(id, [
      {
        setBasicFilter: {
          filter: { range: grid(5, 0, 12, 0, 4), criteria: { '3': hidden } },
        },
      },
    ])
    expect((await sheetsOf(id))[1]?.basicFilter).toEqual({
      range: grid(5, 0, 12, 0, 4),
      criteria: { '3': hidden },
      filterSpecs: [{ columnIndex: 3, filterCriteria: hidden }],
    })
  })

  test('a filter on an unknown sheet or starting past the grid is refused', async () => {
    const id = newSpreadsheet()
    expect((await failure(batch(id, [{ setBasicFilter: { filter: { range: { sheetId: 9 } } } }]))).message).toBe(
      'Invalid requests[0].setBasicFilter: No grid with id: 9',
    )
    const past = await failure(
      batch(id, [
        {
          setBasicFilter: {
            filter: {
              range: {
                sheetId: 0,
                startRowIndex: 1000,
                startColumnIndex: 0,
                endColumnIndex: 2,
              },
            },
          },
        },
      ]),
    )
    expect(past.message).toBe(
      'Invalid requests[0].setBasicFilter: Range (Sheet1!A1001:B) exceeds grid limits. Max rows: 1000, max columns: 26',
    )
    expect((await failure(batch(id, [{ clearBasicFilter: { sheetId: 9 } }]))).message).toBe(
      'Invalid requests[0].clearBasicFilter: No sheet with id: 9',
    )
  })
})

describe('deleteSheet', () => {
  test("deletes a tab with its charts; the last tab is refused with Google's text; an unknown id too", async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Summary', sheetId: 3 },
    ])
    await batch(id, [
      {
        addChart: {
          chart: {
            spec: { title: 'Hours' },
            position: { overlayPosition: { anchorCell: { sheetId: 3 } } },
          },
        },
      },
    ])
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['=Summary!A1']] },
    })
    expect((await batch(id, [{ deleteSheet: { sheetId: 3 } }])).data.replies).toEqual([{}])
    expect((await sheetsOf(id)).map((s) => [s.properties?.title, s.charts])).toEqual([['Sheet1', undefined]])
    expect(await values(id, 'Sheet1!A1')).toEqual([['#REF!']])
    const last = await failure(batch(id, [{ deleteSheet: { sheetId: 0 } }]))
    expect([last.status, last.message]).toEqual([400, "Invalid requests[0].deleteSheet: You can't remove all the sheets in a document."])
    expect((last.response?.data as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT')
    expect((await failure(batch(id, [{ deleteSheet: { sheetId: 3 } }]))).message).toBe(
      'Invalid requests[0].deleteSheet: No sheet with id: 3',
    )
  })

  test('the default Sheet1 goes after the tool adds its own tabs in the same batch', async () => {
    const id = newSpreadsheet()
    await batch(id, [{ addSheet: { properties: { title: 'Activities', sheetId: 11 } } }, { deleteSheet: { sheetId: 0 } }])
    expect((await sheetsOf(id)).map((s) => s.properties)).toEqual([
      {
        sheetId: 11,
        title: 'Activities',
        index: 0,
        sheetType: 'GRID',
        gridProperties: { rowCount: 1000, columnCount: 26 },
      },
    ])
  })
})

describe('conditional format rules by index', () => {
  const rule = (word: string, sheetId = 0) => ({
    ranges: [grid(sheetId, 1, 1000, 0, 5)],
    booleanRule: {
      condition: {
        type: 'CUSTOM_FORMULA',
        values: [{ userEnteredValue: `=LEFT($E2,${word.length})="${word}"` }],
      },
      format: { backgroundColor: { red: 1 } },
    },
  })
  const stored = (word: string) => {
    const { sheetId: _omitted, ...range } = grid(0, 1, 1000, 0, 5)
    return { ...rule(word), ranges: [range] }
  }
  const words = async (id: string) =>
    ((await sheetsOf(id))[0]?.conditionalFormats ?? []).map(
      (r) => /"(\w+)"/.exec(String(r.booleanRule?.condition?.values?.[0]?.userEnteredValue))?.[1],
    )

  test('add inserts at its index (an omitted index is 0); the list comes back in order with sheetId 0 left out', async () => {
    const id = newSpreadsheet()
    await batch(id, [{ addConditionalFormatRule: { rule: rule('Error') } }, { addConditionalFormatRule: { rule: rule('Conflict') } }])
    await batch(id, [
      { addConditionalFormatRule: { index: 1, rule: rule('Waiting') } },
      { addConditionalFormatRule: { index: 3, rule: rule('Done') } },
    ])
    expect(await words(id)).toEqual(['Conflict', 'Waiting', 'Error', 'Done'])
    expect((await sheetsOf(id))[0]?.conditionalFormats?.[3]).toEqual(stored('Done'))
  })

  test('update replaces the rule at an index or moves it, with the documented replies; delete replies with the rule', async () => {
    const id = newSpreadsheet()
    await batch(
      id,
      ['Conflict', 'Error', 'Waiting', 'Done'].map((w, index) => ({
        addConditionalFormatRule: { index, rule: rule(w) },
      })),
    )
    const replies = (
      await batch(id, [
        { updateConditionalFormatRule: { index: 1, rule: rule('Refused') } },
        { updateConditionalFormatRule: { sheetId: 0, index: 0, newIndex: 3 } },
        { updateConditionalFormatRule: { sheetId: 0, index: 3, newIndex: 0 } },
        { deleteConditionalFormatRule: { sheetId: 0, index: 2 } },
      ])
    ).data.replies
    expect(replies).toEqual([
      {
        updateConditionalFormatRule: {
          newRule: stored('Refused'),
          oldRule: stored('Error'),
          newIndex: 1,
        },
      },
      {
        updateConditionalFormatRule: {
          newRule: stored('Conflict'),
          newIndex: 3,
        },
      },
      {
        updateConditionalFormatRule: {
          newRule: stored('Conflict'),
          oldIndex: 3,
        },
      },
      { deleteConditionalFormatRule: { rule: stored('Waiting') } },
    ])
    expect(await words(id)).toEqual(['Conflict', 'Refused', 'Done'])
  })

  test("an index with no rule is Google's observed error, and the batch is undone", async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Sync log', sheetId: 4 },
    ])
    await batch(id, [{ addConditionalFormatRule: { index: 0, rule: rule('Error', 4) } }])
    const deleted = await failure(
      batch(id, [{ deleteConditionalFormatRule: { sheetId: 4, index: 0 } }, { deleteConditionalFormatRule: { sheetId: 4, index: 0 } }]),
    )
    expect(deleted.message).toBe('Invalid requests[1].deleteConditionalFormatRule: No conditional format on sheet: 4 at index: 0')
    expect((await sheetsOf(id))[1]?.conditionalFormats).toHaveLength(1)
    const moved = await failure(batch(id, [{ updateConditionalFormatRule: { sheetId: 4, index: 1, newIndex: 0 } }]))
    expect(moved.message).toBe('Invalid requests[0].updateConditionalFormatRule: No conditional format on sheet: 4 at index: 1')
    const replaced = await failure(batch(id, [{ updateConditionalFormatRule: { index: 0, rule: rule('Done') } }]))
    expect(replaced.message).toBe('Invalid requests[0].updateConditionalFormatRule: No conditional format on sheet: 0 at index: 0')
  })

  test('rules grow with rows inserted inside their ranges and move with rows inserted above', async () => {
    const id = newSpreadsheet()
    await batch(id, [
      {
        addConditionalFormatRule: {
          index: 0,
          rule: { ...rule('Error'), ranges: [grid(0, 1, 10, 0, 5)] },
        },
      },
    ])
    await batch(id, [
      {
        insertDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 },
        },
      },
      {
        insertDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 5, endIndex: 7 },
        },
      },
    ])
    expect((await sheetsOf(id))[0]?.conditionalFormats?.[0]?.ranges).toEqual([
      {
        startRowIndex: 2,
        endRowIndex: 13,
        startColumnIndex: 0,
        endColumnIndex: 5,
      },
    ])
  })
})

describe('charts (addChart, updateChartSpec, deleteEmbeddedObject)', () => {
  const spec = (title: string) => ({
    title,
    basicChart: {
      chartType: 'COLUMN',
      legendPosition: 'BOTTOM_LEGEND',
      domains: [{ domain: { sourceRange: { sources: [grid(3, 0, 6, 0, 1)] } } }],
      series: [
        {
          series: { sourceRange: { sources: [grid(3, 0, 6, 1, 2)] } },
          targetAxis: 'LEFT_AXIS',
        },
      ],
      headerCount: 1,
    },
  })

  test('addChart replies with the chart (an id chosen, default size 600 × 371); spreadsheets.get lists it on its tab', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Summary', sheetId: 3 },
    ])
    const reply = (
      await batch(id, [
        {
          addChart: {
            chart: {
              spec: spec('Hours per week'),
              position: {
                overlayPosition: {
                  anchorCell: { sheetId: 3, rowIndex: 1, columnIndex: 4 },
                },
              },
            },
          },
        },
      ])
    ).data.replies?.[0]
    const chartId = reply?.addChart?.chart?.chartId
    expect(chartId).toBeGreaterThan(0)
    const chart = {
      chartId,
      spec: spec('Hours per week'),
      position: {
        overlayPosition: {
          anchorCell: { sheetId: 3, rowIndex: 1, columnIndex: 4 },
          widthPixels: 600,
          heightPixels: 371,
        },
      },
    }
    expect(reply).toEqual({ addChart: { chart } })
    const sheets = await sheetsOf(id)
    expect(sheets[0]).not.toHaveProperty('charts')
    expect(sheets[1]?.charts).toEqual([chart])
    expect((await sheetsOf(id, 'sheets(properties.title,charts.chartId)'))[1]).toEqual({
      properties: { title: 'Summary' },
      charts: [{ chartId }],
    })
  })

  test('a given id on the first tab: sheetId 0 and zero indexes left out of anchor and ranges; offsets and size kept', async () => {
    const id = newSpreadsheet()
    const body = {
      chartId: 77,
      spec: {
        basicChart: {
          domains: [{ domain: { sourceRange: { sources: [grid(0, 0, 5, 0, 1)] } } }],
        },
      },
      position: {
        overlayPosition: {
          anchorCell: { sheetId: 0, rowIndex: 0, columnIndex: 0 },
          offsetXPixels: 0,
          offsetYPixels: 8,
          widthPixels: 480,
          heightPixels: 300,
        },
      },
    }
    expect((await batch(id, [{ addChart: { chart: body } }])).data.replies?.[0]).toEqual({
      addChart: {
        chart: {
          chartId: 77,
          spec: {
            basicChart: {
              domains: [
                {
                  domain: {
                    sourceRange: {
                      sources: [
                        {
                          startRowIndex: 0,
                          endRowIndex: 5,
                          startColumnIndex: 0,
                          endColumnIndex: 1,
                        },
                      ],
                    },
                  },
                },
              ],
            },
          },
          position: {
            overlayPosition: {
              anchorCell: {},
              offsetYPixels: 8,
              widthPixels: 480,
              heightPixels: 300,
            },
          },
        },
      },
    })
    const again = await failure(batch(id, [{ addChart: { chart: body } }]))
    expect(again.message).toBe('Invalid requests[0].addChart: An embedded object with id 77 already exists.')
  })

  test('updateChartSpec replaces the spec, keeps the position; deleteEmbeddedObject removes it; unknown ids refused', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Summary', sheetId: 3 },
    ])
    await batch(id, [
      {
        addChart: {
          chart: {
            chartId: 5,
            spec: spec('Old'),
            position: { overlayPosition: { anchorCell: { sheetId: 3 } } },
          },
        },
      },
    ])
    expect((await batch(id, [{ updateChartSpec: { chartId: 5, spec: spec('New') } }])).data.replies).toEqual([{}])
    expect((await sheetsOf(id))[1]?.charts).toEqual([
      {
        chartId: 5,
        spec: spec('New'),
        position: {
          overlayPosition: {
            anchorCell: { sheetId: 3 },
            widthPixels: 600,
            heightPixels: 371,
          },
        },
      },
    ])
    expect((await failure(batch(id, [{ updateChartSpec: { chartId: 6, spec: spec('x') } }]))).message).toBe(
      'Invalid requests[0].updateChartSpec: No chart with id: 6',
    )
    expect((await batch(id, [{ deleteEmbeddedObject: { objectId: 5 } }])).data.replies).toEqual([{}])
    expect((await sheetsOf(id))[1]).not.toHaveProperty('charts')
    expect((await failure(batch(id, [{ deleteEmbeddedObject: { objectId: 5 } }]))).message).toBe(
      'Invalid requests[0].deleteEmbeddedObject: No embedded object with id: 5',
    )
  })

  test('ranges on unknown tabs or past the grid are refused and nothing is applied', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Summary', sheetId: 3, rowCount: 20, columnCount: 5 },
    ])
    const at = (sheetId: number, rowIndex = 0) => ({
      overlayPosition: { anchorCell: { sheetId, rowIndex } },
    })
    expect((await failure(batch(id, [{ addChart: { chart: { spec: spec('x'), position: at(8) } } }]))).message).toBe(
      'Invalid requests[0].addChart: No grid with id: 8',
    )
    const past = await failure(batch(id, [{ addChart: { chart: { spec: spec('x'), position: at(3, 20) } } }]))
    expect(past.message).toBe('Invalid requests[0].addChart: Range (Summary!A21) exceeds grid limits. Max rows: 20, max columns: 5')
    const source = await failure(
      batch(id, [
        { addChart: { chart: { spec: spec('x'), position: at(3) } } },
        {
          addChart: {
            chart: {
              spec: {
                basicChart: {
                  domains: [
                    {
                      domain: {
                        sourceRange: { sources: [grid(9, 0, 1, 0, 1)] },
                      },
                    },
                  ],
                },
              },
              position: at(3),
            },
          },
        },
      ]),
    )
    expect(source.message).toBe('Invalid requests[1].addChart: No grid with id: 9')
    expect((await sheetsOf(id))[1]).not.toHaveProperty('charts')
  })

  test('the anchor moves with rows inserted above it; data ranges grow with rows inserted inside them, from any tab', async () => {
    const id = newSpreadsheet([
      { title: 'Sheet1', sheetId: 0 },
      { title: 'Summary', sheetId: 3 },
    ])
    await batch(id, [
      {
        addChart: {
          chart: {
            chartId: 5,
            spec: spec('Hours'),
            position: {
              overlayPosition: { anchorCell: { rowIndex: 2, columnIndex: 1 } },
            },
          },
        },
      },
    ])
    await batch(id, [
      {
        insertDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 2 },
        },
      },
      {
        insertDimension: {
          range: { sheetId: 3, dimension: 'ROWS', startIndex: 2, endIndex: 3 },
        },
      },
    ])
    const [chart] = (await sheetsOf(id))[0]?.charts ?? []
    expect(chart?.position?.overlayPosition?.anchorCell).toEqual({
      rowIndex: 4,
      columnIndex: 1,
    })
    expect(chart?.spec?.basicChart?.domains?.[0]?.domain?.sourceRange?.sources).toEqual([grid(3, 0, 7, 0, 1)])
    expect(chart?.spec?.basicChart?.series?.[0]?.series?.sourceRange?.sources).toEqual([grid(3, 0, 7, 1, 2)])
  })
})

describe('number formats on rows added later', () => {
  const dateFormat = { numberFormat: { type: 'DATE', pattern: 'yyyy-mm-dd' } }

  async function datedSheet(): Promise<string> {
    const id = newSpreadsheet([{ title: 'Activities', sheetId: 0, rowCount: 4, columnCount: 2 }])
    await batch(id, [
      {
        repeatCell: {
          range: grid(0, 1, 4, 0, 1),
          cell: { userEnteredFormat: dateFormat },
          fields: 'userEnteredFormat.numberFormat',
        },
      },
    ])
    return id
  }
  const write = (id: string, range: string, value: number) =>
    api.spreadsheets.values.update({
      spreadsheetId: id,
      range,
      valueInputOption: 'RAW',
      requestBody: { values: [[value]] },
    })

  test('rows added by appendDimension have no format: a date written there reads as a raw serial, as on Google', async () => {
    const id = await datedSheet()
    await batch(id, [{ appendDimension: { sheetId: 0, dimension: 'ROWS', length: 2 } }])
    await write(id, 'Activities!A4', 46343)
    await write(id, 'Activities!A5', 46343)
    expect(await values(id, 'Activities!A4:A5')).toEqual([['2026-11-17'], ['46343']])
  })

  test('inserted rows copy the format of the row before (inheritFromBefore), also past the last stored row, else after', async () => {
    const id = await datedSheet()
    await batch(id, [
      {
        insertDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 4, endIndex: 6 },
          inheritFromBefore: true,
        },
      },
      {
        insertDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 1, endIndex: 2 },
          inheritFromBefore: false,
        },
      },
      {
        insertDimension: {
          range: { sheetId: 0, dimension: 'ROWS', startIndex: 1, endIndex: 2 },
          inheritFromBefore: true,
        },
      },
    ])
    for (const row of [2, 3, 6, 7, 8]) await write(id, `Activities!A${row}`, 46343)
    expect(await values(id, 'Activities!A2:A8')).toEqual([
      ['46343'],
      ['2026-11-17'],
      [],
      [],
      ['2026-11-17'],
      ['2026-11-17'],
      ['2026-11-17'],
    ])
  })

  test('columns inserted with inheritFromBefore copy the format of the column before', async () => {
    const id = await datedSheet()
    await batch(id, [
      {
        insertDimension: {
          range: {
            sheetId: 0,
            dimension: 'COLUMNS',
            startIndex: 1,
            endIndex: 2,
          },
          inheritFromBefore: true,
        },
      },
    ])
    await write(id, 'Activities!B2', 46343)
    expect(await values(id, 'Activities!B2')).toEqual([['2026-11-17']])
  })
})
