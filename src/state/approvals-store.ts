/**
 * The approved record (decisions/0026-approvals.md): every approval a target's managers gave, what each period held
 * then, and what changed on the server since, in `approvals.json` beside `state.json`. A file of its own, written
 * by the atomic writer, because it must outlive everything the sheet can lose (a restored `.bak`, a deleted tab,
 * a period sliding out of the window) and everything a state reset throws away (cursors, bases).
 */
import path from 'node:path'
import { z } from 'zod'
import type { Approval } from '../core/approvals.ts'
import { periodKey } from '../core/approvals.ts'
import { TimelineSheetsError } from '../errors.ts'
import { readFileAtomic, writeFileAtomic } from './atomic-file.ts'
import { withFileAccess } from './file-access.ts'

export const APPROVALS_FILE = 'approvals.json'

const localDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/)

const approval = z.strictObject({
  user: z.string().min(1),
  period: z.strictObject({ id: z.string().min(1), from: localDate, to: localDate }),
  approvedBy: z.string().min(1),
  approvedAt: z.string(),
  runId: z.string(),
  seconds: z.number(),
  activities: z.array(
    z.strictObject({
      key: z.string(),
      date: localDate,
      start: z.string(),
      seconds: z.number(),
      tags: z.string(),
      labels: z.string(),
      notes: z.string(),
    }),
  ),
  changes: z.array(z.strictObject({ key: z.string(), what: z.string(), seconds: z.number() })),
})

/** One approval or reopening, as the tool saw it: the audit trail a record alone does not keep. */
const event = z.strictObject({
  at: z.string(),
  runId: z.string(),
  event: z.enum(['approved', 'reopened', 'restored']),
  user: z.string(),
  period: z.string(),
  by: z.string(),
})

const approvalsFile = z.strictObject({
  version: z.literal(1),
  target: z.string(),
  approvals: z.array(approval),
  history: z.array(event),
})

export type ApprovalEvent = z.infer<typeof event>

export interface ApprovalsRecord {
  target: string
  /** By `periodKey(user, period id)`. */
  approvals: Map<string, Approval>
  history: ApprovalEvent[]
}

export function approvalsFileOf(stateFolder: string): string {
  return path.join(stateFolder, APPROVALS_FILE)
}

/** The record, or an empty one for a target that never approved anything. */
export async function loadApprovals(stateFolder: string, target: string): Promise<ApprovalsRecord> {
  const file = approvalsFileOf(stateFolder)
  const found = await withFileAccess({ what: 'the approvals record', file, action: 'read', setting: 'stateDir' }, () =>
    readFileAtomic(file),
  )
  if (!found) return { target, approvals: new Map(), history: [] }
  let json: unknown
  try {
    json = JSON.parse(found.text)
  } catch {
    throw damaged(file, 'is not valid JSON')
  }
  const parsed = approvalsFile.safeParse(json)
  if (!parsed.success) throw damaged(file, parsed.error.issues[0]?.message ?? 'does not hold approvals')
  if (parsed.data.target !== target) throw damaged(file, `belongs to target "${parsed.data.target}", not "${target}"`)
  const approvals = new Map<string, Approval>()
  for (const a of parsed.data.approvals) approvals.set(periodKey(a.user, a.period.id), a)
  return { target, approvals, history: parsed.data.history }
}

/** Writes the record whole, in a stable order, so equal records are equal files. */
export async function saveApprovals(stateFolder: string, record: ApprovalsRecord): Promise<void> {
  const file = approvalsFileOf(stateFolder)
  const approvals = [...record.approvals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, a]) => a)
  const text = `${JSON.stringify({ version: 1, target: record.target, approvals, history: record.history }, null, 1)}\n`
  await withFileAccess({ what: 'the approvals record', file, action: 'write', setting: 'stateDir' }, () =>
    writeFileAtomic(file, text, { mode: 0o600 }),
  )
}

function damaged(file: string, problem: string): TimelineSheetsError {
  // Never moved aside for the user: it is the one file a reconcile cannot rebuild.
  return new TimelineSheetsError('TS_STATE', `The approvals record ${file} ${problem}.`, {
    hint: `Restore ${file}.old (the previous version), or a backup of it. Nothing was written.`,
  })
}
