/**
 * A1 notation as the Sheets API reads and echoes it (reference/sheets-api.md §3).
 * Pure: parsing, quoting, bounding to a grid, formatting. Indexes are 0-based
 * and half-open, like GridRange; `undefined` is an open side (`A:A`, `A5:A`, `1:2`).
 */

/** A rectangle whose sides may be open. */
export interface Bounds {
  startRow?: number
  endRow?: number
  startColumn?: number
  endColumn?: number
}

/** A rectangle with every side known, already inside a grid. */
export interface GridBounds {
  startRow: number
  endRow: number
  startColumn: number
  endColumn: number
}

/** What a range string says before any sheet is looked up. */
export interface ParsedA1 {
  /** Sheet title as written (quotes removed, `''` undoubled); undefined = first visible sheet. */
  sheetTitle: string | undefined
  /** True when the title was written in quotes: then it can only be a sheet, never a cell. */
  quoted: boolean
  /** The cell area; undefined = the whole sheet (`Sheet1`, `'My Sheet'`). */
  bounds: Bounds | undefined
}

/** The largest column Google allows (ZZZ). */
export const MAX_COLUMNS = 18_278

/** `0` → `A`, `25` → `Z`, `26` → `AA`. */
export function columnLetters(index: number): string {
  let n = index + 1
  let out = ''
  while (n > 0) {
    const rem = (n - 1) % 26
    out = String.fromCharCode(65 + rem) + out
    n = Math.floor((n - 1) / 26)
  }
  return out
}

/** `A` → 0, `aa` → 26; undefined past ZZZ. */
export function columnIndex(letters: string): number | undefined {
  let n = 0
  for (const ch of letters.toUpperCase()) {
    const code = ch.charCodeAt(0)
    if (code < 65 || code > 90) return undefined
    n = n * 26 + (code - 64)
  }
  return n >= 1 && n <= MAX_COLUMNS ? n - 1 : undefined
}

interface Endpoint {
  column?: number
  row?: number
}

const A1_ENDPOINT = /^\$?([A-Za-z]{1,3})?\$?([0-9]+)?$/
const R1C1_ENDPOINT = /^R([0-9]+)C([0-9]+)$/i

function parseEndpoint(text: string, r1c1: boolean): Endpoint | undefined {
  if (text === '') return undefined
  if (r1c1) {
    const m = R1C1_ENDPOINT.exec(text)
    if (!m) return undefined
    const row = Number(m[1]) - 1
    const column = Number(m[2]) - 1
    return row >= 0 && column >= 0 ? { row, column } : undefined
  }
  const m = A1_ENDPOINT.exec(text)
  if (!m || (m[1] === undefined && m[2] === undefined)) return undefined
  const out: Endpoint = {}
  if (m[1] !== undefined) {
    const column = columnIndex(m[1])
    if (column === undefined) return undefined
    out.column = column
  }
  if (m[2] !== undefined) {
    const row = Number(m[2]) - 1
    if (row < 0) return undefined
    out.row = row
  }
  return out
}

function span(a: number | undefined, b: number | undefined): [number | undefined, number | undefined] {
  if (a !== undefined && b !== undefined) return [Math.min(a, b), Math.max(a, b) + 1]
  if (a !== undefined) return [a, undefined]
  if (b !== undefined) return [undefined, b + 1]
  return [undefined, undefined]
}

/**
 * Parses the cell part of a range: `A1`, `A1:B2`, `D4:A1` (corners swapped
 * back), `A:C`, `1:2`, `A5:A`, `A1:1`, `$A$1`, `R1C1:R2C2`. Undefined when the
 * text is not a cell area (it may then be a sheet title).
 */
export function parseArea(text: string): Bounds | undefined {
  const parts = text.split(':')
  if (parts.length > 2) return undefined
  const r1c1 = parts.every((p) => R1C1_ENDPOINT.test(p))
  const first = parseEndpoint(parts[0] ?? '', r1c1)
  if (!first) return undefined
  if (parts.length === 1) {
    // A lone endpoint must be a cell: `A` or `5` alone is not a range.
    if (first.column === undefined || first.row === undefined) return undefined
    return { startRow: first.row, endRow: first.row + 1, startColumn: first.column, endColumn: first.column + 1 }
  }
  const second = parseEndpoint(parts[1] ?? '', r1c1)
  if (!second) return undefined
  // `A:1` mixes a column-only and a row-only end: not a range.
  const firstKind = first.column !== undefined && first.row !== undefined ? 'cell' : first.column !== undefined ? 'col' : 'row'
  const secondKind = second.column !== undefined && second.row !== undefined ? 'cell' : second.column !== undefined ? 'col' : 'row'
  if ((firstKind === 'col' && secondKind === 'row') || (firstKind === 'row' && secondKind === 'col')) return undefined
  const [startRow, endRow] = span(first.row, second.row)
  const [startColumn, endColumn] = span(first.column, second.column)
  const bounds: Bounds = {}
  if (startRow !== undefined) bounds.startRow = startRow
  if (endRow !== undefined) bounds.endRow = endRow
  if (startColumn !== undefined) bounds.startColumn = startColumn
  if (endColumn !== undefined) bounds.endColumn = endColumn
  // `A1:1` and `A2:2`: a cell to a row means "to the end of that row".
  if (firstKind === 'cell' && secondKind === 'row') delete bounds.endColumn
  if (firstKind === 'cell' && secondKind === 'col') delete bounds.endRow
  return bounds
}

/** Reads a quoted title at the start of `text`; returns the title and where the quote closed. */
function readQuoted(text: string): { title: string; end: number } | undefined {
  let title = ''
  for (let i = 1; i < text.length; i++) {
    const ch = text[i]
    if (ch === "'") {
      if (text[i + 1] === "'") {
        title += "'"
        i++
        continue
      }
      return { title, end: i + 1 }
    }
    title += ch
  }
  return undefined
}

/**
 * Parses a range string as the API receives it. Undefined when it cannot be
 * a range at all; a parse does not mean the sheet exists.
 */
export function parseA1(text: string): ParsedA1 | undefined {
  if (text.length === 0) return undefined
  if (text.startsWith("'")) {
    const quoted = readQuoted(text)
    if (!quoted || quoted.title === '') return undefined
    const rest = text.slice(quoted.end)
    if (rest === '') return { sheetTitle: quoted.title, quoted: true, bounds: undefined }
    if (!rest.startsWith('!')) return undefined
    const bounds = parseArea(rest.slice(1))
    return bounds ? { sheetTitle: quoted.title, quoted: true, bounds } : undefined
  }
  const bang = text.lastIndexOf('!')
  if (bang >= 0) {
    const title = text.slice(0, bang)
    const bounds = parseArea(text.slice(bang + 1))
    if (!bounds || title === '') return undefined
    return { sheetTitle: title, quoted: false, bounds }
  }
  const bounds = parseArea(text)
  if (bounds) return { sheetTitle: undefined, quoted: false, bounds }
  return { sheetTitle: text, quoted: false, bounds: undefined }
}

const PLAIN_TITLE = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Whether a title must be quoted in a range echo (§3.4): anything not a plain identifier, or one that reads as a cell. */
export function needsQuoting(title: string): boolean {
  if (!PLAIN_TITLE.test(title)) return true
  if (/^[A-Za-z]{1,3}[0-9]+$/.test(title)) return true
  if (/^R[0-9]*C[0-9]*$/i.test(title)) return true
  return false
}

/** `Sheet1` → `Sheet1`, `My Sheet` → `'My Sheet'`, `Jon's` → `'Jon''s'`. */
export function quoteTitle(title: string): string {
  return needsQuoting(title) ? `'${title.replaceAll("'", "''")}'` : title
}

function endpointText(column: number | undefined, row: number | undefined): string {
  return `${column === undefined ? '' : columnLetters(column)}${row === undefined ? '' : String(row + 1)}`
}

/** Formats a possibly open area the way error messages show it (`A1001:B`, `AA1:2`, `Y1`). */
export function formatOpenArea(bounds: Bounds): string {
  const { startRow, endRow, startColumn, endColumn } = bounds
  if (startRow !== undefined && startColumn !== undefined && endRow === startRow + 1 && endColumn === startColumn + 1) {
    return endpointText(startColumn, startRow)
  }
  const start = endpointText(startColumn, startRow)
  const end = endpointText(endColumn === undefined ? undefined : endColumn - 1, endRow === undefined ? undefined : endRow - 1)
  return `${start}:${end}`
}

/** Formats a bounded area; a 1 × 1 area stays a single cell (`D4`, not `D4:D4`). */
export function formatArea(bounds: GridBounds): string {
  if (bounds.endRow - bounds.startRow === 1 && bounds.endColumn - bounds.startColumn === 1) {
    return endpointText(bounds.startColumn, bounds.startRow)
  }
  return `${endpointText(bounds.startColumn, bounds.startRow)}:${endpointText(bounds.endColumn - 1, bounds.endRow - 1)}`
}

/** A sheet-qualified, grid-bounded range as every response echoes it. */
export function formatRange(title: string, bounds: GridBounds): string {
  return `${quoteTitle(title)}!${formatArea(bounds)}`
}

/** A sheet-qualified range that keeps its open sides, as error messages show it. */
export function formatOpenRange(title: string, bounds: Bounds | undefined): string {
  return bounds === undefined ? quoteTitle(title) : `${quoteTitle(title)}!${formatOpenArea(bounds)}`
}

/** Whether the top-left corner of an area lies inside a grid (the rule for "exceeds grid limits"). */
export function startsInsideGrid(bounds: Bounds, rowCount: number, columnCount: number): boolean {
  return (bounds.startRow ?? 0) < rowCount && (bounds.startColumn ?? 0) < columnCount
}

/** Closes open sides at the grid edge and clips what runs past it. Call after `startsInsideGrid`. */
export function boundToGrid(bounds: Bounds | undefined, rowCount: number, columnCount: number): GridBounds {
  const b = bounds ?? {}
  return {
    startRow: b.startRow ?? 0,
    endRow: Math.min(b.endRow ?? rowCount, rowCount),
    startColumn: b.startColumn ?? 0,
    endColumn: Math.min(b.endColumn ?? columnCount, columnCount),
  }
}
