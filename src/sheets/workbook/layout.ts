/**
 * Gives a tab the layout managers see in Google (decisions/0000-product.md §2), as worksheet
 * XML: a frozen, bold, locked header; hidden locked tool columns; widths and
 * number formats; checkbox and dropdown validations as one range per column;
 * status colours as one conditional format; sheet protection. Each feature is
 * compared with what is there first, so a second run changes nothing and says
 * so. Formats are found or appended in the styles part, never changed.
 *
 * Longer than most files because each layout feature compares what the sheet holds before changing it, and the
 * features share the sheet's XML parts.
 */
import { TimelineSheetsError } from '../../errors.ts'
import { ACTIVITY_COLUMN } from '../../core/columns.ts'
import type { CellValue, ColumnKind, ColumnSpec, TabSpec } from '../port.ts'
import {
  Columns,
  type SheetParts,
  dimension,
  readValidations,
  setDimension,
  singleColumnRange,
  type Validation,
  validationXml,
  writeValidations,
} from './sheet-parts.ts'
import { applyConditionalFormats } from './conditional-formats.ts'
import { applyAutoFilter, applyPrintSetup, filterRange } from './page-setup.ts'
import { columnName } from './sheet-xml.ts'
import type { RowChange } from './sheet-write.ts'
import type { StylePatch, Styles } from './styles.ts'
import { elementContent, startTagAttributes, topLevel, withContent } from './xml-parts.ts'
import { escapeXml, parseAttributes } from './xml-text.ts'

/** Number formats per column kind, the same patterns the Google backend applies. */
export const NUMBER_FORMATS: Partial<Record<ColumnKind, string>> = {
  text: '@',
  date: 'yyyy-mm-dd',
  time: 'hh:mm',
  datetime: 'yyyy-mm-dd hh:mm',
  duration: '[h]:mm',
  // A tick shows as ✓ and FALSE as nothing where the format reaches it (LibreOffice; Excel shows TRUE/FALSE
  // as they are, so the conditional formats colour them instead); a typed x or ✓ stays as typed.
  checkbox: '"✓";"✓";""',
}

/** Validations are written for rows 2…bottom; the bottom grows with the data so Excel never expands millions of cells. */
export function validationBottom(lastRow: number): number {
  return Math.max(1000, Math.ceil((lastRow + 1) / 1000) * 1000)
}

/** Sheet protection that still lets managers edit unlocked cells, sort, filter and add or remove rows (`0`: not protected against). */
const EDITABLE_PROTECTION = ['formatCells', 'formatColumns', 'formatRows', 'insertRows', 'deleteRows', 'sort', 'autoFilter'] as const
const READ_ONLY_PROTECTION = ['formatColumns', 'formatRows', 'autoFilter'] as const

/** What the layout found in a tab before changing it. */
export interface TabState {
  parts: SheetParts
  /** Row 1 as read. */
  header: CellValue[]
  /** The format of each cell row 1 has (by 0-based column); a column without a cell is absent. */
  headerStyles: Map<number, number | undefined>
  /** The last row number the tab has (0 for none). */
  lastRow: number
}

export interface LayoutSettings {
  /** Turn sheet protection on (the header and tool columns locked). */
  protect: boolean
}

/** The layout's edits of one tab: its parts are edited in place; rows and cell formats through a rewrite. */
export interface TabLayout {
  changed: boolean
  /** Header cells to set (row 1). */
  rows: Map<number, RowChange>
  /** New cell formats, for a rewrite's `restyle`. */
  restyle: ((row: number, column: number, style: number | undefined) => number | undefined) | undefined
  /** Formats of the columns after the layout. */
  columns: Columns
  /** The header after the layout (for dropdowns of tabs laid out later in the same call). */
  header: CellValue[]
  /** The autofilter's range, when the tab has one (its `_xlnm._FilterDatabase` name must match). */
  filter: string | undefined
}

/**
 * Lays out one tab. `headerOf` gives the header of another tab as it is now (or will be after this
 * call), so a dropdown finds its source column.
 */
export function layOutTab(
  spec: TabSpec,
  state: TabState,
  styles: Styles,
  settings: LayoutSettings,
  headerOf: (title: string) => CellValue[] | undefined,
  allSpecs: readonly TabSpec[],
): TabLayout {
  const { parts } = state
  let changed = false
  const columns = new Columns(parts.get('cols'))
  const oldColumns = new Columns(parts.get('cols'))

  // Each column by its header text; a missing one goes after the last header cell, so columns a manager moved or added stay.
  const header = [...state.header]
  const indexByName = new Map<string, number>()
  const headerCells: Array<CellValue | undefined> = []
  let next = header.length
  for (const column of spec.columns) {
    const found = header.indexOf(column.name)
    if (found >= 0) {
      indexByName.set(column.name, found)
      continue
    }
    indexByName.set(column.name, next)
    header[next] = column.name
    headerCells[next] = column.name
    next++
    changed = true
  }

  // Column widths, visibility and formats; a format change reaches the column's cells from row 2 on.
  const cellPatches = new Map<number, StylePatch>()
  for (const column of spec.columns) {
    const index = indexByName.get(column.name)!
    const patch = columnPatch(column, spec, columns.get(index + 1), styles)
    if (patch.width !== undefined || patch.hidden !== undefined) {
      columns.set(index + 1, {
        ...(patch.width === undefined ? {} : { width: patch.width, customWidth: '1' }),
        ...(patch.hidden === undefined ? {} : { hidden: patch.hidden ? '1' : undefined }),
      })
      changed = true
    }
    if (patch.style !== undefined) {
      columns.set(index + 1, { style: String(styles.derive(columns.style(index + 1), patch.style)) })
      cellPatches.set(index, patch.style)
      changed = true
    }
  }

  // The header: bold and locked, up to the last tool column (manager's columns between included).
  const lastColumn = spec.columns.length === 0 ? -1 : Math.max(...indexByName.values())
  const headerStyles = new Map<number, number>()
  for (let index = 0; index <= lastColumn; index++) {
    // A cell made now starts from its column's format as it was, as a typed cell does.
    const created = headerCells[index] !== undefined
    const base = state.headerStyles.has(index)
      ? state.headerStyles.get(index)
      : created
        ? oldColumns.style(index + 1)
        : columns.style(index + 1)
    if (!created && styles.bold(base) && styles.locked(base)) continue
    headerStyles.set(index, styles.derive(base, { bold: true, locked: true }))
    changed = true
  }

  if (freezeHeader(parts)) changed = true

  // Validations: one range per column, from row 2 to a bottom that grows with the data.
  const lastRow = Math.max(state.lastRow, 1)
  for (const column of spec.columns) {
    const desired = desiredValidation(column, spec, allSpecs, headerOf)
    if (desired !== undefined && applyValidation(parts, indexByName.get(column.name)!, desired, lastRow)) changed = true
  }

  if (applyHeaderNotes(parts, spec, indexByName)) changed = true

  let statusIndex: number | undefined
  if (spec.statusColumn !== undefined) {
    statusIndex = indexByName.get(spec.statusColumn)
    if (statusIndex === undefined) {
      throw new TimelineSheetsError(
        'TS_SHEET_LAYOUT',
        `Tab "${spec.title}" names status column "${spec.statusColumn}", which is not one of its columns`,
        {
          hint: 'This is a bug in the tab definition: the status column must be one of the tab’s columns.',
        },
      )
    }
  }
  // The tick colour warns of a row about to be deleted: the Delete column's only (an Approved tick is no warning).
  const checkbox = spec.columns.find((column) => column.kind === 'checkbox' && column.name === ACTIVITY_COLUMN.delete)
  const conditional = { status: statusIndex, checkbox: checkbox && indexByName.get(checkbox.name), lastColumn }
  if ((conditional.status !== undefined || conditional.checkbox !== undefined) && applyConditionalFormats(parts, conditional, styles))
    changed = true

  // A closed tab (the Approved record) is protected whatever `protect` says: its rows are for no one to edit.
  if ((settings.protect || spec.closed === true) && applyProtection(parts, spec.readOnly === true)) changed = true
  if (applyPrintSetup(parts)) changed = true
  // The tab managers sort and filter gets a filter (a protected sheet refuses to add one, but lets them use it).
  const filter = spec.filter === true && spec.readOnly !== true ? filterRange(lastColumn, lastRow) : undefined
  if (filter !== undefined && applyAutoFilter(parts, filter)) changed = true

  if (changed) {
    const columnsXml = columns.toXml()
    if (columnsXml !== undefined) parts.set('cols', columnsXml)
    const used = dimension(parts)
    setDimension(parts, Math.max(used.rows, state.lastRow, 1), Math.max(used.columns, header.length, 1))
  }

  const rows = new Map<number, RowChange>()
  if (headerCells.length > 0) rows.set(1, { cells: headerCells })
  const restyle =
    headerStyles.size === 0 && cellPatches.size === 0
      ? undefined
      : (row: number, column: number, style: number | undefined): number | undefined => {
          if (row === 1) return headerStyles.get(column)
          const patch = cellPatches.get(column)
          return patch === undefined ? undefined : styles.derive(style, patch)
        }
  return { changed, rows, restyle, columns, header, filter }
}

function excelWidth(pixels: number): number {
  // Excel measures widths in characters of the default font, about 7 px each.
  return Math.round((pixels / 7) * 100) / 100
}

/** What a column needs changed: width and visibility of the column, and its format (which its cells get too). */
function columnPatch(
  column: ColumnSpec,
  tab: TabSpec,
  current: ReadonlyMap<string, string>,
  styles: Styles,
): { width?: string; hidden?: boolean; style?: StylePatch } {
  const out: { width?: string; hidden?: boolean; style?: StylePatch } = {}
  if (column.width !== undefined && Number(current.get('width')) !== excelWidth(column.width)) out.width = String(excelWidth(column.width))
  const hidden = current.get('hidden')
  if ((hidden === '1' || hidden === 'true') !== (column.hidden === true)) out.hidden = column.hidden === true
  const style = current.has('style') ? Number(current.get('style')) : undefined
  const patch: StylePatch = {}
  const numFmt = NUMBER_FORMATS[column.kind]
  if (numFmt !== undefined && styles.numberFormat(style) !== numFmt) patch.numFmt = numFmt
  if (column.wrap === true && !styles.wraps(style)) patch.wrap = true
  const locked = column.protected === true || tab.readOnly === true
  if (styles.locked(style) !== locked) patch.locked = locked
  if (Object.keys(patch).length > 0) out.style = patch
  return out
}

function freezeHeader(parts: SheetParts): boolean {
  const views = parts.get('sheetViews')
  const first = views === undefined ? undefined : topLevel(elementContent(views)).find((piece) => piece.name === 'sheetView')
  const pane = first === undefined ? undefined : topLevel(elementContent(first.xml)).find((piece) => piece.name === 'pane')
  const attributes = pane === undefined ? undefined : parseAttributes(startTagAttributes(pane.xml))
  if (attributes?.get('state') === 'frozen' && attributes.get('ySplit') === '1' && Number(attributes.get('xSplit') ?? 0) === 0) return false
  const content =
    '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/>'
  // The manager's other view settings (zoom, the selected tab) stay; the pane and selection are ours.
  const view = first === undefined ? `<sheetView workbookViewId="0">${content}</sheetView>` : withContent(first.xml, content)
  parts.set('sheetViews', `<sheetViews>${view}</sheetViews>`)
  return true
}

interface DesiredValidation {
  formula1: string
  errorTitle: string
  error: string
}

function desiredValidation(
  column: ColumnSpec,
  tab: TabSpec,
  allSpecs: readonly TabSpec[],
  headerOf: (title: string) => CellValue[] | undefined,
): DesiredValidation | undefined {
  if (column.kind === 'checkbox')
    return { formula1: '"TRUE,FALSE"', errorTitle: column.name, error: 'Tick with TRUE (or x or ✓); leave it empty to keep the row.' }
  if (column.dropdown === undefined) return undefined
  const source = sourceColumn(column.dropdown, allSpecs, headerOf)
  if (source === undefined) {
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `Column "${column.name}" on tab "${tab.title}" takes its dropdown from column "${column.dropdown.column}" of tab "${column.dropdown.tab}", which does not exist`,
      { hint: 'Lay out the source tab in the same call, or fix the dropdown’s tab and column names.' },
    )
  }
  const quoted = `'${column.dropdown.tab.replaceAll("'", "''")}'`
  const letter = columnName(source)
  // A warning, not a block: a manager may need a tag the list does not have yet.
  return {
    formula1: `${quoted}!$${letter}$2:$${letter}$1000`,
    errorTitle: column.name,
    error: `Not in the list on "${column.dropdown.tab}". Keep it anyway?`,
  }
}

/** 0-based column of a dropdown's source: on the tab as it is, else in its spec. */
function sourceColumn(
  dropdown: { tab: string; column: string },
  allSpecs: readonly TabSpec[],
  headerOf: (title: string) => CellValue[] | undefined,
): number | undefined {
  const found = headerOf(dropdown.tab)?.indexOf(dropdown.column) ?? -1
  if (found >= 0) return found
  const spec = allSpecs.find((candidate) => candidate.title === dropdown.tab)
  const index = spec?.columns.findIndex((candidate) => candidate.name === dropdown.column) ?? -1
  return index >= 0 ? index : undefined
}

function applyValidation(parts: SheetParts, index: number, desired: DesiredValidation, lastRow: number): boolean {
  const letter = columnName(index)
  const sqref = `${letter}2:${letter}${validationBottom(lastRow)}`
  const validations = readValidations(parts)
  const current = validations.find((validation) => validation.attributes.get('sqref') === sqref)
  if (current !== undefined && sameValidation(current.attributes, current.formula1, desired.formula1)) return false
  const kept = validations.filter((validation) => {
    const place = singleColumnRange(validation.attributes.get('sqref'))
    return !(place !== undefined && place.column === index && place.bottom >= 2)
  })
  kept.push({
    attributes: new Map(),
    formula1: desired.formula1,
    xml: validationXml(
      [
        ['type', 'list'],
        ['allowBlank', '1'],
        ['showErrorMessage', '1'],
        ['errorStyle', 'warning'],
        ['errorTitle', desired.errorTitle],
        ['error', desired.error],
        ['sqref', sqref],
      ],
      desired.formula1,
    ),
  })
  writeValidations(parts, kept)
  return true
}

function sameValidation(attributes: ReadonlyMap<string, string>, formula1: string | undefined, desired: string): boolean {
  const show = attributes.get('showErrorMessage')
  return (
    attributes.get('type') === 'list' &&
    formula1 === desired &&
    (attributes.get('errorStyle') ?? 'stop') === 'warning' &&
    (show === '1' || show === 'true')
  )
}

/**
 * A column's note as the input message of its header cell: Excel and LibreOffice show it whenever the
 * cell is selected. A cell comment would need three more parts in the package (the comments, their VML
 * drawing, the sheet's relationships); this is one element of the sheet part the layout edits anyway.
 */
function applyHeaderNotes(parts: SheetParts, spec: TabSpec, indexByName: ReadonlyMap<string, number>): boolean {
  const notes = spec.columns.filter((column) => column.note !== undefined)
  if (notes.length === 0) return false
  const texts = new Set(notes.map((column) => column.note))
  const validations = readValidations(parts)
  const isNote = (validation: Validation) =>
    texts.has(validation.attributes.get('prompt')) && singleColumnRange(validation.attributes.get('sqref'))?.bottom === 1
  const desired = notes.map((column) => {
    const sqref = `${columnName(indexByName.get(column.name)!)}1`
    // Excel refuses a prompt title over 32 characters and a prompt over 255.
    return `<dataValidation allowBlank="1" showInputMessage="1" promptTitle="${escapeXml(column.name.slice(0, 32))}" prompt="${escapeXml(column.note!.slice(0, 255))}" sqref="${sqref}"/>`
  })
  const current = validations.filter(isNote).map((validation) => validation.xml)
  if (current.join('') === desired.join('')) return false
  writeValidations(parts, [
    ...validations.filter((validation) => !isNote(validation)),
    ...desired.map((xml) => ({ attributes: new Map<string, string>(), formula1: undefined, xml })),
  ])
  return true
}

/**
 * The tool's own dropdown (`applyValidation`): a list that warns, on one column from row 2 down to a
 * multiple of 1000. Its range follows the last row, not the rows removed above it.
 */
export function isToolDropdown(attributes: ReadonlyMap<string, string>): boolean {
  const place = singleColumnRange(attributes.get('sqref'))
  return (
    attributes.get('type') === 'list' &&
    attributes.get('errorStyle') === 'warning' &&
    place !== undefined &&
    place.top === 2 &&
    place.bottom % 1000 === 0
  )
}

/**
 * After rows were added or removed, stretches the column validations from row 2 to cover them, and sets
 * the tool's own dropdowns to the range a layout gives them (so the next layout finds them as it wants them).
 */
export function extendValidations(parts: SheetParts, lastRow: number): boolean {
  const validations = readValidations(parts)
  const bottom = validationBottom(lastRow)
  let changed = false
  for (const validation of validations) {
    const sqref = validation.attributes.get('sqref')
    const place = singleColumnRange(sqref)
    if (place === undefined || place.top !== 2 || place.bottom === bottom) continue
    if (place.bottom >= lastRow + 1 && !isToolDropdown(validation.attributes)) continue
    const letter = columnName(place.column)
    validation.xml = validation.xml.replace(/(\ssqref\s*=\s*)("[^"]*"|'[^']*')/, `$1"${letter}2:${letter}${bottom}"`)
    changed = true
  }
  if (changed) writeValidations(parts, validations)
  return changed
}

function applyProtection(parts: SheetParts, readOnly: boolean): boolean {
  const allowed: readonly string[] = readOnly ? READ_ONLY_PROTECTION : EDITABLE_PROTECTION
  const element = parts.get('sheetProtection')
  const current = element === undefined ? new Map<string, string>() : parseAttributes(startTagAttributes(element))
  const on = (value: string | undefined) => value === '1' || value === 'true'
  const permits = (value: string | undefined) => value === '0' || value === 'false'
  const same = on(current.get('sheet')) && EDITABLE_PROTECTION.every((key) => permits(current.get(key)) === allowed.includes(key))
  if (same) return false
  // No password: like Google's warning-only protection, a manager can lift it on purpose.
  parts.set('sheetProtection', `<sheetProtection sheet="1"${allowed.map((key) => ` ${key}="0"`).join('')}/>`)
  return true
}
