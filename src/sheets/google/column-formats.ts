/**
 * What the cells of one column carry in every data row of a Google tab: its number format (per column kind),
 * wrap, and data validation (a checkbox, or a dropdown fed by another tab's column). The layout sets them on
 * whole columns, and the backend hands the same `RowFormats` to rows it adds later, in this process or, through
 * the hints, in the next one, so new rows look like the rows above them without a read. Pure.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { TimelineSheetsError } from '../../errors.ts'
import type { ColumnKind, ColumnSpec } from '../port.ts'
import { columnLetters, quoteTitle } from './a1.ts'

/** What the cells of one column carry in every data row: number format, wrap, checkbox or dropdown. */
export interface ColumnCellFormat {
  numberFormat?: sheets_v4.Schema$NumberFormat
  wrapStrategy?: 'WRAP'
  dataValidation?: sheets_v4.Schema$DataValidationRule
}

/** Per column header name, what a data row's cells carry in one tab; rows the tool adds get the same. */
export type RowFormats = Record<string, ColumnCellFormat>

/** The parts of a cell a `ColumnCellFormat` sets (and clears, where it has none). */
export const ROW_FORMAT_FIELDS = 'userEnteredFormat.numberFormat,userEnteredFormat.wrapStrategy,dataValidation'

/**
 * Number format per column kind. Durations are TIME cells with an elapsed pattern: there is no DURATION type.
 * `zone` is appended to date-times as quoted literal text, so a reader sees which clock the times are on.
 */
export function numberFormatFor(kind: ColumnKind, zone?: string): sheets_v4.Schema$NumberFormat | undefined {
  switch (kind) {
    case 'text':
      return { type: 'TEXT' }
    case 'date':
      return { type: 'DATE', pattern: 'yyyy-mm-dd' }
    case 'time':
      return { type: 'TIME', pattern: 'hh:mm' }
    case 'datetime':
      return { type: 'DATE_TIME', pattern: zone ? `yyyy-mm-dd hh:mm" ${zone.replaceAll('"', '')}"` : 'yyyy-mm-dd hh:mm' }
    case 'duration':
      return { type: 'TIME', pattern: '[h]:mm' }
    case 'number':
      // Counts: Google's bare NUMBER shows 925 as 925.00.
      return { type: 'NUMBER', pattern: '0' }
    case 'checkbox':
      return undefined
  }
}

/**
 * A column's data validation: a strict checkbox, or a dropdown listing another tab's column from row 2 down.
 * `columns` holds the column positions of every tab laid out in the same call (header names → 0-based index).
 */
export function validationFor(
  column: ColumnSpec,
  tab: string,
  columns: ReadonlyMap<string, ReadonlyMap<string, number>>,
): sheets_v4.Schema$DataValidationRule | undefined {
  if (column.kind === 'checkbox') return { condition: { type: 'BOOLEAN' }, strict: true }
  if (!column.dropdown) return undefined
  const target = columns.get(column.dropdown.tab)?.get(column.dropdown.column)
  if (target === undefined) {
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `The dropdown of "${tab}" / "${column.name}" refers to "${column.dropdown.tab}" / "${column.dropdown.column}", which is not laid out in the same call`,
      { hint: 'Lay out the tab that feeds a dropdown together with the tab that uses it.' },
    )
  }
  const letters = columnLetters(target)
  return {
    condition: { type: 'ONE_OF_RANGE', values: [{ userEnteredValue: `=${quoteTitle(column.dropdown.tab)}!$${letters}$2:$${letters}` }] },
    showCustomUi: true,
    // A warning, not a block: managers may type a new combination.
    strict: false,
  }
}
