/**
 * Gives a worksheet the layout managers see in Google (decisions/0000-product.md §2): frozen
 * locked header, hidden locked tool columns, number formats, checkboxes,
 * dropdowns, status colours. Each feature is compared with what is there
 * first, so a second run changes nothing and says so.
 */
import type { Workbook, Worksheet } from 'exceljs'
import { TimelineSheetsError } from '../../errors.ts'
import type { CellValue, ColumnKind, ColumnSpec, TabSpec } from '../port.ts'
import { columnLetter, toCellValue, trimRow } from './cells.ts'

/** Excel's last row; conditional formats are stored as one range, so they can span the whole sheet. */
export const LAST_SHEET_ROW = 1_048_576

/** Number formats per column kind, the same patterns the Google backend applies. */
export const NUMBER_FORMATS: Partial<Record<ColumnKind, string>> = {
  text: '@',
  date: 'yyyy-mm-dd',
  time: 'hh:mm',
  datetime: 'yyyy-mm-dd hh:mm',
  duration: '[h]:mm',
}

export const STATUS_FILLS = { error: 'FFF4C7C3', conflict: 'FFFFE0A0' } as const

interface ValidationModel {
  type: string
  allowBlank?: boolean
  formulae?: unknown[]
  showErrorMessage?: boolean
  errorStyle?: string
  errorTitle?: string
  error?: string
}

interface ConditionalFormatting {
  ref: string
  rules: Array<{ type: string; formulae?: string[]; priority?: number; style?: unknown }>
}

/** Worksheet state exceljs keeps but does not type. */
export interface SheetInternals {
  dataValidations: { model: Record<string, ValidationModel | undefined> }
  conditionalFormattings: ConditionalFormatting[]
  sheetProtection: Record<string, unknown> | null
}

export function internals(sheet: Worksheet): SheetInternals {
  return sheet as unknown as SheetInternals
}

/** Validations are written for rows 2…bottom; the bottom grows with the data so Excel never expands millions of cells. */
export function validationBottom(lastRow: number): number {
  return Math.max(1000, Math.ceil((lastRow + 1) / 1000) * 1000)
}

/** Sheet protection that still lets managers edit unlocked cells, sort, filter and add or remove rows. */
// Selecting cells is allowed by default (exceljs only records a refusal).
const EDITABLE_PROTECTION = {
  formatCells: true,
  formatColumns: true,
  formatRows: true,
  insertRows: true,
  deleteRows: true,
  sort: true,
  autoFilter: true,
} as const

const READ_ONLY_PROTECTION = {
  formatColumns: true,
  formatRows: true,
  autoFilter: true,
} as const

export interface TabLayoutResult {
  created: boolean
  changed: boolean
}

export interface LayoutSettings {
  /** Turn sheet protection on (the header and tool columns locked). */
  protect: boolean
}

/**
 * Makes `spec` exist in `workbook` with its layout. `allSpecs` lets a dropdown
 * find its source column on a tab created in the same call.
 */
export function applyTabLayout(workbook: Workbook, spec: TabSpec, allSpecs: readonly TabSpec[], settings: LayoutSettings): TabLayoutResult {
  const existing = workbook.worksheets.find((sheet) => sheet.name === spec.title)
  const sheet = existing ?? workbook.addWorksheet(spec.title)
  let changed = existing === undefined
  const columns = placeHeader(sheet, spec.columns)
  if (columns.changed) changed = true
  const lastRow = Math.max(sheet.rowCount, 1)
  for (const column of spec.columns) {
    const index = columns.indexByName.get(column.name)!
    if (applyColumn(sheet, index, column, spec)) changed = true
    if (applyValidation(workbook, sheet, index, column, spec, allSpecs, lastRow)) changed = true
  }
  if (lockHeader(sheet, spec.columns.length === 0 ? 0 : Math.max(...columns.indexByName.values()))) changed = true
  if (freezeHeader(sheet)) changed = true
  if (spec.statusColumn !== undefined) {
    const statusIndex = columns.indexByName.get(spec.statusColumn)
    if (statusIndex === undefined) {
      throw new TimelineSheetsError('TS_SHEET_LAYOUT', `Tab "${spec.title}" names status column "${spec.statusColumn}", which is not one of its columns`, {
        hint: 'This is a bug in the tab definition: the status column must be one of the tab’s columns.',
      })
    }
    const lastColumn = Math.max(...columns.indexByName.values())
    if (applyStatusColours(sheet, statusIndex, lastColumn)) changed = true
  }
  if (settings.protect && applyProtection(sheet, spec.readOnly === true)) changed = true
  return { created: existing === undefined, changed }
}

function readHeader(sheet: Worksheet): CellValue[] {
  const row = sheet.getRow(1)
  const cells: CellValue[] = []
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    cells[column - 1] = toCellValue(cell.value as never)
  })
  return trimRow(Array.from(cells, (cell) => cell ?? null))
}

/**
 * Finds each column by its header text; a column missing from the header is
 * added after the last header cell, so columns a manager moved or added stay.
 */
function placeHeader(sheet: Worksheet, specs: readonly ColumnSpec[]): { indexByName: Map<string, number>; changed: boolean } {
  const header = readHeader(sheet)
  const indexByName = new Map<string, number>()
  let next = header.length + 1
  let changed = false
  for (const column of specs) {
    const found = header.indexOf(column.name)
    if (found >= 0) {
      indexByName.set(column.name, found + 1)
      continue
    }
    indexByName.set(column.name, next)
    sheet.getCell(1, next).value = column.name
    next++
    changed = true
  }
  return { indexByName, changed }
}

function excelWidth(pixels: number): number {
  // Excel measures widths in characters of the default font, about 7 px each.
  return Math.round((pixels / 7) * 100) / 100
}

/** Sets a style part on a column and on the cells it already has, never mutating a style object other cells share. */
function setColumnStyle(sheet: Worksheet, index: number, patch: Record<string, unknown>, fromRow: number): void {
  const column = sheet.getColumn(index)
  column.style = { ...column.style, ...patch }
  column.eachCell({ includeEmpty: false }, (cell, row) => {
    if (row >= fromRow) cell.style = { ...cell.style, ...patch }
  })
}

function applyColumn(sheet: Worksheet, index: number, spec: ColumnSpec, tab: TabSpec): boolean {
  const column = sheet.getColumn(index)
  let changed = false
  if (spec.width !== undefined && column.width !== excelWidth(spec.width)) {
    column.width = excelWidth(spec.width)
    changed = true
  }
  if ((column.hidden === true) !== (spec.hidden === true)) {
    column.hidden = spec.hidden === true
    changed = true
  }
  const numFmt = NUMBER_FORMATS[spec.kind]
  if (numFmt !== undefined && column.style.numFmt !== numFmt) {
    setColumnStyle(sheet, index, { numFmt }, 2)
    changed = true
  }
  if (spec.wrap === true && column.style.alignment?.wrapText !== true) {
    setColumnStyle(sheet, index, { alignment: { wrapText: true, vertical: 'top' } }, 2)
    changed = true
  }
  const locked = spec.protected === true || tab.readOnly === true
  if ((column.style.protection?.locked ?? true) !== locked) {
    setColumnStyle(sheet, index, { protection: { locked } }, 2)
    changed = true
  }
  return changed
}

function lockHeader(sheet: Worksheet, lastColumn: number): boolean {
  let changed = false
  for (let index = 1; index <= lastColumn; index++) {
    const cell = sheet.getCell(1, index)
    if (cell.style.font?.bold === true && cell.style.protection?.locked !== false) continue
    cell.style = { ...cell.style, font: { ...cell.style.font, bold: true }, protection: { locked: true } }
    changed = true
  }
  return changed
}

function freezeHeader(sheet: Worksheet): boolean {
  const view = sheet.views[0]
  if (view?.state === 'frozen' && view.ySplit === 1 && (view.xSplit ?? 0) === 0) return false
  sheet.views = [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }]
  return true
}

function desiredValidation(
  workbook: Workbook,
  column: ColumnSpec,
  tab: TabSpec,
  allSpecs: readonly TabSpec[],
): ValidationModel | undefined {
  if (column.kind === 'checkbox') {
    return { type: 'list', allowBlank: true, formulae: ['"TRUE,FALSE"'], showErrorMessage: true, errorStyle: 'warning', errorTitle: column.name, error: 'Tick or untick: TRUE or FALSE.' }
  }
  if (column.dropdown === undefined) return undefined
  const source = sourceColumn(workbook, column.dropdown, allSpecs)
  if (source === undefined) {
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `Column "${column.name}" on tab "${tab.title}" takes its dropdown from column "${column.dropdown.column}" of tab "${column.dropdown.tab}", which does not exist`,
      { hint: 'Lay out the source tab in the same call, or fix the dropdown’s tab and column names.' },
    )
  }
  const quoted = `'${column.dropdown.tab.replaceAll("'", "''")}'`
  const letter = columnLetter(source)
  return {
    type: 'list',
    allowBlank: true,
    formulae: [`${quoted}!$${letter}$2:$${letter}$1000`],
    showErrorMessage: true,
    // A warning, not a block: a manager may need a tag the list does not have yet.
    errorStyle: 'warning',
    errorTitle: column.name,
    error: `Not in the list on "${column.dropdown.tab}". Keep it anyway?`,
  }
}

function sourceColumn(workbook: Workbook, dropdown: { tab: string; column: string }, allSpecs: readonly TabSpec[]): number | undefined {
  const sheet = workbook.worksheets.find((candidate) => candidate.name === dropdown.tab)
  if (sheet !== undefined) {
    const found = readHeader(sheet).indexOf(dropdown.column)
    if (found >= 0) return found + 1
  }
  const spec = allSpecs.find((candidate) => candidate.title === dropdown.tab)
  const found = spec?.columns.findIndex((candidate) => candidate.name === dropdown.column) ?? -1
  return found >= 0 ? found + 1 : undefined
}

const RANGE = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/

function validationColumn(address: string): { letter: string; top: number; bottom: number } | undefined {
  const match = RANGE.exec(address)
  if (match === null) return undefined
  const [, left, top, right, bottom] = match
  if (right !== undefined && right !== left) return undefined
  return { letter: left!, top: Number(top), bottom: Number(bottom ?? top) }
}

function sameValidation(a: ValidationModel | undefined, b: ValidationModel): boolean {
  return (
    a !== undefined &&
    a.type === b.type &&
    String(a.formulae?.[0]) === String(b.formulae?.[0]) &&
    (a.errorStyle ?? 'stop') === b.errorStyle &&
    a.showErrorMessage === b.showErrorMessage
  )
}

function applyValidation(
  workbook: Workbook,
  sheet: Worksheet,
  index: number,
  column: ColumnSpec,
  tab: TabSpec,
  allSpecs: readonly TabSpec[],
  lastRow: number,
): boolean {
  const desired = desiredValidation(workbook, column, tab, allSpecs)
  if (desired === undefined) return false
  const letter = columnLetter(index)
  const address = `${letter}2:${letter}${validationBottom(lastRow)}`
  const model = internals(sheet).dataValidations.model
  if (sameValidation(model[address], desired)) return false
  for (const key of Object.keys(model)) {
    const place = validationColumn(key)
    if (place !== undefined && place.letter === letter && place.bottom >= 2) delete model[key]
  }
  model[address] = desired
  return true
}

/**
 * exceljs expands a validation range into one entry per cell when it reads a
 * file; put each range back as one entry so saving stays fast.
 */
export function compactValidations(sheet: Worksheet): void {
  const model = internals(sheet).dataValidations.model
  const groups = new Map<ValidationModel, string[]>()
  for (const [address, validation] of Object.entries(model)) {
    if (validation === undefined) continue
    const list = groups.get(validation)
    if (list === undefined) groups.set(validation, [address])
    else list.push(address)
  }
  for (const [validation, addresses] of groups) {
    if (addresses.length < 2) continue
    const places = addresses.map(validationColumn)
    if (places.some((place) => place === undefined || place.top !== place.bottom)) continue
    const letter = places[0]!.letter
    if (places.some((place) => place!.letter !== letter)) continue
    const rows = places.map((place) => place!.top)
    // Loops, not spreads: a row-sized argument list overflows the stack.
    let top = Number.POSITIVE_INFINITY
    let bottom = Number.NEGATIVE_INFINITY
    for (const row of rows) {
      if (row < top) top = row
      if (row > bottom) bottom = row
    }
    if (bottom - top + 1 !== addresses.length) continue
    for (const address of addresses) delete model[address]
    model[`${letter}${top}:${letter}${bottom}`] = validation
  }
}

/** After rows were added, stretches the tool's column validations (rows 2…) to cover them. */
export function extendValidations(sheet: Worksheet, lastRow: number): void {
  const model = internals(sheet).dataValidations.model
  const bottom = validationBottom(lastRow)
  for (const [address, validation] of Object.entries(model)) {
    const place = validationColumn(address)
    if (validation === undefined || place === undefined || place.top !== 2 || place.bottom >= lastRow + 1) continue
    delete model[address]
    model[`${place.letter}2:${place.letter}${bottom}`] = validation
  }
}

const STATUS_RULE = /^ISNUMBER\(SEARCH\("(error|conflict)",\$[A-Z]+2\)\)$/

function statusFormula(word: 'error' | 'conflict', statusLetter: string): string {
  return `ISNUMBER(SEARCH("${word}",$${statusLetter}2))`
}

function isStatusFormatting(formatting: ConditionalFormatting): boolean {
  return formatting.rules.length > 0 && formatting.rules.every((rule) => rule.type === 'expression' && STATUS_RULE.test(rule.formulae?.[0] ?? ''))
}

/** Colours the whole row by the words in the status column: red for an error, amber for a conflict. */
function applyStatusColours(sheet: Worksheet, statusIndex: number, lastColumn: number): boolean {
  const letter = columnLetter(statusIndex)
  const ref = `A2:${columnLetter(lastColumn)}${LAST_SHEET_ROW}`
  const formulas = [statusFormula('error', letter), statusFormula('conflict', letter)]
  const all = internals(sheet).conditionalFormattings
  const ours = all.filter(isStatusFormatting)
  const current = ours.length === 1 ? ours[0]! : undefined
  if (current !== undefined && current.ref === ref && current.rules.map((rule) => rule.formulae?.[0]).join('|') === formulas.join('|')) return false
  internals(sheet).conditionalFormattings = all.filter((formatting) => !isStatusFormatting(formatting))
  sheet.addConditionalFormatting({
    ref,
    rules: (['error', 'conflict'] as const).map((word, i) => ({
      type: 'expression',
      priority: i + 1,
      formulae: [formulas[i]!],
      style: { fill: { type: 'pattern', pattern: 'solid', bgColor: { argb: STATUS_FILLS[word] } } },
    })),
  })
  return true
}

function applyProtection(sheet: Worksheet, readOnly: boolean): boolean {
  const desired: Record<string, true> = { sheet: true, ...(readOnly ? READ_ONLY_PROTECTION : EDITABLE_PROTECTION) }
  const current = internals(sheet).sheetProtection ?? {}
  const keys = new Set([...Object.keys(desired), ...Object.keys(EDITABLE_PROTECTION)])
  if ([...keys].every((key) => (current[key] === true) === (desired[key] === true))) return false
  // No password: like Google's warning-only protection, a manager can lift it on purpose.
  internals(sheet).sheetProtection = desired
  return true
}

/** The layout report's tab list order: as asked. */
export function headerOf(sheet: Worksheet): CellValue[] {
  return readHeader(sheet)
}
