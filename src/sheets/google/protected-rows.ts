/**
 * Protected ranges the tool's account may not edit (decisions/0021-protected-ranges.md). Google refuses a write
 * into one whole ("You are trying to edit a protected cell or object", `isProtectedRefusal` in refusals.ts): a
 * `values.batchUpdateByDataFilter` with one such row applies none of the others. The refusal names no range, so
 * the backend asks for the ranges (one `spreadsheets.get`), leaves out the rows that lie in one and writes the
 * rest; a refusal it cannot pin to a row becomes an error that names the ranges.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { TimelineSheetsError } from '../../errors.ts'
import { columnLetters, quoteTitle } from './a1.ts'

/** The fields of `spreadsheets.get` that show each tab's protections and whether the caller may edit them. */
export const PROTECTION_FIELDS = 'sheets(properties(sheetId,title),protectedRanges(range,description,warningOnly,requestingUserCanEdit))'

/** An area of a tab the caller may not edit: 0-based, ends exclusive, `Infinity` where the range is open. */
export interface ProtectedArea {
  tab: string
  startRow: number
  endRow: number
  startColumn: number
  endColumn: number
  /** How a person finds it: its description and its A1 range, `"March approved" ('Activities'!A2:L40)`. */
  name: string
}

/**
 * The areas a `spreadsheets.get` with `PROTECTION_FIELDS` shows the caller may not edit: neither `warningOnly`
 * ("every user can edit") nor `requestingUserCanEdit` ("True if the user who requested this protected range can
 * edit the protected area"; proto3 leaves a false out).
 */
export function protectedAreas(spreadsheet: sheets_v4.Schema$Spreadsheet): ProtectedArea[] {
  const areas: ProtectedArea[] = []
  for (const sheet of spreadsheet.sheets ?? []) {
    const tab = sheet.properties?.title
    if (typeof tab !== 'string') continue
    for (const p of sheet.protectedRanges ?? []) {
      if (p.warningOnly === true || p.requestingUserCanEdit === true) continue
      const r = p.range ?? {}
      const area = {
        tab,
        startRow: r.startRowIndex ?? 0,
        endRow: r.endRowIndex ?? Infinity,
        startColumn: r.startColumnIndex ?? 0,
        endColumn: r.endColumnIndex ?? Infinity,
      }
      const where = a1Of(area)
      areas.push({ ...area, name: p.description ? `"${p.description}" (${where})` : where })
    }
  }
  return areas
}

/** `'Activities'!A2:L40`, `'Activities'!2:40`, `'Activities'!A:C`, or the whole tab. */
function a1Of(a: Omit<ProtectedArea, 'name'>): string {
  const title = quoteTitle(a.tab)
  const rows = a.startRow > 0 || a.endRow !== Infinity
  const columns = a.startColumn > 0 || a.endColumn !== Infinity
  if (!rows && !columns) return title
  const col = (i: number) => (columns ? columnLetters(i) : '')
  const row = (i: number) => (rows && i !== Infinity ? String(i) : '')
  const start = `${col(a.startColumn)}${row(a.startRow + 1)}`
  const end = `${a.endColumn === Infinity ? '' : col(a.endColumn - 1)}${row(a.endRow)}`
  return `${title}!${start}:${end}`
}

/** The area that holds any of `columns` (0-based) of `row` (1-based) of `tab`, if one does. */
export function areaHolding(
  areas: readonly ProtectedArea[],
  tab: string,
  row: number,
  columns: readonly number[],
): ProtectedArea | undefined {
  return areas.find(
    (a) => a.tab === tab && a.startRow < row && row <= a.endRow && columns.some((c) => a.startColumn <= c && c < a.endColumn),
  )
}

/**
 * A refusal the write could not pin to rows it can leave out (a new row, a column added, a layout format): an
 * error that names the ranges on the tabs it wrote to, and what to do. Nothing of the refused request was
 * applied.
 */
export function protectedWriteError(
  cause: unknown,
  spreadsheetId: string,
  areas: readonly ProtectedArea[],
  tabs: readonly string[],
  principal: string | undefined,
): TimelineSheetsError {
  const named = areas.filter((a) => tabs.includes(a.tab)).map((a) => a.name)
  const account = principal ?? 'the account timeline-sheets signs in as'
  const where =
    named.length === 0
      ? 'a protected range'
      : `the protected range${named.length === 1 ? '' : 's'} ${named.slice(0, 5).join(', ')}${named.length > 5 ? ', …' : ''}`
  return new TimelineSheetsError(
    'TS_SHEETS_API',
    `Google refused to write to spreadsheet ${spreadsheetId}: it touches ${where}, which ${account} may not edit; nothing of that request was written`,
    {
      hint: `Ask whoever protected the range to add ${account} as an editor (Data → Protect sheets and ranges), or to remove the protection; then run again.`,
      cause,
    },
  )
}
