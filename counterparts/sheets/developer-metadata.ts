/**
 * Developer metadata as the API sees it: createDeveloperMetadata,
 * updateDeveloperMetadata and deleteDeveloperMetadata, developerMetadata.search
 * (§6.4), and the DataFilter matching all of them share (lookup by id, key,
 * value, visibility and location; a1Range or gridRange). Lookups by key go
 * through the model's index (metadata-index.ts), not a scan.
 */
import { boundToGrid, type GridBounds } from './a1.ts'
import { invalidArgument } from './google-errors.ts'
import { checkDimensionRange } from './grid-shape.ts'
import {
  locateMetadataId,
  metadataCandidates,
  type MetadataLocation,
  dropMetadata,
  putMetadata,
  replaceMetadata,
} from './metadata-index.ts'
import { type Applier, type Ctx, dimensionOf, gridBoundsOf, type Json, requireFields, sheetOrThrow } from './request-support.ts'
import type { DeveloperMetadataRecord, GridRange, SpreadsheetData } from './sheet-data.ts'
import { resolveRange } from './sheet-lookup.ts'
import { metadataJson } from './spreadsheet-json.ts'

function newMetadataId(ctx: Ctx): number {
  let id = ctx.store.randomId()
  while (ctx.ss.metadata.has(id) || id === 0) id = ctx.store.randomId()
  return id
}

function matchesLookup(record: DeveloperMetadataRecord, location: MetadataLocation, lookup: Json): boolean {
  if (lookup.metadataId !== undefined && lookup.metadataId !== record.metadataId) return false
  if (lookup.metadataKey !== undefined && lookup.metadataKey !== record.metadataKey) return false
  if (lookup.metadataValue !== undefined && lookup.metadataValue !== record.metadataValue) return false
  if (lookup.visibility !== undefined && lookup.visibility !== record.visibility) return false
  if (lookup.locationType !== undefined && lookup.locationType !== location.locationType) return false
  const where = lookup.metadataLocation as Json | undefined
  if (where) {
    const exact = lookup.locationMatchingStrategy === 'EXACT_LOCATION'
    if (where.locationType !== undefined && where.locationType !== location.locationType) return false
    // Spreadsheet metadata intersects no other location, and no other location intersects it.
    if (where.spreadsheet === true) return location.locationType === 'SPREADSHEET'
    if (location.locationType === 'SPREADSHEET') return false
    if (typeof where.sheetId === 'number') {
      if ((location.sheetId ?? 0) !== where.sheetId) return false
      // INTERSECTING (the default): the sheet's rows and columns lie inside the sheet.
      return exact ? location.locationType === 'SHEET' : true
    }
    const range = where.dimensionRange as Json | undefined
    if (range) {
      if ((location.sheetId ?? 0) !== ((range.sheetId as number | undefined) ?? 0)) return false
      const dimension = range.dimension === 'COLUMNS' ? 'COLUMN' : 'ROW'
      const start = (range.startIndex as number | undefined) ?? 0
      const end = (range.endIndex as number | undefined) ?? Infinity
      const index = location.index ?? -1
      if (exact) return location.locationType === dimension && index === start && end === start + 1
      // A row intersects every column and the sheet it is on (and a column every row), as Google's example says.
      if (location.locationType === 'SHEET') return true
      if (location.locationType !== dimension) return true
      return index >= start && index < end
    }
  }
  return true
}

/** The metadata ids a DataFilter selects (lookup, a1Range or gridRange). Lookups by key go through the index. */
export function filterMetadata(ss: SpreadsheetData, filter: Json): number[] {
  const out: number[] = []
  const lookup = filter.developerMetadataLookup as Json | undefined
  let area: { sheetId: number; bounds: GridBounds } | undefined
  if (typeof filter.a1Range === 'string') {
    const resolved = resolveRange(ss, filter.a1Range)
    const g = resolved.sheet.properties.gridProperties
    area = { sheetId: resolved.sheet.properties.sheetId, bounds: boundToGrid(resolved.bounds, g.rowCount, g.columnCount) }
  } else if (filter.gridRange) {
    const { sheet, bounds } = gridBoundsOf(ss, filter.gridRange as GridRange)
    area = { sheetId: sheet.properties.sheetId, bounds }
  }
  if (!lookup && !area) return out
  const candidates =
    lookup && typeof lookup.metadataId === 'number'
      ? [lookup.metadataId]
      : metadataCandidates(
          ss,
          typeof lookup?.metadataKey === 'string' ? lookup.metadataKey : undefined,
          typeof lookup?.metadataValue === 'string' ? lookup.metadataValue : undefined,
        )
  for (const id of candidates) {
    const record = ss.metadata.get(id)
    const location = record ? locateMetadataId(ss, id) : undefined
    if (!record || !location) continue
    if (lookup && !matchesLookup(record, location, lookup)) continue
    if (area) {
      if (location.sheetId !== area.sheetId) continue
      const index = location.index ?? -1
      if (location.locationType === 'ROW' && (index < area.bounds.startRow || index >= area.bounds.endRow)) continue
      if (location.locationType === 'COLUMN' && (index < area.bounds.startColumn || index >= area.bounds.endColumn)) continue
      if (location.locationType !== 'ROW' && location.locationType !== 'COLUMN') continue
    }
    out.push(id)
  }
  return out
}
/** createDeveloperMetadata, updateDeveloperMetadata and deleteDeveloperMetadata. */
export const metadataAppliers: Record<string, Applier> = {
  createDeveloperMetadata(ctx, body) {
    const spec = (body.developerMetadata ?? {}) as Json
    if (typeof spec.metadataKey !== 'string' || spec.metadataKey === '')
      throw invalidArgument('Developer metadata must have a metadataKey.')
    if (spec.visibility !== 'DOCUMENT' && spec.visibility !== 'PROJECT')
      throw invalidArgument('Developer metadata must specify a visibility.')
    let metadataId = spec.metadataId as number | undefined
    if (metadataId !== undefined && ctx.ss.metadata.has(metadataId))
      throw invalidArgument(`Developer metadata with id ${metadataId} already exists.`)
    metadataId ??= newMetadataId(ctx)
    const record: DeveloperMetadataRecord = {
      metadataId,
      metadataKey: spec.metadataKey,
      visibility: spec.visibility,
      ...(typeof spec.metadataValue === 'string' ? { metadataValue: spec.metadataValue } : {}),
    }
    const location = (spec.location ?? {}) as Json
    let where: MetadataLocation
    if (location.spreadsheet === true) {
      putMetadata(ctx.tx, ctx.ss, record, { locationType: 'SPREADSHEET' })
      where = { locationType: 'SPREADSHEET' }
    } else if (typeof location.sheetId === 'number') {
      const sheet = sheetOrThrow(ctx.ss, location.sheetId)
      putMetadata(ctx.tx, ctx.ss, record, { locationType: 'SHEET', sheet })
      where = { locationType: 'SHEET', sheetId: sheet.properties.sheetId }
    } else if (location.dimensionRange) {
      const range = location.dimensionRange as Json
      const sheet = sheetOrThrow(ctx.ss, range.sheetId)
      const dimension = dimensionOf(range.dimension)
      const { start, end } = checkDimensionRange(range.startIndex, range.endIndex)
      if (end - start !== 1) throw invalidArgument('Developer metadata can only be associated with a single row or column.')
      const count = dimension === 'ROWS' ? sheet.properties.gridProperties.rowCount : sheet.properties.gridProperties.columnCount
      if (start >= count)
        throw invalidArgument(
          `Invalid dimension range: index ${start} is beyond the ${count} ${dimension === 'ROWS' ? 'rows' : 'columns'} of the sheet.`,
        )
      const locationType = dimension === 'ROWS' ? 'ROW' : 'COLUMN'
      putMetadata(ctx.tx, ctx.ss, record, { locationType, sheet, index: start })
      where = { locationType, sheetId: sheet.properties.sheetId, index: start }
    } else {
      throw invalidArgument('Developer metadata must specify a location.')
    }
    return { createDeveloperMetadata: { developerMetadata: metadataJson(record, where) } }
  },
  updateDeveloperMetadata(ctx, body) {
    const paths = requireFields(body.fields)
    const spec = (body.developerMetadata ?? {}) as Json
    const ids = new Set(((body.dataFilters ?? []) as Json[]).flatMap((f) => filterMetadata(ctx.ss, f)))
    const updated: Json[] = []
    for (const id of ids) {
      const record = ctx.ss.metadata.get(id)!
      const next = { ...record }
      if (paths.includes('metadataKey') && typeof spec.metadataKey === 'string') next.metadataKey = spec.metadataKey
      if (paths.includes('metadataValue')) {
        if (typeof spec.metadataValue === 'string') next.metadataValue = spec.metadataValue
        else delete next.metadataValue
      }
      if (paths.includes('visibility') && (spec.visibility === 'DOCUMENT' || spec.visibility === 'PROJECT'))
        next.visibility = spec.visibility
      replaceMetadata(ctx.tx, ctx.ss, next)
      updated.push(metadataJson(next, locateMetadataId(ctx.ss, id)!))
    }
    return { updateDeveloperMetadata: updated.length > 0 ? { developerMetadata: updated } : {} }
  },
  deleteDeveloperMetadata(ctx, body) {
    const ids = filterMetadata(ctx.ss, (body.dataFilter ?? {}) as Json)
    if (ids.length === 0 && ctx.store.options.undocumented.emptyFilter === 'refused')
      throw invalidArgument('No developer metadata matches the data filter.')
    const deleted = ids.map((id) => metadataJson(ctx.ss.metadata.get(id)!, locateMetadataId(ctx.ss, id)!))
    for (const id of ids) dropMetadata(ctx.tx, ctx.ss, id)
    return { deleteDeveloperMetadata: deleted.length > 0 ? { deletedDeveloperMetadata: deleted } : {} }
  },
}

/** developerMetadata.search (§6.4): filters ORed, each match lists the filters it matched. */
export function searchDeveloperMetadata(ss: SpreadsheetData, body: Json): Json {
  const filters = (body.dataFilters ?? []) as Json[]
  const matched = new Map<number, Json[]>()
  for (const filter of filters) {
    for (const id of filterMetadata(ss, filter)) {
      const list = matched.get(id) ?? []
      list.push(filter)
      matched.set(id, list)
    }
  }
  if (matched.size === 0) return {}
  return {
    matchedDeveloperMetadata: [...matched].map(([id, dataFilters]) => ({
      developerMetadata: metadataJson(ss.metadata.get(id)!, locateMetadataId(ss, id)!),
      dataFilters,
    })),
  }
}
