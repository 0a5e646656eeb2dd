/**
 * A tab's rows as lines: each data row parsed with the sheet row it sits on, and the one rule that needs the
 * whole tab — a Key held by two rows refuses both, naming all the rows that hold it. It stands apart because
 * the planner, the import and the checks of a sheet work on lines, and the duplicate rule is the only row rule
 * that no single row can decide.
 */
import type { CellValue } from './sheet.ts'
import type { HeaderLayout } from './columns.ts'
import type { RowContext } from './row-context.ts'
import type { RowProblem, SheetActivity } from './row-outcome.ts'
import { parseRow } from './row-judge.ts'

/** A parsed row with where it sits. */
export type SheetLine =
  | { kind: 'row'; rowNumber: number; row: SheetActivity }
  | { kind: 'invalid'; rowNumber: number; key: string | undefined; problems: RowProblem[] }
  /**
   * A row of an existing activity that holds what its Base cell, the state's base and the server's activity all
   * say: nothing to decide but "in step" (the planner's noop). An import passes such rows on unjudged.
   */
  | { kind: 'in-step'; rowNumber: number; key: string }

/** Parses all data rows of an Activities tab (`rows[i]` is sheet row `i + 2`) and refuses Keys that appear twice. */
export function parseSheet(rows: readonly (readonly CellValue[])[], layout: HeaderLayout, ctx: RowContext): readonly SheetLine[] {
  const lines: SheetLine[] = []
  rows.forEach((cells, i) => {
    const rowNumber = i + 2
    const parsed = parseRow(cells, layout, ctx)
    if (!parsed.ok) lines.push({ kind: 'invalid', rowNumber, key: parsed.key, problems: parsed.problems })
    else if (parsed.row) lines.push({ kind: 'row', rowNumber, row: parsed.row })
  })
  return withDuplicatesRefused(lines)
}

/**
 * Every line whose Key another line also holds, made invalid with a problem
 * naming the rows (first, so the Status says it); the other lines as they are.
 */
export function withDuplicatesRefused(sheet: readonly SheetLine[]): readonly SheetLine[] {
  // Each Key's first row, and the rows of the Keys several lines hold: nearly always none, and then the lines
  // are the same. A list is made only for a Key seen a second time: a big sheet holds a hundred thousand Keys,
  // nearly all of them once.
  const firstRow = new Map<string, number>()
  const rowsByKey = new Map<string, number[]>()
  for (const line of sheet) {
    const key = keyOfLine(line)
    if (key === undefined) continue
    const first = firstRow.get(key)
    if (first === undefined) firstRow.set(key, line.rowNumber)
    else {
      const rows = rowsByKey.get(key)
      if (rows) rows.push(line.rowNumber)
      else rowsByKey.set(key, [first, line.rowNumber])
    }
  }
  if (rowsByKey.size === 0) return sheet
  return sheet.map((line) => {
    const key = keyOfLine(line)
    const rows = key === undefined ? undefined : rowsByKey.get(key)
    if (key === undefined || !rows || rows.length < 2) return line
    const earlier = line.kind === 'invalid' ? line.problems.filter((p) => p.code !== 'duplicate-key') : []
    return { kind: 'invalid', rowNumber: line.rowNumber, key, problems: [duplicateKeyProblem(rows), ...earlier] }
  })
}

/** The problem of a Key held by several rows (`rows`: all of them, this one included). */
export function duplicateKeyProblem(rows: readonly number[]): RowProblem {
  const shown = rows.length > 10 ? `${rows.slice(0, 10).join(', ')} and ${rows.length - 10} more` : rows.join(', ')
  return {
    code: 'duplicate-key',
    severity: 'error',
    column: 'Key',
    message: `Key: this activity is in rows ${shown}; keep one row and delete the other copies (a copied row is not a new activity: clear its Key and Base)`,
  }
}

function keyOfLine(line: SheetLine): string | undefined {
  if (line.kind === 'invalid' || line.kind === 'in-step') return line.key
  return line.row.kind === 'existing' || line.row.kind === 'delete' ? line.row.key : undefined
}
