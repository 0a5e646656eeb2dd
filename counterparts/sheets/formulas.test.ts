/**
 * Formulas computed when read, through the real `@googleapis/sheets` client:
 * references to other tabs, open and whole-column ranges, array arithmetic,
 * the functions a Summary tab over Activities uses, errors as Google shows them.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import { countElementReads } from '../element-reads.ts'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { type ManualClock, mountSheetsApi, testStore } from './test-support.ts'

let store: SheetsStore
let clock: ManualClock
const { api } = mountSheetsApi(() => store)

beforeEach(() => {
  ;({ store, clock } = testStore({ quota: false }))
})

const ACTIVITIES = [
  ['User', 'Start', 'End', 'Hours', 'Tags', 'Delete'],
  ['ann', '2026-03-02 09:00', '2026-03-02 12:00', 3, 'Acme, Build', false],
  ['Bob', '2026-03-03 10:00', '2026-03-03 12:00', 2, 'acme', false],
  ['ann', '2026-03-09 08:00', '2026-03-09 12:00', 4, 'Globex', true],
  ['ANN', '2026-03-10 13:00', '2026-03-10 14:30', 1.5, '', false],
]

/** A spreadsheet with Activities (rows above), Sync log and an empty Summary. */
async function workbook(timeZone = 'Etc/GMT'): Promise<string> {
  const id = store.createSpreadsheet({
    timeZone,
    sheets: [
      { title: 'Activities', sheetId: 0, rowCount: 20, columnCount: 8 },
      { title: 'Sync log', sheetId: 1, rowCount: 10, columnCount: 4 },
      { title: 'Summary', sheetId: 2, rowCount: 60, columnCount: 6 },
    ],
  }).spreadsheetId
  await api.spreadsheets.values.update({
    spreadsheetId: id,
    range: 'Activities!A1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: ACTIVITIES },
  })
  await api.spreadsheets.values.update({
    spreadsheetId: id,
    range: "'Sync log'!A1",
    valueInputOption: 'RAW',
    requestBody: {
      values: [
        ['Run', 'Rows'],
        ['run-1', 925],
      ],
    },
  })
  return id
}

/** Writes formulas down Summary!A1 and reads them back both ways. */
async function compute(id: string, formulas: string[]): Promise<{ formatted: unknown[]; unformatted: unknown[] }> {
  await api.spreadsheets.values.update({
    spreadsheetId: id,
    range: 'Summary!A1',
    valueInputOption: 'USER_ENTERED',
    requestBody: { values: formulas.map((f) => [f]) },
  })
  const read = async (valueRenderOption: string) =>
    (
      (await api.spreadsheets.values.get({ spreadsheetId: id, range: `Summary!A1:A${formulas.length}`, valueRenderOption })).data.values ??
      []
    ).map((row) => row[0])
  return { formatted: await read('FORMATTED_VALUE'), unformatted: await read('UNFORMATTED_VALUE') }
}

describe('references (Summary over Activities)', () => {
  test('other tabs, quoted or not; absolute and relative; whole-column, open-ended and bounded ranges', async () => {
    const id = await workbook()
    const { unformatted } = await compute(id, [
      "='Sync log'!A2",
      "='sync LOG'!B2*2",
      '=SUM(Activities!$D$2:$D)',
      '=SUM(Activities!D:D)',
      '=SUM(Activities!D2:D5)',
      '=SUM(Activities!$D2:D$3)',
      '=A1',
      '=SUM(Activities!D2:D100000)',
      '=Activities!D100',
    ])
    // A whole column includes the header, which SUM skips as text; a range past the grid is cut at its edge.
    expect(unformatted).toEqual(['run-1', 1850, 10.5, 10.5, 10.5, 5, 'run-1', 10.5, '#REF!'])
  })

  test('an unknown tab, a reference starting past the grid, an unknown name → #REF! / #NAME?', async () => {
    const id = await workbook()
    const { formatted } = await compute(id, ['=Nope!A1', '=SUM(Activities!A30:A40)', '=nothing_here', '=SUM(Activities!D2:D3'])
    expect(formatted).toEqual(['#REF!', '#REF!', '#NAME?', '#ERROR!'])
  })

  test('values are computed when read: a change to Activities shows in the next read', async () => {
    const id = await workbook()
    expect((await compute(id, ['=SUMIFS(Activities!$D$2:$D, Activities!$F$2:$F, "<>TRUE")'])).unformatted).toEqual([6.5])
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Activities!D3:F3',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [[5, null, 'TRUE']] },
    })
    const again = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Summary!A1', valueRenderOption: 'UNFORMATTED_VALUE' })
    expect(again.data.values).toEqual([[4.5]])
    createManager(store).deleteRows(id, 'Activities', 2)
    const afterDelete = await api.spreadsheets.values.get({
      spreadsheetId: id,
      range: 'Summary!A1',
      valueRenderOption: 'UNFORMATTED_VALUE',
    })
    expect(afterDelete.data.values).toEqual([[1.5]])
  })
})

describe('array arithmetic and comparisons', () => {
  test('SUMPRODUCT of comparisons: booleans count as 1 and 0; text compares without case', async () => {
    const id = await workbook()
    const { unformatted } = await compute(id, [
      '=SUMPRODUCT((Activities!$A$2:$A5="ann")*(Activities!$D$2:$D5>=3))',
      '=SUMPRODUCT((Activities!$A$2:$A="ann")*(Activities!$F$2:$F<>TRUE)*(Activities!$C$2:$C-Activities!$B$2:$B))*24',
      '=SUMPRODUCT(Activities!$A$2:$A="ann")',
      '=SUMPRODUCT(Activities!$D$2:$D5, Activities!$D$2:$D5)',
      '=TRUE+TRUE',
      '=ARRAYFORMULA(SUM((Activities!A2:A5="bob")*Activities!D2:D5))',
    ])
    expect(unformatted).toEqual([2, expect.closeTo(4.5, 9), 3, 9 + 4 + 16 + 2.25, 2, 2])
  })

  test('text in an arithmetic array is #VALUE! and SUMPRODUCT passes it on; as a plain argument it counts as 0', async () => {
    const id = await workbook()
    const { formatted } = await compute(id, [
      // D1 is the header "Hours": multiplying it is an error.
      '=SUMPRODUCT((Activities!A:A="ann")*Activities!D:D)',
      '=SUMPRODUCT(Activities!A:A="ann", Activities!D:D)',
      '=SUMPRODUCT(Activities!A2:A5, Activities!D2:D3)',
      '=IFERROR(SUMPRODUCT((Activities!A:A="ann")*Activities!D:D), "bad")',
    ])
    expect(formatted).toEqual(['#VALUE!', '8.5', '#VALUE!', 'bad'])
  })

  test('outside an array context a column range meets the formula on its row (implicit intersection)', async () => {
    const id = await workbook()
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Summary!B2',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['=Activities!D2:D5*2'], ['=Activities!D2:D5*2']] },
    })
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Summary!B10',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['=Activities!D2:D5*2']] },
    })
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Summary!B2:B10', valueRenderOption: 'UNFORMATTED_VALUE' })
    expect(read.data.values).toEqual([[6], [4], [], [], [], [], [], [], ['#VALUE!']])
  })
})

describe('SUMIFS and COUNTIFS criteria', () => {
  test('">="&C$4 on dates, "<>TRUE", exact text without case, wildcards, numbers', async () => {
    const id = await workbook()
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Summary!C4',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['2026-03-09']] },
    })
    const { unformatted } = await compute(id, [
      '=SUMIFS(Activities!$D$2:$D, Activities!$A$2:$A, "ANN", Activities!$B$2:$B, ">="&C$4)',
      '=SUMIFS(Activities!$D$2:$D, Activities!$A$2:$A, "ann", Activities!$F$2:$F, "<>TRUE")',
      '=COUNTIFS(Activities!$B$2:$B, "<"&C$4, Activities!$B$2:$B, ">="&(C$4-7))',
      '=COUNTIFS(Activities!$E$2:$E, "acme*")',
      '=COUNTIFS(Activities!$E$2:$E, "")',
      '=COUNTIFS(Activities!$E$2:$E5, "<>")',
      '=COUNTIFS(Activities!$D$2:$D, ">2")',
      '=COUNTIFS(Activities!$D$2:$D, 2)',
      '=COUNTIF(Activities!$F$2:$F, TRUE)',
      '=SUMIF(Activities!$A$2:$A, "bob", Activities!$D$2:$D)',
      '=SUMIFS(Activities!$D$2:$D, Activities!$A$2:$A5, "ann")',
    ])
    expect(unformatted).toEqual([5.5, 4.5, 2, 2, 16, 3, 2, 1, 1, 2, '#VALUE!'])
  })
})

describe('functions', () => {
  test('logic, maths and text', async () => {
    const id = await workbook()
    const { unformatted } = await compute(id, [
      '=IF(Activities!D2>2, "long", "short")',
      '=IF(FALSE, 1)',
      '=IFERROR(1/0, "none")',
      '=IFERROR(5, "none")',
      '=AND(TRUE, 1, Activities!F2:F3)',
      '=OR(Activities!F2:F5)',
      '=NOT(Activities!F2)',
      '=MOD(-7, 3)',
      '=INT(-2.5)',
      '=ROUND(2.345, 2)',
      '=ROUND(-2.5)',
      '=LEFT(Activities!E2, 4)&"|"&RIGHT("abc", 2)&"|"&MID("hello", 2, 3)',
      '=LEN("  two  spaces ")&"/"&LEN(TRIM("  two  spaces "))',
      '=FIND("c", "Acme")&"/"&SEARCH("C", "Acme")&"/"&SEARCH("m?", "Acme")',
      '=LOWER("ÀB")&UPPER("cd")',
      '=N(TRUE)+N("text")+N(4)',
      '=ISNUMBER(Activities!D2)&ISNUMBER(Activities!A2)&ISBLANK(Activities!E5)&ISBLANK(Activities!A5)',
    ])
    expect(unformatted).toEqual([
      'long',
      false,
      'none',
      5,
      false,
      true,
      true,
      2,
      -3,
      2.35,
      -3,
      'Acme|bc|ell',
      '14/10',
      '2/2/3',
      'àbCD',
      5,
      'TRUEFALSETRUEFALSE',
    ])
  })

  test('DATE, WEEKDAY (types 1 and 2) and TEXT with date patterns; a DATE result shows as a date', async () => {
    const id = await workbook()
    const { formatted, unformatted } = await compute(id, [
      '=DATE(2026, 3, 2)',
      '=DATE(2026, 14, 1)',
      '=WEEKDAY(DATE(2026, 3, 2))',
      '=WEEKDAY(DATE(2026, 3, 2), 2)',
      '=WEEKDAY(DATE(2026, 3, 8), 2)',
      '=TEXT(Activities!B2, "yyyy-mm-dd hh:mm")',
      '=TEXT(DATE(2026, 3, 2), "dddd d mmmm")',
      '=TEXT(1234.5, "#,##0")',
      '=DATE(2026, 3, 2) + 7',
    ])
    expect(unformatted).toEqual([46083, 46419, 2, 1, 7, '2026-03-02 09:00', 'Monday 2 March', '1,235', 46090])
    expect(formatted).toEqual(['3/2/2026', '2/1/2027', '2', '1', '7', '2026-03-02 09:00', 'Monday 2 March', '1,235', '3/9/2026'])
  })

  test("TODAY and NOW read the store's clock in the spreadsheet's time zone", async () => {
    // 2026-03-02 20:00 UTC is already 05:00 on the 3rd in Tokyo.
    clock.advance(11 * 3_600_000)
    const id = await workbook('Asia/Tokyo')
    const { formatted, unformatted } = await compute(id, ['=TODAY()', '=NOW()', '=NOW()-TODAY()'])
    expect(unformatted).toEqual([46084, expect.closeTo(46084 + 5 / 24, 9), expect.closeTo(5 / 24, 9)])
    expect(formatted.slice(0, 2)).toEqual(['3/3/2026', '3/3/2026 5:00:00'])
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ updateSpreadsheetProperties: { properties: { timeZone: 'America/Los_Angeles' }, fields: 'timeZone' } }] },
    })
    const la = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Summary!A1:A2', valueRenderOption: 'UNFORMATTED_VALUE' })
    expect(la.data.values).toEqual([[46083], [46083 + 12 / 24]])
  })
})

describe('errors as Google shows them', () => {
  test('codes in values, type and message in grid data; unknown functions are #NAME?; propagation', async () => {
    const id = await workbook()
    const { formatted, unformatted } = await compute(id, [
      '=1/0',
      '=FOO(1)',
      '=#N/A',
      '=A1+1',
      '=A5',
      '=A5',
      '=SUM(A1:A3)',
      '=VLOOKUP(1, A1:B2, 2)',
      '="a"*2',
      '=IF()',
    ])
    expect(formatted).toEqual(['#DIV/0!', '#NAME?', '#N/A', '#DIV/0!', '#REF!', '#REF!', '#DIV/0!', '#NAME?', '#VALUE!', '#N/A'])
    expect(unformatted).toEqual(formatted)
    const grid = await api.spreadsheets.get({
      spreadsheetId: id,
      ranges: ['Summary!A1:A2', 'Summary!A9'],
      fields: 'sheets.data.rowData.values(effectiveValue,formattedValue)',
    })
    expect(grid.data.sheets?.[0]?.data?.[0]?.rowData).toEqual([
      {
        values: [
          {
            effectiveValue: { errorValue: { type: 'DIVIDE_BY_ZERO', message: 'Function DIVIDE parameter 2 cannot be zero.' } },
            formattedValue: '#DIV/0!',
          },
        ],
      },
      { values: [{ effectiveValue: { errorValue: { type: 'NAME', message: "Unknown function: 'foo'." } }, formattedValue: '#NAME?' }] },
    ])
    expect(grid.data.sheets?.[0]?.data?.[1]?.rowData?.[0]?.values?.[0]?.effectiveValue?.errorValue).toEqual({
      type: 'VALUE',
      message: "Function MULTIPLY parameter 1 expects number values. But 'a' is a text and cannot be coerced to a number.",
    })
  })

  test('a formula that refers to itself is a circular dependency (#REF!)', async () => {
    const id = await workbook()
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Summary!A1',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['=B1+1', '=A1*2']] },
    })
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Summary!A1:B1' })
    expect(read.data.values).toEqual([['#REF!', '#REF!']])
  })
})

describe('a Summary over 100,000 Activities rows', () => {
  test('a few hundred SUMIFS and SUMPRODUCT formulas read back right, without a scan per formula', async () => {
    const rows = 100_000
    const id = store.createSpreadsheet({
      sheets: [
        { title: 'Activities', sheetId: 0, rowCount: rows + 1, columnCount: 8 },
        { title: 'Summary', sheetId: 1, rowCount: 50, columnCount: 12 },
      ],
    }).spreadsheetId
    const manager = createManager(store)
    const data: (string | number | boolean)[][] = [['User', 'Start', 'End', 'Hours', 'Tags', 'Delete']]
    for (let i = 0; i < rows; i++) {
      const day = 46_000 + (i % 70)
      data.push([`user${i % 20}`, day + 0.375, day + 0.5, 3, `client${i % 7}`, i % 13 === 0])
    }
    manager.pasteBlock(id, 'Activities', 'A1', data, { raw: true })
    const weeks = Array.from({ length: 10 }, (_, j) => 46_000 + 7 * j)
    const column = (j: number) => String.fromCharCode(66 + j)
    const summary: (string | number)[][] = [['', ...weeks]]
    for (let u = 0; u < 20; u++) {
      summary.push([
        `user${u}`,
        ...weeks.map(
          (_, j) =>
            `=SUMIFS(Activities!$D$2:$D, Activities!$A$2:$A, $A${summary.length + 1}, Activities!$B$2:$B, ">="&${column(j)}$1, Activities!$B$2:$B, "<"&${column(j)}$1+7, Activities!$F$2:$F, "<>TRUE")`,
        ),
      ])
    }
    for (let u = 0; u < 20; u++) {
      summary.push([
        `user${u}`,
        ...weeks.map(
          (_, j) =>
            `=SUMPRODUCT((Activities!$A$2:$A=$A${summary.length + 1})*(Activities!$B$2:$B>=${column(j)}$1)*(Activities!$B$2:$B<${column(j)}$1+7)*(Activities!$F$2:$F<>TRUE)*(Activities!$C$2:$C-Activities!$B$2:$B))*24`,
        ),
      ])
    }
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Summary!A1',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: summary },
    })
    // The expected totals, counted directly.
    const expected = (user: number, week: number) => {
      let total = 0
      for (let i = 0; i < rows; i++)
        if (i % 20 === user && i % 13 !== 0 && 46_000 + (i % 70) >= week && 46_000 + (i % 70) < week + 7) total += 3
      return total
    }
    // The work is counted, not timed: rows read from the Activities grid, which a busy machine does not change.
    const activities = store.spreadsheets.get(id)!.sheets[0]!
    const grid = countElementReads(activities.rows)
    activities.rows = grid.array
    const read = await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Summary!A1:K41', valueRenderOption: 'UNFORMATTED_VALUE' })
    const values = read.data.values!
    for (const u of [0, 7, 19]) {
      for (const j of [0, 4, 9]) {
        expect(values[1 + u]![1 + j]).toBe(expected(u, weeks[j]!))
        expect(values[21 + u]![1 + j]).toBeCloseTo(expected(u, weeks[j]!), 6)
      }
    }
    // The read takes each of the 5 columns the formulas name from the grid once (two reads of a row per cell); a
    // scan of the tab per formula or per operator would read it hundreds of times.
    expect(grid.reads()).toBeLessThanOrEqual(5 * 2 * rows)
  }, 180_000)
})
