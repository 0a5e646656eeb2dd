/**
 * Read-only tabs for other timelines (computer usage, applications…), when a
 * target asks for them: the window read in full each run and the tab made to
 * hold exactly those rows, in user and time order. Nothing here is ever
 * imported: the tab is protected and the tool overwrites it.
 */
import { TIMELINE_COLUMN, columnIndex } from '../core/columns.ts'
import { joinTagName } from '../core/tags.ts'
import { activityToSheetTimes, chunkWindows, parseOffsetInstant } from '../core/time.ts'
import type { CellValue, Snapshot, TabWrite } from '../sheets/port.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { Activity, TimelineInfo } from '../timeline/model.ts'
import type { ExportWindow } from './server-reads.ts'
import { isEmptyWrite, rewriteTab } from '../core/sheet-writes.ts'

export interface OtherTimelinesResult {
  writes: TabWrite[]
  rows: Record<string, number>
}

/** Timelines of `schemaShortName` (e.g. `ComputerUsage`) owned by the target's users. */
export function timelinesOf(all: TimelineInfo[], schemaName: string, users: string[]): TimelineInfo[] {
  const wanted = new Set(users.map((u) => u.toLowerCase()))
  return all.filter((t) => t.schemaName === schemaName && (wanted.size === 0 || wanted.has(t.ownerUsername.toLowerCase())))
}

/** Every activity of the window on each named timeline kind, by tab name, in user and time order. */
export type OtherTimelineEntries = Map<string, { user: string; activity: Activity }[]>

/** The server side of the read-only tabs: read before the sheet, so the sheet is read as late as possible. */
export async function readOtherTimelines(
  client: TimelineClient,
  all: TimelineInfo[],
  names: string[],
  users: string[],
  window: ExportWindow,
): Promise<OtherTimelineEntries> {
  const out: OtherTimelineEntries = new Map()
  for (const name of names) {
    const timelines = timelinesOf(all, client.vendor.schema(name), users)
    const entries: { user: string; activity: Activity }[] = []
    for (const timeline of timelines) {
      const seen = new Set<number>()
      for (const chunk of chunkWindows(window.timeZone, window.fromDate, window.days, 7)) {
        const read = await client.readActivities(timeline, chunk)
        for (const activity of read.activities) {
          if (seen.has(activity.entityId)) continue
          seen.add(activity.entityId)
          entries.push({ user: timeline.ownerUsername, activity })
        }
      }
    }
    entries.sort((a, b) => a.user.localeCompare(b.user) || parseOffsetInstant(a.activity.start).epochSeconds - parseOffsetInstant(b.activity.start).epochSeconds)
    out.set(name, entries)
  }
  return out
}

/** The writes that make each read-only tab hold exactly its entries. */
export function otherTimelineWrites(entriesByName: OtherTimelineEntries, window: ExportWindow, snapshot: Snapshot): OtherTimelinesResult {
  const writes: TabWrite[] = []
  const rows: Record<string, number> = {}
  for (const [name, entries] of entriesByName) {
    const tab = snapshot.tabs[name] ?? { title: name, exists: false, header: [], rows: [], gridRowCount: 0 }
    const desired = entries.map((e) => timelineRow(e.user, e.activity, window.timeZone, tab.header))
    const write = rewriteTab(tab, desired, Math.max(tab.header.length, Object.keys(TIMELINE_COLUMN).length))
    rows[name] = desired.length
    if (!isEmptyWrite(write)) writes.push(write)
  }
  return { writes, rows }
}

function timelineRow(user: string, activity: Activity, timeZone: string, header: CellValue[]): CellValue[] {
  const c = TIMELINE_COLUMN
  const times = activityToSheetTimes(activity.start, activity.duration, timeZone)
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
