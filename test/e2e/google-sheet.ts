/**
 * Looks straight into the Sheets fake's store, the way Google's UI would show
 * a tab: stored cell values with their kind (text, number, formula), column
 * and grid properties, protected ranges. No API request, so request counts
 * stay what the CLI spent.
 */
import type { SheetData } from '../../counterparts/sheets/sheet-data.ts'
import { sheetByTitle } from '../../counterparts/sheets/sheet-lookup.ts'
import type { SheetsStore } from '../../counterparts/sheets/store.ts'
import type { ExtendedValue } from '../../counterparts/sheets/values.ts'

/** A stored cell as a plain value; a formula keeps its leading `=` and is flagged. */
export interface StoredCell {
  value: string | number | boolean | null
  kind: 'text' | 'number' | 'bool' | 'formula' | 'error' | 'empty'
}

export interface StoredTab {
  sheet: SheetData
  header: (string | number | boolean | null)[]
  /** Data rows (sheet row 2 on), up to the last non-empty row; a blank row is an empty array. */
  rows: StoredCell[][]
  col(name: string): number
  /** The values of one column for every data row (null where empty). */
  column(name: string): (string | number | boolean | null)[]
}

function storedCell(value: ExtendedValue | undefined): StoredCell {
  if (!value) return { value: null, kind: 'empty' }
  if (value.formulaValue !== undefined) return { value: value.formulaValue, kind: 'formula' }
  if (value.stringValue !== undefined)
    return value.stringValue === '' ? { value: null, kind: 'empty' } : { value: value.stringValue, kind: 'text' }
  if (value.numberValue !== undefined) return { value: value.numberValue, kind: 'number' }
  if (value.boolValue !== undefined) return { value: value.boolValue, kind: 'bool' }
  if (value.errorValue) return { value: value.errorValue.message, kind: 'error' }
  return { value: null, kind: 'empty' }
}

/** Reads one tab of one spreadsheet from the fake's store. */
export function storedTab(store: SheetsStore, spreadsheetId: string, title: string): StoredTab {
  const ss = store.spreadsheets.get(spreadsheetId)
  if (!ss) throw new Error(`The fake has no spreadsheet ${spreadsheetId}`)
  const sheet = sheetByTitle(ss, title)
  if (!sheet) throw new Error(`The spreadsheet has no tab ${title}`)
  const all = sheet.rows.map((row) => {
    const cells = (row?.cells ?? []).map((c) => storedCell(c?.userEnteredValue))
    let end = cells.length
    while (end > 0 && cells[end - 1]!.kind === 'empty') end--
    return cells.slice(0, end)
  })
  let last = all.length
  while (last > 0 && all[last - 1]!.length === 0) last--
  const trimmed = all.slice(0, last)
  const header = (trimmed[0] ?? []).map((c) => c.value)
  const rows = trimmed.slice(1)
  const col = (name: string) => {
    const i = header.indexOf(name)
    if (i < 0) throw new Error(`No column ${name} in ${title}: ${header.join(', ')}`)
    return i
  }
  return {
    sheet,
    header,
    rows,
    col,
    column: (name) => rows.map((r) => r[col(name)]?.value ?? null),
  }
}
