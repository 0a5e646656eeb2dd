/**
 * A `values.batchGet` answer as tabs: one value range per tab asked for, each checked as it is converted (a
 * schema over a big tab's every row would copy it and look at every cell once more).
 */
import { z } from 'zod'
import { TimelineSheetsError } from '../../errors.ts'
import type { CellValue, TabData } from '../port.ts'
import { parseGridEcho } from './a1.ts'
import { cellFromApi } from './requests.ts'

const valueRangeSchema = z.object({ range: z.string(), values: z.unknown().optional() })
const batchGetSchema = z.object({ valueRanges: z.array(valueRangeSchema).optional() })

/** A value range's rows as cells, or undefined when they are not rows of cells (absent: no rows, as Google trims). */
function rowsFromApi(values: unknown): CellValue[][] | undefined {
  if (values === undefined) return []
  if (!Array.isArray(values)) return undefined
  const rows: CellValue[][] = new Array(values.length)
  for (let r = 0; r < values.length; r++) {
    const row: unknown = values[r]
    if (!Array.isArray(row)) return undefined
    const cells: CellValue[] = new Array(row.length)
    for (let c = 0; c < row.length; c++) cells[c] = cellFromApi(row[c])
    rows[r] = cells
  }
  return rows
}

/** The rows of the `i`-th value range of a batchGet answer; undefined when they are not rows of cells (or absent from a malformed answer). */
export function rangeRows(data: unknown, i: number): CellValue[][] | undefined {
  const parsed = batchGetSchema.safeParse(data)
  return parsed.success ? rowsFromApi(parsed.data.valueRanges?.[i]?.values) : undefined
}

/** Each tab's data and grid width, by title; `headerOnly` tabs hold row 1 only. */
export function tabsFromBatchGet(
  spreadsheetId: string,
  tabs: readonly string[],
  data: unknown,
  headerOnly: ReadonlySet<string>,
): Map<string, { data: TabData; columnCount: number }> {
  const parsed = batchGetSchema.safeParse(data)
  const rowsOfRanges = parsed.success ? (parsed.data.valueRanges ?? []).map((range) => rowsFromApi(range.values)) : []
  if (!parsed.success || rowsOfRanges.length !== tabs.length || rowsOfRanges.includes(undefined)) {
    throw new TimelineSheetsError(
      'TS_RESPONSE_INVALID',
      `Google Sheets answered values.batchGet for spreadsheet ${spreadsheetId} without one value range (rows of cells) per tab`,
      { hint: 'The Sheets API answered in a shape this version does not understand.' },
    )
  }
  const out = new Map<string, { data: TabData; columnCount: number }>()
  parsed.data.valueRanges!.forEach((range, i) => {
    const title = tabs[i]!
    const grid = parseGridEcho(range.range)
    const values = rowsOfRanges[i]!
    const header = values[0] ?? []
    // Row 1 only: the grid's height is not known from this answer.
    const tab: TabData = headerOnly.has(title)
      ? { title, exists: true, header, rows: [], gridRowCount: 1, headerOnly: true }
      : { title, exists: true, header, rows: values.slice(1), gridRowCount: grid.rowCount }
    out.set(title, { data: tab, columnCount: grid.columnCount })
  })
  return out
}
