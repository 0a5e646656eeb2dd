/**
 * The one way the tool changes the server, for import and undo alike: each write recorded in the run's
 * journal before it is sent and after it answered (so a run killed anywhere is finished, never repeated
 * blindly, by the next), a delete of an activity already gone counted as done, and the writes of one
 * timeline sent in order and decided again on a fresh read when another writer got there first.
 */
import { toInput, type Activity, type ActivityInput } from '../core/activity.ts'
import { fingerprintOf } from '../core/fingerprint.ts'
import type { ServerActivity } from '../core/row-context.ts'
import { activityKey } from '../core/activity-key.ts'
import type { TimeWindow } from '../core/windows.ts'
import { ConcurrencyError, TimelineSheetsError } from '../errors.ts'
import type { Journal } from '../state/journal.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { TimelineInfo } from '../timeline/model.ts'
import { crashPoint, type CrashPointName } from './crash-points.ts'
import type { Reporter } from './reporter.ts'
import { readRanged } from './server-reads.ts'

/** One write to the server. `before` is the activity as the run last read it (put, delete), for undo. */
export type JournaledWrite =
  | { op: 'post'; timelineKey: string; user: string; input: ActivityInput; fingerprint: string; pending?: string }
  | {
      op: 'put'
      timelineKey: string
      entityId: number
      user: string
      input: ActivityInput
      fingerprint: string
      before: ServerActivity | undefined
    }
  | { op: 'delete'; timelineKey: string; entityId: number; user: string | undefined; before: ServerActivity | undefined }

/** A write that puts an activity back as it was (undo, restore-approved): remove it, write old values over it, or create it again. */
export type PutBack =
  | { kind: 'delete'; timelineKey: string; entityId: number; user: string }
  | { kind: 'restore'; timelineKey: string; entityId: number; user: string; input: ActivityInput; fingerprint: string }
  | { kind: 'recreate'; timelineKey: string; user: string; input: ActivityInput; fingerprint: string }

/** A put-back as the journaled write it is; `before` is the activity as read now, which the journal keeps. */
export function putBackWrite(item: PutBack, before: ServerActivity | undefined): JournaledWrite {
  switch (item.kind) {
    case 'delete':
      return { op: 'delete', timelineKey: item.timelineKey, entityId: item.entityId, user: item.user, before }
    case 'restore':
      return {
        op: 'put',
        timelineKey: item.timelineKey,
        entityId: item.entityId,
        user: item.user,
        input: item.input,
        fingerprint: item.fingerprint,
        before,
      }
    case 'recreate':
      return { op: 'post', timelineKey: item.timelineKey, user: item.user, input: item.input, fingerprint: item.fingerprint }
  }
}

/** Where a run may be made to die around one write (tests): before it is sent, after the answer, after the journal recorded it. */
export interface CrashPoints {
  before: CrashPointName
  after: CrashPointName
  recorded: CrashPointName
}

/** Sends one write, journaled; resolves with the activity the server answered (post, put). */
export async function sendJournaled(
  write: JournaledWrite,
  timeline: TimelineInfo | string,
  client: TimelineClient,
  journal: Journal,
  points: CrashPoints,
): Promise<Activity | undefined> {
  const before =
    write.op === 'post'
      ? {}
      : write.before
        ? { before: toInput(write.before.activity), beforeFingerprint: fingerprintOf(write.before) }
        : {}
  switch (write.op) {
    case 'post':
    case 'put': {
      const id = await journal.intend(
        write.op === 'post'
          ? { ...intendedSave(write), ...(write.pending ? { pending: write.pending } : {}) }
          : { ...intendedSave(write), entityId: write.entityId, ...before },
      )
      crashPoint(points.before)
      const answer =
        write.op === 'post'
          ? await client.createActivity(timeline, write.input)
          : await client.updateActivity(timeline, write.entityId, write.input)
      const activity = answer.activity!
      crashPoint(points.after)
      await journal.done(id, {
        entityId: activity.entityId,
        fingerprint: fingerprintOf({ activity, user: write.user }),
        after: toInput(activity),
      })
      crashPoint(points.recorded)
      return activity
    }
    case 'delete': {
      const id = await journal.intend({
        op: 'delete',
        timelineKey: write.timelineKey,
        entityId: write.entityId,
        user: write.user,
        ...before,
      })
      crashPoint(points.before)
      try {
        await client.deleteActivity(timeline, write.entityId)
      } catch (error) {
        // Already gone (a repeat after a lost answer): the wish is fulfilled.
        if (!(error instanceof TimelineSheetsError && error.code === 'TS_NOT_FOUND')) throw error
      }
      crashPoint(points.after)
      await journal.done(id, { entityId: write.entityId })
      crashPoint(points.recorded)
      return undefined
    }
  }
}

/** What the journal records of a post or put before it is sent. */
function intendedSave(write: Extract<JournaledWrite, { op: 'post' | 'put' }>) {
  return { op: write.op, timelineKey: write.timelineKey, user: write.user, fingerprint: write.fingerprint, input: toInput(write.input) }
}

/** How many times one timeline's remaining writes are decided again after another writer got there first. */
export const MAX_REDECIDE_ROUNDS = 3

export interface TimelineWrites<W, O> {
  timeline: TimelineInfo | undefined
  /** What the run is doing, for the operator: "importing", "undoing". */
  doing: string
  /** Sends one write (through `sendJournaled`); a `ConcurrencyError` starts a new round. */
  send(write: W): Promise<O>
  /** What becomes of a write that failed for good. */
  failed(write: W, error: unknown): O
  /**
   * After a rejection: the writes not sent yet, decided again on `fresh` (the timeline read again) — those
   * to send in the next round, and what becomes of the others.
   */
  redecide(rest: W[], fresh: Map<string, ServerActivity>): { retry: W[]; settled: O[] }
  /** The ranges of the timeline the run read, to read again. */
  ranges: TimeWindow[]
  client: TimelineClient
  reporter: Reporter
  onSent?: () => void
}

/** Sends one timeline's writes in order; re-reads and decides again, a few rounds at most, when the timeline changed under it. */
export async function writeTimeline<W, O>(writes: W[], ctx: TimelineWrites<W, O>): Promise<O[]> {
  const outcomes: O[] = []
  let pending = [...writes]
  for (let round = 0; pending.length > 0; round++) {
    let retry: W[] = []
    for (const [i, w] of pending.entries()) {
      try {
        outcomes.push(await ctx.send(w))
        ctx.onSent?.()
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || round >= MAX_REDECIDE_ROUNDS || !ctx.timeline) {
          outcomes.push(ctx.failed(w, error))
          ctx.onSent?.()
          continue
        }
        // Another writer changed this timeline: read it again, then decide afresh what is left.
        ctx.reporter.info(`The timeline of ${ctx.timeline.ownerUsername} changed while ${ctx.doing}; re-reading it.`)
        const fresh = new Map<string, ServerActivity>()
        for (const a of await readRanged(ctx.client, ctx.timeline, ctx.ranges))
          fresh.set(activityKey(ctx.timeline.timelineKey, a.entityId), { activity: a, user: ctx.timeline.ownerUsername })
        const next = ctx.redecide(pending.slice(i), fresh)
        for (const o of next.settled) outcomes.push(o)
        retry = next.retry
        break
      }
    }
    pending = retry
  }
  return outcomes
}
