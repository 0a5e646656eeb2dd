/**
 * A change on the server after approval is never silent (decisions/0026-approvals.md): what an export read of a
 * person's timeline (the activities each changed timeline returned, and the ids it deleted) is compared with the
 * record of each of that person's approved periods, by Key and by whether the activity's day lies in the period,
 * and what differs is kept in the record, so later runs show it too.
 */
import { compareText, periodKey, periodRowsOf, type Approval, type ApprovalChange, type ApprovedActivity } from './approvals.ts'
import type { Activity } from './activity.ts'
import type { TimelineDelta } from './export-plan.ts'
import { inPeriod } from './periods.ts'
import { activityToCells } from './row-write.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'
import type { CellValue } from './sheet.ts'

/** An activity as the record would have kept it had the sheet shown it as the server has it. */
export function recordedOf(activity: Activity, user: string, timeZone: string, dayStart: DayStart = MIDNIGHT): ApprovedActivity {
  // The day as the Date column shows it (dayStartsAt), which is what the record holds.
  const cells: Record<string, CellValue> = activityToCells(activity, user, timeZone, '', undefined, dayStart)
  const header = Object.keys(cells)
  const index = Object.fromEntries(header.map((h, i) => [h, i]))
  const tab = { title: '', exists: true, header, rows: [header.map((h) => cells[h] ?? null)], gridRowCount: 2 }
  const rows = periodRowsOf(tab, index, 'week', { ownerOfKey: () => user, userOfCell: () => user })
  return [...rows.values()][0]!.activities[0]!
}

/** What differs between an activity at approval and now, in column names; empty when nothing does. */
function differences(was: ApprovedActivity, now: ApprovedActivity): string[] {
  const out: string[] = []
  if (was.date !== now.date || was.start !== now.start) out.push('Start')
  if (was.seconds !== now.seconds) out.push('Duration')
  if (was.tags !== now.tags) out.push('Tags')
  if (was.labels !== now.labels) out.push('Labels')
  if (was.notes !== now.notes) out.push('Notes')
  return out
}

/**
 * The records with what the server's deltas changed in their periods. A change undone on the server (the
 * activity back as approved) leaves the record's changes again.
 */
export function serverChangesSince(
  approvals: ReadonlyMap<string, Approval>,
  deltas: readonly TimelineDelta[],
  timeZone: string,
  dayStart: DayStart = MIDNIGHT,
): { approvals: Map<string, Approval>; changed: Approval[] } {
  const out = new Map(approvals)
  const changed: Approval[] = []
  if (approvals.size === 0) return { approvals: out, changed }
  for (const delta of deltas) {
    const user = delta.timeline.ownerUsername
    const mine = [...out.values()].filter((a) => a.user.toLowerCase() === user.toLowerCase())
    if (mine.length === 0) continue
    const seen = [...delta.activities, ...(delta.mode === 'incremental' ? (delta.lookBack?.activities ?? []) : [])]
    const nowByKey = new Map(seen.map((a) => [`${a.timelineKey}/${a.entityId}`, recordedOf(a, user, timeZone, dayStart)]))
    const deleted = new Set(delta.mode === 'incremental' ? delta.deletedIds.map((id) => `${delta.timeline.timelineKey}/${id}`) : [])
    for (const approval of mine) {
      const changes = new Map(approval.changes.map((c) => [c.key, c]))
      const was = new Map(approval.activities.map((a) => [a.key, a]))
      for (const [key, now] of nowByKey) {
        const before = was.get(key)
        const inside = inPeriod(now.date, approval.period)
        if (!before && !inside) continue
        const change: ApprovalChange | undefined = !before
          ? { key, what: 'added', seconds: now.seconds }
          : !inside
            ? { key, what: 'moved out of the period', seconds: -before.seconds }
            : differenceChange(key, before, now)
        if (change) changes.set(key, change)
        else changes.delete(key)
      }
      for (const key of deleted) {
        const before = was.get(key)
        if (before) changes.set(key, { key, what: 'deleted', seconds: -before.seconds })
        // An activity added since approval and deleted again leaves the period as approved.
        else changes.delete(key)
      }
      const next = [...changes.values()].sort((a, b) => compareText(a.key, b.key))
      if (JSON.stringify(next) === JSON.stringify(approval.changes)) continue
      const updated = { ...approval, changes: next }
      out.set(periodKey(approval.user, approval.period.id), updated)
      changed.push(updated)
    }
  }
  return { approvals: out, changed }
}

function differenceChange(key: string, before: ApprovedActivity, now: ApprovedActivity): ApprovalChange | undefined {
  const what = differences(before, now)
  return what.length ? { key, what: what.join(', '), seconds: now.seconds - before.seconds } : undefined
}
