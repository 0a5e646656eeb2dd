/**
 * Pure pieces of the requests the Google backend sends: what a read asks for,
 * how a cell travels in each direction (values API and updateCells alike:
 * RAW, so text never becomes a formula or a number), and how a long list of
 * request parts is cut into requests under the payload limit.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { TimelineSheetsError } from '../../errors.ts'
import type { CellValue } from '../port.ts'
import { quoteTitle } from './a1.ts'
import type { EncodedBody } from './gzip-requests.ts'

/**
 * Query of the one `values.batchGet` a read costs: whole tabs (row 1 only of those in `headerOnly`),
 * formulas as text, dates as serials.
 */
export function batchGetParams(
  spreadsheetId: string,
  tabs: string[],
  headerOnly: ReadonlySet<string> = new Set(),
): sheets_v4.Params$Resource$Spreadsheets$Values$Batchget {
  return {
    spreadsheetId,
    ranges: tabs.map((tab) => (headerOnly.has(tab) ? `${quoteTitle(tab)}!1:1` : quoteTitle(tab))),
    majorDimension: 'ROWS',
    valueRenderOption: 'FORMULA',
    dateTimeRenderOption: 'SERIAL_NUMBER',
  }
}

/** A cell as Google returned it under FORMULA rendering; `""` is an empty cell. */
export function cellFromApi(value: unknown): CellValue {
  if (value === '' || value === null || value === undefined) return null
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  return String(value)
}

/**
 * A cell as sent with `valueInputOption: RAW`. `null` means "empty" in the
 * port but "leave untouched" to Google, so it becomes `""`, which clears.
 */
export function cellToApi(value: CellValue, where: string | (() => string)): string | number | boolean {
  if (value === null) return ''
  if (typeof value === 'number' && !Number.isFinite(value)) {
    // `where` may be a function: a place named for every cell of 100,000 rows is millions of strings never shown.
    const place = typeof where === 'function' ? where() : where
    throw new TimelineSheetsError('TS_VALIDATION', `Cannot write ${String(value)} to ${place}: not a finite number`, {
      hint: 'This is a bug in the caller: dates, times and durations must be finite serial numbers.',
    })
  }
  return value
}

/**
 * A cell of a row the tool adds, for `updateCells` with the field mask
 * `userEnteredValue`: the RAW equivalent (a string is a `stringValue`, never
 * parsed), and `{}` for an empty cell.
 */
export function cellData(value: CellValue, where: string | (() => string)): sheets_v4.Schema$CellData {
  const raw = cellToApi(value, where)
  if (raw === '') return {}
  if (typeof raw === 'string') return { userEnteredValue: { stringValue: raw } }
  if (typeof raw === 'number') return { userEnteredValue: { numberValue: raw } }
  return { userEnteredValue: { boolValue: raw } }
}

/** Google's trimming: trailing empty cells of a row and trailing empty rows go. */
export function trimRows(rows: readonly (readonly CellValue[])[]): CellValue[][] {
  const out = rows.map((row) => {
    let end = row.length
    while (end > 0 && (row[end - 1] === null || row[end - 1] === '')) end--
    return row.slice(0, end).map((cell) => (cell === '' ? null : cell))
  })
  while (out.length > 0 && out[out.length - 1]!.length === 0) out.pop()
  return out
}

/** Google recommends at most about 2 MB per request ("To speed up requests, we recommend a 2 MB maximum payload."). */
export const DEFAULT_MAX_PAYLOAD_BYTES = 2_000_000

/**
 * The JSON a request may carry when its body leaves gzip-compressed (decisions/0017). For the cells a run
 * writes the payload on the wire is then a tenth of it or less, inside the 2 MB Google recommends; the JSON
 * itself stays under the 10 MiB bodies Google has been seen to refuse, in case that limit counts it unpacked.
 */
export const COMPRESSED_MAX_PAYLOAD_BYTES = 8_000_000

/**
 * A request body serialized here rather than by the client, with the options
 * that say it is JSON. googleapis deep-copies an object body (`extend(true, …)`)
 * before serializing it, which for megabytes of row writes costs more than the
 * serialization itself; bytes go through as they are. `encoded`, when given, is
 * `body` as the bytes it leaves as (`encodeBody`), compressed or not.
 */
export function preserialized<T>(body: T, encoded?: EncodedBody): { requestBody: T; options: { headers: Record<string, string> } } {
  if (encoded) {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (encoded.gzip) headers['content-encoding'] = 'gzip'
    return { requestBody: encoded.bytes as unknown as T, options: { headers } }
  }
  // As bytes: a string body is checked for lone surrogates by fetch (a USVString), a scan as long as the body.
  const bytes = Buffer.from(JSON.stringify(body), 'utf8')
  return { requestBody: bytes as unknown as T, options: { headers: { 'content-type': 'application/json' } } }
}

/** Bytes of a value as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8')
}

/**
 * Groups parts into requests of at most `maxBytes` each, in order. A part
 * that alone is larger goes on its own (Google's hard limit is 10 MB).
 */
export function packBySize<T>(parts: readonly T[], bytesOf: (part: T) => number, maxBytes: number = DEFAULT_MAX_PAYLOAD_BYTES): T[][] {
  return [...batchesBySize(parts, bytesOf, maxBytes)]
}

/** `packBySize` one batch at a time, drawing parts only as far as the batch it yields (and the one part that did not fit). */
export function* batchesBySize<T>(
  parts: Iterable<T>,
  bytesOf: (part: T) => number,
  maxBytes: number = DEFAULT_MAX_PAYLOAD_BYTES,
): Generator<T[]> {
  let current: T[] = []
  let size = 0
  for (const part of parts) {
    const bytes = bytesOf(part) + 1
    if (current.length > 0 && size + bytes > maxBytes) {
      yield current
      current = []
      size = 0
    }
    current.push(part)
    size += bytes
  }
  if (current.length > 0) yield current
}
