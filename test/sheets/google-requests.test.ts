import { describe, expect, it } from 'vitest'
import { isTimelineSheetsError } from '../../src/errors.ts'
import type { Snapshot, TabData } from '../../src/sheets/port.ts'
import { a1Range, columnIndex, columnLetters, parseGridEcho, quoteTitle } from '../../src/sheets/google/a1.ts'
import {
  batchGetParams,
  cellFromApi,
  cellToApi,
  descendingRuns,
  planWrite,
  remapRow,
  splitValueRanges,
  structuralOutcome,
  trimRows,
} from '../../src/sheets/google/requests.ts'

function tab(title: string, rows: TabData['rows'], gridRowCount = 1000): TabData {
  return { title, exists: true, header: ['User', 'Notes', 'Key'], rows, gridRowCount }
}

function basisOf(...tabs: TabData[]): Snapshot {
  return { tabs: Object.fromEntries(tabs.map((t) => [t.title, t])) }
}

const context = { sheetIds: new Map([['Activities', 7]]), columnCounts: new Map([['Activities', 12]]) }

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
    expect(() => columnLetters(-1)).toThrow(TypeError)
    expect(() => columnIndex('A1')).toThrow(TypeError)
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
    const error = thrown(() => cellToApi(Number.NaN, "Activities!C5"))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_VALIDATION')
    expect((error as Error).message).toContain('Activities!C5')
  })

  it('trims like Google', () => {
    expect(trimRows([['a', null], [], [null, 'b', ''], [], [null]])).toEqual([['a'], [], [null, 'b']])
  })
})

describe('row remapping', () => {
  it('shifts rows below deletions up and drops deleted rows', () => {
    const deletes = [3, 5, 6]
    expect([2, 3, 4, 5, 6, 7, 10].map((r) => remapRow(r, deletes))).toEqual([2, undefined, 3, undefined, undefined, 4, 7])
  })

  it('groups deletions into runs, last first', () => {
    expect(descendingRuns([2, 3, 5, 7, 8, 9])).toEqual([
      { first: 7, last: 9 },
      { first: 5, last: 5 },
      { first: 2, last: 3 },
    ])
  })
})

describe('planWrite', () => {
  const rows = [['a', 'n1', 'k1'], ['b', 'n2', 'k2'], ['c', 'n3', 'k3'], ['d', 'n4', 'k4']] // sheet rows 2–5

  it('sends only value ranges when the grid does not change', () => {
    const plan = planWrite([{ tab: 'Activities', updates: [{ row: 3, column: 1, values: ['new', null] }] }], basisOf(tab('Activities', rows)), context)
    expect(plan.structural).toEqual([])
    expect(plan.values).toEqual([{ range: "'Activities'!B3:C3", majorDimension: 'ROWS', values: [['new', '']] }])
  })

  it('removes rows descending and remaps updates and appends to the rows after removal', () => {
    const plan = planWrite(
      [
        {
          tab: 'Activities',
          deleteRows: [3, 2],
          updates: [
            { row: 5, column: 1, values: ['changed'] },
            { row: 3, column: 1, values: ['lost with its row'] },
          ],
          appends: [['e', 'n5', 'k5']],
        },
      ],
      basisOf(tab('Activities', rows)),
      context,
    )
    expect(plan.structural).toEqual([{ deleteDimension: { range: { sheetId: 7, dimension: 'ROWS', startIndex: 1, endIndex: 3 } } }])
    expect(plan.values).toEqual([
      { range: "'Activities'!B3", majorDimension: 'ROWS', values: [['changed']] },
      { range: "'Activities'!A4:C4", majorDimension: 'ROWS', values: [['e', 'n5', 'k5']] },
    ])
    expect(plan.tabs[0]!.appended).toEqual({ firstRow: 4, count: 1 })
    expect(plan.tabs[0]).toMatchObject({ gridBefore: 1000, gridAfter: 998 })
  })

  it('issues non-adjacent deletions last-first so earlier positions hold', () => {
    const plan = planWrite([{ tab: 'Activities', deleteRows: [2, 5] }], basisOf(tab('Activities', rows)), context)
    expect(plan.structural.map((r) => r.deleteDimension?.range?.startIndex)).toEqual([4, 1])
  })

  it('grows the grid first, only when it is short, by what the write needs', () => {
    const plan = planWrite(
      [{ tab: 'Activities', deleteRows: [2], appends: [['x'], ['y'], ['z']] }],
      basisOf(tab('Activities', rows, 6)),
      context,
    )
    // 4 data rows + header = rows 1–5; one removed → appends at 5–7; grid 6 − 1 = 5 → grow by 2.
    expect(plan.structural[0]).toEqual({ appendDimension: { sheetId: 7, dimension: 'ROWS', length: 2 } })
    expect(plan.structural[1]).toHaveProperty('deleteDimension')
    expect(plan.tabs[0]).toMatchObject({ appended: { firstRow: 5, count: 3 }, gridAfter: 7 })
  })

  it('grows columns when a write runs past the known grid width', () => {
    const plan = planWrite(
      [{ tab: 'Activities', updates: [{ row: 2, column: 11, values: ['l', 'm', 'n'] }] }],
      basisOf(tab('Activities', rows)),
      context,
    )
    expect(plan.structural).toEqual([{ appendDimension: { sheetId: 7, dimension: 'COLUMNS', length: 2 } }])
  })

  it('lists tabs whose sheet id it does not know instead of guessing', () => {
    const plan = planWrite([{ tab: 'Activities', deleteRows: [2] }], basisOf(tab('Activities', rows)), { sheetIds: new Map(), columnCounts: new Map() })
    expect(plan.missingSheetIds).toEqual(['Activities'])
  })

  it('appends into an empty tab right under the header', () => {
    const plan = planWrite([{ tab: 'Activities', appends: [['a'], ['b']] }], basisOf(tab('Activities', [])), context)
    expect(plan.values[0]!.range).toBe("'Activities'!A2:A3")
    expect(plan.tabs[0]!.appended).toEqual({ firstRow: 2, count: 2 })
  })

  it('refuses writes to tabs missing from the basis, the header row, rows outside the grid and duplicate tabs', () => {
    const basis = basisOf(tab('Activities', rows, 10), { title: 'Gone', exists: false, header: [], rows: [], gridRowCount: 0 })
    const cases: [unknown, string][] = [
      [thrown(() => planWrite([{ tab: 'Gone', appends: [['x']] }], basis, context)), 'TS_SHEET_LAYOUT'],
      [thrown(() => planWrite([{ tab: 'Nope', appends: [['x']] }], basis, context)), 'TS_SHEET_LAYOUT'],
      [thrown(() => planWrite([{ tab: 'Activities', deleteRows: [1] }], basis, context)), 'TS_INTERNAL'],
      [thrown(() => planWrite([{ tab: 'Activities', deleteRows: [11] }], basis, context)), 'TS_INTERNAL'],
      [thrown(() => planWrite([{ tab: 'Activities', updates: [{ row: 0, column: 0, values: ['x'] }] }], basis, context)), 'TS_INTERNAL'],
      [thrown(() => planWrite([{ tab: 'Activities', appends: [['x']] }, { tab: 'Activities', appends: [['y']] }], basis, context)), 'TS_INTERNAL'],
    ]
    for (const [error, code] of cases) expect(isTimelineSheetsError(error) && error.code).toBe(code)
  })
})

describe('splitValueRanges', () => {
  const range = (i: number, text: string) => ({ range: `'T'!A${i}`, majorDimension: 'ROWS', values: [[text]] })

  it('keeps everything in one request below the limit', () => {
    expect(splitValueRanges([range(2, 'a'), range(3, 'b')], 10_000)).toHaveLength(1)
  })

  it('starts a new request before the limit would be passed', () => {
    const big = 'x'.repeat(400)
    const batches = splitValueRanges([range(2, big), range(3, big), range(4, big)], 1000)
    expect(batches.map((b) => b.length)).toEqual([2, 1])
    for (const batch of batches) expect(Buffer.byteLength(JSON.stringify(batch))).toBeLessThanOrEqual(1000)
  })

  it('cuts one oversized block of rows into runs with their own ranges', () => {
    const rows = Array.from({ length: 10 }, (_, i) => [`row${i}`, 'y'.repeat(200)])
    const batches = splitValueRanges([{ range: "'T'!A2:B11", majorDimension: 'ROWS', values: rows }], 1000)
    const pieces = batches.flat()
    expect(pieces.length).toBeGreaterThan(1)
    expect(pieces[0]!.range).toMatch(/^'T'!A2:B\d+$/)
    expect(pieces.flatMap((p) => p.values ?? [])).toEqual(rows)
    const last = pieces[pieces.length - 1]!
    expect(last.range).toMatch(/:B11$/)
  })
})

describe('structuralOutcome', () => {
  const rows = [['a'], ['b'], ['c']]
  const before = basisOf(tab('Activities', rows, 10))
  const plan = planWrite([{ tab: 'Activities', deleteRows: [3] }], before, context).tabs

  it('says applied when the rows and grid look like the basis minus the deleted rows', () => {
    const now = basisOf(tab('Activities', [['a'], ['c']], 9))
    expect(structuralOutcome(plan, before, now)).toBe('applied')
  })

  it('says not applied when nothing changed', () => {
    expect(structuralOutcome(plan, before, basisOf(tab('Activities', rows, 10)))).toBe('not-applied')
  })

  it('says diverged when someone else changed the tab', () => {
    expect(structuralOutcome(plan, before, basisOf(tab('Activities', [['a'], ['x'], ['c']], 10)))).toBe('diverged')
    expect(structuralOutcome(plan, before, basisOf({ title: 'Activities', exists: false, header: [], rows: [], gridRowCount: 0 }))).toBe('diverged')
  })
})
