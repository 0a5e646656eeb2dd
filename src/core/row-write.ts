/**
 * Writing rows: an activity as the tool's cells of its Activities row (User, Date, Start, End, Duration, Tags,
 * Labels, Notes, Delete, Status, Key, Base), placed in the header's column order or as cell updates that touch
 * the tool's columns alone. It stands apart from reading rows because the export and the write-back only ever
 * write, and what a row shows must not depend on the rules that judge what a manager typed.
 */
import type { CellUpdate, CellValue } from './sheet.ts'
import type { Activity } from './activity.ts'
import { ACTIVITY_COLUMN, type ActivityColumn, type HeaderLayout } from './columns.ts'
import { fingerprintOf } from './fingerprint.ts'
import { notesCellText } from './notes-cell.ts'
import { tagsToCells } from './tags.ts'
import { activityToSheetTimes } from './sheet-times.ts'
import { activityKey } from './activity-key.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'

const C = ACTIVITY_COLUMN

/** Values of the tool's Activities columns for one activity. */
export type ActivityCells = Record<ActivityColumn, CellValue>

/**
 * The tool's cells for an activity, keyed by column name, its Date counted from `dayStart`. `fingerprint`: the
 * activity's, when the caller has it already (a plan computes every server activity's), so a 100,000-row export
 * does not digest each one twice.
 */
export function activityToCells(
  activity: Activity,
  user: string,
  timeZone: string,
  status = '',
  fingerprint: string = fingerprintOf({ user, activity }),
  dayStart: DayStart = MIDNIGHT,
): ActivityCells {
  const times = activityToSheetTimes(activity.start, activity.duration, timeZone, dayStart)
  const tags = tagsToCells(activity.tags)
  return {
    [C.user]: user,
    [C.date]: times.date,
    [C.start]: times.start,
    [C.end]: times.end,
    [C.duration]: times.duration,
    [C.tags]: tags.tags,
    [C.labels]: tags.labels,
    [C.notes]: notesCellText(activity.notes),
    [C.delete]: false,
    [C.status]: status,
    [C.key]: activityKey(activity.timelineKey, activity.entityId),
    [C.base]: fingerprint,
  }
}

/** A whole row in the header's column order; columns the tool does not own are empty (for appends). */
export function activityToRow(
  activity: Activity,
  ctx: { timeZone: string; dayStart?: DayStart; user: string; status?: string },
  layout: HeaderLayout,
): CellValue[] {
  return cellsToRow(activityToCells(activity, ctx.user, ctx.timeZone, ctx.status ?? '', undefined, ctx.dayStart), layout)
}

/** Places named cells in the header's column order; other columns empty. */
export function cellsToRow(cells: Partial<Record<string, CellValue>>, layout: HeaderLayout): CellValue[] {
  // A loop over the names rather than `Object.entries`: an export places 100,000 rows, and the pairs were garbage.
  const row = new Array<CellValue>(layout.width).fill(null)
  for (const name in cells) {
    const value = cells[name]
    const i = layout.index[name]
    if (i !== undefined && value !== undefined) row[i] = value
  }
  return row
}

/**
 * Cell updates for one sheet row that touch only the named columns, grouped
 * into runs of adjacent columns, so extra columns managers added are never
 * overwritten.
 */
export function cellUpdatesFor(rowNumber: number, cells: Partial<Record<string, CellValue>>, layout: HeaderLayout): CellUpdate[] {
  const placed = Object.entries(cells)
    .flatMap(([name, value]) => {
      const column = layout.index[name]
      return column === undefined || value === undefined ? [] : [{ column, value }]
    })
    .sort((a, b) => a.column - b.column)
  const updates: CellUpdate[] = []
  for (const { column, value } of placed) {
    const last = updates[updates.length - 1]
    if (last && last.column + last.values.length === column) last.values.push(value)
    else updates.push({ row: rowNumber, column, values: [value] })
  }
  return updates
}
