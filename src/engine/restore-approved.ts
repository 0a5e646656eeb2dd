/**
 * `restore-approved` for one person's approved period (decisions/0026-approvals.md): the approved values put back
 * on the server where it changed them since approval. Planned on a fresh read of that person's timeline (the
 * record alone is not trusted), written through the journal as undo writes, behind the target's wall. The record
 * then holds no changes for what was put back, and the next sync writes the values into the sheet.
 */
import { activityKey } from '../core/activity-key.ts'
import { compareText, parsePeriodId, periodKey, type Approval } from '../core/approvals.ts'
import { parseDayStart } from '../core/day-start.ts'
import { describeInput } from '../core/describe.ts'
import { planRestore, type RestoreItem, type RestoreWriteItem } from '../core/restore-plan.ts'
import type { ServerActivity } from '../core/row-context.ts'
import { addDays } from '../core/serial.ts'
import { syncLogRow } from '../core/sync-log.ts'
import { scopeOfTarget } from '../core/target-scope.ts'
import { chunkWindows } from '../core/windows.ts'
import type { TargetConfig } from '../config/schema.ts'
import { TimelineSheetsError } from '../errors.ts'
import { loadApprovals, saveApprovals } from '../state/approvals-store.ts'
import { closeJournal, openJournal, unfinishedJournals } from '../state/journal.ts'
import type { EngineDeps } from './deps.ts'
import { withRun } from './run.ts'
import { readRanged } from './server-reads.ts'
import { crashPoint } from './crash-points.ts'
import { putBackWrite, sendJournaled, writeTimeline, type CrashPoints, type JournaledWrite } from './server-writer.ts'
import { withinTarget } from './target-wall.ts'

export const RESTORE_COMMAND = 'restore-approved'

export interface RestoreDeps extends Omit<EngineDeps, 'lockHeld'> {
  /** Asked before anything is written (a terminal prompt); resolves true to apply. Absent: apply. */
  confirm?: (plan: RestorePlanView) => Promise<boolean>
}

export interface RestorePlanView {
  target: string
  user: string
  period: string
  approvedBy: string
  writes: { kind: 'restore' | 'recreate' | 'delete'; key: string; what: string; reason: string }[]
  conflicts: { key: string; what: string; reason: string }[]
}

export interface RestoreSummary {
  target: string
  runId: string
  dryRun: boolean
  applied: boolean
  result: 'success' | 'partial'
  plan: RestorePlanView
  counts: { restored: number; recreated: number; deleted: number; conflicts: number; failed: number }
  failures: { key: string; what: string; reason: string }[]
}

export async function runRestoreApproved(
  target: TargetConfig,
  who: { user: string; period: string },
  deps: RestoreDeps,
  options: { dryRun?: boolean } = {},
): Promise<RestoreSummary> {
  if (!target.approvals)
    throw new TimelineSheetsError('TS_USAGE', `Target ${target.name} takes no approvals, so there is nothing approved to restore.`, {
      hint: 'Approvals are turned on per target with "approvals": { "period": "week" } (decisions/0026).',
    })
  const kind = target.approvals.period
  const period = parsePeriodId(who.period, kind)
  if (!period)
    throw new TimelineSheetsError('TS_USAGE', `"${who.period}" is not a ${kind === 'week' ? 'week like 2026-W45' : 'month like 2026-11'}.`)
  return withRun(target, deps, { command: RESTORE_COMMAND, dryRun: Boolean(options.dryRun) }, async (frame) => {
    const { runId, now, location } = frame
    const record = await loadApprovals(location.folder, target.name)
    const id = periodKey(who.user, period.id)
    const approval = record.approvals.get(id)
    if (!approval)
      throw new TimelineSheetsError('TS_USAGE', `${who.user}'s ${period.id} is not approved on target ${target.name}.`, {
        hint: 'Only an approved period can be restored; timeline-sheets report lists the approvals.',
      })
    // Every write of this run goes through the wall, as the import's do.
    const tagsScope = scopeOfTarget(target)
    const client = withinTarget(deps.client, target, tagsScope.scope, tagsScope.edits)
    const timeline = (await client.tagsTimelines()).find((t) => t.ownerUsername.toLowerCase() === approval.user.toLowerCase())
    if (!timeline)
      throw new TimelineSheetsError('TS_USAGE', `The signed-in account sees no Tags timeline of ${approval.user}; nothing was restored.`)
    const dayStart = parseDayStart(target.dayStartsAt)
    // The period with a day either side: an activity moved just out of it is still found.
    const from = addDays(approval.period.from, -1)
    const days = Math.round((Date.parse(`${approval.period.to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 2
    const ranges = chunkWindows(target.timeZone, from, days, 7, dayStart)
    const serverOf = async () => {
      const server = new Map<string, ServerActivity>()
      for (const a of await readRanged(client, timeline, ranges))
        server.set(activityKey(timeline.timelineKey, a.entityId), { activity: a, user: timeline.ownerUsername })
      return server
    }
    const planOn = (server: Map<string, ServerActivity>) =>
      planRestore({ approval, timelineKey: timeline.timelineKey, server, timeZone: target.timeZone, dayStart })
    let plan = planOn(await serverOf())
    const view = (items: RestoreItem[]) => planView(target.name, approval, items)
    const summary = (applied: boolean, items: RestoreItem[], done: RestoreWriteItem[], failures: RestoreSummary['failures']) => {
      const conflicts = items.filter((i) => i.kind === 'conflict').length
      return {
        target: target.name,
        runId,
        dryRun: Boolean(options.dryRun),
        applied,
        result: conflicts + failures.length > 0 ? ('partial' as const) : ('success' as const),
        plan: view(items),
        counts: {
          restored: done.filter((d) => d.kind === 'restore').length,
          recreated: done.filter((d) => d.kind === 'recreate').length,
          deleted: done.filter((d) => d.kind === 'delete').length,
          conflicts,
          failed: failures.length,
        },
        failures,
      }
    }
    const writes = plan.items.filter(isWrite)
    if (options.dryRun) return summary(false, plan.items, [], [])
    if (deps.confirm && writes.length > 0 && !(await deps.confirm(view(plan.items)))) return summary(false, plan.items, [], [])

    const interrupted = (await unfinishedJournals(location.journalFolder)).filter((r) => r.command === RESTORE_COMMAND && r.runId !== runId)
    const journal = await openJournal(location.journalFolder, runId, RESTORE_COMMAND, now)
    const done: RestoreWriteItem[] = []
    const created = new Map<string, string>()
    const failures: RestoreSummary['failures'] = []
    let refused: RestoreItem[] = plan.items.filter((i) => !isWrite(i))
    await writeTimeline<RestoreWriteItem, void>(writes, {
      timeline,
      doing: 'restoring the approved period',
      ranges,
      client,
      reporter: deps.reporter,
      send: async (item) => {
        const answer = await sendJournaled(restoreWrite(item), timeline, client, journal, RESTORE_CRASH_POINTS)
        if (item.kind === 'recreate' && answer) created.set(item.key, activityKey(timeline.timelineKey, answer.entityId))
        done.push(item)
      },
      failed: (item, error) => {
        failures.push({ key: item.key, what: item.what, reason: error instanceof Error ? error.message : String(error) })
      },
      // Someone wrote to the timeline meanwhile: decide afresh on what it holds now; what changed again is refused.
      redecide: (_rest, fresh) => {
        plan = planOn(fresh)
        refused = plan.items.filter((i) => !isWrite(i))
        return { retry: plan.items.filter(isWrite), settled: [] }
      },
    })

    // The record: what was put back holds no change any more; a re-created activity is the approved one under its new id.
    const settled = new Set(done.map((d) => d.key))
    const rename = new Map([...plan.twins.map((t) => [t.approvedKey, t.key] as const), ...created])
    for (const t of plan.twins) settled.add(t.approvedKey).add(t.key)
    // A change the read no longer shows (put back by a run killed before it saved the record, or by hand) is gone.
    const planned = new Set(plan.items.map((i) => i.key))
    for (const c of approval.changes) if (!planned.has(c.key)) settled.add(c.key)
    const next: Approval = {
      ...approval,
      activities: approval.activities.map((a) => ({ ...a, key: rename.get(a.key) ?? a.key })).sort((a, b) => compareText(a.key, b.key)),
      changes: approval.changes.filter((c) => !settled.has(c.key)),
    }
    const result: RestoreSummary['result'] = refused.length + failures.length > 0 ? 'partial' : 'success'
    if (settled.size > 0) {
      record.approvals.set(id, next)
      record.history.push({
        at: frame.startedAt.toISOString(),
        runId,
        event: 'restored',
        user: approval.user,
        period: period.id,
        by: approval.approvedBy,
      })
      await saveApprovals(location.folder, record)
      crashPoint('restore:after-record-save')
    }
    const message = `restore-approved of ${approval.user}'s ${period.id}: put back ${done.filter((d) => d.kind === 'restore').length}, created again ${created.size}, deleted ${done.filter((d) => d.kind === 'delete').length}, refused ${refused.length}, failed ${failures.length}`
    // The Sync log says that this run happened, as an undo's does; the next sync adds its own row.
    const logSnapshot = await deps.spreadsheet.read([target.tabs.syncLog])
    if (logSnapshot.tabs[target.tabs.syncLog]?.exists) {
      const counts = {
        created: created.size,
        updated: 0,
        deleted: 0,
        conflicts: refused.length,
        invalid: 0,
        waiting: 0,
        failed: failures.length,
      }
      for (const d of done) if (d.kind === 'restore') counts.updated++
      for (const d of done) if (d.kind === 'delete') counts.deleted++
      const row = syncLogRow({ when: frame.startedAt, timeZone: target.timeZone, runId, command: RESTORE_COMMAND, result, counts, message })
      await deps.spreadsheet.write([{ tab: target.tabs.syncLog, appends: [row] }], logSnapshot)
    }
    await frame.save(result, message)
    await journal.end(result, message)
    for (const earlier of interrupted) await closeJournal(earlier.file, `finished by ${runId}`, now())
    return summary(true, [...done, ...refused], done, failures)
  })
}

const RESTORE_CRASH_POINTS: CrashPoints = {
  before: 'restore:before-write',
  after: 'restore:after-write',
  recorded: 'restore:after-write-recorded',
}

/** A restore item as the journaled write it is; the activity as read now is what the journal keeps as `before`. */
function restoreWrite(item: RestoreWriteItem): JournaledWrite {
  return putBackWrite(item, item.kind === 'recreate' ? undefined : item.current)
}

function isWrite(i: RestoreItem): i is RestoreWriteItem {
  return i.kind !== 'conflict'
}

function planView(target: string, approval: Approval, items: RestoreItem[]): RestorePlanView {
  const view: RestorePlanView = {
    target,
    user: approval.user,
    period: approval.period.id,
    approvedBy: approval.approvedBy,
    writes: [],
    conflicts: [],
  }
  for (const i of items) {
    if (i.kind === 'conflict') view.conflicts.push({ key: i.key, what: i.what, reason: i.reason })
    else
      view.writes.push({
        kind: i.kind,
        key: i.key,
        what: i.kind === 'delete' ? i.what : `${i.what} → ${describeInput(i.input)}`,
        reason: i.reason,
      })
  }
  return view
}
