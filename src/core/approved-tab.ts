/**
 * The Approved tab: what each approved period holds on record, one row per approved activity, and what changed on
 * the server since (decisions/0026-approvals.md). It is drawn from the record alone (approvals.json), so it shows
 * exactly what payroll gets; the tool writes every cell, and the tab is closed to managers (`closed`: Google
 * protects it whole for the tool's account, the workbook locks it), so a manager can read an approved week there
 * but cannot change it, by typing, adding rows or sorting. The period's rows in Activities stay where managers sort
 * them; the import refuses their edits (src/core/approvals.ts).
 */
import type { Approval } from './approvals.ts'
import { ACTIVITY_COLUMN } from './columns.ts'
import { localDateToSerial } from './serial.ts'
import type { CellValue, TabData, TabSpec, TabWrite } from './sheet.ts'
import { rewriteTab } from './sheet-writes.ts'

export const APPROVED_TAB = 'Approved'

/** The Activities names where the columns mean the same, so a formula over both reads them alike. */
export const APPROVED_COLUMN = {
  user: ACTIVITY_COLUMN.user,
  period: 'Period',
  date: ACTIVITY_COLUMN.date,
  start: ACTIVITY_COLUMN.start,
  duration: ACTIVITY_COLUMN.duration,
  tags: ACTIVITY_COLUMN.tags,
  labels: ACTIVITY_COLUMN.labels,
  notes: ACTIVITY_COLUMN.notes,
  status: ACTIVITY_COLUMN.status,
  key: ACTIVITY_COLUMN.key,
} as const

/** Layout of the Approved tab: read-only and closed, every cell the tool's. */
export function approvedTab(title: string = APPROVED_TAB): TabSpec {
  const c = APPROVED_COLUMN
  return {
    title,
    readOnly: true,
    closed: true,
    statusColumn: c.status,
    columns: [
      { name: c.user, kind: 'text', width: 160 },
      { name: c.period, kind: 'text', width: 90 },
      { name: c.date, kind: 'date', width: 95 },
      // As the record holds it (`09:00`, or with seconds): the cell the manager saw when approving.
      { name: c.start, kind: 'text', width: 70 },
      { name: c.duration, kind: 'duration', width: 70 },
      { name: c.tags, kind: 'text', width: 260 },
      { name: c.labels, kind: 'text', width: 120 },
      { name: c.notes, kind: 'text', width: 260, wrap: true },
      {
        name: c.status,
        kind: 'text',
        width: 420,
        wrap: true,
        note: 'What changed on the server since the period was approved. To change an approved period, untick Approved on the Approvals tab, then edit its rows in Activities.',
      },
      { name: c.key, kind: 'text', hidden: true },
    ],
  }
}

/**
 * The tab's rows for the record, period by period (user without case, then period id), each period's activities
 * by day, start and Key; an activity added on the server since approval has a row with its Key and Status only.
 */
export function approvedRows(records: ReadonlyMap<string, Approval>): CellValue[][] {
  const spec = approvedTab()
  const c = APPROVED_COLUMN
  const byPeriod = [...records.values()].sort(
    (a, b) => compare(a.user.toLowerCase(), b.user.toLowerCase()) || compare(a.period.id, b.period.id),
  )
  const rows: CellValue[][] = []
  for (const approval of byPeriod) {
    const changed = new Map(approval.changes.map((change) => [change.key, change]))
    const held = new Set(approval.activities.map((a) => a.key))
    const activities = [...approval.activities].sort(
      (a, b) => compare(a.date, b.date) || clockSeconds(a.start) - clockSeconds(b.start) || compare(a.key, b.key),
    )
    const line = (cells: Partial<Record<string, CellValue>>): CellValue[] => spec.columns.map((column) => cells[column.name] ?? null)
    for (const a of activities) {
      const change = changed.get(a.key)
      rows.push(
        line({
          [c.user]: approval.user,
          [c.period]: approval.period.id,
          [c.date]: localDateToSerial(a.date),
          [c.start]: a.start,
          [c.duration]: a.seconds / 86_400,
          [c.tags]: a.tags || null,
          [c.labels]: a.labels || null,
          [c.notes]: a.notes || null,
          [c.status]: change ? changeStatus(change.what, approval) : null,
          [c.key]: a.key,
        }),
      )
    }
    for (const change of approval.changes) {
      if (held.has(change.key)) continue
      rows.push(
        line({
          [c.user]: approval.user,
          [c.period]: approval.period.id,
          [c.status]: changeStatus(change.what, approval),
          [c.key]: change.key,
        }),
      )
    }
  }
  return rows
}

function changeStatus(what: string, approval: Approval): string {
  return `Changed on the server after approval: ${what}. This row shows what was approved by ${approval.approvedBy}; re-approve the period (untick, run, tick) to take the server's version, or put the approved values back with restore-approved.`
}

/** What makes the tab show the record row for row; a tab that already shows it costs no write. */
export function approvedWrite(tab: TabData, records: ReadonlyMap<string, Approval>): TabWrite {
  return { ...rewriteTab(tab, approvedRows(records), approvedTab(tab.title).columns.length), closed: true }
}

/** `9:00`, `09:00` or `09:00:30` as seconds of the day, for ordering; text that is no clock goes first. */
function clockSeconds(start: string): number {
  const [h = 0, m = 0, sec = 0] = start.split(':').map(Number)
  const seconds = h * 3600 + m * 60 + sec
  return Number.isFinite(seconds) ? seconds : -1
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
