/**
 * `undo <run-id>` for one target: revert what one import (or sync, or undo)
 * run applied, from its journal. Like import it plans first against the
 * current server and writes only what is still safe: an activity someone
 * changed since the run is a conflict and is left alone. The undo's own
 * writes are journaled like an import's (command 'undo'), so an undo killed
 * half-way can simply be run again, and an undo can itself be undone.
 *
 * The plan itself is the core's (src/core/undo-plan.ts).
 *
 * Longer than most files because it wires one whole run (journal read, server reads, writes, the sheet's
 * follow-up, the report); the decisions are in core.
 */
import { activityChanges, describeChanges, whenOf, type FieldChange } from '../core/changes.ts'
import { parseDayStart, type DayStart } from '../core/day-start.ts'
import { describeInput } from '../core/describe.ts'
import type { ServerActivity } from '../core/row-context.ts'
import { activityKey } from '../core/activity-key.ts'
import { isEmptyWrite } from '../core/sheet-writes.ts'
import { syncLogRow } from '../core/sync-log.ts'
import type { TimeWindow } from '../core/windows.ts'
import { planUndo, startDatesOf, undoReadRanges, type UndoItem, type UndoWriteItem } from '../core/undo-plan.ts'
import { TimelineSheetsError } from '../errors.ts'
import {
  closeJournal,
  journalExists,
  journalFile,
  openJournal,
  readJournal,
  recentJournals,
  unfinishedJournals,
  type JournalRun,
  type RecentRun,
} from '../state/journal.ts'
import { stateLocation } from '../state/target-state.ts'
import type { TargetConfig } from '../config/schema.ts'
import type { EngineDeps } from './deps.ts'
import { runExport, type ExportSummary } from './export.ts'
import { withRun, type RunFrame } from './run.ts'
import { readEach, readRanged } from './server-reads.ts'
import { putBackWrite, sendJournaled, writeTimeline, type CrashPoints, type JournaledWrite } from './server-writer.ts'

export interface UndoDeps extends Omit<EngineDeps, 'lockHeld'> {
  /** Asked before anything is written (a terminal prompt); resolves true to apply. Absent: apply. */
  confirm?: (plan: UndoPlanView) => Promise<boolean>
}

export interface UndoOptions {
  dryRun?: boolean
  /** Export the target afterwards so the sheet shows the reverted state. @default true */
  export?: boolean
}

export interface UndoPlanView {
  target: string
  /** The run being undone. */
  undoes: string
  command: string
  /** The journal of that run has no end: the run was killed (or is being finished). */
  unfinished: boolean
  /** `user`: the owner of the activity's timeline (its key when the timeline cannot be read); `what` names its date. */
  writes: { kind: 'delete' | 'restore' | 'recreate'; key: string; user: string; what: string; reason: string; changes?: FieldChange[] }[]
  nothing: { key: string | undefined; user: string | undefined; what: string; reason: string }[]
  conflicts: { key: string; user: string | undefined; what: string; reason: string }[]
  manual: { key: string | undefined; user: string | undefined; what: string; reason: string }[]
}

export interface UndoSummary {
  target: string
  runId: string
  undoes: string
  dryRun: boolean
  applied: boolean
  result: 'success' | 'partial'
  plan: UndoPlanView
  counts: { deleted: number; restored: number; recreated: number; conflicts: number; manual: number; failed: number }
  /** Writes that did not go through, with the reason. */
  failures: { key: string; what: string; reason: string }[]
  /** The full export that follows an applied undo; its result is its own and never the undo's (it has its own Sync log row). */
  exported: ExportSummary | undefined
  /** Why that export failed, when it did: the undo stands, and a plain `export --full` shows it in the sheet. */
  exportFailure: string | undefined
  spreadsheet: string
}

/** The newest runs that left a journal in this target's folder, newest first. */
export function recentRuns(stateDir: string, target: string, limit = 10): Promise<RecentRun[]> {
  return recentJournals(stateLocation(stateDir, target).journalFolder, limit)
}

/** True when the target's journal folder holds this run. */
export function hasJournal(stateDir: string, target: string, runId: string): Promise<boolean> {
  return journalExists(stateLocation(stateDir, target).journalFolder, runId)
}

/** The TS_USAGE error for a run id this target has no journal of, listing the recent ones. */
export async function unknownRunError(stateDir: string, target: string, runId: string): Promise<TimelineSheetsError> {
  const recent = await recentRuns(stateDir, target)
  const list = recent.length
    ? recent.map((r) => `  ${r.runId}  ${r.command}${r.ended ? '' : ' (unfinished)'}`).join('\n')
    : '  (none: no import has written to the server for this target yet)'
  return new TimelineSheetsError(
    'TS_USAGE',
    `No run "${runId}" in the journal of target ${target}. The most recent runs that wrote to the server:\n${list}`,
    {
      hint: 'Run ids are in the Sync log tab and in the output of import and sync (--json: runId). Only runs that wrote to the server can be undone.',
    },
  )
}

/** Reverts one run's server writes for a target, then (by default) exports so the sheet shows the result. */
export async function runUndo(target: TargetConfig, undoRunId: string, deps: UndoDeps, options: UndoOptions = {}): Promise<UndoSummary> {
  if (!(await hasJournal(deps.stateDir, target.name, undoRunId))) throw await unknownRunError(deps.stateDir, target.name, undoRunId)
  return withRun(target, deps, { command: 'undo', dryRun: Boolean(options.dryRun) }, (frame) =>
    undoInFrame(target, undoRunId, deps, options, frame),
  )
}

async function undoInFrame(
  target: TargetConfig,
  undoRunId: string,
  deps: UndoDeps,
  options: UndoOptions,
  frame: RunFrame,
): Promise<UndoSummary> {
  const { runId, startedAt, now, location } = frame
  const run = await readJournal(journalFile(location.journalFolder, undoRunId))
  if (!run.ended)
    deps.reporter.warn(
      `The run ${undoRunId} did not finish (it was killed or is being finished by the next import); writes without an answer are left for a person.`,
    )

  // The server now, around the days the run touched.
  const tagsTimelines = await deps.client.tagsTimelines()
  const timelineByKey = new Map(tagsTimelines.map((t) => [t.timelineKey, t]))
  const owners = new Map<string, string>()
  const server = new Map<string, ServerActivity>()
  const rangesByTimeline = new Map<string, TimeWindow[]>()
  const dayStart = parseDayStart(target.dayStartsAt)
  const touched = [...startDatesOf(run, target.timeZone, dayStart)].flatMap(([timelineKey, dates]) => {
    const timeline = timelineByKey.get(timelineKey)
    return timeline ? [{ timeline, ranges: undoReadRanges(target.timeZone, dates, dayStart) }] : []
  })
  // Timelines at once (the client's pace bounds the requests); what they hold is taken in the run's order.
  const reads = await readEach(touched, ({ timeline, ranges }) => readRanged(deps.client, timeline, ranges))
  for (const [i, { timeline, ranges }] of touched.entries()) {
    owners.set(timeline.timelineKey, timeline.ownerUsername)
    rangesByTimeline.set(timeline.timelineKey, ranges)
    for (const a of reads[i]!) server.set(activityKey(timeline.timelineKey, a.entityId), { activity: a, user: timeline.ownerUsername })
  }

  let items = planUndo({ run, server, owners })
  const view = () => planView(target.name, run, items, owners, target.timeZone, dayStart)

  if (options.dryRun) return summary({ applied: false, items, failures: [], exported: undefined })
  const writes = items.filter(isWrite)
  if (deps.confirm && writes.length > 0 && !(await deps.confirm(view())))
    return summary({ applied: false, items, failures: [], exported: undefined })

  const interrupted = (await unfinishedJournals(location.journalFolder)).filter(
    (r) => r.command === 'undo' && r.undoes === undoRunId && r.runId !== runId,
  )
  const journal = await openJournal(location.journalFolder, runId, 'undo', now, { undoes: undoRunId })
  const failures: UndoSummary['failures'] = []
  const done: UndoWriteItem[] = []
  /** The latest plan of each timeline (a concurrency rejection plans one timeline again). */
  const latest = new Map<string | undefined, UndoItem[]>()
  for (const i of items) latest.set(i.timelineKey, [...(latest.get(i.timelineKey) ?? []), i])
  let count = 0
  for (const timelineKey of new Set(writes.map((w) => w.timelineKey))) {
    const timeline = timelineByKey.get(timelineKey)!
    await writeTimeline<UndoWriteItem, void>((latest.get(timelineKey) ?? []).filter(isWrite), {
      timeline,
      doing: 'undoing',
      ranges: rangesByTimeline.get(timelineKey)!,
      client: deps.client,
      reporter: deps.reporter,
      send: async (item) => {
        await sendJournaled(undoWrite(item), timeline, deps.client, journal, UNDO_CRASH_POINTS)
        done.push(item)
      },
      failed: (item, error) => {
        failures.push({ key: itemKey(item), what: itemWhat(item), reason: errorText(error) })
      },
      // Someone else wrote to this timeline meanwhile: decide afresh, from the run's journal, what is left.
      redecide: (_rest, fresh) => {
        for (const key of [...server.keys()]) if (key.startsWith(`${timelineKey}/`)) server.delete(key)
        for (const [key, s] of fresh) server.set(key, s)
        const planned = planUndo({ run, server, owners }).filter((i) => i.timelineKey === timelineKey)
        latest.set(timelineKey, planned)
        return { retry: planned.filter(isWrite), settled: [] }
      },
      onSent: () => deps.reporter.progress('Undoing on the server', ++count, writes.length),
    })
  }
  deps.reporter.endProgress()
  // What happened: the writes made, and each timeline's latest word on the rest (minus what this run itself settled).
  items = [...done, ...[...latest.values()].flat().filter((i) => !isWrite(i) && !(i.kind === 'nothing' && alreadyDone(i, done)))]

  const result: UndoSummary['result'] =
    failures.length + items.filter((i) => i.kind === 'conflict' || i.kind === 'manual').length > 0 ? 'partial' : 'success'
  const counts = countOf(items, done, failures)
  const message = `undo of ${undoRunId}: deleted ${counts.deleted}, put back ${counts.restored}, created again ${counts.recreated}, conflicts ${counts.conflicts}, by hand ${counts.manual}, failed ${counts.failed}`

  // The Sync log says that this run happened (the export that follows adds its own row).
  const logSnapshot = await deps.spreadsheet.read([target.tabs.syncLog])
  if (logSnapshot.tabs[target.tabs.syncLog]?.exists) {
    const write = {
      tab: target.tabs.syncLog,
      appends: [
        syncLogRow({
          when: startedAt,
          timeZone: target.timeZone,
          runId,
          command: 'undo',
          result,
          counts: {
            created: counts.recreated,
            updated: counts.restored,
            deleted: counts.deleted,
            conflicts: counts.conflicts,
            invalid: 0,
            waiting: 0,
            failed: counts.failed,
          },
          message,
        }),
      ],
    }
    if (!isEmptyWrite(write)) await deps.spreadsheet.write([write], logSnapshot)
  }
  await frame.save(result, message)
  await journal.end(result, `undo of ${undoRunId}`)
  for (const earlier of interrupted) await closeJournal(earlier.file, `finished by ${runId}`, now())

  let exported: ExportSummary | undefined
  let exportFailure: string | undefined
  if (options.export !== false) {
    deps.reporter.info(`Exporting ${target.name} so the sheet shows the reverted state`)
    // The undo is done and logged by now: a failing export must not make the command report a failed undo.
    try {
      // In full: an incremental read may not report the deletions an undo makes.
      exported = await runExport(
        target,
        { client: deps.client, spreadsheet: deps.spreadsheet, stateDir: deps.stateDir, reporter: deps.reporter, now, lockHeld: true },
        { full: true },
      )
    } catch (error) {
      exportFailure = errorText(error)
      deps.reporter.warn(
        `The undo is done, but the export afterwards failed: ${exportFailure} Run timeline-sheets export --full --target ${target.name}.`,
      )
    }
  }
  return summary({ applied: true, items, failures, exported, exportFailure, done })

  function summary(s: {
    applied: boolean
    items: UndoItem[]
    failures: UndoSummary['failures']
    exported: ExportSummary | undefined
    exportFailure?: string
    done?: UndoWriteItem[]
  }): UndoSummary {
    const counts = countOf(s.items, s.done ?? [], s.failures)
    // The undo's own outcome, the same the Sync log row and the run state record; the export reports its own.
    const needsPerson = counts.conflicts + counts.manual + counts.failed > 0
    return {
      target: target.name,
      runId,
      undoes: undoRunId,
      dryRun: Boolean(options.dryRun),
      applied: s.applied,
      result: needsPerson ? 'partial' : 'success',
      plan: planView(target.name, run, s.items, owners, target.timeZone, parseDayStart(target.dayStartsAt)),
      counts,
      failures: s.failures,
      exported: s.exported,
      exportFailure: s.exportFailure,
      spreadsheet: deps.spreadsheet.describe(),
    }
  }
}

const UNDO_CRASH_POINTS: CrashPoints = { before: 'undo:before-write', after: 'undo:after-write', recorded: 'undo:after-write-recorded' }

/** An undo item as the journaled write it is; the activity as read now is what the journal keeps as `before`. */
function undoWrite(item: UndoWriteItem): JournaledWrite {
  const before: ServerActivity | undefined =
    item.kind === 'recreate'
      ? undefined
      : { activity: { ...item.current, timelineKey: item.timelineKey, entityId: item.entityId, isActive: undefined }, user: item.user }
  return putBackWrite(item, before)
}

function isWrite(i: UndoItem): i is UndoWriteItem {
  return i.kind === 'delete' || i.kind === 'restore' || i.kind === 'recreate'
}

function alreadyDone(i: Extract<UndoItem, { kind: 'nothing' }>, done: UndoWriteItem[]): boolean {
  for (const d of done)
    if (d.timelineKey === i.timelineKey && (d.kind === 'recreate' ? d.formerEntityId : d.entityId) === i.entityId) return true
  return false
}

function countOf(items: UndoItem[], done: UndoWriteItem[], failures: UndoSummary['failures']): UndoSummary['counts'] {
  return {
    deleted: done.filter((d) => d.kind === 'delete').length,
    restored: done.filter((d) => d.kind === 'restore').length,
    recreated: done.filter((d) => d.kind === 'recreate').length,
    conflicts: items.filter((i) => i.kind === 'conflict').length,
    manual: items.filter((i) => i.kind === 'manual').length,
    failed: failures.length,
  }
}

function itemKey(item: UndoWriteItem): string {
  return activityKey(item.timelineKey, item.kind === 'recreate' ? item.formerEntityId : item.entityId)
}

function itemWhat(item: UndoWriteItem): string {
  return describeInput(item.kind === 'delete' ? item.current : item.input)
}

function errorText(error: unknown): string {
  return error instanceof TimelineSheetsError ? `${error.message}${error.hint ? ` ${error.hint}` : ''}` : String(error)
}

function planView(
  target: string,
  run: JournalRun,
  items: UndoItem[],
  owners: ReadonlyMap<string, string>,
  timeZone: string,
  dayStart: DayStart,
): UndoPlanView {
  const key = (i: { timelineKey: string | undefined; entityId: number | undefined }) =>
    i.timelineKey !== undefined && i.entityId !== undefined ? activityKey(i.timelineKey, i.entityId) : undefined
  const user = (i: { timelineKey: string | undefined }) =>
    i.timelineKey === undefined ? undefined : (owners.get(i.timelineKey) ?? i.timelineKey)
  const command = run.undoes ? `undo of ${run.undoes}` : run.command
  const view: UndoPlanView = {
    target,
    undoes: run.runId,
    command,
    unfinished: !run.ended,
    writes: [],
    nothing: [],
    conflicts: [],
    manual: [],
  }
  for (const i of items) {
    if (i.kind === 'restore') {
      const changes = activityChanges(i.current, i.input, timeZone, dayStart)
      view.writes.push({
        kind: i.kind,
        key: itemKey(i),
        user: i.user,
        what: `${whenOf(i.current, timeZone, dayStart)}: ${describeChanges(changes)}`,
        reason: i.reason,
        changes,
      })
    } else if (i.kind === 'delete' || i.kind === 'recreate')
      view.writes.push({ kind: i.kind, key: itemKey(i), user: i.user, what: itemWhat(i), reason: i.reason })
    else if (i.kind === 'nothing') view.nothing.push({ key: key(i), user: user(i), what: i.what, reason: i.reason })
    else if (i.kind === 'conflict') view.conflicts.push({ key: key(i)!, user: user(i), what: i.what, reason: i.reason })
    else view.manual.push({ key: key(i), user: user(i), what: i.what, reason: i.reason })
  }
  return view
}
