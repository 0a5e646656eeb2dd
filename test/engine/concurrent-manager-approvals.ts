/**
 * The concurrent-manager trials with an approved week among the rows: a world whose target takes approvals has
 * 2026-W44 approved before its first trial (ticked in the Approvals tab, taken by a sync), so the trials' edits,
 * ticked Deletes, removed rows and new rows land in it as in the open weeks. What the trials judge on top:
 * nothing of the approved week reached the server from the sheet, and every row in it holding an edit has a
 * Status naming the approval.
 */
import path from 'node:path'
import { periodKey } from '../../src/core/approvals.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { loadApprovals } from '../../src/state/approvals-store.ts'

/** The week approved, and a date in it for new rows. */
export const APPROVED_WEEK = { id: '2026-W44', date: '2026-10-31' } as const

/** Days of activities an approvals world holds: from 2026-10-30, so W44 holds three of them and W45 the rest. */
export const APPROVALS_DAYS = 10

export interface ApprovedWeek {
  /** The activities the record holds, by Key. */
  keys: Set<string>
  /** Notes of new rows typed into the approved week. */
  newRows: Set<string>
}

interface ApprovalsWorld {
  user: string
  stateDir: string
  store: {
    activity(key: string, id: number): { notes?: string | undefined } | undefined
    activities(key: string): { notes?: string | undefined }[]
  }
  timelineKey: string
  manager: { editCell(tab: string, row: number, column: number, value: CellValue): Promise<void> }
  readTab(name: string): Promise<{ header: string[]; rows: CellValue[][] }>
}

/** Ticks the week for the world's person, runs syncs until the record holds it, and returns what it holds. */
export async function approveWeek(world: ApprovalsWorld, sync: () => Promise<string>): Promise<ApprovedWeek> {
  // The export laid the tab out; the next sync's import fills its rows.
  const first = await sync()
  if (first !== 'success') throw new Error(`the sync that fills the Approvals tab said ${first}`)
  const tab = await world.readTab('Approvals')
  const at = (name: string) => tab.header.indexOf(name)
  const row = tab.rows.findIndex((r) => r[at('User')] === world.user && r[at('Period')] === APPROVED_WEEK.id) + 2
  if (row < 2) throw new Error(`no Approvals row for ${world.user}'s ${APPROVED_WEEK.id}`)
  await world.manager.editCell('Approvals', row, at('Approved'), true)
  await world.manager.editCell('Approvals', row, at('Approved by'), 'Mia Manager')
  const taken = await sync()
  if (taken !== 'success') throw new Error(`the sync that takes the approval said ${taken}`)
  const approval = (await loadApprovals(path.join(world.stateDir, 'team'), 'team')).approvals.get(periodKey(world.user, APPROVED_WEEK.id))
  if (!approval || approval.activities.length === 0) throw new Error(`${APPROVED_WEEK.id} was not approved with its activities`)
  return { keys: new Set(approval.activities.map((a) => a.key)), newRows: new Set() }
}

/**
 * What reached the server from the approved week, and the rows in it holding an edit without a Status that names
 * the approval, and how many rows of it hold one (so a trial that typed nothing there shows). `deletedOnServer` are the activities the server itself deleted (not the sheet).
 */
export async function approvedWeekFindings(
  world: ApprovalsWorld,
  approved: ApprovedWeek,
  deletedOnServer: ReadonlySet<string>,
  final: { header: string[]; rows: CellValue[][] },
): Promise<{ sent: string[]; unmarked: string[]; held: number }> {
  let held = 0
  const sent: string[] = []
  const unmarked: string[] = []
  const record = (await loadApprovals(path.join(world.stateDir, 'team'), 'team')).approvals.get(periodKey(world.user, APPROVED_WEEK.id))
  if (!record) sent.push(`the approval of ${APPROVED_WEEK.id} is gone from the record`)
  for (const key of approved.keys) {
    const now = world.store.activity(world.timelineKey, Number(key.split('/')[1]))
    if (!now && !deletedOnServer.has(key)) sent.push(`${key} of the approved week was deleted from the sheet`)
    if (now?.notes?.startsWith('edit:')) sent.push(`${key} of the approved week got the sheet's ${now.notes}`)
  }
  for (const a of world.store.activities(world.timelineKey))
    if (a.notes && approved.newRows.has(a.notes)) sent.push(`${a.notes}, typed into the approved week, was created`)
  const col = (name: string) => final.header.indexOf(name)
  for (const [i, r] of final.rows.entries()) {
    const key = String(r[col('Key')] ?? '')
    const notes = String(r[col('Notes')] ?? '')
    const edited = approved.keys.has(key) && (notes.startsWith('edit:') || r[col('Delete')] === true)
    const typedIn = !/\/\d+$/.test(key) && approved.newRows.has(notes)
    if (edited || typedIn) held++
    if ((edited || typedIn) && !String(r[col('Status')] ?? '').includes(`'s ${APPROVED_WEEK.id} was approved by`))
      unmarked.push(`row ${i + 2} (${key || notes}) holds an edit in the approved week; its Status: ${String(r[col('Status')] ?? '')}`)
  }
  return { sent, unmarked, held }
}
