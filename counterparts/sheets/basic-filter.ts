/**
 * setBasicFilter and clearBasicFilter (reference/sheets-api.md §2.1, §6.3): one
 * filter per sheet, a new one replacing the old; an unbounded range is stored
 * bounded to the grid (recorded). Criteria are stored and echoed, not applied:
 * the fake neither hides rows nor sorts them for a filter.
 */
import type { GridRange, SheetData } from './sheet-data.ts'
import { gridRangeOf } from './sheet-lookup.ts'
import { setKey } from './tx.ts'
import { type Applier, gridBoundsOf, type Json, sheetOrThrow } from './request-support.ts'

/**
 * "Both criteria and filter_specs are populated in responses. If both fields
 * are specified in an update request, [criteria] takes precedence" (BasicFilter):
 * the map keyed by column index and the list of specs carry the same criteria.
 */
function criteriaTwins(filter: Json): {
  criteria?: Json
  filterSpecs?: Json[]
} {
  const criteria = filter.criteria as Json | undefined
  if (criteria && Object.keys(criteria).length > 0) {
    const filterSpecs = Object.entries(criteria)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([column, filterCriteria]) => ({
        columnIndex: Number(column),
        filterCriteria,
      }))
    return { criteria, filterSpecs }
  }
  const specs = (filter.filterSpecs ?? []) as Json[]
  if (specs.length === 0) return {}
  return {
    criteria: Object.fromEntries(specs.map((s) => [String(s.columnIndex ?? 0), s.filterCriteria ?? {}])),
    filterSpecs: specs,
  }
}

export const basicFilterAppliers: Record<string, Applier> = {
  setBasicFilter(ctx, body) {
    const filter = (body.filter ?? {}) as Json
    const { sheet, bounds } = gridBoundsOf(ctx.ss, filter.range as GridRange | undefined)
    const stored: NonNullable<SheetData['basicFilter']> = {
      range: gridRangeOf(sheet.properties.sheetId, bounds),
    }
    if (Array.isArray(filter.sortSpecs) && filter.sortSpecs.length > 0) stored.sortSpecs = filter.sortSpecs
    Object.assign(stored, criteriaTwins(filter))
    setKey(ctx.tx, sheet, 'basicFilter', stored)
    return undefined
  },
  clearBasicFilter(ctx, body) {
    const sheet = sheetOrThrow(ctx.ss, body.sheetId)
    setKey(ctx.tx, sheet, 'basicFilter', undefined)
    return undefined
  },
}
