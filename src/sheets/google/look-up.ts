/**
 * Reading rows back through their claims: one `values.batchGetByDataFilter`
 * with a filter per claim, and a header-row filter per tab whose answer names
 * the tab and so confirms its sheet id.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { parseRangeEcho } from './a1.ts'
import { jsonBytes, packBySize, preserialized } from './requests.ts'
import { type RowEcho, rowsByClaim } from './row-claims.ts'
import type { WriteDeps } from './write-targets.ts'

export interface LookUpAnswer {
  /** Rows by claim (`refId`). */
  rows: Map<string, RowEcho[]>
  /** Sheet id → title and columns, from the header-row filters. */
  headers: Map<number, { title: string; columnCount: number }>
}

/** The filter for a tab's header row by sheet id: its answer names the tab, which confirms the id. */
export function headerFilter(sheetId: number): sheets_v4.Schema$DataFilter {
  return { gridRange: { sheetId, startRowIndex: 0, endRowIndex: 1 } }
}

/** Reads a `values.batchGetByDataFilter` answer: rows by claim, headers by sheet id. */
function readLookUp(ranges: readonly sheets_v4.Schema$MatchedValueRange[], into?: LookUpAnswer): LookUpAnswer {
  const answer: LookUpAnswer = into ?? { rows: new Map(), headers: new Map() }
  for (const [key, rows] of rowsByClaim(ranges)) answer.rows.set(key, (answer.rows.get(key) ?? []).concat(rows))
  for (const matched of ranges) {
    const grid = matched.dataFilters?.find((f) => f.gridRange)?.gridRange
    if (!grid || typeof matched.valueRange?.range !== 'string') continue
    const echo = parseRangeEcho(matched.valueRange.range)
    answer.headers.set(grid.sheetId ?? 0, { title: echo.title, columnCount: echo.endColumn + 1 })
  }
  return answer
}

/** Reads the rows and header rows `filters` select, in as few requests as the payload limit allows. */
export async function lookUp(deps: WriteDeps, filters: readonly sheets_v4.Schema$DataFilter[]): Promise<LookUpAnswer> {
  const answer: LookUpAnswer = { rows: new Map(), headers: new Map() }
  for (const batch of packBySize(filters, jsonBytes, deps.maxPayloadBytes)) {
    const body = preserialized({
      dataFilters: batch,
      majorDimension: 'ROWS',
      valueRenderOption: 'FORMULA',
      dateTimeRenderOption: 'SERIAL_NUMBER',
    })
    const data = await deps.call('read', 'values.batchGetByDataFilter', () =>
      deps.api.spreadsheets.values.batchGetByDataFilter({ spreadsheetId: deps.spreadsheetId, requestBody: body.requestBody }, body.options),
    )
    readLookUp(Array.isArray(data?.valueRanges) ? data.valueRanges : [], answer)
  }
  return answer
}
