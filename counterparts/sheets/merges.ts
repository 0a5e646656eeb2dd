/**
 * mergeCells and unmergeCells (reference/sheets-api.md §6.3): MERGE_ALL makes
 * one merge, MERGE_ROWS one per row, MERGE_COLUMNS one per column (recorded);
 * merges the new one covers are replaced (recorded); only the top-left value
 * of a merge stays, as in the UI.
 */
import type { GridBounds } from './a1.ts'
import { invalidArgument } from './google-errors.ts'
import { getCell, setCell } from './cells.ts'
import type { SheetData } from './sheet-data.ts'
import { gridRangeOf } from './sheet-lookup.ts'
import { setKey } from './tx.ts'
import { type Applier, boundsOfStored, contains, type Ctx, enumOf, gridBoundsOf, intersects } from './request-support.ts'

type MergeType = 'MERGE_ALL' | 'MERGE_COLUMNS' | 'MERGE_ROWS'

const PARTIAL_MERGE = 'You must select all cells in a merged range to merge or unmerge them.'

/** The merges one request makes: the whole area, or one per row or column; single cells merge nothing. */
function pieces(b: GridBounds, type: MergeType): GridBounds[] {
  const out: GridBounds[] = []
  if (type === 'MERGE_ROWS') for (let r = b.startRow; r < b.endRow; r++) out.push({ ...b, startRow: r, endRow: r + 1 })
  else if (type === 'MERGE_COLUMNS') for (let c = b.startColumn; c < b.endColumn; c++) out.push({ ...b, startColumn: c, endColumn: c + 1 })
  else out.push(b)
  return out.filter((p) => (p.endRow - p.startRow) * (p.endColumn - p.startColumn) > 1)
}

/** Existing merges the area touches; any that it only partly covers is Google's "select all cells" error. */
function coveredMerges(sheet: SheetData, area: GridBounds): number[] {
  const out: number[] = []
  sheet.merges.forEach((m, i) => {
    const b = boundsOfStored(m)
    if (!intersects(b, area)) return
    if (!contains(area, b)) throw invalidArgument(PARTIAL_MERGE)
    out.push(i)
  })
  return out
}

function checkFrozen(sheet: SheetData, piece: GridBounds): void {
  const g = sheet.properties.gridProperties
  const rows = g.frozenRowCount ?? 0
  const columns = g.frozenColumnCount ?? 0
  if (rows > 0 && piece.startRow < rows && piece.endRow > rows) throw invalidArgument("You can't merge frozen and non-frozen rows.")
  if (columns > 0 && piece.startColumn < columns && piece.endColumn > columns)
    throw invalidArgument("You can't merge frozen and non-frozen columns.")
}

function checkFilter(sheet: SheetData, piece: GridBounds): void {
  if (!sheet.basicFilter) return
  const filter = boundsOfStored(sheet.basicFilter.range)
  if (intersects(filter, piece) && !contains(filter, piece))
    throw invalidArgument("You can't merge cells that cross the borders of an existing filter.")
}

/** Keeps the top-left value; the other cells of the merge lose theirs (formats and notes stay). */
function keepTopLeft(ctx: Ctx, sheet: SheetData, piece: GridBounds): void {
  for (let r = piece.startRow; r < piece.endRow; r++) {
    for (let c = piece.startColumn; c < piece.endColumn; c++) {
      if (r === piece.startRow && c === piece.startColumn) continue
      const cell = getCell(sheet, r, c)
      if (!cell?.userEnteredValue) continue
      const { userEnteredValue: _dropped, ...rest } = cell
      setCell(ctx.tx, sheet, r, c, Object.keys(rest).length > 0 ? rest : undefined)
    }
  }
}

export const mergeAppliers: Record<string, Applier> = {
  mergeCells(ctx, body, index) {
    const type = enumOf<MergeType>(
      body.mergeType,
      ['MERGE_ALL', 'MERGE_COLUMNS', 'MERGE_ROWS'],
      'MERGE_ALL',
      `requests[${index}].merge_cells.merge_type`,
      'MergeType',
    )
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as never)
    for (const piece of pieces(bounds, type)) {
      checkFrozen(sheet, piece)
      checkFilter(sheet, piece)
      const replaced = new Set(coveredMerges(sheet, piece))
      const stored = gridRangeOf(sheet.properties.sheetId, piece)
      setKey(ctx.tx, sheet, 'merges', [...sheet.merges.filter((_, i) => !replaced.has(i)), stored])
      keepTopLeft(ctx, sheet, piece)
    }
    return undefined
  },
  unmergeCells(ctx, body) {
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as never)
    const gone = new Set(coveredMerges(sheet, bounds))
    if (gone.size > 0)
      setKey(
        ctx.tx,
        sheet,
        'merges',
        sheet.merges.filter((_, i) => !gone.has(i)),
      )
    return undefined
  },
}
