/**
 * The requests that change the spreadsheet's tabs and properties: addSheet,
 * deleteSheet, updateSheetProperties (title, visibility, grid size, frozen
 * rows and columns, position) and updateSpreadsheetProperties. Tab indexes
 * stay 0…n-1 after every change.
 */
import { invalidArgument } from './google-errors.ts'
import { assertCellLimit, resizeGrid } from './grid-shape.ts'
import { dropMetadata } from './metadata-index.ts'
import { type Applier, type Ctx, type Json, requireFields, sheetOrThrow } from './request-support.ts'
import { sheetById } from './sheet-lookup.ts'
import { sheetPropertiesJson } from './spreadsheet-json.ts'
import { newSheet } from './store.ts'
import { setKey, splice } from './tx.ts'

function reindex(ctx: Ctx): void {
  ctx.ss.sheets.forEach((s, i) => {
    if (s.properties.index !== i) setKey(ctx.tx, s.properties, 'index', i)
  })
}
/** addSheet, deleteSheet, updateSheetProperties and updateSpreadsheetProperties. */
export const sheetAppliers: Record<string, Applier> = {
  addSheet(ctx, body) {
    const props = (body.properties ?? {}) as Json
    const titles = new Set(ctx.ss.sheets.map((s) => s.properties.title.toLowerCase()))
    let title = props.title as string | undefined
    if (title === undefined) {
      let n = ctx.ss.sheets.length + 1
      while (titles.has(`sheet${n}`)) n++
      title = `Sheet${n}`
    }
    if (titles.has(title.toLowerCase()))
      throw invalidArgument(`A sheet with the name "${title}" already exists. Please enter another name.`)
    let sheetId = props.sheetId as number | undefined
    if (sheetId !== undefined && sheetById(ctx.ss, sheetId)) throw invalidArgument(`Sheet with id ${sheetId} already exists.`)
    if (sheetId === undefined) {
      do sheetId = ctx.store.randomId()
      while (sheetById(ctx.ss, sheetId))
    }
    const grid = (props.gridProperties ?? {}) as Json
    const index = Math.min(typeof props.index === 'number' ? props.index : ctx.ss.sheets.length, ctx.ss.sheets.length)
    const sheet = newSheet(
      sheetId,
      title,
      index,
      (grid.rowCount as number) || 1000,
      (grid.columnCount as number) || 26,
      props.hidden === true,
    )
    if (typeof grid.frozenRowCount === 'number' && grid.frozenRowCount > 0)
      sheet.properties.gridProperties.frozenRowCount = grid.frozenRowCount
    if (typeof grid.frozenColumnCount === 'number' && grid.frozenColumnCount > 0)
      sheet.properties.gridProperties.frozenColumnCount = grid.frozenColumnCount
    if (props.tabColorStyle !== undefined) sheet.properties.tabColorStyle = props.tabColorStyle
    splice(ctx.tx, ctx.ss.sheets, index, 0, [sheet])
    reindex(ctx)
    assertCellLimit(ctx.ss, ctx.store.options.cellLimit)
    return { addSheet: { properties: sheetPropertiesJson(sheet) } }
  },
  deleteSheet(ctx, body) {
    const sheet = sheetOrThrow(ctx.ss, body.sheetId)
    if (ctx.ss.sheets.length === 1) throw invalidArgument("You can't remove all the sheets in a document.")
    if (ctx.ss.sheets.filter((s) => !s.properties.hidden && s !== sheet).length === 0)
      throw invalidArgument("You can't remove all the sheets in a document.")
    for (const [id, holder] of ctx.ss.metadataIndex.holders)
      if (holder.locationType !== 'SPREADSHEET' && holder.sheet === sheet) dropMetadata(ctx.tx, ctx.ss, id)
    splice(ctx.tx, ctx.ss.sheets, ctx.ss.sheets.indexOf(sheet), 1, [])
    reindex(ctx)
    return undefined
  },
  updateSheetProperties(ctx, body) {
    const props = (body.properties ?? {}) as Json
    const sheet = sheetOrThrow(ctx.ss, props.sheetId)
    const paths = requireFields(body.fields)
    const all = paths.includes('*')
    const has = (p: string) => all || paths.includes(p) || paths.some((x) => p.startsWith(`${x}.`))
    const grid = (props.gridProperties ?? {}) as Json
    if (has('title')) {
      const title = props.title
      if (typeof title !== 'string' || title === '') throw invalidArgument('Sheet title must not be empty.')
      if (ctx.ss.sheets.some((s) => s !== sheet && s.properties.title.toLowerCase() === title.toLowerCase())) {
        throw invalidArgument(`A sheet with the name "${title}" already exists. Please enter another name.`)
      }
      setKey(ctx.tx, sheet.properties, 'title', title)
    }
    if (has('hidden')) {
      const hidden = props.hidden === true
      if (hidden && ctx.ss.sheets.every((s) => s === sheet || s.properties.hidden))
        throw invalidArgument("You can't hide all the sheets in a document.")
      setKey(ctx.tx, sheet.properties, 'hidden', hidden ? true : undefined)
    }
    if (has('tabColorStyle')) setKey(ctx.tx, sheet.properties, 'tabColorStyle', props.tabColorStyle)
    if (has('rightToLeft')) setKey(ctx.tx, sheet.properties, 'rightToLeft', props.rightToLeft === true ? true : undefined)
    const g = sheet.properties.gridProperties
    const rowCount = has('gridProperties.rowCount') && typeof grid.rowCount === 'number' ? grid.rowCount : g.rowCount
    const columnCount = has('gridProperties.columnCount') && typeof grid.columnCount === 'number' ? grid.columnCount : g.columnCount
    if (rowCount !== g.rowCount || columnCount !== g.columnCount) {
      if (rowCount < 1 || columnCount < 1) throw invalidArgument("You can't delete all the rows on the sheet.")
      resizeGrid(ctx.tx, ctx.ss, sheet, rowCount, columnCount, ctx.store.options.cellLimit)
    }
    for (const key of ['frozenRowCount', 'frozenColumnCount', 'hideGridlines'] as const) {
      if (!has(`gridProperties.${key}`)) continue
      const value = grid[key]
      if (key === 'frozenRowCount' && typeof value === 'number' && value >= sheet.properties.gridProperties.rowCount) {
        throw invalidArgument("You can't freeze all visible rows on the sheet.")
      }
      if (key === 'frozenColumnCount' && typeof value === 'number' && value >= sheet.properties.gridProperties.columnCount) {
        throw invalidArgument("You can't freeze all visible columns on the sheet.")
      }
      setKey(ctx.tx, sheet.properties, 'gridProperties', { ...sheet.properties.gridProperties, [key]: value || undefined })
    }
    if (has('index') && typeof props.index === 'number') {
      const from = ctx.ss.sheets.indexOf(sheet)
      // "Before the move" indexes: moving to from or from + 1 changes nothing.
      let to = Math.min(props.index, ctx.ss.sheets.length)
      if (to > from) to--
      if (to !== from) {
        splice(ctx.tx, ctx.ss.sheets, from, 1, [])
        splice(ctx.tx, ctx.ss.sheets, to, 0, [sheet])
        reindex(ctx)
      }
    }
    return undefined
  },
  updateSpreadsheetProperties(ctx, body) {
    const props = (body.properties ?? {}) as Json
    const paths = requireFields(body.fields)
    for (const key of ['title', 'locale', 'timeZone', 'autoRecalc'] as const) {
      if ((paths.includes('*') || paths.includes(key)) && typeof props[key] === 'string')
        setKey(ctx.tx, ctx.ss.properties, key, props[key] as string)
    }
    return undefined
  },
}
