import { describe, expect, it } from 'vitest'
import type { sheets_v4 } from '@googleapis/sheets'
import fc from 'fast-check'
import { isTimelineSheetsError } from '../../src/errors.ts'
import { OptionError } from '../../src/core/options.ts'
import type { Snapshot, TabData } from '../../src/sheets/port.ts'
import { a1Range, columnIndex, columnLetters, parseGridEcho, parseRangeEcho, quoteTitle } from '../../src/sheets/google/a1.ts'
import { ROW_FORMAT_FIELDS, type RowFormats } from '../../src/sheets/google/column-formats.ts'
import { batchGetParams, cellData, cellFromApi, cellToApi, jsonBytes, packBySize, trimRows } from '../../src/sheets/google/requests.ts'
import { appendChunks, rowDataJson } from '../../src/sheets/google/append-rows.ts'
import type { StructuralPart } from '../../src/sheets/google/structural.ts'
import {
  CLAIM_VALUE_CHARS,
  CLAIMS_PER_ROUND,
  claimReserve,
  claimFilter,
  claimKey,
  claimValues,
  createClaim,
  rowsByClaim,
  sheetClaimsFilter,
} from '../../src/sheets/google/row-claims.ts'
import { planTabs } from '../../src/sheets/google/write-targets.ts'

function tab(title: string, rows: TabData['rows'], gridRowCount = 1000): TabData {
  return { title, exists: true, header: ['User', 'Notes', 'Key'], rows, gridRowCount }
}

function basisOf(...tabs: TabData[]): Snapshot {
  return { tabs: Object.fromEntries(tabs.map((t) => [t.title, t])) }
}

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('A1 notation', () => {
  it('converts column indexes and letters both ways', () => {
    expect([0, 25, 26, 701, 702].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'ZZ', 'AAA'])
    expect(['A', 'Z', 'AA', 'zz', 'AAA'].map(columnIndex)).toEqual([0, 25, 26, 701, 702])
    expect(() => columnLetters(-1)).toThrow(OptionError)
    expect(() => columnIndex('A1')).toThrow(OptionError)
  })

  it('always quotes titles and doubles apostrophes, so a title like tab01 is never read as a cell', () => {
    expect(quoteTitle('tab01')).toBe("'tab01'")
    expect(quoteTitle("Jon's Data")).toBe("'Jon''s Data'")
  })

  it('builds bounded ranges and keeps single cells single', () => {
    expect(a1Range('Activities', 5, 1, 1, 3)).toBe("'Activities'!B5:D5")
    expect(a1Range('Activities', 5, 1, 1, 1)).toBe("'Activities'!B5")
    expect(a1Range('A', 2, 0, 3, 2)).toBe("'A'!A2:B4")
  })

  it('reads the grid size from the echoed range', () => {
    expect(parseGridEcho('Activities!A1:L1000')).toEqual({ title: 'Activities', rowCount: 1000, columnCount: 12 })
    expect(parseGridEcho("'Sync log'!A1:Z250")).toEqual({ title: 'Sync log', rowCount: 250, columnCount: 26 })
    expect(parseGridEcho("'Jon''s!Data'!A1:B2")).toEqual({ title: "Jon's!Data", rowCount: 2, columnCount: 2 })
    expect(parseGridEcho('Tiny!A1')).toEqual({ title: 'Tiny', rowCount: 1, columnCount: 1 })
  })

  it('reads a row echo: 1-based rows, 0-based columns, quoted titles', () => {
    expect(parseRangeEcho("'Jon''s Tab'!B5:L5")).toEqual({ title: "Jon's Tab", startRow: 5, endRow: 5, startColumn: 1, endColumn: 11 })
    expect(parseRangeEcho('Activities!A7')).toEqual({ title: 'Activities', startRow: 7, endRow: 7, startColumn: 0, endColumn: 0 })
  })

  it('refuses an echo that is not bounded', () => {
    for (const bad of ['Activities!A:L', 'A1:B2', 'Activities!1:2']) {
      const error = thrown(() => parseGridEcho(bad))
      expect(isTimelineSheetsError(error) && error.code).toBe('TS_RESPONSE_INVALID')
    }
  })
})

describe('read request', () => {
  it('is one batchGet over whole tabs with formulas as text and dates as serials', () => {
    expect(batchGetParams('sid', ['Activities', 'Allowed tags'])).toEqual({
      spreadsheetId: 'sid',
      ranges: ["'Activities'", "'Allowed tags'"],
      majorDimension: 'ROWS',
      valueRenderOption: 'FORMULA',
      dateTimeRenderOption: 'SERIAL_NUMBER',
    })
  })
})

describe('cells', () => {
  it('reads an empty string as an empty cell and keeps types', () => {
    expect(['', 'x', 0, 1.5, false, null, undefined].map(cellFromApi)).toEqual([null, 'x', 0, 1.5, false, null, null])
  })

  it('writes null as "" because Google treats null as "leave untouched"', () => {
    expect(cellToApi(null, 'here')).toBe('')
    expect(cellToApi('=IMPORTDATA(x)', 'here')).toBe('=IMPORTDATA(x)')
    expect(cellToApi(45293.5, 'here')).toBe(45293.5)
  })

  it('refuses a number JSON cannot carry, naming the cell', () => {
    const error = thrown(() => cellToApi(Number.NaN, 'Activities!C5'))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_VALIDATION')
    expect((error as Error).message).toContain('Activities!C5')
  })

  it('turns a cell of an added row into RAW-equivalent CellData: text is never parsed', () => {
    expect(['=SUM(A1:A2)', '0042', 'TRUE', 45293.5, false, null, ''].map((v) => cellData(v, 'here'))).toEqual([
      { userEnteredValue: { stringValue: '=SUM(A1:A2)' } },
      { userEnteredValue: { stringValue: '0042' } },
      { userEnteredValue: { stringValue: 'TRUE' } },
      { userEnteredValue: { numberValue: 45293.5 } },
      { userEnteredValue: { boolValue: false } },
      {},
      {},
    ])
    expect(() => cellData(Number.POSITIVE_INFINITY, 'Activities appended row 3')).toThrow(/Activities appended row 3/)
  })

  it('trims like Google', () => {
    expect(trimRows([['a', null], [], [null, 'b', ''], [], [null]])).toEqual([['a'], [], [null, 'b']])
  })
})

describe('packBySize', () => {
  it('keeps everything in one request below the limit and starts a new one before it would be passed', () => {
    const parts = ['a'.repeat(400), 'b'.repeat(400), 'c'.repeat(400)]
    expect(packBySize(parts, (p) => p.length, 10_000)).toEqual([parts])
    expect(packBySize(parts, (p) => p.length, 1000).map((b) => b.length)).toEqual([2, 1])
  })

  it('sends a part larger than the limit on its own', () => {
    expect(packBySize(['x'.repeat(50), 'y'], (p) => p.length, 10).map((b) => b.length)).toEqual([1, 1])
  })
})

describe('row claims', () => {
  it('carry the sheet id in base 36 as key, so one filter selects every claim on a sheet, and claim a 1-based sheet row', () => {
    expect(claimKey(7)).toBe('ts7')
    expect(claimKey(1_877_059_582)).toBe('tsv1jwfy')
    expect(claimFilter({ metadataKey: 'ts7', value: 'a01' })).toEqual({
      developerMetadataLookup: { metadataKey: 'ts7', metadataValue: 'a01', locationType: 'ROW' },
    })
    expect(sheetClaimsFilter(7)).toEqual({ developerMetadataLookup: { metadataKey: 'ts7', locationType: 'ROW' } })
    expect(createClaim({ metadataKey: 'ts7', value: 'c1' }, 7, 5)).toEqual({
      createDeveloperMetadata: {
        developerMetadata: {
          metadataKey: 'ts7',
          metadataValue: 'c1',
          location: { dimensionRange: { sheetId: 7, dimension: 'ROWS', startIndex: 4, endIndex: 5 } },
          visibility: 'DOCUMENT',
        },
      },
    })
  })

  it('are short: a claim on the largest sheet id takes at most 11 characters of the budget, and no value repeats within 36 rounds', () => {
    const values = claimValues(() => 0.999)
    const seen = new Set<string>()
    let longest = 0
    for (let round = 0; round < 36; round++) {
      values.round()
      for (let i = 0; i < CLAIMS_PER_ROUND; i++) {
        const value = values.next()
        expect(seen.has(value)).toBe(false)
        seen.add(value)
        longest = Math.max(longest, value.length)
      }
    }
    expect(longest).toBe(CLAIM_VALUE_CHARS)
    expect(claimReserve(2 ** 31 - 1)).toBe(11)
  })

  it('read an answer back by claim: each row once, where it is now, with its cells', () => {
    const k1 = claimFilter({ metadataKey: 'ts.7', value: 'k1' })
    const k2 = claimFilter({ metadataKey: 'ts.7', value: 'k2' })
    const rows = rowsByClaim([
      { valueRange: { range: 'Activities!A9:L9', values: [['u', 45293, '', 'x']] }, dataFilters: [k1] },
      { valueRange: { range: 'Activities!A3:L3', values: [['v']] }, dataFilters: [k2] },
      { valueRange: { range: 'Activities!A4:L4' }, dataFilters: [k2] },
      {
        valueRange: { range: 'Activities!A1:L1', values: [['User']] },
        dataFilters: [{ gridRange: { sheetId: 7, startRowIndex: 0, endRowIndex: 1 } }],
      },
    ])
    expect(rows.get('ts.7\u0000k1')).toEqual([{ title: 'Activities', row: 9, columnCount: 12, cells: ['u', 45293, null, 'x'] }])
    expect(rows.get('ts.7\u0000k2')?.map((r) => r.row)).toEqual([3, 4])
    expect(rows.size).toBe(2)
  })
})

describe('planTabs', () => {
  const rows = [
    ['a', 'n1', 'k1'],
    ['b', 'n2', 'k2'],
    ['c', 'n3', 'k1'],
  ] // sheet rows 2–4; k1 on two rows

  it('gathers the rows a write addresses, with their Key and whether it names one row only', () => {
    const [t] = planTabs(
      [
        {
          tab: 'Activities',
          keyColumn: 2,
          updates: [
            { row: 3, column: 1, values: ['x'] },
            { row: 2, column: 0, values: ['y'] },
          ],
          deleteRows: [3],
        },
      ],
      basisOf(tab('Activities', rows)),
    )
    expect(
      [...t!.targets.values()].map((x) => ({
        row: x.row,
        key: x.key,
        identifying: x.identifying,
        updates: x.updates.length,
        remove: x.remove,
      })),
    ).toEqual([
      { row: 3, key: 'k2', identifying: true, updates: 1, remove: true },
      { row: 2, key: 'k1', identifying: false, updates: 1, remove: false },
    ])
  })

  it('refuses writes to tabs missing from the basis, the header row, rows outside the grid, bad numbers and duplicate tabs', () => {
    const basis = basisOf(tab('Activities', rows, 10), { title: 'Gone', exists: false, header: [], rows: [], gridRowCount: 0 })
    const cases: [unknown, string][] = [
      [thrown(() => planTabs([{ tab: 'Gone', appends: [['x']] }], basis)), 'TS_SHEET_LAYOUT'],
      [thrown(() => planTabs([{ tab: 'Nope', appends: [['x']] }], basis)), 'TS_SHEET_LAYOUT'],
      [thrown(() => planTabs([{ tab: 'Activities', deleteRows: [1] }], basis)), 'TS_INTERNAL'],
      [thrown(() => planTabs([{ tab: 'Activities', deleteRows: [11] }], basis)), 'TS_INTERNAL'],
      [thrown(() => planTabs([{ tab: 'Activities', updates: [{ row: 0, column: 0, values: ['x'] }] }], basis)), 'TS_INTERNAL'],
      [thrown(() => planTabs([{ tab: 'Activities', updates: [{ row: 2, column: 0, values: [Number.NaN] }] }], basis)), 'TS_VALIDATION'],
      [
        thrown(() =>
          planTabs(
            [
              { tab: 'Activities', appends: [['x']] },
              { tab: 'Activities', appends: [['y']] },
            ],
            basis,
          ),
        ),
        'TS_INTERNAL',
      ],
    ]
    for (const [error, code] of cases) expect(isTimelineSheetsError(error) && error.code).toBe(code)
  })
})

/** The requests a part sends: its JSON when it carries one (appended rows travel as JSON only). */
function sent(part: StructuralPart): sheets_v4.Schema$Request[] {
  return part.json === undefined ? part.requests : (JSON.parse(`[${part.json.join('')}]`) as sheets_v4.Schema$Request[])
}

describe('appendChunks: rows the tool adds, formatted by their columns, never by the header', () => {
  const header = ['User', 'Date', 'Notes', 'Delete', 'Key']
  const formats: RowFormats = {
    Date: { numberFormat: { type: 'DATE', pattern: 'yyyy-mm-dd' } },
    Notes: { numberFormat: { type: 'TEXT' }, wrapStrategy: 'WRAP' },
    Delete: { dataValidation: { condition: { type: 'BOOLEAN' }, strict: true } },
  }
  function state(rows: TabData['rows'], keyed = true) {
    const [t] = planTabs(
      [{ tab: 'Activities', ...(keyed ? { keyColumn: 4 } : {}), appends: [['x']] }],
      basisOf({ title: 'Activities', exists: true, header, rows, gridRowCount: 1000 }),
    )
    t!.sheetId = 7
    return t!
  }

  it('inserts after the last data row, formats each column and writes RAW values, in one batch', () => {
    const t = state([['old', 45000, 'n', false, 'k0']])
    const [chunk, ...rest] = appendChunks(
      t,
      [
        ['u', 45293, '=1+1', false, 'k1'],
        ['v', null, 'plain'],
      ],
      2,
      formats,
      2_000_000,
    )
    expect(rest).toEqual([])
    expect(sent(chunk!)).toEqual([
      { insertDimension: { range: { sheetId: 7, dimension: 'ROWS', startIndex: 2, endIndex: 4 }, inheritFromBefore: true } },
      {
        repeatCell: {
          range: { sheetId: 7, startRowIndex: 2, endRowIndex: 4, startColumnIndex: 1, endColumnIndex: 2 },
          cell: { userEnteredFormat: { numberFormat: { type: 'DATE', pattern: 'yyyy-mm-dd' } } },
          fields: ROW_FORMAT_FIELDS,
        },
      },
      {
        repeatCell: {
          range: { sheetId: 7, startRowIndex: 2, endRowIndex: 4, startColumnIndex: 2, endColumnIndex: 3 },
          cell: { userEnteredFormat: { numberFormat: { type: 'TEXT' }, wrapStrategy: 'WRAP' } },
          fields: ROW_FORMAT_FIELDS,
        },
      },
      {
        repeatCell: {
          range: { sheetId: 7, startRowIndex: 2, endRowIndex: 4, startColumnIndex: 3, endColumnIndex: 4 },
          cell: { dataValidation: { condition: { type: 'BOOLEAN' }, strict: true } },
          fields: ROW_FORMAT_FIELDS,
        },
      },
      {
        updateCells: {
          start: { sheetId: 7, rowIndex: 2, columnIndex: 0 },
          rows: [
            {
              values: [
                { userEnteredValue: { stringValue: 'u' } },
                { userEnteredValue: { numberValue: 45293 } },
                { userEnteredValue: { stringValue: '=1+1' } },
                { userEnteredValue: { boolValue: false } },
                { userEnteredValue: { stringValue: 'k1' } },
              ],
            },
            { values: [{ userEnteredValue: { stringValue: 'v' } }, {}, { userEnteredValue: { stringValue: 'plain' } }] },
          ],
          fields: 'userEnteredValue',
        },
      },
    ])
  })

  it('never inherits formats from the header row, and puts no developer metadata on new rows', () => {
    const t = state([])
    const [chunk] = appendChunks(
      t,
      [
        ['a', 1, 'n', false, 'dup'],
        ['b', 2, 'n', false, 'dup'],
        ['c', 3, 'n', false, 'ok'],
      ],
      1,
      undefined,
      2_000_000,
    )
    const requests = sent(chunk!)
    expect(requests[0]).toEqual({
      insertDimension: { range: { sheetId: 7, dimension: 'ROWS', startIndex: 1, endIndex: 4 }, inheritFromBefore: false },
    })
    expect(requests.some((r) => r.createDeveloperMetadata)).toBe(false)
    expect(requests.some((r) => r.repeatCell)).toBe(false)
  })

  it('150,000 rows of 12 columns: chunks under the payload limit, rows contiguous, no metadata, nothing spread into a call', () => {
    const wide = [...header, 'F', 'G', 'H', 'I', 'J', 'K', 'L']
    const [t] = planTabs(
      [{ tab: 'Activities', keyColumn: 4, appends: [['x']] }],
      basisOf({ title: 'Activities', exists: true, header: wide, rows: [], gridRowCount: 1000 }),
    )
    t!.sheetId = 7
    const count = 150_000
    const rows = Array.from({ length: count }, (_, i) => [
      'DOMAIN\\alice',
      45293 + (i % 30),
      `note ${i}`,
      false,
      `tags-alice/${i}`,
      0.375,
      0.5,
      0.125,
      'Client, Project',
      ':billable',
      'ok',
      `fp-${i}`,
    ])
    const limit = 2_000_000
    const chunks = appendChunks(t!, rows, 1, formats, limit)
    expect(chunks.length).toBeGreaterThan(10)
    let next = 1
    for (const chunk of chunks) {
      const requests = sent(chunk)
      expect(jsonBytes(requests)).toBeLessThanOrEqual(limit)
      const insert = requests[0]!.insertDimension!.range!
      expect(insert.startIndex).toBe(next)
      const values = requests.find((r) => r.updateCells)!.updateCells!
      expect(values.start?.rowIndex).toBe(next)
      expect(values.rows).toHaveLength(insert.endIndex! - insert.startIndex!)
      expect(requests.some((r) => r.createDeveloperMetadata)).toBe(false)
      next = insert.endIndex!
    }
    expect(next).toBe(count + 1)
  })

  it('a row written out as JSON is the RowData of its cells, whatever the text or number', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'binary' }),
            fc.string({ unit: 'grapheme' }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.boolean(),
            fc.constant(null),
            fc.constant(''),
          ),
          { maxLength: 14 },
        ),
        (cells) => {
          // As JSON both ways: JSON has no -0, so either way sends 0.
          expect(rowDataJson(cells, 'Activities', 1)).toBe(JSON.stringify({ values: cells.map((c) => cellData(c, 'here')) }))
        },
      ),
    )
  })

  it('a row with a value no JSON number holds is refused with its place, before anything is sent', () => {
    expect(() => rowDataJson(['a', Number.NaN], 'Activities', 3)).toThrow(/Activities appended row 3, cell 2/)
  })

  it('the JSON a chunk carries is its requests, each row serialized once, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string({ unit: 'binary' }),
            fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)),
            fc.string({ unit: 'grapheme' }),
            fc.boolean(),
            fc.stringMatching(/^k[0-9]{1,3}$/),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 300, max: 4_000 }),
        (rows, limit) => {
          const chunks = appendChunks(state([]), rows, 1, formats, limit)
          const written = chunks.flatMap((chunk) => sent(chunk).flatMap((r) => r.updateCells?.rows ?? []))
          expect(written).toEqual(JSON.parse(JSON.stringify(rows.map((cells) => ({ values: cells.map((c) => cellData(c, 'here')) })))))
          for (const chunk of chunks) expect(sent(chunk)[0]!.insertDimension).toBeDefined()
        },
      ),
    )
  })
})
