/**
 * `undo <run-id>` for one target: revert what one import (or sync, or undo)
 * run applied, from its journal. Like import it plans first against the
 * current server and writes only what is still safe: an activity someone
 * changed since the run is a conflict and is left alone. The undo's own
 * writes are journaled like an import's (command 'undo'), so an undo killed
 * half-way can simply be run again, and an undo can itself be undone.
 *
 * Planning is state-based, not history-based: a re-created activity is
 * recognised by its values, a restored one by its old fingerprint, a deleted
 * one by its absence. That is what makes a second undo a no-op.
 */
import { access, readdir } from 'node:fs/promises'
import { fingerprint } from '../core/fingerprint.ts'
import { fingerprintOf } from '../core/plan.ts'
import { activityKey, type ServerActivity } from '../core/rows.ts'
import { addDays, chunkWindows, localDateOf, parseOffsetInstant, type TimeWindow } from '../core/time.ts'
import { ConcurrencyError, TimelineSheetsError } from '../errors.ts'
import { closeJournal, journalFile, openJournal, readJournal, unfinishedJournals, type DoneRecord, type IntentRecord, type Journal, type JournalRun } from '../state/journal.ts'
import { acquireLock, type Lock } from '../state/lock.ts'
import { loadState, saveState, stateLocation } from '../state/target-state.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { Activity, ActivityInput, TimelineInfo } from '../timeline/model.ts'
import type { TargetConfig } from '../config/schema.ts'
import { runExport, newRunId, type ExportSummary } from './export.ts'
import { crashPoint } from './crash-points.ts'
import type { EngineDeps } from './deps.ts'
import { isEmptyWrite } from '../core/sheet-writes.ts'
import { syncLogRow } from '../core/sync-log.ts'

// ---------------------------------------------------------------- the pure plan

/** One line of an undo plan: a write to make, or why nothing is written. */
export type UndoItem =
  | { kind: 'delete'; timelineKey: string; entityId: number; user: string; current: ActivityInput; currentFingerprint: string; reason: string }
  | { kind: 'restore'; timelineKey: string; entityId: number; user: string; input: ActivityInput; fingerprint: string; current: ActivityInput; currentFingerprint: string; reason: string }
  | { kind: 'recreate'; timelineKey: string; formerEntityId: number; user: string; input: ActivityInput; fingerprint: string; reason: string }
  /** Already as before the run (gone, restored, re-created): nothing to write. */
  | { kind: 'nothing'; timelineKey: string | undefined; entityId: number | undefined; what: string; reason: string }
  /** Changed by someone since the run: left alone. */
  | { kind: 'conflict'; timelineKey: string; entityId: number; what: string; reason: string }
  /** Cannot be undone from the journal (allowed tags, a write without answer, no copy): a person checks it. */
  | { kind: 'manual'; timelineKey: string | undefined; entityId: number | undefined; what: string; reason: string }

export type UndoWriteItem = Extract<UndoItem, { kind: 'delete' | 'restore' | 'recreate' }>

export interface UndoPlanInput {
  /** The journal of the run to undo. */
  run: Pick<JournalRun, 'writes' | 'ended' | 'records'>
  /** The current server, for the timelines that were read: key → activity. */
  server: ReadonlyMap<string, ServerActivity>
  /** Timelines that could be read now: timelineKey → owner's username. */
  owners: ReadonlyMap<string, string>
}

type JournalValues = NonNullable<IntentRecord['input']>

function values(v: JournalValues | undefined): ActivityInput | undefined {
  return v && { tags: [...v.tags], notes: v.notes, start: v.start, duration: v.duration }
}

/** A state of one activity: its values (when the journal has them) and fingerprint. */
interface Side {
  input: ActivityInput | undefined
  fingerprint: string | undefined
}

interface Group {
  timelineKey: string
  entityId: number
  steps: { intent: IntentRecord; done: DoneRecord }[]
}

/**
 * Plans the undo of one run. Pure. Every completed write (intent + done) is
 * reverted against the current server: what the run created is deleted, what
 * it updated is put back, what it deleted is created again (a new id). The
 * writes of one activity are folded first (the first `before` against the
 * last `after`), so a run that touched an activity twice is undone once.
 */
export function planUndo(input: UndoPlanInput): UndoItem[] {
  const items: UndoItem[] = []
  const groups = new Map<string, Group>()
  const completedKeys = new Set<string>()
  const recovered = input.run.records.some((r) => r.type === 'end' && r.result === 'recovered')
  const runStopped = !input.run.ended || recovered

  for (const { intent, outcome } of input.run.writes) {
    if (intent.op === 'tags') {
      if (outcome?.type === 'done') {
        items.push({ kind: 'manual', timelineKey: undefined, entityId: undefined, what: 'allowed tags list', reason: 'The run replaced the allowed tags list; the journal keeps only fingerprints of it, so it cannot be put back. Restore the Allowed tags tab by hand and run import.' })
      }
      continue
    }
    const timelineKey = intent.timelineKey
    if (timelineKey === undefined) continue
    const entityId = outcome?.type === 'done' ? (outcome.entityId ?? intent.entityId) : intent.entityId
    if (outcome?.type !== 'done') continue
    if (entityId === undefined) {
      items.push({ kind: 'manual', timelineKey, entityId: undefined, what: describeIntent(intent), reason: 'The journal does not say which activity this write created; check it by hand.' })
      continue
    }
    const key = activityKey(timelineKey, entityId)
    completedKeys.add(key)
    const group = groups.get(key) ?? { timelineKey, entityId, steps: [] }
    group.steps.push({ intent, done: outcome })
    groups.set(key, group)
  }

  // Writes that never got an answer: failed (the run went on), or unknown (the run was killed there).
  for (const { intent, outcome } of input.run.writes) {
    if (intent.op === 'tags' || outcome !== undefined || intent.timelineKey === undefined) continue
    if (intent.entityId !== undefined && completedKeys.has(activityKey(intent.timelineKey, intent.entityId))) continue
    if (runStopped) {
      items.push({ kind: 'manual', timelineKey: intent.timelineKey, entityId: intent.entityId, what: describeIntent(intent), reason: 'The run was interrupted before the server answered this write, so it is unknown whether it happened; it is left alone. Check this activity by hand.' })
    } else {
      items.push({ kind: 'nothing', timelineKey: intent.timelineKey, entityId: intent.entityId, what: describeIntent(intent), reason: 'This write failed in that run; there is nothing to undo.' })
    }
  }

  const deleting = new Set<string>()
  const recreations: { group: Group; before: Side; owner: string }[] = []
  for (const [key, group] of groups) {
    const owner = input.owners.get(group.timelineKey)
    const first = group.steps[0]!
    const last = group.steps[group.steps.length - 1]!
    const what = describeSteps(group)
    if (owner === undefined) {
      items.push({ kind: 'manual', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: `The timeline ${group.timelineKey} is not visible to the signed-in account any more; nothing was undone there.` })
      continue
    }
    const before: Side | undefined = first.intent.op === 'post' ? undefined : { input: values(first.intent.before), fingerprint: first.intent.beforeFingerprint }
    const after: Side | undefined = last.intent.op === 'delete' ? undefined : { input: values(last.done.after), fingerprint: last.done.fingerprint }
    const current = input.server.get(key)
    const currentFp = current && fingerprintOf(current)
    const isSide = (side: Side) => currentFp !== undefined && (currentFp === side.fingerprint || (side.input !== undefined && currentFp === fingerprintFor(owner, side.input)))

    if (!before && !after) {
      items.push({ kind: 'nothing', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: 'Created and deleted by the same run; nothing to undo.' })
    } else if (!before && after) {
      if (!current) items.push({ kind: 'nothing', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: 'Created by the run and already gone from the server.' })
      else if (isSide(after)) {
        deleting.add(key)
        items.push({ kind: 'delete', timelineKey: group.timelineKey, entityId: group.entityId, user: owner, current: toInput(current.activity), currentFingerprint: currentFp!, reason: 'Created by the run: deleted.' })
      } else items.push({ kind: 'conflict', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: 'Created by the run, but changed on the server since, so it was not deleted. Delete it by hand if it should go.' })
    } else if (before && !before.input) {
      items.push({ kind: 'manual', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: 'The journal has no copy of this activity as it was before the run, so it cannot be put back; check it by hand.' })
    } else if (before && after) {
      if (!current) items.push({ kind: 'conflict', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: 'Updated by the run, but deleted (or moved to another day) on the server since, so it was not put back.' })
      else if (isSide(before)) items.push({ kind: 'nothing', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: 'Already back to its values from before the run.' })
      else if (isSide(after)) {
        items.push({ kind: 'restore', timelineKey: group.timelineKey, entityId: group.entityId, user: owner, input: before.input!, fingerprint: fingerprintFor(owner, before.input!), current: toInput(current.activity), currentFingerprint: currentFp!, reason: 'Updated by the run: its values from before the run are put back.' })
      } else items.push({ kind: 'conflict', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: 'Updated by the run, but changed on the server again since, so it was not put back. Compare it with the values before the run by hand.' })
    } else if (before) {
      recreations.push({ group, before, owner })
    }
  }

  // Re-create a deleted activity only once: an identical activity the run did not touch (an earlier undo's copy) counts.
  const claimed = new Set<string>()
  for (const { group, before, owner } of recreations) {
    const restored = before.input!
    const wanted = new Set([fingerprintFor(owner, restored), ...(before.fingerprint ? [before.fingerprint] : [])])
    let twin: string | undefined
    for (const [key, s] of input.server) {
      if (s.activity.timelineKey !== group.timelineKey || groups.has(key) || deleting.has(key) || claimed.has(key)) continue
      if (wanted.has(fingerprintOf(s))) {
        twin = key
        break
      }
    }
    const what = describeInput(restored)
    if (twin) {
      claimed.add(twin)
      items.push({ kind: 'nothing', timelineKey: group.timelineKey, entityId: group.entityId, what, reason: `Deleted by the run and already there again (${twin}).` })
    } else {
      items.push({ kind: 'recreate', timelineKey: group.timelineKey, formerEntityId: group.entityId, user: owner, input: restored, fingerprint: fingerprintFor(owner, restored), reason: 'Deleted by the run: created again (it gets a new id).' })
    }
  }
  return items
}

/** The fingerprint of values as the sheet and the journal carry them. */
export function fingerprintFor(user: string, input: ActivityInput): string {
  return fingerprint({ user, start: input.start, duration: input.duration, tags: input.tags, notes: input.notes })
}

/** Local days around which the run's activities sit, per timeline (their starts before and after the run). */
export function startDatesOf(run: Pick<JournalRun, 'writes'>, timeZone: string): Map<string, Set<string>> {
  const dates = new Map<string, Set<string>>()
  for (const { intent, outcome } of run.writes) {
    if (!intent.timelineKey) continue
    const set = dates.get(intent.timelineKey) ?? new Set<string>()
    for (const v of [intent.input, intent.before, outcome?.type === 'done' ? outcome.after : undefined]) {
      if (v) set.add(localDateOf(timeZone, parseOffsetInstant(v.start).epochSeconds))
    }
    if (set.size) dates.set(intent.timelineKey, set)
  }
  return dates
}

/** Read windows covering each day with a day either side, merged, in chunks of at most 7 days. */
export function undoReadRanges(timeZone: string, dates: Iterable<string>): TimeWindow[] {
  const sorted = [...new Set(dates)].sort()
  const spans: { from: string; to: string }[] = []
  for (const d of sorted) {
    const from = addDays(d, -1)
    const to = addDays(d, 2)
    const last = spans[spans.length - 1]
    if (last && from <= last.to) last.to = to > last.to ? to : last.to
    else spans.push({ from, to })
  }
  return spans.flatMap((s) => chunkWindows(timeZone, s.from, daysBetween(s.from, s.to), 7))
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)
}

function toInput(a: Activity): ActivityInput {
  return { tags: [...a.tags], notes: a.notes, start: a.start, duration: a.duration }
}

/** `2026-11-09 14:00 1:30 Globex, Migration` */
export function describeInput(input: ActivityInput): string {
  const hours = Math.floor(input.duration / 3600)
  const minutes = Math.round((input.duration % 3600) / 60)
  return `${input.start.replace('T', ' ').slice(0, 16)} ${hours}:${String(minutes).padStart(2, '0')} ${input.tags.join(', ')}`
}

function describeIntent(intent: IntentRecord): string {
  const v = intent.input ?? intent.before
  return v ? describeInput(values(v)!) : `${intent.op} (no values in the journal)`
}

function describeSteps(group: Group): string {
  const first = group.steps[0]!
  const v = first.intent.before ?? first.done.after ?? first.intent.input
  return v ? describeInput(values(v)!) : ''
}

// ---------------------------------------------------------------- running it

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
  writes: { kind: 'delete' | 'restore' | 'recreate'; key: string; what: string; reason: string }[]
  nothing: { key: string | undefined; what: string; reason: string }[]
  conflicts: { key: string; what: string; reason: string }[]
  manual: { key: string | undefined; what: string; reason: string }[]
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
  exported: ExportSummary | undefined
  spreadsheet: string
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
const MAX_REPLAN_ROUNDS = 3

/** The newest runs that left a journal in this target's folder, newest first. */
export async function recentRuns(stateDir: string, target: string, limit = 10): Promise<{ runId: string; command: string; ended: boolean }[]> {
  const folder = stateLocation(stateDir, target).journalFolder
  let names: string[]
  try {
    names = (await readdir(folder)).filter((n) => n.endsWith('.jsonl')).sort().reverse().slice(0, limit)
  } catch {
    return []
  }
  const out: { runId: string; command: string; ended: boolean }[] = []
  for (const name of names) {
    try {
      const run = await readJournal(journalFile(folder, name.slice(0, -'.jsonl'.length)))
      out.push({ runId: run.runId, command: run.undoes ? `undo of ${run.undoes}` : run.command, ended: run.ended })
    } catch {
      out.push({ runId: name.slice(0, -'.jsonl'.length), command: 'unreadable', ended: false })
    }
  }
  return out
}

/** True when the target's journal folder holds this run. */
export async function hasJournal(stateDir: string, target: string, runId: string): Promise<boolean> {
  if (!RUN_ID.test(runId)) return false
  try {
    await access(journalFile(stateLocation(stateDir, target).journalFolder, runId))
    return true
  } catch {
    return false
  }
}

/** The TS_USAGE error for a run id this target has no journal of, listing the recent ones. */
export async function unknownRunError(stateDir: string, target: string, runId: string): Promise<TimelineSheetsError> {
  const recent = await recentRuns(stateDir, target)
  const list = recent.length ? recent.map((r) => `  ${r.runId}  ${r.command}${r.ended ? '' : ' (unfinished)'}`).join('\n') : '  (none: no import has written to the server for this target yet)'
  return new TimelineSheetsError('TS_USAGE', `No run "${runId}" in the journal of target ${target}. The most recent runs that wrote to the server:\n${list}`, {
    hint: 'Run ids are in the Sync log tab and in the output of import and sync (--json: runId). Only runs that wrote to the server can be undone.',
  })
}

/** Reverts one run's server writes for a target, then (by default) exports so the sheet shows the result. */
export async function runUndo(target: TargetConfig, undoRunId: string, deps: UndoDeps, options: UndoOptions = {}): Promise<UndoSummary> {
  const now = deps.now ?? (() => new Date())
  const startedAt = now()
  const runId = deps.runId ?? newRunId(startedAt)
  const location = stateLocation(deps.stateDir, target.name)
  if (!(await hasJournal(deps.stateDir, target.name, undoRunId))) throw await unknownRunError(deps.stateDir, target.name, undoRunId)

  const lock: Lock | undefined = options.dryRun ? undefined : await acquireLock(location.lockFile, { command: 'undo' })
  try {
    if (lock?.tookOver) deps.reporter.warn(`Took over a stale lock left by pid ${lock.tookOver.pid} (${lock.tookOver.command}).`)
    const run = await readJournal(journalFile(location.journalFolder, undoRunId))
    if (!run.ended) deps.reporter.warn(`The run ${undoRunId} did not finish (it was killed or is being finished by the next import); writes without an answer are left for a person.`)

    // The server now, around the days the run touched.
    const tagsTimelines = await deps.client.tagsTimelines()
    const timelineByKey = new Map(tagsTimelines.map((t) => [t.timelineKey, t]))
    const owners = new Map<string, string>()
    const server = new Map<string, ServerActivity>()
    const rangesByTimeline = new Map<string, TimeWindow[]>()
    for (const [timelineKey, dates] of startDatesOf(run, target.timeZone)) {
      const timeline = timelineByKey.get(timelineKey)
      if (!timeline) continue
      owners.set(timelineKey, timeline.ownerUsername)
      const ranges = undoReadRanges(target.timeZone, dates)
      rangesByTimeline.set(timelineKey, ranges)
      for (const s of await readTimeline(deps.client, timeline, ranges)) server.set(activityKey(timelineKey, s.activity.entityId), s)
    }

    let items = planUndo({ run, server, owners })
    const view = () => planView(target.name, run, items)

    if (options.dryRun) return summary({ applied: false, items, failures: [], exported: undefined })
    const writes = items.filter(isWrite)
    if (deps.confirm && writes.length > 0 && !(await deps.confirm(view()))) return summary({ applied: false, items, failures: [], exported: undefined })

    const interrupted = (await unfinishedJournals(location.journalFolder)).filter((r) => r.command === 'undo' && r.undoes === undoRunId && r.runId !== runId)
    const journal = await openJournal(location.journalFolder, runId, 'undo', now, { undoes: undoRunId })
    const failures: UndoSummary['failures'] = []
    const done: UndoWriteItem[] = []
    /** The latest plan of each timeline (a concurrency rejection re-plans one timeline). */
    const latest = new Map<string | undefined, UndoItem[]>()
    for (const i of items) latest.set(i.timelineKey, [...(latest.get(i.timelineKey) ?? []), i])
    let total = writes.length
    let count = 0
    for (const timelineKey of new Set(writes.map((w) => w.timelineKey))) {
      const timeline = timelineByKey.get(timelineKey)!
      let pending = (latest.get(timelineKey) ?? []).filter(isWrite)
      for (let round = 0; pending.length > 0; round++) {
        let replan = false
        for (const item of pending) {
          try {
            crashPoint('undo:before-write')
            await applyItem(item, timeline, deps.client, journal)
            done.push(item)
          } catch (error) {
            if (error instanceof ConcurrencyError && round < MAX_REPLAN_ROUNDS) {
              replan = true
              break
            }
            failures.push({ key: itemKey(item), what: itemWhat(item), reason: errorText(error) })
          }
          deps.reporter.progress('Undoing on the server', ++count, total)
        }
        if (!replan) break
        // Someone else wrote to this timeline meanwhile: read it again and decide what is left afresh.
        deps.reporter.info(`The timeline of ${timeline.ownerUsername} changed during the undo; re-reading it.`)
        for (const key of [...server.keys()]) if (key.startsWith(`${timelineKey}/`)) server.delete(key)
        for (const s of await readTimeline(deps.client, timeline, rangesByTimeline.get(timelineKey)!)) server.set(activityKey(timelineKey, s.activity.entityId), s)
        const fresh = planUndo({ run, server, owners }).filter((i) => i.timelineKey === timelineKey)
        latest.set(timelineKey, fresh)
        pending = fresh.filter(isWrite)
        total = count + pending.length
      }
    }
    deps.reporter.endProgress()
    // What happened: the writes made, and each timeline's latest word on the rest (minus what this run itself settled).
    items = [
      ...done,
      ...[...latest.values()].flat().filter((i) => !isWrite(i) && !(i.kind === 'nothing' && alreadyDone(i, done))),
    ]

    const result: UndoSummary['result'] = failures.length + items.filter((i) => i.kind === 'conflict' || i.kind === 'manual').length > 0 ? 'partial' : 'success'
    const counts = countOf(items, done, failures)
    const message = `undo of ${undoRunId}: deleted ${counts.deleted}, put back ${counts.restored}, created again ${counts.recreated}, conflicts ${counts.conflicts}, by hand ${counts.manual}, failed ${counts.failed}`

    // The Sync log says that this run happened (the export that follows adds its own row).
    const logSnapshot = await deps.spreadsheet.read([target.tabs.syncLog])
    if (logSnapshot.tabs[target.tabs.syncLog]?.exists) {
      const write = {
        tab: target.tabs.syncLog,
        appends: [syncLogRow({ when: startedAt, timeZone: target.timeZone, runId, command: 'undo', result, counts: { created: counts.recreated, updated: counts.restored, deleted: counts.deleted, conflicts: counts.conflicts, invalid: 0, waiting: 0 }, message })],
      }
      if (!isEmptyWrite(write)) await deps.spreadsheet.write([write], logSnapshot)
    }
    const { state } = await loadState(location, target.name)
    state.runs.push({ runId, command: 'undo', startedAt: startedAt.toISOString(), finishedAt: now().toISOString(), result, summary: message })
    await saveState(location, state)
    await journal.end(result, `undo of ${undoRunId}`)
    for (const earlier of interrupted) await closeJournal(earlier.file, `finished by ${runId}`, now())

    let exported: ExportSummary | undefined
    if (options.export !== false) {
      deps.reporter.info(`Exporting ${target.name} so the sheet shows the reverted state`)
      // In full: an incremental read may not report the deletions an undo makes.
      exported = await runExport(target, { client: deps.client, spreadsheet: deps.spreadsheet, stateDir: deps.stateDir, reporter: deps.reporter, now, lockHeld: true }, { full: true })
    }
    return summary({ applied: true, items, failures, exported, done })

    function summary(s: { applied: boolean; items: UndoItem[]; failures: UndoSummary['failures']; exported: ExportSummary | undefined; done?: UndoWriteItem[] }): UndoSummary {
      const counts = countOf(s.items, s.done ?? [], s.failures)
      const needsPerson = counts.conflicts + counts.manual + counts.failed > 0 || s.exported?.result === 'partial'
      return {
        target: target.name,
        runId,
        undoes: undoRunId,
        dryRun: Boolean(options.dryRun),
        applied: s.applied,
        result: needsPerson ? 'partial' : 'success',
        plan: planView(target.name, run, s.items),
        counts,
        failures: s.failures,
        exported: s.exported,
        spreadsheet: deps.spreadsheet.describe(),
      }
    }
  } finally {
    await lock?.release()
  }
}

function isWrite(i: UndoItem): i is UndoWriteItem {
  return i.kind === 'delete' || i.kind === 'restore' || i.kind === 'recreate'
}

function alreadyDone(i: Extract<UndoItem, { kind: 'nothing' }>, done: UndoWriteItem[]): boolean {
  for (const d of done) if (d.timelineKey === i.timelineKey && (d.kind === 'recreate' ? d.formerEntityId : d.entityId) === i.entityId) return true
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

async function readTimeline(client: TimelineClient, timeline: TimelineInfo, ranges: TimeWindow[]): Promise<ServerActivity[]> {
  const byId = new Map<number, Activity>()
  let first: { lastChangeId: string | undefined } | undefined
  for (const range of ranges) {
    const read = await client.readActivities(timeline, range)
    first ??= { lastChangeId: read.timeline.lastChangeId }
    for (const a of read.activities) byId.set(a.entityId, a)
  }
  // Writes must prove they saw the state of the FIRST read: a change between chunks comes back as a concurrency rejection.
  if (first) client.setLastChangeId(timeline.timelineKey, first.lastChangeId)
  return [...byId.values()].map((activity) => ({ activity, user: timeline.ownerUsername }))
}

async function applyItem(item: UndoWriteItem, timeline: TimelineInfo, client: TimelineClient, journal: Journal): Promise<void> {
  switch (item.kind) {
    case 'delete': {
      const id = await journal.intend({ op: 'delete', timelineKey: item.timelineKey, entityId: item.entityId, user: item.user, before: item.current, beforeFingerprint: item.currentFingerprint })
      try {
        await client.deleteActivity(timeline, item.entityId)
      } catch (error) {
        // Already gone (a repeat after a lost answer): the wish is fulfilled.
        if (!(error instanceof TimelineSheetsError && error.code === 'TS_NOT_FOUND')) throw error
      }
      crashPoint('undo:after-write')
      await journal.done(id, { entityId: item.entityId })
      return
    }
    case 'restore': {
      const id = await journal.intend({
        op: 'put', timelineKey: item.timelineKey, entityId: item.entityId, user: item.user, fingerprint: item.fingerprint, input: item.input,
        before: item.current, beforeFingerprint: item.currentFingerprint,
      })
      const activity = (await client.updateActivity(timeline, item.entityId, item.input)).activity!
      crashPoint('undo:after-write')
      await journal.done(id, { entityId: activity.entityId, fingerprint: fingerprintOf({ activity, user: item.user }), after: toInput(activity) })
      return
    }
    case 'recreate': {
      const id = await journal.intend({ op: 'post', timelineKey: item.timelineKey, user: item.user, fingerprint: item.fingerprint, input: item.input })
      const activity = (await client.createActivity(timeline, item.input)).activity!
      crashPoint('undo:after-write')
      await journal.done(id, { entityId: activity.entityId, fingerprint: fingerprintOf({ activity, user: item.user }), after: toInput(activity) })
      return
    }
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

function planView(target: string, run: JournalRun, items: UndoItem[]): UndoPlanView {
  const key = (i: { timelineKey: string | undefined; entityId: number | undefined }) => (i.timelineKey !== undefined && i.entityId !== undefined ? activityKey(i.timelineKey, i.entityId) : undefined)
  const view: UndoPlanView = { target, undoes: run.runId, command: run.undoes ? `undo of ${run.undoes}` : run.command, unfinished: !run.ended, writes: [], nothing: [], conflicts: [], manual: [] }
  for (const i of items) {
    if (i.kind === 'delete' || i.kind === 'restore' || i.kind === 'recreate') view.writes.push({ kind: i.kind, key: itemKey(i), what: itemWhat(i), reason: i.reason })
    else if (i.kind === 'nothing') view.nothing.push({ key: key(i), what: i.what, reason: i.reason })
    else if (i.kind === 'conflict') view.conflicts.push({ key: key(i)!, what: i.what, reason: i.reason })
    else view.manual.push({ key: key(i), what: i.what, reason: i.reason })
  }
  return view
}
