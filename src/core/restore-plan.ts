/**
 * Putting an approved period back on the server (decisions/0026-approvals.md, `restore-approved`). Pure: what the
 * server holds now (a fresh read of the person's timeline over the period) is compared with the record, and each
 * difference the record's `changes` also holds, in the same words, is planned back: a PUT of the approved values,
 * a POST for an approved activity deleted, a DELETE for one added. A difference the record does not hold as it is
 * now was never shown to the manager, so it is refused rather than overwritten.
 */
import { toInput, type ActivityInput } from './activity.ts'
import { serverChangesSince, recordedOf } from './approvals-changes.ts'
import { compareText, periodKey, type Approval, type ApprovalChange, type ApprovedActivity } from './approvals.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'
import { describeInput } from './describe.ts'
import { fingerprintOf } from './fingerprint.ts'
import { notesCellText, SHORTENED_MARKER } from './notes-cell.ts'
import type { ServerActivity } from './row-context.ts'
import { localDateToSerial } from './serial.ts'
import { sheetTimesToInterval } from './sheet-times.ts'
import { cellsToTags, combineTags } from './tags.ts'

export type RestoreItem =
  | {
      kind: 'restore'
      key: string
      timelineKey: string
      entityId: number
      user: string
      input: ActivityInput
      fingerprint: string
      current: ServerActivity
      what: string
      reason: string
    }
  | {
      kind: 'recreate'
      key: string
      timelineKey: string
      user: string
      input: ActivityInput
      fingerprint: string
      what: string
      reason: string
    }
  | {
      kind: 'delete'
      key: string
      timelineKey: string
      entityId: number
      user: string
      current: ServerActivity
      what: string
      reason: string
    }
  /** Changed on the server in a way the record does not hold (or cannot be put back from it): left alone. */
  | { kind: 'conflict'; key: string; what: string; reason: string }

export type RestoreWriteItem = Extract<RestoreItem, { kind: 'restore' | 'recreate' | 'delete' }>

export interface RestorePlanInput {
  approval: Approval
  timelineKey: string
  /** The person's timeline as read now over the period (and a day either side): key → activity. */
  server: ReadonlyMap<string, ServerActivity>
  timeZone: string
  dayStart?: DayStart
}

export interface RestorePlan {
  /** The writes, and what is refused; none when the server holds the period as approved. */
  items: RestoreItem[]
  /** Approved activities the server holds again under another id: the record's Key follows. */
  twins: { approvedKey: string; key: string }[]
}

/** The writes that put the approved period back, and what is refused. */
export function planRestore(input: RestorePlanInput): RestorePlan {
  const { approval, timelineKey, timeZone } = input
  const dayStart = input.dayStart ?? MIDNIGHT
  const user = approval.user
  const mine = [...input.server.entries()].filter(([key]) => key.startsWith(`${timelineKey}/`))
  // What differs now, in the record's own words: the export's comparison on this read, from a clean record.
  const clean = new Map([[periodKey(user, approval.period.id), { ...approval, changes: [] }]])
  const timeline = { timelineKey, ownerUsername: user }
  const seen = serverChangesSince(clean, [{ mode: 'full', timeline, activities: mine.map(([, s]) => s.activity) }], timeZone, dayStart)
  const now = new Map((seen.changed[0]?.changes ?? []).map((c) => [c.key, c]))
  // A full read shows no deletion by id: an approved activity the read does not hold is gone from these days.
  for (const a of approval.activities) if (!input.server.has(a.key)) now.set(a.key, { key: a.key, what: 'deleted', seconds: -a.seconds })
  const recorded = new Map(approval.changes.map((c) => [c.key, c]))
  const approved = new Map(approval.activities.map((a) => [a.key, a]))
  // An approved activity deleted and an added one holding its values (a restore killed after its POST, or a person
  // who typed it again) is the approved activity under a new id: nothing to write, and no second copy.
  const twins: { approvedKey: string; key: string }[] = []
  for (const [key, change] of now) {
    const current = input.server.get(key)
    if (change.what !== 'added' || !current) continue
    const shown = recordedOf(current.activity, user, timeZone, dayStart)
    const twin = approval.activities.find((a) => now.get(a.key)?.what === 'deleted' && sameValues(a, shown))
    if (!twin) continue
    now.delete(key)
    now.delete(twin.key)
    twins.push({ approvedKey: twin.key, key })
  }

  const items: RestoreItem[] = []
  for (const [key, change] of [...now].sort(([a], [b]) => compareText(a, b))) {
    const current = input.server.get(key)
    const was = approved.get(key)
    const what = current ? describeInput(toInput(current.activity)) : was ? `${was.date} ${was.start} ${was.tags}` : key
    const record = recorded.get(key)
    if (!record || !sameChange(record, change)) {
      items.push({
        kind: 'conflict',
        key,
        what,
        reason: `Changed on the server since the last sync saw it (now: ${change.what}; the approval row showed ${record ? record.what : 'nothing'}), so it is left alone. Run sync, check the approval row, then run restore-approved again.`,
      })
      continue
    }
    const entityId = Number(key.slice(key.indexOf('/') + 1))
    if (change.what === 'added' && current) {
      items.push({
        kind: 'delete',
        key,
        timelineKey,
        entityId,
        user,
        current,
        what,
        reason: 'Added on the server after approval: deleted.',
      })
    } else if (change.what === 'deleted' && was) {
      const values = approvedInput(was, undefined, timeZone, dayStart)
      if (typeof values === 'string') items.push({ kind: 'conflict', key, what, reason: `${UNREADABLE[values]} Create it by hand.` })
      else
        items.push({
          kind: 'recreate',
          key,
          timelineKey,
          user,
          input: values,
          fingerprint: fingerprintOf({ user, activity: values }),
          what,
          reason: 'Deleted on the server after approval: created again (it gets a new id).',
        })
    } else if (current && was) {
      const values = approvedInput(was, current, timeZone, dayStart)
      if (typeof values === 'string') items.push({ kind: 'conflict', key, what, reason: `${UNREADABLE[values]} Put it back by hand.` })
      else
        items.push({
          kind: 'restore',
          key,
          timelineKey,
          entityId,
          user,
          input: values,
          fingerprint: fingerprintOf({ user, activity: values }),
          current,
          what,
          reason: `Changed on the server after approval (${change.what}): the approved values are put back.`,
        })
    } else {
      items.push({ kind: 'conflict', key, what, reason: `Not on the days read (${change.what}); put it back by hand.` })
    }
  }
  return { items, twins }
}

function sameValues(a: ApprovedActivity, b: ApprovedActivity): boolean {
  return (
    a.date === b.date && a.start === b.start && a.seconds === b.seconds && a.tags === b.tags && a.labels === b.labels && a.notes === b.notes
  )
}

/** Why the record cannot be written back as it is. */
const UNREADABLE = {
  times: 'The record cannot be read back into a start and duration.',
  notes: 'The record holds only the beginning of its long notes; writing it would cut them short on the server.',
}

function sameChange(a: ApprovalChange, b: ApprovalChange): boolean {
  return a.what === b.what && a.seconds === b.seconds
}

/**
 * The approved values as a write sends them. The record keeps what the cells showed (a Start to the minute,
 * shortened notes), so a field that still reads as approved keeps the server's own value.
 */
function approvedInput(
  was: ApprovedActivity,
  current: ServerActivity | undefined,
  timeZone: string,
  dayStart: DayStart,
): ActivityInput | keyof typeof UNREADABLE {
  const shown = current && recordedOf(current.activity, current.user, timeZone, dayStart)
  const keep = current ? toInput(current.activity) : undefined
  let start = keep?.start
  if (!shown || shown.date !== was.date || shown.start !== was.start) {
    const [h, m, s] = was.start.split(':').map(Number)
    if (h === undefined || m === undefined || Number.isNaN(h) || Number.isNaN(m)) return 'times'
    const fraction = (h * 3600 + m * 60 + (s ?? 0)) / 86_400
    const read = sheetTimesToInterval(
      { date: localDateToSerial(was.date), start: fraction, end: fraction },
      timeZone,
      keep ? { start: keep.start } : undefined,
      dayStart,
    )
    if (!read.ok) return 'times'
    start = read.start
  }
  const duration = shown && shown.seconds === was.seconds ? keep!.duration : was.seconds
  const tags = shown && shown.tags === was.tags && shown.labels === was.labels ? keep!.tags : combineTags(cellsToTags(was.tags, was.labels))
  const notes = keep && notesCellText(keep.notes) === was.notes ? keep.notes : was.notes === '' ? undefined : was.notes
  // Only the beginning of long notes is on record: writing it would cut the notes short on the server.
  if (notes?.endsWith(SHORTENED_MARKER)) return 'notes'
  return { tags, notes, start: start!, duration }
}
