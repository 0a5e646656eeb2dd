/**
 * The Approvals tab: one row per person and period, a manager's Approved tick and Approved by, and the cells the
 * tool writes (hours, when it took the approval, what it held, what changed since, Status). Rows are found by
 * their User and Period cells, never by position, so a manager may sort the tab.
 */
import { hoursText, periodKey, readApprovalRows, type Approval, type ApprovalRow, type PeriodRows } from './approvals.ts'
import { cellText } from './cells.ts'
import type { Period } from './periods.ts'
import { localDateToSerial, wallSecondsToSerial } from './serial.ts'
import type { CellUpdate, CellValue, TabData, TabSpec, TabWrite } from './sheet.ts'
import { readStatus, statusText, type Status } from './status.ts'
import { wallSecondsAt } from './wall-clock.ts'

export const APPROVALS_TAB = 'Approvals'

export const APPROVALS_COLUMN = {
  user: 'User',
  period: 'Period',
  from: 'From',
  to: 'To',
  hours: 'Hours',
  approved: 'Approved',
  approvedBy: 'Approved by',
  approvedAt: 'Approved at',
  hoursAtApproval: 'Hours at approval',
  changedSince: 'Changed since',
  status: 'Status',
} as const

/** Layout of the Approvals tab: managers tick Approved and type Approved by; every other column is the tool's. */
export function approvalsTab(title: string = APPROVALS_TAB): TabSpec {
  const c = APPROVALS_COLUMN
  return {
    title,
    statusColumn: c.status,
    filter: true,
    columns: [
      { name: c.user, kind: 'text', width: 160, protected: true },
      { name: c.period, kind: 'text', width: 90, protected: true },
      { name: c.from, kind: 'date', width: 95, protected: true },
      { name: c.to, kind: 'date', width: 95, protected: true, note: 'The last day of the period.' },
      { name: c.hours, kind: 'duration', width: 70, protected: true, note: 'The hours the Activities rows hold now.' },
      {
        name: c.approved,
        kind: 'checkbox',
        width: 80,
        note: 'Tick to approve the period (with your name in Approved by); untick to reopen it.',
      },
      { name: c.approvedBy, kind: 'text', width: 140, note: 'Your name: who approved, as the record and the report keep it.' },
      { name: c.approvedAt, kind: 'datetime', width: 140, protected: true },
      { name: c.hoursAtApproval, kind: 'duration', width: 120, protected: true },
      { name: c.changedSince, kind: 'text', width: 260, protected: true, wrap: true },
      { name: c.status, kind: 'text', width: 420, protected: true, wrap: true },
    ],
  }
}

/** The tab's rows as the import reads them. */
export function approvalRowsOf(tab: TabData): ApprovalRow[] {
  const c = APPROVALS_COLUMN
  return readApprovalRows(tab, { user: c.user, period: c.period, approved: c.approved, approvedBy: c.approvedBy, approvedAt: c.approvedAt })
}

/** What changed since approval, in a cell: `3 activities changed since approval, +1:15 h`. */
export function changedSinceText(approval: Approval): string {
  if (approval.changes.length === 0) return ''
  const seconds = approval.changes.reduce((n, c) => n + c.seconds, 0)
  const n = approval.changes.length
  return `${n} ${n === 1 ? 'activity' : 'activities'} changed since approval, ${seconds >= 0 ? '+' : ''}${hoursText(seconds)} h`
}

export interface ApprovalsWriteInput {
  tab: TabData
  /** The people and periods the window shows, in the order new rows are added. */
  wanted: readonly { user: string; period: Period }[]
  periodRows: ReadonlyMap<string, PeriodRows>
  /** The record after this run's decisions. */
  records: ReadonlyMap<string, Approval>
  /** Statuses this run decided, by row number; other rows keep theirs unless the record speaks. */
  statuses: ReadonlyMap<number, Status>
  timeZone: string
  today: string
  /** The user name a User cell names, or undefined. */
  userOf(text: string): string | undefined
}

/**
 * The tool's cells of the Approvals tab that differ from what it holds, and a row for each wanted person and period
 * it lacks: an untouched tab costs no write.
 */
export function approvalsWrite(input: ApprovalsWriteInput): TabWrite {
  const { tab } = input
  const c = APPROVALS_COLUMN
  const at = (name: string) => tab.header.findIndex((h) => typeof h === 'string' && h.trim() === name)
  const spec = approvalsTab(tab.title)
  const updates: CellUpdate[] = []
  const present = new Set<string>()
  tab.rows.forEach((cells, i) => {
    const rowNumber = i + 2
    const user = input.userOf(cellText(cells[at(c.user)]).trim())
    const periodId = cellText(cells[at(c.period)]).trim().toUpperCase()
    const id = user ? periodKey(user, periodId) : undefined
    if (id === undefined || present.has(id)) {
      const status = input.statuses.get(rowNumber)
      if (status) setIfChanged(cells, rowNumber, at(c.status), statusCell(cells[at(c.status)], status, input.today))
      return
    }
    present.add(id)
    const wanted = toolCells(id, input)
    for (const [name, value] of Object.entries(wanted)) {
      if (name === c.status || value === undefined) continue
      setIfChanged(cells, rowNumber, at(name), value)
    }
    const status = input.statuses.get(rowNumber) ?? standingStatus(input.records.get(id))
    if (status) setIfChanged(cells, rowNumber, at(c.status), statusCell(cells[at(c.status)], status, input.today))
    else if (!input.records.has(id) && readStatus(cellText(cells[at(c.status)])).reason.startsWith('Approved by'))
      setIfChanged(cells, rowNumber, at(c.status), null)
  })
  const appends: CellValue[][] = []
  for (const { user, period } of input.wanted) {
    const id = periodKey(user, period.id)
    if (present.has(id)) continue
    present.add(id)
    const cells = toolCells(id, input, { user, period })
    const status = standingStatus(input.records.get(id))
    if (status) cells[c.status] = statusText(status, input.today)
    appends.push(spec.columns.map((col) => cells[col.name] ?? null))
  }
  return { tab: tab.title, updates, appends }

  function setIfChanged(cells: readonly CellValue[], rowNumber: number, column: number, value: CellValue | undefined): void {
    if (column < 0 || value === undefined) return
    const now = cells[column] ?? null
    if (now === value || (now === null && value === '')) return
    if (typeof now === 'number' && typeof value === 'number' && Math.abs(now - value) < 1e-9) return
    updates.push({ row: rowNumber, column, values: [value] })
  }
}

function statusCell(now: CellValue | undefined, status: Status, today: string): string | undefined {
  const read = readStatus(cellText(now))
  // The same word and reason on another day is not written again (decisions/0004).
  return read.word === status.word && read.reason === status.reason ? undefined : statusText(status, today)
}

function standingStatus(record: Approval | undefined): Status | undefined {
  if (!record) return undefined
  const changed = changedSinceText(record)
  return changed
    ? {
        word: 'Conflict',
        reason: `Approved by ${record.approvedBy}; ${changed} on the server. Re-approve (untick, run, tick) to take the new state.`,
      }
    : { word: 'Done', reason: `Approved by ${record.approvedBy}: ${hoursText(record.seconds)} h are on record. Untick Approved to reopen.` }
}

function toolCells(
  id: string,
  input: ApprovalsWriteInput,
  fresh?: { user: string; period: Period },
): Record<string, CellValue | undefined> {
  const c = APPROVALS_COLUMN
  const record = input.records.get(id)
  const held = input.periodRows.get(id)
  const period = fresh?.period ?? record?.period ?? held?.period
  const cells: Record<string, CellValue | undefined> = {
    // A period the window no longer shows keeps the hours it last showed.
    [c.hours]: held ? held.seconds / 86_400 : fresh || input.wanted.some((w) => periodKey(w.user, w.period.id) === id) ? 0 : undefined,
    [c.approvedAt]: record ? wallSecondsToSerial(wallSecondsAt(input.timeZone, Math.floor(Date.parse(record.approvedAt) / 1000))) : null,
    [c.hoursAtApproval]: record ? record.seconds / 86_400 : null,
    [c.changedSince]: record ? changedSinceText(record) : null,
  }
  if (fresh) {
    cells[c.user] = fresh.user
    cells[c.period] = fresh.period.id
    // A row made again for a period on record (the tab was deleted or restored) shows it approved, or the next
    // import would read the missing tick as a reopening.
    cells[c.approved] = record !== undefined
    if (record) cells[c.approvedBy] = record.approvedBy
  }
  if (period) {
    cells[c.from] = localDateToSerial(period.from)
    cells[c.to] = localDateToSerial(period.to) - 1
  }
  return cells
}
