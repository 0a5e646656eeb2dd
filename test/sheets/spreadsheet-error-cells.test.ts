/**
 * How each backend hands over a cell that holds a spreadsheet
 * error, and that the row parser then refuses it. Google (FORMULA rendering)
 * returns a typed `#N/A` as that text and a failing formula as its formula;
 * exceljs gives `{ error: '#N/A' }` for an error cell and NaN or Infinity for
 * a number cell whose text is no number.
 */
import { describe, expect, it } from 'vitest'
import { isErrorValue } from '../../src/core/cells.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import { cellsToRow } from '../../src/core/row-write.ts'
import { cellFromApi } from '../../src/sheets/google/requests.ts'
import { toCellValue } from '../../src/sheets/workbook/cells.ts'
import { context, layoutOf } from '../core/fixtures.ts'

const layout = layoutOf()

function rowWith(column: string, value: ReturnType<typeof toCellValue>) {
  return parseRow(
    cellsToRow({ User: 'ACME\\anna', Date: '2026-03-02', Start: '09:00', End: '10:30', Tags: 'Acme', [column]: value }, layout),
    layout,
    context(),
  )
}

describe('error cells from each backend', () => {
  it('Google: an error value is its text, a failing formula its formula; both are refused', () => {
    expect(cellFromApi('#N/A')).toBe('#N/A')
    expect(cellFromApi('=1/0')).toBe('=1/0')
    expect(rowWith('Notes', cellFromApi('#N/A'))).toMatchObject({ ok: false, problems: [{ code: 'error-value', column: 'Notes' }] })
    expect(rowWith('Notes', cellFromApi('=1/0'))).toMatchObject({ ok: false, problems: [{ code: 'formula', column: 'Notes' }] })
  })

  it('workbook: an error cell is its text; a number that is none reads as #NUM!, never as NaN or Infinity', () => {
    expect(toCellValue({ error: '#REF!' })).toBe('#REF!')
    expect(toCellValue({ formula: 'A1/0', result: { error: '#DIV/0!' } }, 'A1/0')).toBe('=A1/0')
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, new Date(Number.NaN)]) {
      const read = toCellValue(value)
      expect(read).toBe('#NUM!')
      expect(isErrorValue(read)).toBe(true)
    }
    expect(toCellValue(-0)).toBe(-0)
    expect(toCellValue(Number.MAX_VALUE)).toBe(Number.MAX_VALUE)
    expect(rowWith('Date', toCellValue(Number.NaN))).toMatchObject({
      ok: false,
      problems: [{ code: 'error-value', column: 'Date', message: expect.stringContaining('#NUM!') }],
    })
  })
})
