/**
 * New rows for a Google tab: inserted right after its last row (never written
 * over), with each column's format and validation, and the values as
 * `updateCells` (`userEnteredValue`: `stringValue` is never parsed), in chunks
 * under the payload limit. A chunk is one atomic part of a batchUpdate.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { CellValue } from '../port.ts'
import { type ColumnCellFormat, ROW_FORMAT_FIELDS, type RowFormats } from './column-formats.ts'
import { cellToApi, jsonBytes } from './requests.ts'
import type { StructuralPart } from './structural.ts'
import type { TabState } from './write-targets.ts'

/** `appendChunkParts`, all at once. */
export function appendChunks(
  t: TabState,
  rows: readonly (readonly CellValue[])[],
  start: number,
  formats: RowFormats | undefined,
  maxBytes: number,
): StructuralPart[] {
  return [...appendChunkParts(t, rows, start, formats, maxBytes)]
}

/**
 * The parts that add `rows` to a tab at 0-based row `start` (right after its
 * last data row), one chunk at a time: a chunk's rows are serialized only when
 * it is drawn.
 */
export function* appendChunkParts(
  t: TabState,
  rows: readonly (readonly CellValue[])[],
  start: number,
  formats: RowFormats | undefined,
  maxBytes: number,
): Generator<StructuralPart> {
  const sheetId = t.sheetId!
  const columnFormats: { column: number; format: ColumnCellFormat }[] = []
  if (formats) {
    t.basis.header.forEach((name, column) => {
      const format = typeof name === 'string' ? formats[name] : undefined
      if (format) columnFormats.push({ column, format })
    })
  }
  let rowJsons: string[] = []
  let chunkCells: (readonly CellValue[])[] = []
  let bytes = 0
  let at = start
  const flush = (): StructuralPart | undefined => {
    if (rowJsons.length === 0) return undefined
    const count = rowJsons.length
    const requests: sheets_v4.Schema$Request[] = [
      {
        insertDimension: {
          range: { sheetId, dimension: 'ROWS', startIndex: at, endIndex: at + count },
          // From a data row above, never from the header: the formats follow even where no layout is known.
          inheritFromBefore: at >= 2,
        },
      },
    ]
    for (const { column, format } of columnFormats) requests.push(formatRequest(sheetId, at, count, column, format))
    const json: string[] = requests.map((r) => `${JSON.stringify(r)},`)
    json.push(`{"updateCells":{"start":${JSON.stringify({ sheetId, rowIndex: at, columnIndex: 0 })},"rows":[`)
    rowJsons.forEach((row, i) => json.push(i === 0 ? row : `,${row}`))
    json.push('],"fields":"userEnteredValue"}}')
    // The cells travel as JSON only: as objects too they would be a second copy of every row while the batch waits.
    const part: StructuralPart = { tab: t, requests: [], bytes, json, claims: [], inserted: { at: at + 1, rows: chunkCells } }
    at += count
    rowJsons = []
    chunkCells = []
    bytes = 0
    return part
  }
  // Room for the insert and format requests of a chunk.
  const overhead = 300 + columnFormats.reduce((n, c) => n + jsonBytes(c.format) + 200, 0)
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i]!
    const rowJson = rowDataJson(cells, t.write.tab, i + 1)
    const rowBytes = Buffer.byteLength(rowJson, 'utf8') + 2
    if (rowJsons.length > 0 && bytes + rowBytes + overhead > maxBytes) yield flush()!
    rowJsons.push(rowJson)
    chunkCells.push(cells)
    bytes += rowBytes
  }
  const last = flush()
  if (last) yield last
}

/**
 * A row as the JSON of its `RowData`, each cell as `cellData` makes it, written out directly: building the objects
 * only to serialize them made every appended cell three short-lived objects. `tab` and `row` (1-based among the
 * appended rows) name the place of a value that cannot be written.
 */
export function rowDataJson(cells: readonly CellValue[], tab: string, row: number): string {
  let json = '{"values":['
  for (let j = 0; j < cells.length; j++) {
    if (j > 0) json += ','
    const value = cells[j]!
    if (value === null || value === '') json += '{}'
    else if (typeof value === 'string') json += `{"userEnteredValue":{"stringValue":${JSON.stringify(value)}}}`
    else if (typeof value === 'number') {
      // Refused as `cellData` refuses it (NaN and infinities are no JSON numbers); the place is named only then.
      if (!Number.isFinite(value)) cellToApi(value, `${tab} appended row ${row}, cell ${j + 1}`)
      json += `{"userEnteredValue":{"numberValue":${JSON.stringify(value)}}}`
    } else json += value ? '{"userEnteredValue":{"boolValue":true}}' : '{"userEnteredValue":{"boolValue":false}}'
  }
  return `${json}]}`
}

/** One column's number format, wrap and validation over the rows a chunk inserts. */
function formatRequest(sheetId: number, at: number, count: number, column: number, format: ColumnCellFormat): sheets_v4.Schema$Request {
  return {
    repeatCell: {
      range: { sheetId, startRowIndex: at, endRowIndex: at + count, startColumnIndex: column, endColumnIndex: column + 1 },
      cell: {
        ...(format.numberFormat || format.wrapStrategy
          ? {
              userEnteredFormat: {
                ...(format.numberFormat ? { numberFormat: format.numberFormat } : {}),
                ...(format.wrapStrategy ? { wrapStrategy: format.wrapStrategy } : {}),
              },
            }
          : {}),
        ...(format.dataValidation ? { dataValidation: format.dataValidation } : {}),
      },
      fields: ROW_FORMAT_FIELDS,
    },
  }
}
