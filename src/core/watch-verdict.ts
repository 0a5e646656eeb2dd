/**
 * Whether an interval of `sync --watch` must run a sync for a target, or may stop at its idle check
 * (decisions/0016-frequent-sync.md). The check observes three things that cost nothing that grows with the
 * sheet: the spreadsheet's change mark, the versions the timeline list shows, and the export window. A
 * sync runs when any of them differs from what was observed just before the last sync that finished, and at
 * least once an hour, so what the check cannot see (a change to the allowed tags, a look-back that is due)
 * waits at most an hour and the Sync log shows the watch is alive.
 */

/** What an idle check sees, before anything is read. */
export interface WatchObservation {
  /** The spreadsheet's change mark (a Drive version, a file stamp); undefined when the backend cannot tell. */
  sheetMark: string | undefined
  /** Each listed timeline's version (`timelineVersion`) by its key; every timeline the list shows. */
  timelines: ReadonlyMap<string, string | undefined>
  /** The export window as it stands now (its bounds as the cursors keep them). */
  window: { from: string; to: string }
}

/** What the watch keeps of a target between intervals: the observation the last finished sync began from. */
export interface WatchMemory {
  /**
   * The spreadsheet's mark with the sync's own writes in it: the mark seen before a sync that wrote nothing, or
   * the one the backend knows its own last write left. Undefined when the sync wrote and the backend cannot tell
   * its writes from a person's: the next interval syncs again, to see what a person did meanwhile.
   */
  sheetMark: string | undefined
  timelines: ReadonlyMap<string, string | undefined>
  window: { from: string; to: string }
  /** When a sync last wrote to the spreadsheet (its Sync log row among it), epoch ms. */
  loggedAt: number
}

export type WatchVerdict =
  | { sync: false }
  | {
      sync: true
      /** Why, in words for the log: `the spreadsheet changed`, `timeline … changed`. */
      reason: string
      /** The sync is the hourly one: it writes its Sync log row even when nothing changed. */
      hourly: boolean
    }

/** How long an idle watch goes without a Sync log row: one an hour at most, and at least. */
export const WATCH_LOG_EVERY_MS = 60 * 60 * 1000

/** The verdict for one interval: `memory` undefined means no sync has finished since the watch started. */
export function watchVerdict(
  memory: WatchMemory | undefined,
  seen: WatchObservation,
  nowMs: number,
  logEveryMs: number = WATCH_LOG_EVERY_MS,
): WatchVerdict {
  if (memory === undefined) {
    return { sync: true, reason: 'nothing to compare with yet (the first interval, or the last sync did not finish)', hourly: false }
  }
  // A sync that is due anyway writes the hour's row when one is due.
  const hourly = nowMs - memory.loggedAt >= logEveryMs
  const reason = changeSeen(memory, seen)
  if (reason !== undefined) return { sync: true, reason, hourly }
  return hourly ? { sync: true, reason: 'an hour without a Sync log row', hourly } : { sync: false }
}

/** What differs between the memory and the observation, in words; undefined when nothing does. */
function changeSeen(memory: WatchMemory, seen: WatchObservation): string | undefined {
  if (seen.window.from !== memory.window.from || seen.window.to !== memory.window.to) return 'a new day: the export window moved'
  if (seen.sheetMark === undefined || seen.sheetMark !== memory.sheetMark) {
    return memory.sheetMark === undefined ? 'the last sync wrote to the spreadsheet' : 'the spreadsheet changed'
  }
  return changedTimeline(memory.timelines, seen.timelines)
}

/** The first difference between two timeline lists, in words; undefined when they show the same versions. */
function changedTimeline(
  before: ReadonlyMap<string, string | undefined>,
  now: ReadonlyMap<string, string | undefined>,
): string | undefined {
  for (const [key, version] of now) {
    if (!before.has(key)) return `timeline ${key} is new in the list`
    // A list that shows no version cannot tell a change: such a timeline is synced every interval.
    if (version === undefined || version !== before.get(key)) return `timeline ${key} changed`
  }
  for (const key of before.keys()) if (!now.has(key)) return `timeline ${key} left the list`
  return undefined
}

/** What the watch remembers after a sync that began from `seen` and finished at `nowMs`. */
export function rememberSync(
  seen: WatchObservation,
  outcome: {
    /** Spreadsheet write requests the sync made. */
    sheetWrites: number
    /** The mark the backend knows its own last write left; undefined when it cannot tell. */
    markAfterOwnWrite: string | undefined
  },
  nowMs: number,
  previous: WatchMemory | undefined,
  startedMs: number,
): WatchMemory {
  const wrote = outcome.sheetWrites > 0
  return {
    sheetMark: wrote ? outcome.markAfterOwnWrite : seen.sheetMark,
    timelines: seen.timelines,
    window: seen.window,
    // Until the first row, the hour counts from the watch's start.
    loggedAt: wrote ? nowMs : (previous?.loggedAt ?? startedMs),
  }
}
