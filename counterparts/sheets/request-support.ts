/**
 * What every batchUpdate request handler shares: the context it runs in, how
 * it finds its sheet and range, and the checks whose wording Google repeats
 * across requests (unknown ids, ranges outside the grid, missing masks, bad enums).
 */
import { type Bounds, boundToGrid, formatOpenRange, type GridBounds } from './a1.ts'
import { maskPaths } from './fields.ts'
import { badRequest, exceedsGridLimits, invalidArgument } from './google-errors.ts'
import type { GridRange, SheetData, SpreadsheetData } from './sheet-data.ts'
import { boundsOfGridRange, type Dimension, sheetById } from './sheet-lookup.ts'
import type { Tx } from './tx.ts'
import type { Caller } from './protection-rules.ts'
import type { SheetsStore } from './store.ts'

export type Json = Record<string, unknown>

/** One batchUpdate in progress: every change goes through `tx`, so a later failure undoes it. */
export interface Ctx {
  store: SheetsStore
  ss: SpreadsheetData
  tx: Tx
  /** Who sent the batch (a token's subject); undefined is the owner. */
  caller: Caller
}

/** Applies one request; returns its reply (undefined = `{}`). `index` is the request's position, for field paths in messages. */
export type Applier = (ctx: Ctx, body: Json, index: number) => Json | undefined

/** The sheet with this id; `No sheet with id: N` (or `No grid with id: N` where a grid is needed, which a chart sheet is not). */
export function sheetOrThrow(ss: SpreadsheetData, sheetId: unknown, what: 'sheet' | 'grid' = 'sheet'): SheetData {
  const id = typeof sheetId === 'number' ? sheetId : 0
  const sheet = sheetById(ss, id)
  if (!sheet || (what === 'grid' && sheet.properties.sheetType !== 'GRID'))
    throw invalidArgument(what === 'grid' ? `No grid with id: ${id}` : `No sheet with id: ${id}`)
  return sheet
}

/** Resolves a GridRange: unknown sheet → `No grid with id`, start outside → grid limits, end clipped. */
export function gridBoundsOf(ss: SpreadsheetData, range: GridRange | undefined): { sheet: SheetData; bounds: GridBounds; open: Bounds } {
  const r = range ?? {}
  const sheet = sheetOrThrow(ss, r.sheetId, 'grid')
  const open = boundsOfGridRange(r)
  const { rowCount, columnCount } = sheet.properties.gridProperties
  if ((open.startRow ?? 0) >= rowCount || (open.startColumn ?? 0) >= columnCount) {
    throw exceedsGridLimits(formatOpenRange(sheet.properties.title, open), rowCount, columnCount)
  }
  return { sheet, bounds: boundToGrid(open, rowCount, columnCount), open }
}

/** The paths of a request's `fields` mask; a missing one is Google's "At least one field" error. */
export function requireFields(fields: unknown): string[] {
  if (typeof fields !== 'string' || fields.trim() === '') {
    throw invalidArgument("At least one field must be listed in 'fields'. (Use '*' to indicate all fields.)")
  }
  return maskPaths(fields)
}

export function dimensionOf(value: unknown): Dimension {
  if (value === 'ROWS' || value === 'COLUMNS') return value
  throw invalidArgument('DimensionRange must specify a dimension (ROWS or COLUMNS)')
}

/**
 * An enum field: undefined gives `fallback` (proto3's first value), an
 * unknown name the JSON parse error, as for any enum (`Invalid value at
 * 'requests[0].merge_cells.merge_type' (type.googleapis.com/…MergeType), "X"`).
 */
export function enumOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T, field: string, type: string): T {
  if (value === undefined || value === null) return fallback
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T
  const description = `Invalid value at '${field}' (type.googleapis.com/google.apps.sheets.v4.${type}), ${JSON.stringify(value)}`
  throw badRequest(description, field, description)
}

/** Whether two bounded areas share a cell. */
export function intersects(a: GridBounds, b: GridBounds): boolean {
  return a.startRow < b.endRow && b.startRow < a.endRow && a.startColumn < b.endColumn && b.startColumn < a.endColumn
}

/** Whether `inner` lies wholly inside `outer`. */
export function contains(outer: GridBounds, inner: GridBounds): boolean {
  return (
    inner.startRow >= outer.startRow &&
    inner.endRow <= outer.endRow &&
    inner.startColumn >= outer.startColumn &&
    inner.endColumn <= outer.endColumn
  )
}

/** A stored GridRange (bounded) as bounds. */
export function boundsOfStored(range: GridRange): GridBounds {
  return {
    startRow: range.startRowIndex ?? 0,
    endRow: range.endRowIndex ?? 0,
    startColumn: range.startColumnIndex ?? 0,
    endColumn: range.endColumnIndex ?? 0,
  }
}
