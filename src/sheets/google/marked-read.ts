/**
 * A read of tabs of which some carry row marks (row-marks.ts): the tabs whole, as `values.batchGet` reads them,
 * and every mark's row through the mark, in one `values.batchGetByDataFilter`, so the answer shows which row each
 * mark sits on at the moment the tabs were read.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { TabData } from '../port.ts'
import { quoteTitle } from './a1.ts'
import { jsonBytes, preserialized } from './requests.ts'
import { markFilters, type MarkedTab, type SeenMarks, seenMarks } from './row-marks.ts'

export interface MarkedReadDeps {
  maxPayload: number
  batchGetByDataFilter(body: {
    requestBody: sheets_v4.Schema$BatchGetValuesByDataFilterRequest
    options: { headers: Record<string, string> }
  }): Promise<sheets_v4.Schema$BatchGetValuesByDataFilterResponse>
  /** A batchGet-shaped answer as tabs (batch-get.ts), with what the backend keeps of them. */
  toTabs(tabs: string[], data: unknown, headerOnly: ReadonlySet<string>): Map<string, TabData>
  now(): number
}

/**
 * Reads `tabs` with the marks of those in `marked`; undefined when none of them is marked (or the filters would
 * not fit one request): the caller reads them plainly. Each marked tab's marks are put in `seen`.
 */
export async function readWithMarks(
  deps: MarkedReadDeps,
  tabs: string[],
  headerOnly: ReadonlySet<string>,
  marked: ReadonlyMap<string, MarkedTab>,
  seen: WeakMap<TabData, SeenMarks>,
): Promise<Map<string, TabData> | undefined> {
  const withMarks = tabs.filter((t) => !headerOnly.has(t) && (marked.get(t)?.count ?? 0) > 0)
  if (withMarks.length === 0) return undefined
  const ranges = tabs.map((tab) => (headerOnly.has(tab) ? `${quoteTitle(tab)}!1:1` : quoteTitle(tab)))
  const filters: sheets_v4.Schema$DataFilter[] = [
    ...ranges.map((a1Range) => ({ a1Range })),
    ...withMarks.flatMap((t) => markFilters(marked.get(t)!)),
  ]
  if (jsonBytes(filters) > deps.maxPayload) return undefined
  const data = await deps.batchGetByDataFilter(
    preserialized<sheets_v4.Schema$BatchGetValuesByDataFilterRequest>({
      dataFilters: filters,
      majorDimension: 'ROWS',
      valueRenderOption: 'FORMULA',
      dateTimeRenderOption: 'SERIAL_NUMBER',
    }),
  )
  const at = deps.now()
  const matched = Array.isArray(data?.valueRanges) ? data.valueRanges : []
  // The tabs' own ranges, in the order asked, as a batchGet answers them.
  const valueRanges = ranges.map((a1Range) => matched.find((m) => m.dataFilters?.some((f) => f.a1Range === a1Range))?.valueRange)
  const read = deps.toTabs(tabs, { valueRanges: valueRanges.filter((v) => v !== undefined) }, headerOnly)
  for (const title of withMarks) {
    const tab = read.get(title)
    if (tab) seen.set(tab, seenMarks(matched, tab, marked.get(title)!.sheetId, at))
  }
  return read
}
