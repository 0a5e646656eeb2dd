/**
 * One interval of `sync --watch` for one target (decisions/0016-frequent-sync.md): the idle check, then a sync
 * only when the check saw a change. The check costs the same whatever the sheet's size: one request for the
 * spreadsheet's change mark (Google: the Drive version; a workbook: a stat, no request) and one for the timeline
 * list, whose versions move with every change to a timeline. The watch keeps, in memory, what the check saw
 * before the last sync that finished; a sync that failed leaves nothing, so the next interval syncs again.
 */
import type { TargetConfig } from '../config/schema.ts'
import { exportedTimelines, exportWindow } from '../core/export-plan.ts'
import { timelinesOf } from '../core/other-timelines.ts'
import { rememberSync, watchVerdict, type WatchMemory, type WatchObservation, type WatchVerdict } from '../core/watch-verdict.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { TimelineInfo } from '../timeline/model.ts'
import type { ImportDeps, ImportOptions } from './import.ts'
import { timelineVersion } from './server-reads.ts'
import { runSync, type SyncSummary } from './sync.ts'

/** What one interval did for a target. */
export type WatchOutcome =
  | { kind: 'idle'; requests: WatchRequests }
  | { kind: 'synced'; reason: string; hourly: boolean; summary: SyncSummary; requests: WatchRequests }
  /** Another run holds the target's lock: nothing was done; the next interval looks again. */
  | { kind: 'locked'; reason: string; message: string; requests: WatchRequests }

/** Requests the idle check itself made (the sync's own are in its summary). */
export interface WatchRequests {
  /** The change mark's requests (Google: one Drive `files.get`; a workbook: none, its mark is a stat). */
  spreadsheet: number
  timeline: number
}

/** What the watch keeps of one target between intervals. */
export interface TargetWatch {
  memory: WatchMemory | undefined
  /** When the watch started (the first hour without a Sync log row counts from here). */
  readonly startedMs: number
  /** Idle checks since the last sync, for the hourly row. */
  idleChecks: number
  /** When the first of those idle checks was made. */
  idleSinceMs: number | undefined
}

export function startWatch(startedMs: number): TargetWatch {
  return { memory: undefined, startedMs, idleChecks: 0, idleSinceMs: undefined }
}

export interface WatchIntervalOptions {
  /** The sync's options (the watch never dry-runs). */
  sync?: Omit<ImportOptions, 'dryRun'>
  /** How long an idle watch goes without a Sync log row. @default one hour */
  logEveryMs?: number
  /** The interval as the schedule says it (`every 2 min`), for the hourly row. */
  intervalText?: string
}

/** Runs one interval for `target`, updating `watch` in place. */
export async function watchInterval(
  target: TargetConfig,
  deps: ImportDeps,
  watch: TargetWatch,
  options: WatchIntervalOptions = {},
): Promise<WatchOutcome> {
  const now = deps.now ?? (() => new Date())
  const { seen, requests } = await observe(target, deps, now())
  const verdict: WatchVerdict = watchVerdict(watch.memory, seen, now().getTime(), options.logEveryMs)
  if (!verdict.sync) {
    watch.idleChecks++
    watch.idleSinceMs ??= now().getTime()
    return { kind: 'idle', requests }
  }
  const writesBefore = deps.spreadsheet.requestCounts().writes
  let summary: SyncSummary
  try {
    summary = await runSync(target, deps, options.sync ?? {}, {
      logOnlyChanges: true,
      // The hourly sync writes its row whatever it finds: the Sync log shows the watch is alive.
      ...(verdict.hourly ? { logNote: idleNote(watch, options.intervalText) } : {}),
    })
  } catch (error) {
    if (error instanceof TimelineSheetsError && error.code === 'TS_LOCKED') {
      return { kind: 'locked', reason: verdict.reason, message: error.message, requests }
    }
    // What the sync left is unknown: the next interval syncs in full.
    watch.memory = undefined
    throw error
  }
  const finished = now().getTime()
  const unfinished = summary.imported.result === 'incomplete' || summary.exported?.result === 'incomplete'
  const remembered = rememberSync(
    seen,
    {
      sheetWrites: deps.spreadsheet.requestCounts().writes - writesBefore,
      markAfterOwnWrite: deps.spreadsheet.markAfterOwnWrite?.(),
    },
    finished,
    watch.memory,
    watch.startedMs,
  )
  // Rows left for the next run: the next interval syncs whatever the check sees.
  watch.memory = unfinished ? { ...remembered, sheetMark: undefined } : remembered
  watch.idleChecks = 0
  watch.idleSinceMs = undefined
  return { kind: 'synced', reason: verdict.reason, hourly: verdict.hourly, summary, requests }
}

/** The idle check's observation: the spreadsheet's mark, then the timeline list (one request each). */
async function observe(target: TargetConfig, deps: ImportDeps, at: Date): Promise<{ seen: WatchObservation; requests: WatchRequests }> {
  const requests: WatchRequests = { spreadsheet: 0, timeline: 0 }
  let sheetMark: string | undefined
  if (deps.spreadsheet.changeMark) {
    requests.spreadsheet = deps.spreadsheet.changeMarkRequests ?? 1
    sheetMark = await deps.spreadsheet.changeMark()
  }
  const listed = await deps.client.listTimelines()
  requests.timeline = 1
  const timelines = new Map<string, string | undefined>()
  for (const timeline of watchedTimelines(listed, target, (name) => deps.client.vendor.schema(name))) {
    timelines.set(timeline.timelineKey, timelineVersion(timeline))
  }
  return { seen: { sheetMark, timelines, window: exportWindow(target, at).window }, requests }
}

/** The timelines a sync of the target reads: the Tags timelines it exports and those of its other tabs. */
function watchedTimelines(listed: TimelineInfo[], target: TargetConfig, schemaOf: (name: string) => string): TimelineInfo[] {
  const tags = exportedTimelines(
    listed.filter((t) => t.schemaName === schemaOf('Tags')),
    target,
  )
  const others = target.otherTimelines.flatMap((name) => timelinesOf(listed, schemaOf(name), target.users))
  return [...tags, ...others]
}

/** `Checked every 2 min since 10:02 UTC (30 checks): nothing changed.` */
function idleNote(watch: TargetWatch, intervalText: string | undefined): string {
  if (watch.idleChecks === 0 || watch.idleSinceMs === undefined) return 'Watching for changes: nothing changed this hour.'
  const since = new Date(watch.idleSinceMs).toISOString().slice(0, 16).replace('T', ' ')
  return `Watching${intervalText ? ` ${intervalText}` : ''}: ${watch.idleChecks} ${watch.idleChecks === 1 ? 'check' : 'checks'} since ${since} UTC found nothing changed.`
}
