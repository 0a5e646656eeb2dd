/** An import's server writes: timelines side by side, each through the journaled writer (server-writer.ts). */
import { withServerVersion } from '../core/describe.ts'
import { fingerprintOf } from '../core/fingerprint.ts'
import type { ServerActivity } from '../core/row-context.ts'
import type { TimeWindow } from '../core/windows.ts'
import type { BaseFingerprints } from '../core/plan.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { Journal } from '../state/journal.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { TimelineInfo } from '../timeline/model.ts'
import type { Reporter } from './reporter.ts'
import { sendJournaled, writeTimeline, type CrashPoints, type JournaledWrite } from './server-writer.ts'
import type { ServerWrite, WriteOutcome } from '../core/server-writes.ts'
import type { DayStart } from '../core/day-start.ts'

interface ApplyContext {
  timeZone: string
  /** The hour the target's days start at (day-start.ts). */
  dayStart: DayStart
  client: TimelineClient
  journal: Journal
  server: Map<string, ServerActivity>
  base: BaseFingerprints
  timelineByKey: Map<string, TimelineInfo>
  rangesByTimeline: Map<string, TimeWindow[]>
  concurrency: number
  reporter: Reporter
}

export async function applyServerWrites(
  writes: ServerWrite[],
  adoptions: Map<number, ServerActivity>,
  ctx: ApplyContext,
): Promise<WriteOutcome[]> {
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

function applyTimeline(timelineKey: string, writes: ServerWrite[], ctx: ApplyContext): Promise<WriteOutcome[]> {
  const timeline = ctx.timelineByKey.get(timelineKey)
  return writeTimeline<ServerWrite, WriteOutcome>(writes, {
    timeline,
    doing: 'importing',
    ranges: ctx.rangesByTimeline.get(timelineKey) ?? [],
    client: ctx.client,
    reporter: ctx.reporter,
    send: async (w) => {
      const activity = await sendJournaled(
        journaled(w, ctx.server),
        timeline ?? w.timelineKey,
        ctx.client,
        ctx.journal,
        importCrashPoints(w),
      )
      return activity && (w.kind === 'import-post' || w.kind === 'import-put')
        ? { decision: w, status: 'done', activity, user: w.user }
        : { decision: w, status: 'done' }
    },
    failed: failure,
    redecide: (rest, fresh) => {
      // A create is not about any activity another writer could have touched; an update or a delete goes
      // ahead only if the activity is as this run read it.
      const retry: ServerWrite[] = []
      const settled: WriteOutcome[] = []
      for (const w of rest) {
        const before = w.kind === 'import-post' ? undefined : ctx.server.get(w.key)
        const now = w.kind === 'import-post' ? undefined : fresh.get(w.key)
        if (w.kind === 'import-post' || (before && now && fingerprintOf(before) === fingerprintOf(now)) || (!before && !now)) retry.push(w)
        else
          settled.push({
            decision: w,
            status: 'conflict',
            message: withServerVersion(
              'Changed on the server while this import ran, so your edit was not saved and is kept here.',
              now?.activity,
              ctx.timeZone,
              ctx.dayStart,
            ),
          })
      }
      for (const [k, v] of fresh) ctx.server.set(k, v)
      return { retry, settled }
    },
  })
}

/** An import decision as the journaled write it is. */
function journaled(w: ServerWrite, server: ReadonlyMap<string, ServerActivity>): JournaledWrite {
  switch (w.kind) {
    case 'import-post':
      return {
        op: 'post',
        timelineKey: w.timelineKey,
        user: w.user,
        input: w.input,
        fingerprint: w.fingerprint,
        ...(w.pending ? { pending: w.pending } : {}),
      }
    case 'import-put':
      return {
        op: 'put',
        timelineKey: w.timelineKey,
        entityId: w.entityId,
        user: w.user,
        input: w.input,
        fingerprint: w.fingerprint,
        before: server.get(w.key),
      }
    case 'import-delete':
    case 'import-delete-missing': {
      const before = server.get(w.key)
      return { op: 'delete', timelineKey: w.timelineKey, entityId: w.entityId, user: before?.user, before }
    }
  }
}

function importCrashPoints(w: ServerWrite): CrashPoints {
  const op = w.kind === 'import-post' ? 'post' : w.kind === 'import-put' ? 'put' : 'delete'
  return { before: `import:before-${op}` as const, after: `import:after-${op}` as const, recorded: `import:after-${op}-recorded` as const }
}

export function failure(w: ServerWrite, error: unknown): WriteOutcome {
  const message = error instanceof TimelineSheetsError ? `${error.message}${error.hint ? ` ${error.hint}` : ''}` : String(error)
  return { decision: w, status: 'failed', message: `Not saved: ${message}` }
}
