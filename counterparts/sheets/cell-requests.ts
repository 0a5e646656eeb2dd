/**
 * The requests that write cells under a field mask: repeatCell, updateCells
 * and setDataValidation. A mask is split once per request and applied to every
 * cell of its range; stored cells are replaced, never changed in place, so a
 * format over 100,000 rows shares what it does not change.
 */
import { formatOpenRange } from './a1.ts'
import { getCell, setCell } from './cells.ts'
import { badRequest, exceedsGridLimits, invalidArgument } from './google-errors.ts'
import { type Applier, type Ctx, gridBoundsOf, type Json, requireFields, sheetOrThrow } from './request-support.ts'
import type { CellData, GridRange, SheetData } from './sheet-data.ts'
import { MAX_CELL_CHARS, NUMBER_FORMAT_TYPES } from './values.ts'

function getPath(obj: unknown, path: readonly string[]): unknown {
  let v = obj
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Json)[key]
  }
  return v
}

/** Per top-level cell field, what an old value became under one request's mask and source. */
type MaskMemo = Map<string, Map<unknown, unknown>>

/** A field mask split once per request (a request applies it to every cell of its range). */
interface CellMask {
  all: boolean
  byTop: Map<string, string[][]>
  /** The one field when the mask is a single top-level field. */
  whole: string | undefined
}

function compileMask(paths: readonly string[]): CellMask {
  const byTop = new Map<string, string[][]>()
  for (const path of paths) {
    const keys = path.split('.')
    const list = byTop.get(keys[0]!) ?? []
    list.push(keys)
    byTop.set(keys[0]!, list)
  }
  const only = byTop.size === 1 ? [...byTop.values()][0]! : undefined
  const whole = only?.length === 1 && only[0]!.length === 1 ? only[0]![0] : undefined
  return { all: paths.includes('*'), byTop, whole }
}

const VALIDATION_MASK = compileMask(['dataValidation'])

/**
 * Copies the masked paths from `source` into a copy of `target` (absent in
 * source = cleared). Stored cells are replaced, never changed in place, so the
 * parts off the masked paths are shared, not cloned, and each object on a path
 * is copied before it changes. With a memo (one request applying one source to
 * many cells, as repeatCell does), cells that held the same object get the same
 * new one: a format over 100,000 rows costs one object per distinct old format.
 */
function mergeMasked<T extends object>(target: T, source: unknown, mask: CellMask, memo?: MaskMemo): T {
  if (mask.all) return { ...((source ?? {}) as object) } as T
  const out: Json = { ...(target as Json) }
  if (mask.whole !== undefined) {
    // One whole top-level field (`userEnteredValue` of a value write): the source's, shared, or none.
    const value = source !== null && typeof source === 'object' ? (source as Json)[mask.whole] : undefined
    if (value === undefined) delete out[mask.whole]
    else out[mask.whole] = value
    return out as T
  }
  for (const [top, list] of mask.byTop) {
    const old = out[top]
    const known = memo?.get(top)
    let value: unknown
    if (known?.has(old)) value = known.get(old)
    else {
      const holder: Json = { [top]: old }
      for (const keys of list) setPath(holder, keys, getPath(source, keys))
      value = holder[top]
      if (memo) memo.set(top, (known ?? new Map()).set(old, value))
    }
    if (value === undefined) delete out[top]
    else out[top] = value
  }
  return out as T
}

/** Sets (or, for undefined, clears) one path of `root`, copying every object on the way before it changes. */
function setPath(root: Json, keys: readonly string[], value: unknown): void {
  let node = root
  for (const key of keys.slice(0, -1)) {
    const next: unknown = node[key]
    if (next === null || typeof next !== 'object') {
      if (value === undefined) return
      node[key] = {}
    } else {
      node[key] = { ...(next as Json) }
    }
    node = node[key] as Json
  }
  const last = keys[keys.length - 1]!
  if (value === undefined) delete node[last]
  else node[last] = value
}

function checkNumberFormatType(cell: unknown, index: number, requestPath: string): void {
  const type = getPath(cell, ['userEnteredFormat', 'numberFormat', 'type'])
  if (type !== undefined && !(NUMBER_FORMAT_TYPES as readonly unknown[]).includes(type)) {
    const field = `requests[${index}].${requestPath}.user_entered_format.number_format.type`
    const description = `Invalid value at '${field}' (type.googleapis.com/google.apps.sheets.v4.NumberFormat.Type), "${String(type)}"`
    throw badRequest(description, field, description)
  }
}

function applyCellMask(ctx: Ctx, sheet: SheetData, r: number, c: number, source: unknown, mask: CellMask, memo?: MaskMemo): void {
  checkCellChars(source)
  const old = getCell(sheet, r, c) ?? {}
  const next = mergeMasked(old, source, mask, memo) as CellData & Json
  // A stored cell holds no empty field (this is the only way cells are stored), so only the fields the mask
  // wrote can be empty: checking those alone keeps a 100,000-row write from walking every field of every cell.
  if (mask.all) {
    for (const key in next) if (isEmptyField(next[key])) delete next[key]
  } else if (mask.whole !== undefined) {
    if (isEmptyField(next[mask.whole])) delete next[mask.whole]
  } else {
    for (const key of mask.byTop.keys()) if (isEmptyField(next[key])) delete next[key]
  }
  setCell(ctx.tx, sheet, r, c, hasField(next) ? next : undefined)
}

/** The 50,000 characters a cell holds count for a value or formula set through CellData as through the values methods. */
function checkCellChars(source: unknown): void {
  const value = (source as { userEnteredValue?: { stringValue?: unknown; formulaValue?: unknown } } | undefined)?.userEnteredValue
  const text = value?.stringValue ?? value?.formulaValue
  if (typeof text === 'string' && text.length > MAX_CELL_CHARS)
    throw invalidArgument(`Your input contains more than the maximum of ${MAX_CELL_CHARS} characters in a single cell.`)
}

function isEmptyField(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && !hasField(value))
}

function hasField(value: object): boolean {
  for (const _ in value) return true
  return false
}
/** repeatCell, updateCells and setDataValidation. */
export const cellAppliers: Record<string, Applier> = {
  repeatCell(ctx, body, index) {
    checkNumberFormatType(body.cell, index, 'repeat_cell.cell')
    const paths = compileMask(requireFields(body.fields))
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange | undefined)
    const memo: MaskMemo = new Map()
    for (let r = bounds.startRow; r < bounds.endRow; r++) {
      for (let c = bounds.startColumn; c < bounds.endColumn; c++) applyCellMask(ctx, sheet, r, c, body.cell ?? {}, paths, memo)
    }
    return undefined
  },
  updateCells(ctx, body, index) {
    const rows = (body.rows ?? []) as { values?: unknown[] }[]
    rows.forEach((row) => (row.values ?? []).forEach((cell) => checkNumberFormatType(cell, index, 'update_cells.rows.values')))
    const paths = compileMask(requireFields(body.fields))
    if (body.range) {
      const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange)
      for (let r = bounds.startRow; r < bounds.endRow; r++) {
        for (let c = bounds.startColumn; c < bounds.endColumn; c++) {
          applyCellMask(ctx, sheet, r, c, rows[r - bounds.startRow]?.values?.[c - bounds.startColumn] ?? {}, paths)
        }
      }
      return undefined
    }
    const start = (body.start ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, start.sheetId, 'grid')
    const r0 = (start.rowIndex as number | undefined) ?? 0
    const c0 = (start.columnIndex as number | undefined) ?? 0
    const g = sheet.properties.gridProperties
    if (r0 >= g.rowCount || c0 >= g.columnCount)
      throw exceedsGridLimits(
        formatOpenRange(sheet.properties.title, { startRow: r0, endRow: r0 + 1, startColumn: c0, endColumn: c0 + 1 }),
        g.rowCount,
        g.columnCount,
      )
    rows.forEach((row, i) => {
      if (r0 + i >= g.rowCount)
        throw invalidArgument(`Attempting to write row: ${r0 + i}, beyond the last requested row of: ${g.rowCount - 1}`)
      ;(row.values ?? []).forEach((cell, j) => {
        if (c0 + j >= g.columnCount)
          throw invalidArgument(`Attempting to write column: ${c0 + j}, beyond the last requested column of: ${g.columnCount - 1}`)
        applyCellMask(ctx, sheet, r0 + i, c0 + j, cell, paths)
      })
    })
    return undefined
  },
  setDataValidation(ctx, body) {
    const { sheet, bounds } = gridBoundsOf(ctx.ss, body.range as GridRange | undefined)
    const rule = body.rule ? { dataValidation: body.rule } : {}
    const memo: MaskMemo = new Map()
    for (let r = bounds.startRow; r < bounds.endRow; r++) {
      for (let c = bounds.startColumn; c < bounds.endColumn; c++) applyCellMask(ctx, sheet, r, c, rule, VALIDATION_MASK, memo)
    }
    return undefined
  },
}
