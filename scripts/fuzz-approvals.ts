/**
 * The fuzzer's approved weeks: before the manager garbles the sheet, two people's 2026-W44 are approved in the
 * Approvals tab and taken by a sync, so the garbling (edits, pasted Keys, ticked Deletes, new rows) lands in
 * approved weeks as everywhere else. After `import --yes` two figures must be 0: server writes into an approved
 * week (an approved activity written, or an activity created there), and rows of an approved week that hold an
 * edit without a Status naming the approval. The detail line says how many rows there were to judge.
 */
import path from 'node:path'
import ExcelJS from 'exceljs'
import { createManager } from '../counterparts/sheets/manager.ts'
import type { SheetsFake } from '../counterparts/sheets/server.ts'
import type { ReferenceServer } from '../counterparts/timeline/server.ts'
import { periodOf } from '../src/core/periods.ts'
import { loadApprovals } from '../src/state/approvals-store.ts'
import type { Backend, Scalar } from './fuzz-rows.ts'

export const APPROVED_WEEK = '2026-W44'
const EDITED = ['User', 'Date', 'Start', 'End', 'Tags', 'Labels', 'Notes', 'Delete', 'Key'] as const

export interface Approved {
  /** The approved activities by Key. */
  keys: Set<string>
  /** The approved people, lower-cased. */
  users: Set<string>
}

/** Ticks Approved and types a name on the Approvals rows of `users`' approved week, as a manager would. */
export async function tickApprovals(
  backend: Backend,
  folder: string,
  fake: SheetsFake | undefined,
  spreadsheetId: string | undefined,
  users: string[],
) {
  if (backend === 'workbook') {
    const file = path.join(folder, 'team.xlsx')
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(file)
    const tab = book.getWorksheet('Approvals')!
    const header = (tab.getRow(1).values as unknown[]).map((v) => String(v ?? ''))
    tab.eachRow((row, n) => {
      if (n === 1) return
      if (
        users.includes(String(row.getCell(header.indexOf('User')).value)) &&
        row.getCell(header.indexOf('Period')).value === APPROVED_WEEK
      ) {
        row.getCell(header.indexOf('Approved')).value = true
        row.getCell(header.indexOf('Approved by')).value = 'Fuzz Manager'
      }
    })
    await book.xlsx.writeFile(file)
    return
  }
  const manager = createManager(fake!.store)
  const rows = manager.readTab(spreadsheetId!, 'Approvals', 'UNFORMATTED_VALUE')
  const header = (rows[0] ?? []).map(String)
  const letter = (name: string) => String.fromCharCode(65 + header.indexOf(name))
  rows.forEach((row, i) => {
    if (i === 0 || !users.includes(String(row[header.indexOf('User')])) || row[header.indexOf('Period')] !== APPROVED_WEEK) return
    manager.editCell(spreadsheetId!, 'Approvals', `${letter('Approved')}${i + 1}`, true)
    manager.editCell(spreadsheetId!, 'Approvals', `${letter('Approved by')}${i + 1}`, 'Fuzz Manager')
  })
}

/** What the record holds for the approved week; throws when the sync did not take every approval. */
export async function approvedOf(folder: string, users: string[]): Promise<Approved> {
  const record = await loadApprovals(path.join(folder, 'state', 'team'), 'team')
  const taken = [...record.approvals.values()].filter((a) => a.period.id === APPROVED_WEEK)
  if (taken.length !== users.length || taken.some((a) => a.activities.length === 0))
    throw new Error(`the sync took ${taken.length} of ${users.length} approvals of ${APPROVED_WEEK}`)
  return { keys: new Set(taken.flatMap((a) => a.activities.map((x) => x.key))), users: new Set(users.map((u) => u.toLowerCase())) }
}

/** The two figures and a detail line, judged from the server's changes since `seqBefore` and the sheet before and after. */
export function judgeApproved(input: {
  approved: Approved
  server: ReferenceServer
  seqBefore: Map<string, number>
  exported: Record<string, Scalar>[]
  after: Record<string, Scalar>[]
  timeZone: string
}): { writesIntoApproved: number; unmarkedInApproved: number; details: string[] } {
  const { approved, server, seqBefore, exported, after } = input
  const owner = new Map(server.credentials.users.map((u) => [u.tagsTimelineKey, u.username.toLowerCase()]))
  const into: string[] = []
  for (const [timeline, seqs] of seqBefore) {
    for (const change of server.store.changes(timeline).slice(seqs)) {
      const key = `${timeline}/${change.entityId}`
      if (approved.keys.has(key)) into.push(`${change.kind} ${key}`)
      const made = change.kind === 'created' ? server.store.activity(timeline, change.entityId) : undefined
      const day = made && new Intl.DateTimeFormat('en-CA', { timeZone: input.timeZone }).format(new Date(made.startMs))
      if (day && approved.users.has(owner.get(timeline) ?? '') && periodOf(day, 'week').id === APPROVED_WEEK)
        into.push(`created ${key} on ${day}`)
    }
  }
  const text = (v: Scalar | undefined) => (v === null || v === undefined ? '' : String(v))
  const exportedByKey = new Map(exported.map((r) => [text(r['Key']).trim(), r]))
  const unmarked: string[] = []
  let edited = 0
  for (const row of after) {
    const key = text(row['Key']).trim()
    const was = exportedByKey.get(key)
    if (!approved.keys.has(key) || !was || EDITED.every((c) => text(row[c]) === text(was[c]))) continue
    edited++
    if (!text(row['Status']).includes(`'s ${APPROVED_WEEK} was approved by`)) unmarked.push(`${key}: ${text(row['Status']).slice(0, 100)}`)
  }
  const details = [
    `approved: ${approved.users.size} people's ${APPROVED_WEEK}, ${approved.keys.size} activities; rows there holding an edit: ${edited}`,
  ]
  if (into.length) details.push(`writes into approved weeks: ${into.slice(0, 8).join(', ')}`)
  if (unmarked.length)
    details.push(`rows of approved weeks edited without a Status naming the approval: ${unmarked.slice(0, 5).join('; ')}`)
  return { writesIntoApproved: into.length, unmarkedInApproved: unmarked.length, details }
}
