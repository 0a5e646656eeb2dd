/** Read-only tabs for other timelines: the window of each is read in full every run (src/core/other-timelines.ts decides the writes). */
import type { ExportWindow } from '../core/export-plan.ts'
import { timelinesOf, type OtherTimelineEntries } from '../core/other-timelines.ts'
import { parseOffsetInstant } from '../core/instant.ts'
import { readEach, readRange } from './server-reads.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { Activity, TimelineInfo } from '../timeline/model.ts'

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
    const reads = await readEach(timelines, (timeline) => readRange(client, timeline, window.window))
    for (const [i, read] of reads.entries()) {
      for (const activity of read.activities) entries.push({ user: timelines[i]!.ownerUsername, activity })
    }
    entries.sort(
      (a, b) =>
        a.user.localeCompare(b.user) ||
        parseOffsetInstant(a.activity.start).epochSeconds - parseOffsetInstant(b.activity.start).epochSeconds,
    )
    out.set(name, entries)
  }
  return out
}
