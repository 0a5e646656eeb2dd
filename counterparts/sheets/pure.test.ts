import { describe, expect, test } from 'vitest'
import { boundToGrid, columnLetters, formatOpenRange, formatRange, parseA1, quoteTitle } from './a1.ts'
import { createManager } from './manager.ts'
import { createSheetsStore } from './store.ts'
import { serialFromParts } from './serial.ts'
import { formatNumber, parseUserEntered, renderValue, trimBlock } from './values.ts'

describe('A1 ranges (§3)', () => {
  test('splits at the last ! and undoubles quotes', () => {
    expect(parseA1("'Jon''s Data ☃'!A:C")).toEqual({ sheetTitle: "Jon's Data ☃", quoted: true, bounds: { startColumn: 0, endColumn: 3 } })
    expect(parseA1('🌵 test 1!A1')).toMatchObject({ sheetTitle: '🌵 test 1', bounds: { startRow: 0, endRow: 1 } })
    expect(parseA1('a!b!C2')).toMatchObject({ sheetTitle: 'a!b' })
  })
  test('a bare cell-looking string is a cell; a bare name is a sheet; quoted is always a sheet', () => {
    expect(parseA1('tab01')).toMatchObject({ sheetTitle: undefined, bounds: { startColumn: columnIndexOf('TAB') } })
    expect(parseA1('Sheet1')).toEqual({ sheetTitle: 'Sheet1', quoted: false, bounds: undefined })
    expect(parseA1("'A1'")).toEqual({ sheetTitle: 'A1', quoted: true, bounds: undefined })
  })
  test('reversed corners, whole rows/columns, open ends, R1C1', () => {
    expect(parseA1('D4:A1')?.bounds).toEqual({ startRow: 0, endRow: 4, startColumn: 0, endColumn: 4 })
    expect(parseA1('S!1:2')?.bounds).toEqual({ startRow: 0, endRow: 2 })
    expect(parseA1('S!A5:A')?.bounds).toEqual({ startRow: 4, startColumn: 0, endColumn: 1 })
    expect(parseA1('S!A1:1')?.bounds).toEqual({ startRow: 0, endRow: 1, startColumn: 0 })
    expect(parseA1('S!R1C1:R2C2')?.bounds).toEqual({ startRow: 0, endRow: 2, startColumn: 0, endColumn: 2 })
    // Not a cell area, so only a sheet of that name could match; the API then answers Unable to parse range.
    expect(parseA1('A1:B2:C3')?.bounds).toBeUndefined()
  })
  test('echo: quoted only when needed, bounded, single cells stay single', () => {
    expect(quoteTitle('Sheet1')).toBe('Sheet1')
    expect(quoteTitle('D3')).toBe("'D3'")
    expect(quoteTitle('My Sheet')).toBe("'My Sheet'")
    expect(quoteTitle("Jon's")).toBe("'Jon''s'")
    expect(formatRange('Sheet1', boundToGrid(parseA1('A:A')!.bounds, 10, 26))).toBe('Sheet1!A1:A10')
    expect(formatRange('Sheet1', boundToGrid(parseA1('A1:1')!.bounds, 1000, 26))).toBe('Sheet1!A1:Z1')
    expect(formatRange('Sheet1', boundToGrid(undefined, 1000, 26))).toBe('Sheet1!A1:Z1000')
    expect(formatRange('Sheet1', boundToGrid(parseA1('A1:A1')!.bounds, 1000, 26))).toBe('Sheet1!A1')
    expect(formatOpenRange('T', parseA1('T!A1001:B')!.bounds)).toBe('T!A1001:B')
    expect(formatOpenRange('T', parseA1('T!AA1:2')!.bounds)).toBe('T!AA1:2')
    expect(columnLetters(18_277)).toBe('ZZZ')
  })
})

function columnIndexOf(letters: string): number {
  return [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1
}

describe('USER_ENTERED parsing (§5.5)', () => {
  test.each([
    ['=1+1', { formulaValue: '=1+1' }],
    ['+1', { formulaValue: '=+1' }],
    ['0042', { numberValue: 42 }],
    ["'00123", { stringValue: '00123' }],
    ['TRUE', { boolValue: true }],
    ['false', { boolValue: false }],
    ['2,000,000.01', { numberValue: 2000000.01 }],
    ['50%', { numberValue: 0.5 }],
    ['2020-01-01', { numberValue: 43831 }],
    ['3/2/2026', { numberValue: serialFromParts(2026, 3, 2) }],
    ['13:45', { numberValue: (13 * 60 + 45) / 1440 }],
    ['1:45 PM', { numberValue: (13 * 60 + 45) / 1440 }],
    ['2024-01-02 10:00', { numberValue: 45293 + 10 / 24 }],
    ['Non-numeric value', { stringValue: 'Non-numeric value' }],
  ])('%s', (typed, value) => {
    expect(parseUserEntered(typed).value).toEqual(value)
  })
  test('locale decides day/month order', () => {
    expect(parseUserEntered('1/2/2024', 'en_GB').value).toEqual({ numberValue: serialFromParts(2024, 2, 1) })
  })
  test('dates keep their input shape when formatted', () => {
    const parsed = parseUserEntered('2024-01-02')
    expect(formatNumber(parsed.value!.numberValue!, parsed.numberFormat)).toBe('2024-01-02')
    expect(formatNumber(2000000.01, parseUserEntered('2,000,000.01').numberFormat)).toBe('2,000,000.01')
    expect(formatNumber(0.5, { type: 'PERCENT', pattern: '0%' })).toBe('50%')
    expect(formatNumber(1.5 / 24 + 1, { type: 'TIME', pattern: '[h]:mm' })).toBe('25:30')
  })
})

describe('rendering and trimming (§4.3, §4.4)', () => {
  test('render options', () => {
    const date = { type: 'DATE' as const, pattern: 'yyyy-mm-dd' }
    const v = { numberValue: 43831 }
    expect(renderValue(v, v, date, { valueRenderOption: 'FORMATTED_VALUE', dateTimeRenderOption: 'SERIAL_NUMBER' })).toBe('2020-01-01')
    expect(renderValue(v, v, date, { valueRenderOption: 'UNFORMATTED_VALUE', dateTimeRenderOption: 'SERIAL_NUMBER' })).toBe(43831)
    expect(renderValue(v, v, date, { valueRenderOption: 'UNFORMATTED_VALUE', dateTimeRenderOption: 'FORMATTED_STRING' })).toBe('2020-01-01')
    expect(
      renderValue({ formulaValue: '=4/2' }, { numberValue: 2 }, undefined, {
        valueRenderOption: 'FORMULA',
        dateTimeRenderOption: 'SERIAL_NUMBER',
      }),
    ).toBe('=4/2')
    expect(
      renderValue({ boolValue: true }, { boolValue: true }, undefined, {
        valueRenderOption: 'FORMATTED_VALUE',
        dateTimeRenderOption: 'SERIAL_NUMBER',
      }),
    ).toBe('TRUE')
  })
  test('trailing cells and rows go, interior empty rows are []', () => {
    expect(trimBlock([[undefined, 'b2', undefined], [], [undefined], ['A4', undefined, undefined, 'D4'], [undefined]])).toEqual([
      ['', 'b2'],
      [],
      [],
      ['A4', '', '', 'D4'],
    ])
    expect(trimBlock([[undefined], []])).toEqual([])
  })
  test('formulas: arithmetic, references, errors, functions', () => {
    const store = createSheetsStore({ quota: false })
    const manager = createManager(store)
    const id = manager.createSpreadsheet()
    manager.pasteBlock(id, 'Sheet1', 'C2', [[0.75, 0.5]], { raw: true })
    const formulas = ['=D2-C2', '= 1 / 1024', '=1/0', '=+1 555 0100', '=SUM(C2:D2)']
    manager.pasteBlock(id, 'Sheet1', 'A4', [formulas])
    expect(manager.readTab(id, 'Sheet1', 'UNFORMATTED_VALUE')[3]).toEqual([-0.25, 0.0009765625, '#DIV/0!', '#ERROR!', 1.25])
  })
})
