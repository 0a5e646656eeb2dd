/**
 * The requests that change rows and columns: insertDimension,
 * deleteDimension, appendDimension, updateDimensionProperties and sortRange.
 * They check the request against the grid with Google's wording; the model
 * (grid-shape.ts, sort-rows.ts) moves the cells and what follows them.
 */
import { formatOpenRange } from './a1.ts'
import { exceedsGridLimits, invalidArgument } from './google-errors.ts'
import { assertCellLimit, checkDimensionRange, deleteDimension, insertDimension, setDimensionProps } from './grid-shape.ts'
import { type Applier, dimensionOf, gridBoundsOf, type Json, requireFields, sheetOrThrow } from './request-support.ts'
import type { GridRange } from './sheet-data.ts'
import { type SortSpec, sortRows } from './sort-rows.ts'
import { setKey } from './tx.ts'

/** insertDimension, deleteDimension, appendDimension, updateDimensionProperties and sortRange. */
export const dimensionAppliers: Record<string, Applier> = {
  insertDimension(ctx, body) {
    const range = (body.range ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, range.sheetId)
    const dimension = dimensionOf(range.dimension)
    const { start, end } = checkDimensionRange(range.startIndex, range.endIndex)
    const count = dimension === 'ROWS' ? sheet.properties.gridProperties.rowCount : sheet.properties.gridProperties.columnCount
    if (body.inheritFromBefore === true && start === 0)
      throw invalidArgument(`Cannot inherit from before the first ${dimension === 'ROWS' ? 'row' : 'column'}.`)
    if (start > count)
      throw exceedsGridLimits(
        formatOpenRange(
          sheet.properties.title,
          dimension === 'ROWS' ? { startRow: start, endRow: end } : { startColumn: start, endColumn: end },
        ),
        sheet.properties.gridProperties.rowCount,
        sheet.properties.gridProperties.columnCount,
      )
    insertDimension(ctx.tx, ctx.ss, sheet, dimension, start, end - start, body.inheritFromBefore === true, ctx.store.options.cellLimit)
    return undefined
  },
  deleteDimension(ctx, body) {
    const range = (body.range ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, range.sheetId)
    const dimension = dimensionOf(range.dimension)
    const { start, end } = checkDimensionRange(range.startIndex, range.endIndex)
    const g = sheet.properties.gridProperties
    const count = dimension === 'ROWS' ? g.rowCount : g.columnCount
    const noun = dimension === 'ROWS' ? 'row' : 'column'
    if (end > count)
      throw invalidArgument(
        `Cannot delete a ${noun} that doesn't exist. Tried to delete ${noun} index ${end - 1} but there are only ${count} ${noun}s.`,
      )
    if (start === 0 && end === count) throw invalidArgument(`You can't delete all the ${noun}s on the sheet.`)
    const frozen = (dimension === 'ROWS' ? g.frozenRowCount : g.frozenColumnCount) ?? 0
    if (frozen > 0 && start <= frozen && end === count)
      throw invalidArgument(`Sorry, it is not possible to delete all non-frozen ${noun}s.`)
    deleteDimension(ctx.tx, ctx.ss, sheet, dimension, start, end)
    return undefined
  },
  appendDimension(ctx, body) {
    const sheet = sheetOrThrow(ctx.ss, body.sheetId)
    const dimension = dimensionOf(body.dimension)
    const length = body.length
    if (typeof length !== 'number' || length < 1) throw invalidArgument('length must be positive')
    const g = sheet.properties.gridProperties
    ctx.tx.guard?.insert(sheet, dimension, dimension === 'ROWS' ? g.rowCount : g.columnCount)
    setKey(
      ctx.tx,
      sheet.properties,
      'gridProperties',
      dimension === 'ROWS' ? { ...g, rowCount: g.rowCount + length } : { ...g, columnCount: g.columnCount + length },
    )
    assertCellLimit(ctx.ss, ctx.store.options.cellLimit)
    return undefined
  },
  updateDimensionProperties(ctx, body) {
    const range = (body.range ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, range.sheetId)
    const dimension = dimensionOf(range.dimension)
    const g = sheet.properties.gridProperties
    const count = dimension === 'ROWS' ? g.rowCount : g.columnCount
    const start = (range.startIndex as number | undefined) ?? 0
    const end = Math.min((range.endIndex as number | undefined) ?? count, count)
    if (start >= count)
      throw invalidArgument(
        `Invalid dimension range: startIndex ${start} is beyond the ${count} ${dimension === 'ROWS' ? 'rows' : 'columns'} of the sheet.`,
      )
    const paths = requireFields(body.fields).filter((p) => p !== 'developerMetadata')
    const fields = paths.includes('*') ? ['hiddenByUser', 'pixelSize'] : paths
    setDimensionProps(ctx.tx, sheet, dimension, start, end, (body.properties ?? {}) as Json, fields)
    return undefined
  },
  sortRange(ctx, body) {
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange | undefined)
    const specs = ((body.sortSpecs ?? []) as Json[]).map((s) => ({
      dimensionIndex: (s.dimensionIndex as number | undefined) ?? 0,
      sortOrder: s.sortOrder === 'DESCENDING' ? 'DESCENDING' : 'ASCENDING',
    })) as SortSpec[]
    if (specs.length === 0) specs.push({ dimensionIndex: bounds.startColumn, sortOrder: 'ASCENDING' })
    sortRows(ctx.tx, ctx.ss, sheet, bounds, specs, ctx.store.options.undocumented.sortMovesRowMetadata)
    return undefined
  },
}
