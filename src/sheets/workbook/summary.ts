/**
 * The Summary tab in the workbook (decisions/0007-summary-tab.md): the core's
 * cells written as formulas over the Activities columns where the layout finds
 * them, over the Summary's own columns only, so a manager's columns beside it
 * stay. Written by the layout, never by a run. Not protected: the workbook
 * has no warning-only protection, and a locked sheet would lock a manager's
 * own notes beside the tables out too.
 */
import { summaryCells, summaryShape, type SummaryCell } from '../../core/summary.ts'
import { TimelineSheetsError } from '../../errors.ts'
import type { CellValue, TabSpec } from '../port.ts'
import type { TabLayout, TabState } from './layout.ts'
import { Columns, dimension, setDimension } from './sheet-parts.ts'
import { columnName } from './sheet-xml.ts'
import type { RowChange } from './sheet-write.ts'
import type { StylePatch, Styles } from './styles.ts'

const PATCHES: Record<'hours' | 'week' | 'label', StylePatch> = {
  hours: { numFmt: '0.0' },
  week: { numFmt: 'yyyy-mm-dd' },
  label: {},
}

/** The Summary's rows (its own columns, emptied below its tables down to the last row it had) and formats. */
export function layOutSummary(
  spec: TabSpec,
  state: TabState,
  styles: Styles,
  headerOf: (title: string) => CellValue[] | undefined,
  /** The tab's rows as they are, row 1 first (empty for a new tab): an unchanged Summary is not written again. */
  current: readonly (readonly CellValue[])[],
): TabLayout {
  const summary = spec.summary!
  // The Activities tab, and with approvals the Approvals tab, are laid out in the same call.
  const columnOf = (name: string, tab: string) => {
    const index = (headerOf(tab) ?? []).indexOf(name)
    if (index < 0) {
      throw new TimelineSheetsError(
        'TS_SHEET_LAYOUT',
        `The ${spec.title} tab sums column "${name}" of "${tab}", which is not laid out in the same call`,
        { hint: 'This is a bug in the tab specification: lay out the Activities tab together with its Summary.' },
      )
    }
    return columnName(index)
  }
  const cells = summaryCells(summary, columnOf)
  const { width } = summaryShape(summary)
  const rows = new Map<number, RowChange>()
  const formats = new Map<string, StylePatch>()
  const last = Math.max(cells.length, state.lastRow)
  for (let row = 1; row <= last; row++) {
    const line = cells[row - 1] ?? []
    const out: RowChange['cells'] extends ReadonlyArray<infer T> ? T[] : never = []
    for (let column = 0; column < width; column++) {
      const cell: SummaryCell | null | undefined = line[column]
      if (cell === null || cell === undefined) {
        out.push('')
        continue
      }
      out.push(cell.formula !== undefined ? { formula: cell.formula.slice(1) } : (cell.text ?? ''))
      const patch: StylePatch = {
        ...PATCHES[cell.format ?? 'label'],
        ...(cell.bold ? { bold: true as const } : {}),
        ...(cell.right ? { alignRight: true as const } : {}),
      }
      if (Object.keys(patch).length > 0) formats.set(`${row}:${column}`, patch)
    }
    rows.set(row, { cells: out })
  }
  const same = [...rows].every(([row, change]) => change.cells.every((cell, column) => sameCell(current[row - 1]?.[column], cell)))
  if (same)
    return {
      changed: false,
      rows: new Map(),
      restyle: undefined,
      columns: new Columns(state.parts.get('cols')),
      header: state.header,
      filter: undefined,
    }
  const columns = new Columns(state.parts.get('cols'))
  columns.set(1, { width: '34', customWidth: '1' })
  for (let column = 2; column <= width; column++) columns.set(column, { width: '12', customWidth: '1' })
  state.parts.set('cols', columns.toXml()!)
  // Computed when the file is opened: the formulas are written without results. Set on this sheet, not on the
  // workbook, so the workbook part a manager's file came with stays as it was.
  state.parts.set('sheetCalcPr', '<sheetCalcPr fullCalcOnLoad="1"/>')
  // Printed on one page across, as a manager would hand it on.
  state.parts.set('sheetPr', '<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>')
  state.parts.set('pageSetup', '<pageSetup orientation="landscape" fitToWidth="1" fitToHeight="0"/>')
  const used = dimension(state.parts)
  setDimension(state.parts, Math.max(used.rows, cells.length, 1), Math.max(used.columns, width))
  return {
    changed: true,
    rows,
    // Every cell of the tables gets its format; a cell emptied below them gets none.
    restyle: (row, column) => {
      const patch = formats.get(`${row}:${column}`)
      return patch === undefined ? (column < width ? 0 : undefined) : styles.derive(0, patch)
    },
    columns,
    header: state.header,
    filter: undefined,
  }
}

function sameCell(now: CellValue | undefined, wanted: RowChange['cells'][number]): boolean {
  const empty = (v: unknown) => v === null || v === undefined || v === ''
  if (empty(wanted)) return empty(now)
  if (typeof wanted === 'object' && wanted !== null) return now === `=${wanted.formula}`
  return now === wanted
}
