/**
 * Row 1 of a tab without the rows below it (`ReadOptions.headerOnly`): an export the server reported
 * nothing new for plans on no row. Row 1 is decoded as a whole read decodes it; past it the part's bytes
 * are only searched for the end of the rows, since merged ranges (which blank header cells) come after them.
 */
import type { CellValue } from '../port.ts'
import { parseRow, scanSheet, SheetFormatError } from './sheet-xml.ts'
import { blankMerged, mergedAreas, rowValues, type ReadContext } from './tab-read.ts'

/**
 * Reads row 1 and the merged ranges (they come after the rows) without reading the rows between: past
 * row 1 the bytes are only searched for the end of `<sheetData>`, never decoded. Undefined when the first
 * row element is not row 1 (rows out of order, or no header): only a whole read says what row 1 holds then.
 */
export async function readHeaderOnly(chunks: AsyncIterable<Uint8Array>, context: ReadContext): Promise<CellValue[] | undefined> {
  const source = chunks[Symbol.asyncIterator]()
  const decoder = new TextDecoder()
  // The raw chunks the scanner decoded last: the end of the rows may already be in them.
  let seen: Uint8Array[] = []
  let ended = false
  const text: AsyncIterable<string> = {
    // No `return`: the scanner stopping at row 1 must not close the source, which is read on below.
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<string>> => {
        if (ended) return { done: true, value: undefined }
        const next = await source.next()
        if (next.done === true) {
          ended = true
          return { done: false, value: decoder.decode() }
        }
        seen = [...seen.slice(-1), next.value]
        return { done: false, value: decoder.decode(next.value, { stream: true }) }
      },
    }),
  }
  let header: CellValue[] | undefined
  try {
    const frame = await scanSheet(text, (xml) => {
      const row = parseRow(xml, 0)
      if (row.number === 1) header = rowValues(row.cells, 1, context, new Map())
      return true
    })
    if (!frame.stopped) return header ?? []
    if (header === undefined) return undefined
    const suffix = await textAfterRows(seen, ended ? undefined : source)
    const merged = mergedAreas(suffix)
    return merged.length > 0 ? blankMerged(header, 1, merged) : header
  } finally {
    await source.return?.()
  }
}

/** The text after `</sheetData>`: found in the bytes, decoded from there on. */
async function textAfterRows(seen: readonly Uint8Array[], rest: AsyncIterator<Uint8Array> | undefined): Promise<string> {
  let buffer = Buffer.concat(seen)
  for (;;) {
    const end = rowsEnd(buffer)
    if (end >= 0) {
      const tail: Uint8Array[] = [buffer.subarray(end)]
      for (let next = await rest?.next(); next !== undefined && next.done !== true; next = await rest!.next()) tail.push(next.value)
      return new TextDecoder().decode(Buffer.concat(tail))
    }
    const next = await rest?.next()
    if (next === undefined || next.done === true)
      throw new SheetFormatError('its <sheetData> element is not closed (the part is truncated)')
    // Keep a tail that could hold the start of the end tag.
    buffer = Buffer.concat([buffer.subarray(Math.max(0, buffer.length - 256)), next.value])
  }
}

const SHEET_DATA = Buffer.from('sheetData')

/** Where the text after `</sheetData>` (or `</x:sheetData>`) starts in `bytes`; -1 when it is not there whole. */
function rowsEnd(bytes: Buffer): number {
  for (let at = bytes.indexOf(SHEET_DATA); at >= 0; at = bytes.indexOf(SHEET_DATA, at + 1)) {
    // Text cannot hold a `<`: `</` before the name, past an optional prefix, makes it the end tag.
    let i = at - 1
    if (bytes[i] === 58 /* : */) {
      i--
      while (i >= 0 && isNameByte(bytes[i]!)) i--
    }
    if (i < 1 || bytes[i] !== 47 /* / */ || bytes[i - 1] !== 60 /* < */) continue
    const close = bytes.indexOf(62 /* > */, at)
    return close < 0 ? -1 : close + 1
  }
  return -1
}

function isNameByte(byte: number): boolean {
  return (
    (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte === 95 || byte === 45 || byte === 46
  )
}
