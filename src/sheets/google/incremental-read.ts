/**
 * The read of an incremental export (decisions/0008-what-an-incremental-run-touches.md): the columns it needs
 * of every row and the other tabs whole in one `values.batchGetByDataFilter`, then the rows it expects to
 * write, whole, by position in a second one, assembled by `partial-read.ts`.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { HttpError } from '../../errors.ts'
import type { CellValue, ReadOptions, Snapshot } from '../port.ts'
import { columnLetters, parseGridEcho, parseRangeEcho, quoteTitle } from './a1.ts'
import { headerFilter } from './look-up.ts'
import { assemblePartialTab, columnPositions, headerNames, rowsOfKeys } from './partial-read.ts'
import { cellFromApi, jsonBytes, preserialized } from './requests.ts'
import type { RowEcho } from './row-claims.ts'

/** Most rows an incremental read fetches whole by position; a run that writes more reads the whole tab. */
const MAX_ROWS_TO_WRITE = 5_000

/** What the read needs of the backend: what it knows of the tabs, and the one request it sends. */
export interface PartialReadDeps {
  ids: ReadonlyMap<string, number>
  /** Each tab's header names as last seen; the read updates them. */
  headersSeen: Map<string, (string | null)[]>
  columnCounts: Map<string, number>
  maxPayload: number
  batchGetByDataFilter(body: {
    requestBody: sheets_v4.Schema$BatchGetValuesByDataFilterRequest
    options: { headers: Record<string, string> }
  }): Promise<sheets_v4.Schema$BatchGetValuesByDataFilterResponse>
}

/**
 * An incremental export's read: the columns it needs of every row (`rowsToWrite.everyRow`) and the other tabs
 * whole in one `values.batchGetByDataFilter`, then the rows it expects to write, whole, by position in a
 * second one; each must still hold its Key there. Undefined (the caller reads the whole tabs) when that cannot
 * be done in two requests or the rows moved in between.
 */
export async function readPartial(deps: PartialReadDeps, tabs: string[], readOptions: ReadOptions): Promise<Snapshot | undefined> {
  const want = readOptions.rowsToWrite
  const sheetId = want ? deps.ids.get(want.tab) : undefined
  if (!want?.everyRow || sheetId === undefined || !tabs.includes(want.tab) || (readOptions.headerOnly?.length ?? 0) > 0) return undefined
  const keys = [...new Set(want.keys)]
  if (keys.length === 0 || keys.length > MAX_ROWS_TO_WRITE) return undefined
  // The columns every row is needed for, where the header seen last shows them (checked again in the answer).
  const names = [want.everyRow.key, ...want.everyRow.others]
  const columns = columnPositions(deps.headersSeen.get(want.tab), names)
  if (!columns) return undefined
  const ranges = tabs.flatMap((title): { title: string; column: number | undefined; a1Range: string }[] =>
    title === want.tab
      ? columns.map((column) => ({ title, column, a1Range: `${quoteTitle(title)}!${columnLetters(column)}:${columnLetters(column)}` }))
      : [{ title, column: undefined, a1Range: quoteTitle(title) }],
  )
  const first = await dataFilterRead(deps, [...ranges.map((r) => ({ a1Range: r.a1Range })), headerFilter(sheetId)])
  if (!first) return undefined
  const result: Snapshot = { tabs: {} }
  const columnValues = new Map<number, CellValue[]>()
  let partialRows = 0
  let header: CellValue[] | undefined
  for (const range of first) {
    if (typeof range.valueRange?.range !== 'string') continue
    const values = (range.valueRange.values ?? []).map((row) => row.map(cellFromApi))
    for (const filter of range.dataFilters ?? []) {
      if (filter.gridRange?.sheetId === sheetId && filter.gridRange.startRowIndex === 0) header = values[0] ?? []
      const read = ranges.find((r) => r.a1Range === filter.a1Range)
      if (!read) continue
      const grid = parseGridEcho(range.valueRange.range)
      if (grid.title !== read.title) return undefined
      if (read.column !== undefined) {
        columnValues.set(
          read.column,
          values.map((row) => row[0] ?? null),
        )
        partialRows = grid.rowCount
        continue
      }
      deps.columnCounts.set(read.title, grid.columnCount)
      deps.headersSeen.set(read.title, headerNames(values[0] ?? []))
      result.tabs[read.title] = {
        title: read.title,
        exists: true,
        header: values[0] ?? [],
        rows: values.slice(1),
        gridRowCount: grid.rowCount,
      }
    }
  }
  if (!header || !columns.every((column) => columnValues.has(column))) return undefined
  const answer = {
    title: want.tab,
    header,
    columns,
    names,
    values: columns.map((column) => columnValues.get(column)!),
    gridRowCount: partialRows,
    keyColumn: 0,
    keys,
  }
  // The rows of the wanted Keys, whole, where the columns showed them.
  const wanted = rowsOfKeys(answer)
  if (!wanted) return undefined
  const whole = new Map<string, RowEcho[]>()
  if (wanted.size > 0) {
    const byRange = new Map([...wanted].map(([key, row]) => [`${quoteTitle(want.tab)}!${row}:${row}`, key]))
    const second = await dataFilterRead(
      deps,
      [...byRange.keys()].map((a1Range) => ({ a1Range })),
    )
    if (!second) return undefined
    for (const range of second) {
      const key = byRange.get(range.dataFilters?.[0]?.a1Range ?? '')
      if (key === undefined || typeof range.valueRange?.range !== 'string') continue
      const echo = parseRangeEcho(range.valueRange.range)
      const cells = (range.valueRange.values?.[0] ?? []).map(cellFromApi)
      whole.set(key, [{ title: echo.title, row: echo.startRow, columnCount: echo.endColumn + 1, cells }])
    }
  }
  const tab = assemblePartialTab({ ...answer, whole })
  if (!tab) return undefined
  deps.headersSeen.set(want.tab, headerNames(tab.header))
  result.tabs[want.tab] = tab
  if (tabs.some((title) => !result.tabs[title])) return undefined
  return result
}

/** One `values.batchGetByDataFilter`; undefined when Google refuses it (a missing tab, a stale id: the plain read finds out which). */
async function dataFilterRead(
  deps: PartialReadDeps,
  dataFilters: sheets_v4.Schema$DataFilter[],
): Promise<sheets_v4.Schema$MatchedValueRange[] | undefined> {
  if (jsonBytes(dataFilters) > deps.maxPayload) return undefined
  try {
    const data = await deps.batchGetByDataFilter(
      preserialized<sheets_v4.Schema$BatchGetValuesByDataFilterRequest>({
        dataFilters,
        majorDimension: 'ROWS',
        valueRenderOption: 'FORMULA',
        dateTimeRenderOption: 'SERIAL_NUMBER',
      }),
    )
    return Array.isArray(data?.valueRanges) ? data.valueRanges : []
  } catch (error) {
    if (error instanceof HttpError && error.status === 400) return undefined
    throw error
  }
}
