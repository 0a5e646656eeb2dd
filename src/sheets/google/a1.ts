/**
 * A1 notation as the Sheets API reads and echoes it. Pure.
 */
import { columnLetters } from '../../core/columns.ts'
import { checkOption } from '../../core/options.ts'
import { TimelineSheetsError } from '../../errors.ts'

export { columnLetters }

/** 0-based column index for column letters: `A` → 0, `AA` → 26. */
export function columnIndex(letters: string): number {
  checkOption('letters', letters, 'column letters such as AB')
  let n = 0
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64)
  return n - 1
}

/**
 * A sheet title as a range prefix. Always quoted: Google accepts a quoted
 * title everywhere, and an unquoted one that looks like a cell (`tab01`) would
 * be read as a cell of the first sheet.
 */
export function quoteTitle(title: string): string {
  return `'${title.split("'").join("''")}'`
}

/** `'Tab'!B5:D5` for `columnCount` cells from `column` (0-based) in rows `row`…`row + rowCount - 1` (1-based). */
export function a1Range(title: string, row: number, column: number, rowCount: number, columnCount: number): string {
  const start = `${columnLetters(column)}${row}`
  const end = `${columnLetters(column + Math.max(1, columnCount) - 1)}${row + Math.max(1, rowCount) - 1}`
  return `${quoteTitle(title)}!${start === end ? start : `${start}:${end}`}`
}

export interface GridExtent {
  title: string
  rowCount: number
  columnCount: number
}

/** A bounded range as Google echoes it: 1-based rows, 0-based columns, both ends inclusive. */
export interface RangeEcho {
  title: string
  startRow: number
  endRow: number
  startColumn: number
  endColumn: number
}

/**
 * Reads a range Google echoed (`'My Tab'!B5:L5`, `Tab!A1`): echoes are always
 * sheet-qualified and bounded, so anything else is a shape this version does
 * not understand.
 */
export function parseRangeEcho(range: string): RangeEcho {
  const bang = range.lastIndexOf('!')
  const rawTitle = bang === -1 ? '' : range.slice(0, bang)
  const cells = bang === -1 ? range : range.slice(bang + 1)
  const match = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(cells)
  if (bang === -1 || !match) {
    throw new TimelineSheetsError('TS_RESPONSE_INVALID', `Google Sheets echoed the range \`${range}\`, which is not a bounded A1 range`, {
      hint: 'The Sheets API (or a proxy in between) answered in a shape this version does not understand.',
    })
  }
  const title =
    rawTitle.startsWith("'") && rawTitle.endsWith("'") && rawTitle.length >= 2 ? rawTitle.slice(1, -1).split("''").join("'") : rawTitle
  return {
    title,
    startRow: Number(match[2]),
    endRow: Number(match[4] ?? match[2]),
    startColumn: columnIndex(match[1]!),
    endColumn: columnIndex(match[3] ?? match[1]!),
  }
}

/**
 * Reads the grid size from the range Google echoes for a whole-sheet read:
 * open ends are bounded to the grid, so `'My Tab'!A1:L1000` means 1000 rows
 * and 12 columns. A single-cell grid echoes as `Tab!A1`.
 */
export function parseGridEcho(range: string): GridExtent {
  const echo = parseRangeEcho(range)
  return { title: echo.title, rowCount: echo.endRow, columnCount: echo.endColumn + 1 }
}
