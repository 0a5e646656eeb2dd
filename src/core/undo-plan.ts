/**
 * The plan of `undo <run-id>`: what to write to revert what one run applied, decided against the server as
 * it is now, from that run's journal. Pure. State-based, not history-based: a re-created activity is
 * recognised by its values, a restored one by its old fingerprint, a deleted one by its absence — which
 * is what makes a second undo a no-op.
 *
 * Longer than most files because every case of undo (created, updated or deleted by the run × the server as it
 * is now) stands side by side, so a missing case shows.
 */
import { toInput, type ActivityInput } from './activity.ts'
import { describeInput } from './describe.ts'
import { fingerprintOf } from './fingerprint.ts'
import type { ServerActivity } from './row-context.ts'
import { activityKey } from './activity-key.ts'
import { chunkWindows, type TimeWindow } from './windows.ts'
import { activityDay, MIDNIGHT, type DayStart } from './day-start.ts'
import { addDays } from './serial.ts'

/** Values as a journal records them (src/state/journal.ts). */
interface RecordedValues {
  tags: string[]
  notes?: string | undefined
  start: string
  duration: number
}

/** A journal's record of a write about to be sent. */
export interface IntentRecord {
  op: 'post' | 'put' | 'delete' | 'tags'
  timelineKey?: string | undefined
  entityId?: number | undefined
  user?: string | undefined
  fingerprint?: string | undefined
  input?: RecordedValues | undefined
  before?: RecordedValues | undefined
  beforeFingerprint?: string | undefined
}

/** A journal's record of a write's answer. */
export interface DoneRecord {
  type: 'done'
  entityId?: number | undefined
  fingerprint?: string | undefined
  after?: RecordedValues | undefined
}

/** One run's journal, as the plan reads it. */
export interface RecordedRun {
  writes: readonly { intent: IntentRecord; outcome?: DoneRecord | { type: 'failed' } | undefined }[]
  ended: boolean
  records: readonly { type: string; result?: string }[]
}

/** One line of an undo plan: a write to make, or why nothing is written. */
export type UndoItem =
  | {
      kind: 'delete'
      timelineKey: string
      entityId: number
      user: string
      current: ActivityInput
      currentFingerprint: string
      reason: string
    }
  | {
      kind: 'restore'
      timelineKey: string
      entityId: number
      user: string
      input: ActivityInput
      fingerprint: string
      current: ActivityInput
      currentFingerprint: string
      reason: string
    }
  | {
      kind: 'recreate'
      timelineKey: string
      formerEntityId: number
      user: string
      input: ActivityInput
      fingerprint: string
      reason: string
    }
  /** Already as before the run (gone, restored, re-created): nothing to write. */
  | { kind: 'nothing'; timelineKey: string | undefined; entityId: number | undefined; what: string; reason: string }
  /** Changed by someone since the run: left alone. */
  | { kind: 'conflict'; timelineKey: string; entityId: number; what: string; reason: string }
  /** Cannot be undone from the journal (allowed tags, a write without answer, no copy): a person checks it. */
  | { kind: 'manual'; timelineKey: string | undefined; entityId: number | undefined; what: string; reason: string }

export type UndoWriteItem = Extract<UndoItem, { kind: 'delete' | 'restore' | 'recreate' }>

export interface UndoPlanInput {
  /** The journal of the run to undo. */
  run: RecordedRun
  /** The current server, for the timelines that were read: key → activity. */
  server: ReadonlyMap<string, ServerActivity>
  /** Timelines that could be read now: timelineKey → owner's username. */
  owners: ReadonlyMap<string, string>
}

function values(v: RecordedValues | undefined): ActivityInput | undefined {
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
        items.push({
          kind: 'manual',
          timelineKey: undefined,
          entityId: undefined,
          what: 'allowed tags list',
          reason:
            'The run replaced the allowed tags list; the journal keeps only fingerprints of it, so it cannot be put back. Restore the Allowed tags tab by hand and run import.',
        })
      }
      continue
    }
    const timelineKey = intent.timelineKey
    if (timelineKey === undefined) continue
    const entityId = outcome?.type === 'done' ? (outcome.entityId ?? intent.entityId) : intent.entityId
    if (outcome?.type !== 'done') continue
    if (entityId === undefined) {
      items.push({
        kind: 'manual',
        timelineKey,
        entityId: undefined,
        what: describeIntent(intent),
        reason: 'The journal does not say which activity this write created; check it by hand.',
      })
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
      items.push({
        kind: 'manual',
        timelineKey: intent.timelineKey,
        entityId: intent.entityId,
        what: describeIntent(intent),
        reason:
          'The run was interrupted before the server answered this write, so it is unknown whether it happened; it is left alone. Check this activity by hand.',
      })
    } else {
      items.push({
        kind: 'nothing',
        timelineKey: intent.timelineKey,
        entityId: intent.entityId,
        what: describeIntent(intent),
        reason: 'This write failed in that run; there is nothing to undo.',
      })
    }
  }

  const deleting = new Set<string>()
  const recreations: { group: Group; before: Side; owner: string }[] = []
  for (const [key, group] of groups) {
    const owner = input.owners.get(group.timelineKey)
    const first = group.steps[0]!
    const last = group.steps[group.steps.length - 1]!
    const what = describeSteps(group)
    // An item that only tells: nothing to do, a conflict, or work by hand.
    const note = (kind: 'nothing' | 'conflict' | 'manual', reason: string) =>
      items.push({ kind, timelineKey: group.timelineKey, entityId: group.entityId, what, reason })
    if (owner === undefined) {
      note('manual', `The timeline ${group.timelineKey} is not visible to the signed-in account any more; nothing was undone there.`)
      continue
    }
    const before: Side | undefined =
      first.intent.op === 'post' ? undefined : { input: values(first.intent.before), fingerprint: first.intent.beforeFingerprint }
    const after: Side | undefined =
      last.intent.op === 'delete' ? undefined : { input: values(last.done.after), fingerprint: last.done.fingerprint }
    const current = input.server.get(key)
    const currentFp = current && fingerprintOf(current)
    const isSide = (side: Side) =>
      currentFp !== undefined &&
      (currentFp === side.fingerprint || (side.input !== undefined && currentFp === fingerprintFor(owner, side.input)))

    if (!before && !after) {
      note('nothing', 'Created and deleted by the same run; nothing to undo.')
    } else if (!before && after) {
      if (!current) note('nothing', 'Created by the run and already gone from the server.')
      else if (isSide(after)) {
        deleting.add(key)
        items.push({
          kind: 'delete',
          timelineKey: group.timelineKey,
          entityId: group.entityId,
          user: owner,
          current: toInput(current.activity),
          currentFingerprint: currentFp!,
          reason: 'Created by the run: deleted.',
        })
      } else
        note('conflict', 'Created by the run, but changed on the server since, so it was not deleted. Delete it by hand if it should go.')
    } else if (before && !before.input) {
      note('manual', 'The journal has no copy of this activity as it was before the run, so it cannot be put back; check it by hand.')
    } else if (before && after) {
      if (!current)
        note('conflict', 'Updated by the run, but deleted (or moved to another day) on the server since, so it was not put back.')
      else if (isSide(before)) note('nothing', 'Already back to its values from before the run.')
      else if (isSide(after)) {
        items.push({
          kind: 'restore',
          timelineKey: group.timelineKey,
          entityId: group.entityId,
          user: owner,
          input: before.input!,
          fingerprint: fingerprintFor(owner, before.input!),
          current: toInput(current.activity),
          currentFingerprint: currentFp!,
          reason: 'Updated by the run: its values from before the run are put back.',
        })
      } else
        note(
          'conflict',
          'Updated by the run, but changed on the server again since, so it was not put back. Compare it with the values before the run by hand.',
        )
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
      items.push({
        kind: 'nothing',
        timelineKey: group.timelineKey,
        entityId: group.entityId,
        what,
        reason: `Deleted by the run and already there again (${twin}).`,
      })
    } else {
      items.push({
        kind: 'recreate',
        timelineKey: group.timelineKey,
        formerEntityId: group.entityId,
        user: owner,
        input: restored,
        fingerprint: fingerprintFor(owner, restored),
        reason: 'Deleted by the run: created again (it gets a new id).',
      })
    }
  }
  return items
}

/** The fingerprint of values as the sheet and the journal carry them. */
export function fingerprintFor(user: string, input: ActivityInput): string {
  return fingerprintOf({ user, activity: input })
}

/** Local days around which the run's activities sit, per timeline (their starts before and after the run). */
export function startDatesOf(run: Pick<RecordedRun, 'writes'>, timeZone: string, dayStart: DayStart = MIDNIGHT): Map<string, Set<string>> {
  const dates = new Map<string, Set<string>>()
  for (const { intent, outcome } of run.writes) {
    if (!intent.timelineKey) continue
    const set = dates.get(intent.timelineKey) ?? new Set<string>()
    for (const v of [intent.input, intent.before, outcome?.type === 'done' ? outcome.after : undefined]) {
      if (v) set.add(activityDay(v.start, timeZone, dayStart))
    }
    if (set.size) dates.set(intent.timelineKey, set)
  }
  return dates
}

/** Read windows covering each day with a day either side, merged, in chunks of at most 7 days. */
export function undoReadRanges(timeZone: string, dates: Iterable<string>, dayStart: DayStart = MIDNIGHT): TimeWindow[] {
  const sorted = [...new Set(dates)].sort()
  const spans: { from: string; to: string }[] = []
  for (const d of sorted) {
    const from = addDays(d, -1)
    const to = addDays(d, 2)
    const last = spans[spans.length - 1]
    if (last && from <= last.to) last.to = to > last.to ? to : last.to
    else spans.push({ from, to })
  }
  return spans.flatMap((s) => chunkWindows(timeZone, s.from, daysBetween(s.from, s.to), 7, dayStart))
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000)
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
