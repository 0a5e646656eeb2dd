/** Server writes of an import: journaled before and after, per timeline in order, re-decided after a concurrency rejection. */
import { withServerVersion } from '../core/describe.ts'
import { toInput } from '../core/activity.ts'
import { fingerprintOf } from '../core/fingerprint.ts'
import { activityKey, type ServerActivity } from '../core/rows.ts'
import type { TimeWindow } from '../core/time.ts'
import { ConcurrencyError, TimelineSheetsError } from '../errors.ts'
import type { Journal } from '../state/journal.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { TimelineInfo } from '../timeline/model.ts'
import type { Reporter } from './reporter.ts'
import { crashPoint } from './crash-points.ts'
import { readRanged } from './server-reads.ts'
import type { ServerWrite, WriteOutcome } from '../core/server-writes.ts'

interface ApplyContext {
  timeZone: string
  client: TimelineClient
  journal: Journal
  server: Map<string, ServerActivity>
  base: Record<string, string>
  timelineByKey: Map<string, TimelineInfo>
  rangesByTimeline: Map<string, TimeWindow[]>
  concurrency: number
  reporter: Reporter
}

export async function applyServerWrites(writes: ServerWrite[], adoptions: Map<number, ServerActivity>, ctx: ApplyContext): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = []
  const byTimeline = new Map<string, ServerWrite[]>()
  for (const w of writes) {
    if (w.kind === 'import-post' && adoptions.has(w.rowNumber)) {
      const s = adoptions.get(w.rowNumber)!
      outcomes.push({ decision: w, status: 'adopted', activity: s.activity, user: s.user })
      continue
    }
    byTimeline.set(w.timelineKey, [...(byTimeline.get(w.timelineKey) ?? []), w])
  }
  const queue = [...byTimeline.entries()]
  let done = 0
  const total = writes.length
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [timelineKey, list] = next
      for (const outcome of await applyTimeline(timelineKey, list, ctx)) {
        outcomes.push(outcome)
        ctx.reporter.progress('Writing to the server', ++done, total)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(ctx.concurrency, queue.length)) }, worker))
  ctx.reporter.endProgress()
  return outcomes
}

const MAX_REDECIDE_ROUNDS = 3

async function applyTimeline(timelineKey: string, writes: ServerWrite[], ctx: ApplyContext): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = []
  const timeline = ctx.timelineByKey.get(timelineKey)
  let pending = [...writes]
  for (let round = 0; pending.length > 0; round++) {
    const retry: ServerWrite[] = []
    for (const [i, w] of pending.entries()) {
      try {
        outcomes.push(await applyOne(w, timeline, ctx))
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || round >= MAX_REDECIDE_ROUNDS || !timeline) {
          outcomes.push(failure(w, error))
          continue
        }
        // Another writer changed this timeline: re-read, then re-decide what is left.
        ctx.reporter.info(`The timeline of ${timeline.ownerUsername} changed while importing; re-reading it.`)
        const fresh = new Map<string, ServerActivity>()
        for (const a of await readRanged(ctx.client, timeline, ctx.rangesByTimeline.get(timelineKey) ?? [])) fresh.set(activityKey(timelineKey, a.entityId), { activity: a, user: timeline.ownerUsername })
        for (const rest of pending.slice(i)) {
          if (rest.kind === 'import-post') {
            retry.push(rest)
            continue
          }
          const before = ctx.server.get(rest.key)
          const now = fresh.get(rest.key)
          const untouched = before && now && fingerprintOf(before) === fingerprintOf(now)
          if (untouched || (!before && !now)) retry.push(rest)
          else
            outcomes.push({
              decision: rest,
              status: 'conflict',
              message: withServerVersion('Changed on the server while this import ran, so your edit was not saved and is kept here.', now?.activity, ctx.timeZone),
            })
        }
        for (const [k, v] of fresh) ctx.server.set(k, v)
        break
      }
    }
    pending = retry
  }
  return outcomes
}

async function applyOne(w: ServerWrite, timeline: TimelineInfo | undefined, ctx: ApplyContext): Promise<WriteOutcome> {
  const ref = timeline ?? w.timelineKey
  const before = 'key' in w ? ctx.server.get(w.key) : undefined
  switch (w.kind) {
    case 'import-post': {
      const id = await ctx.journal.intend({ op: 'post', timelineKey: w.timelineKey, user: w.user, fingerprint: w.fingerprint, input: toInput(w.input), ...(w.pending ? { pending: w.pending } : {}) })
      crashPoint('import:before-post')
      const result = await ctx.client.createActivity(ref, w.input)
      crashPoint('import:after-post')
      const activity = result.activity!
      const fp = fingerprintOf({ activity, user: w.user })
      await ctx.journal.done(id, { entityId: activity.entityId, fingerprint: fp, after: toInput(activity) })
      crashPoint('import:after-post-recorded')
      return { decision: w, status: 'done', activity, user: w.user }
    }
    case 'import-put': {
      const id = await ctx.journal.intend({
        op: 'put', timelineKey: w.timelineKey, entityId: w.entityId, user: w.user, fingerprint: w.fingerprint, input: toInput(w.input),
        ...(before ? { before: toInput(before.activity), beforeFingerprint: fingerprintOf(before) } : {}),
      })
      crashPoint('import:before-put')
      const result = await ctx.client.updateActivity(ref, w.entityId, w.input)
      crashPoint('import:after-put')
      const activity = result.activity!
      await ctx.journal.done(id, { entityId: activity.entityId, fingerprint: fingerprintOf({ activity, user: w.user }), after: toInput(activity) })
      crashPoint('import:after-put-recorded')
      return { decision: w, status: 'done', activity, user: w.user }
    }
    case 'import-delete':
    case 'import-delete-missing': {
      const id = await ctx.journal.intend({
        op: 'delete', timelineKey: w.timelineKey, entityId: w.entityId, user: before?.user,
        ...(before ? { before: toInput(before.activity), beforeFingerprint: fingerprintOf(before) } : {}),
      })
      crashPoint('import:before-delete')
      try {
        await ctx.client.deleteActivity(ref, w.entityId)
      } catch (error) {
        // Already gone (a repeat after a lost answer): the wish is fulfilled.
        if (!(error instanceof TimelineSheetsError && error.code === 'TS_NOT_FOUND')) throw error
      }
      crashPoint('import:after-delete')
      await ctx.journal.done(id, { entityId: w.entityId })
      crashPoint('import:after-delete-recorded')
      return { decision: w, status: 'done' }
    }
  }
}

export function failure(w: ServerWrite, error: unknown): WriteOutcome {
  const message = error instanceof TimelineSheetsError ? `${error.message}${error.hint ? ` ${error.hint}` : ''}` : String(error)
  return { decision: w, status: 'failed', message: `Not saved: ${message}` }
}


