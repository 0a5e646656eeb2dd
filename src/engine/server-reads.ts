/**
 * What changed on the server for one Tags timeline since the last run: a full
 * read of the window in chunks of at most a week on the first run (or with
 * --full), otherwise one incremental read through the stored
 * `updatedactivities` link, plus a full re-read of the look-back window when
 * it is due (the real service may not report deletions on incremental reads).
 */
import { addDays, chunkWindows, type LocalDate, type TimeWindow } from '../core/time.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { Activity, TimelineInfo } from '../timeline/model.ts'
import type { TimelineCursor } from '../state/target-state.ts'
import type { ExportWindow } from '../core/export-plan.ts'


export type TimelineChanges =
  | {
      mode: 'full'
      timeline: TimelineInfo
      /** Every activity overlapping the window. */
      activities: Activity[]
      cursor: TimelineCursor
    }
  | {
      mode: 'incremental'
      timeline: TimelineInfo
      /** Activities created or changed since the cursor. */
      activities: Activity[]
      /** Entity ids the server reported deleted (only servers that report them). */
      deletedIds: number[]
      /** When the look-back window was re-read: its range and every activity in it. */
      lookBack: { window: TimeWindow; activities: Activity[] } | undefined
      cursor: TimelineCursor
    }

export interface ReadChangesOptions {
  full: boolean
  now: Date
  /** Re-read the look-back window when the last re-read is older than this. @default 20 hours */
  lookBackEveryMs?: number
}

const DEFAULT_LOOK_BACK_EVERY_MS = 20 * 60 * 60 * 1000

export async function readTimelineChanges(
  client: TimelineClient,
  timeline: TimelineInfo,
  cursor: TimelineCursor | undefined,
  window: ExportWindow,
  options: ReadChangesOptions,
): Promise<TimelineChanges> {
  const base: TimelineCursor = {
    timelineKey: timeline.timelineKey,
    owner: timeline.ownerUsername,
    schemaName: timeline.schemaName,
    windowFrom: window.window.from,
    windowTo: window.window.to,
  }
  if (options.full || !cursor?.updatedActivitiesUrl) {
    const read = await readWindow(client, timeline, window.timeZone, window.fromDate, window.days)
    return {
      mode: 'full',
      timeline: read.timeline,
      activities: read.activities,
      cursor: {
        ...base,
        updatedActivitiesUrl: read.link && retargetLink(read.link, window.window),
        lastLookBackAt: options.now.toISOString(),
        lastChangeId: read.timeline.lastChangeId,
      },
    }
  }

  const url = retargetLink(cursor.updatedActivitiesUrl, window.window)
  const updated = await client.readUpdated(url)
  const lookBackDue =
    window.lookBackDays > 0 &&
    (!cursor.lastLookBackAt ||
      options.now.getTime() - Date.parse(cursor.lastLookBackAt) >= (options.lookBackEveryMs ?? DEFAULT_LOOK_BACK_EVERY_MS))
  let lookBack: { window: TimeWindow; activities: Activity[] } | undefined
  if (lookBackDue) {
    const days = Math.min(window.lookBackDays, window.days)
    const fromDate = addDays(window.fromDate, window.days - days)
    const read = await readWindow(client, timeline, window.timeZone, fromDate, days)
    lookBack = { window: { from: read.window.from, to: read.window.to }, activities: read.activities }
  }
  return {
    mode: 'incremental',
    timeline: updated.timeline,
    activities: updated.activities,
    deletedIds: updated.deletedActivityIds ?? [],
    lookBack,
    cursor: {
      ...base,
      // A server that gives no fresh link leaves the old one valid: the next read repeats these changes, harmlessly.
      updatedActivitiesUrl: updated.updatedActivitiesUrl ? retargetLink(updated.updatedActivitiesUrl, window.window) : url,
      lastLookBackAt: lookBack ? options.now.toISOString() : cursor.lastLookBackAt,
      lastChangeId: updated.timeline.lastChangeId,
    },
  }
}

interface WindowRead {
  timeline: TimelineInfo
  activities: Activity[]
  link: string | undefined
  window: TimeWindow
}

/**
 * Reads `days` from `fromDate` in chunks of at most a week. The cursor link
 * is taken from the FIRST chunk: its timestamp is the oldest, so anything
 * that changed while the later chunks were read comes again next time
 * (harmless) instead of being skipped.
 */
async function readWindow(
  client: TimelineClient,
  timeline: TimelineInfo,
  timeZone: string,
  fromDate: LocalDate,
  days: number,
): Promise<WindowRead> {
  const chunks = chunkWindows(timeZone, fromDate, days, 7)
  const byId = new Map<number, Activity>()
  let link: string | undefined
  let latest = timeline
  for (const [i, chunk] of chunks.entries()) {
    const read = await client.readActivities(timeline, chunk)
    if (i === 0) link = read.updatedActivitiesUrl
    latest = read.timeline
    // An activity that spans a chunk boundary comes in both chunks.
    for (const activity of read.activities) byId.set(activity.entityId, activity)
  }
  return {
    timeline: latest,
    activities: [...byId.values()],
    link,
    window: { from: chunks[0]!.from, to: chunks[chunks.length - 1]!.to },
  }
}

/**
 * The server's `updatedactivities` link with its range set to the export
 * window: the link is the server's (path, timestamp and any other parameter
 * kept as given); only fromTime and toTime follow the window as days pass.
 */
export function retargetLink(link: string, window: TimeWindow): string {
  const url = new URL(link)
  url.searchParams.set('fromTime', window.from)
  url.searchParams.set('toTime', window.to)
  return url.toString()
}


/** Reads the given ranges of one timeline; writes must then prove they saw the state of the first read. */
export async function readRanged(client: TimelineClient, timeline: TimelineInfo, ranges: TimeWindow[]): Promise<Activity[]> {
  const byId = new Map<number, Activity>()
  const firstChange = { value: undefined as string | undefined, set: false }
  for (const range of ranges) {
    const read = await client.readActivities(timeline, range)
    if (!firstChange.set) {
      firstChange.value = read.timeline.lastChangeId
      firstChange.set = true
    }
    for (const a of read.activities) byId.set(a.entityId, a)
  }
  // Writes must prove they saw the state of the FIRST read: a change between chunks is then caught as a concurrency rejection.
  client.setLastChangeId(timeline.timelineKey, firstChange.value)
  return [...byId.values()]
}
