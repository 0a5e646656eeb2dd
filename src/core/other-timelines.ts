/**
 * Read-only tabs for other timelines (computer usage, applications…): which timelines feed a tab, and the
 * writes that make each tab hold exactly the activities of the window, in user and time order. Nothing here
 * is ever imported: the tab is protected and the tool overwrites it.
 */
import type { Activity } from './activity.ts'
import { TIMELINE_COLUMN, columnIndex } from './columns.ts'
import type { ExportWindow } from './export-plan.ts'
import type { CellValue, Snapshot, TabWrite } from './sheet.ts'
import { isEmptyWrite, rewriteTab } from './sheet-writes.ts'
import { joinTagName } from './tags.ts'
import { activityToSheetTimes } from './sheet-times.ts'

/** Every activity of the window on each named timeline kind, by tab name, in user and time order. */
export type OtherTimelineEntries = Map<string, { user: string; activity: Activity }[]>

/** Timelines of `schemaShortName` (e.g. `ComputerUsage`) owned by the target's users. */
export function timelinesOf<T extends { schemaName: string; ownerUsername: string }>(
  all: readonly T[],
  schemaName: string,
  users: string[],
): T[] {
  const wanted = new Set(users.map((u) => u.toLowerCase()))
  return all.filter((t) => t.schemaName === schemaName && (wanted.size === 0 || wanted.has(t.ownerUsername.toLowerCase())))
}

/** The writes that make each read-only tab hold exactly its entries. */
export function otherTimelineWrites(entriesByName: OtherTimelineEntries, window: ExportWindow, snapshot: Snapshot): TabWrite[] {
  const writes: TabWrite[] = []
  for (const [name, entries] of entriesByName) {
    const tab = snapshot.tabs[name] ?? { title: name, exists: false, header: [], rows: [], gridRowCount: 0 }
    const desired = entries.map((e) => timelineRow(e.user, e.activity, window, tab.header))
    const write = rewriteTab(tab, desired, Math.max(tab.header.length, Object.keys(TIMELINE_COLUMN).length))
    if (!isEmptyWrite(write)) writes.push(write)
  }
  return writes
}

function timelineRow(user: string, activity: Activity, window: ExportWindow, header: CellValue[]): CellValue[] {
  const c = TIMELINE_COLUMN
  const times = activityToSheetTimes(activity.start, activity.duration, window.timeZone, window.dayStart)
  const cells: Record<string, CellValue> = {
    [c.user]: user,
    [c.date]: times.date,
    [c.start]: times.start,
    [c.end]: times.end,
    [c.duration]: times.duration,
    [c.name]: joinTagName(activity.tags),
  }
  const names = Object.values(c)
  const row: CellValue[] = Array.from({ length: Math.max(header.length, names.length) }, () => null)
  names.forEach((name, i) => {
    const at = header.length ? columnIndex(header, name) : i
    if (at >= 0) row[at] = cells[name] ?? null
  })
  return row
}
