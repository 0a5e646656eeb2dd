/**
 * The import's part in approvals (decisions/0026-approvals.md): read the record and the Approvals tab the import
 * read with the others, take and reopen approvals, refuse the plan's writes into approved periods, and say on the
 * tab what it holds. The import calls it between planning and writing; the decisions are in src/core/approvals*.ts.
 */
import {
  blockersOf,
  closeApprovedPeriods,
  decideApprovals,
  parsePeriodId,
  periodKey,
  periodRowsOf,
  rowPlace,
  type Approval,
  type RowOwner,
} from '../core/approvals.ts'
import { approvalRowsOf, approvalsWrite } from '../core/approvals-tab.ts'
import { APPROVED_TAB, approvedWrite } from '../core/approved-tab.ts'
import { ACTIVITY_COLUMN, type HeaderLayout } from '../core/columns.ts'
import { cellText } from '../core/cells.ts'
import type { ExportWindow, TimelineDelta } from '../core/export-plan.ts'
import { serverChangesSince } from '../core/approvals-changes.ts'
import { parseDayStart } from '../core/day-start.ts'
import { periodOf, periodsOf } from '../core/periods.ts'
import type { Decision } from '../core/plan.ts'
import type { KnownUser } from '../core/row-context.ts'
import type { CellValue, Snapshot, TabData, TabWrite } from '../core/sheet.ts'
import { isEmptyWrite } from '../core/sheet-writes.ts'
import type { Status } from '../core/status.ts'
import type { TargetConfig } from '../config/schema.ts'
import { loadApprovals, saveApprovals, type ApprovalsRecord } from '../state/approvals-store.ts'
import type { TargetState } from '../state/target-state.ts'

export interface ImportApprovals {
  /** The plan's decisions with writes into approved periods refused, and rows that hold up an approval saying so. */
  decisions: Decision[]
  refused: number
  /** Activities rows of a period approved anew whose Status still tells of the old approval's server changes. */
  rowStatuses: Map<number, Status>
  /** The Approvals tab's tool cells that differ from what the read showed; undefined when the tab was not read. */
  write: TabWrite | undefined
  /** What makes the Approved tab show the record after this run; undefined when the tab was not read. */
  approved: TabWrite | undefined
  /** Lines for the Sync log: each approval and reopening, who typed the name and when the tool saw it. */
  log: string[]
  /** Whether the record changed (so `save` writes it). */
  changed: boolean
  /** Writes the record; before the sheet is written, so a Status never tells of an approval the record lacks. */
  save(): Promise<void>
}

export interface ImportApprovalsInput {
  target: TargetConfig
  stateFolder: string
  /** The title of the Approvals tab when the state says a layout made it (else it was not read). */
  tabTitle: string | undefined
  /** The title of the Approved tab when the state says a layout made it (else it was not read). */
  approvedTitle: string | undefined
  snapshot: Snapshot
  activities: TabData
  layout: HeaderLayout
  decisions: readonly Decision[]
  tagsTimelines: readonly { timelineKey: string; ownerUsername: string }[]
  /** The users the target covers (`knownUsers`). */
  users: readonly KnownUser[]
  runId: string
  startedAt: Date
  today: string
  window: ExportWindow
}

/** Undefined for a target without approvals. */
export async function importApprovals(input: ImportApprovalsInput): Promise<ImportApprovals | undefined> {
  const config = input.target.approvals
  if (!config) return undefined
  const kind = config.period
  const record = await loadApprovals(input.stateFolder, input.target.name)
  const owners = rowOwners(input.tagsTimelines, input.users)
  const covered = new Set(input.users.map((u) => u.username.toLowerCase()))
  const covers = (user: string) => covered.has(user.toLowerCase())
  const placeOf = (rowNumber: number) => {
    const cells = input.activities.rows[rowNumber - 2]
    return cells ? rowPlace(cells, input.layout.index, owners) : undefined
  }
  const periodRows = periodRowsOf(input.activities, input.layout.index, kind, owners)
  const blockers = blockersOf(input.decisions, placeOf, kind)
  const tab = input.tabTitle ? input.snapshot.tabs[input.tabTitle] : undefined
  const rows = tab?.exists && !tab.headerOnly ? approvalRowsOf(tab) : []
  const nowIso = input.startedAt.toISOString()
  const decided = decideApprovals(rows, {
    kind,
    records: record.approvals,
    blockers,
    periodRows,
    covers,
    userOf: owners.userOfCell,
    nowIso,
    runId: input.runId,
  })

  const approvals = new Map(record.approvals)
  for (const a of decided.reopen) {
    approvals.delete(periodKey(a.user, a.period.id))
    record.history.push({ at: nowIso, runId: input.runId, event: 'reopened', user: a.user, period: a.period.id, by: a.approvedBy })
  }
  // Reopened first: an edit in a period reopened in this run is sent in this run.
  const closed = closeApprovedPeriods(input.decisions, approvals, placeOf, kind)
  for (const a of decided.approve) {
    approvals.set(periodKey(a.user, a.period.id), a)
    record.history.push({ at: nowIso, runId: input.runId, event: 'approved', user: a.user, period: a.period.id, by: a.approvedBy })
  }
  const waiting = waitingPeriods(rows, record.approvals, blockers, owners, kind)
  const approvedByKey = new Map<string, Approval>()
  for (const a of approvals.values()) for (const act of a.activities) approvedByKey.set(act.key, a)
  const decisions = closed.decisions.map((d) => {
    if (d.kind !== 'invalid' && d.kind !== 'conflict') return d
    if (d.kind === 'invalid' && d.problems.some((p) => p.code === 'approved-period')) return d
    const place = placeOf(d.rowNumber)
    const id = place && periodKey(place.user, periodOf(place.date, kind).id)
    if (id && waiting.has(id)) return { ...d, reason: `${d.reason} The approval of ${waiting.get(id)} waits for this row.` }
    // Not sent for its own reason, and closed besides: the row says so, so that fixing it is not the next step.
    const approval = (d.key !== undefined ? approvedByKey.get(d.key) : undefined) ?? (id ? approvals.get(id) : undefined)
    return approval ? { ...d, reason: `${d.reason} ${approvedReason(approval)}` } : d
  })

  const wanted = wantedRows(input.users, input.window, kind)
  const write =
    tab?.exists && !tab.headerOnly
      ? {
          ...approvalsWrite({
            tab,
            wanted,
            periodRows,
            records: approvals,
            statuses: decided.statuses,
            timeZone: input.target.timeZone,
            today: input.today,
            userOf: owners.userOfCell,
          }),
          // The window's rows are the ones the next runs write again (Hours, Status, Changed since).
          rowsToRevisit: windowRows(rows, wanted, owners),
        }
      : undefined
  const approvedData = input.approvedTitle ? input.snapshot.tabs[input.approvedTitle] : undefined
  const approved = approvedData?.exists && !approvedData.headerOnly ? approvedWrite(approvedData, approvals) : undefined
  // Re-approved: the server's version is the record now, so the rows stop saying it changed after approval.
  const rowStatuses = new Map<number, Status>()
  const statusAt = input.layout.index[ACTIVITY_COLUMN.status]
  for (const a of decided.approve) {
    for (const rowNumber of periodRows.get(periodKey(a.user, a.period.id))?.rowNumbers ?? []) {
      const status = statusAt === undefined ? '' : cellText(input.activities.rows[rowNumber - 2]?.[statusAt])
      if (status.includes(CHANGED_AFTER_APPROVAL))
        rowStatuses.set(rowNumber, { word: 'Done', reason: `Re-approved by ${a.approvedBy}: the server's version is on record.` })
    }
  }
  const changed = decided.approve.length + decided.reopen.length > 0
  const next: ApprovalsRecord = { target: record.target, approvals, history: record.history }
  return {
    decisions,
    refused: closed.refused,
    rowStatuses,
    write,
    approved,
    log: decided.log,
    changed,
    save: () => (changed ? saveApprovals(input.stateFolder, next) : Promise.resolve()),
  }
}

/** How a row's Status begins when the server changed its approved activity. */
const CHANGED_AFTER_APPROVAL = 'Changed on the server after approval'

/** What a row of an approved period that is not sent for another reason says besides. */
function approvedReason(approval: Approval): string {
  return `Besides, ${approval.user}'s ${approval.period.id} was approved by ${approval.approvedBy} on ${approval.approvedAt.slice(0, 10)}: nothing in it is sent. To change it, untick Approved on that row of the Approvals tab (it reopens the period), then run again.`
}

/** Periods a manager ticked that wait on rows: by period key, the words that name them. */
function waitingPeriods(
  rows: ReturnType<typeof approvalRowsOf>,
  records: ReadonlyMap<string, Approval>,
  blockers: ReturnType<typeof blockersOf>,
  owners: RowOwner,
  kind: 'week' | 'month',
): Map<string, string> {
  const out = new Map<string, string>()
  for (const row of rows) {
    const user = owners.userOfCell(row.user)
    const period = parsePeriodId(row.periodId, kind)
    if (!row.approved || !user || !period) continue
    const id = periodKey(user, period.id)
    if (!records.has(id) && blockers.get(id)?.length) out.set(id, `${user}'s ${period.id}`)
  }
  return out
}

/**
 * The rows (by row number) of the window's people and periods, the first of each where a period has two; the latest
 * periods first, since they change most and a backend may keep handles on only so many rows.
 */
function windowRows(rows: ReturnType<typeof approvalRowsOf>, wanted: ReturnType<typeof wantedRows>, owners: RowOwner): number[] {
  const ids = new Set(wanted.map((w) => periodKey(w.user, w.period.id)))
  const seen = new Set<string>()
  const out: { row: number; period: string }[] = []
  for (const row of rows) {
    const user = owners.userOfCell(row.user)
    const id = user ? periodKey(user, row.periodId.toUpperCase()) : undefined
    if (id === undefined || !ids.has(id) || seen.has(id)) continue
    seen.add(id)
    out.push({ row: row.rowNumber, period: row.periodId.toUpperCase() })
  }
  return out.sort((a, b) => (a.period < b.period ? 1 : a.period > b.period ? -1 : a.row - b.row)).map((r) => r.row)
}

/** A row per covered person with a Tags timeline and per period of the window, period by period. */
function wantedRows(users: readonly KnownUser[], window: ExportWindow, kind: 'week' | 'month') {
  const people = users.filter((u) => u.tagsTimelineKey !== undefined).map((u) => u.username)
  people.sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0))
  return periodsOf(window.fromDate, window.days, kind).flatMap((period) => people.map((user) => ({ user, period })))
}

/** Whose a row is: its Key's timeline owner, or the user its User cell names (user name or display name). */
export function rowOwners(tagsTimelines: readonly { timelineKey: string; ownerUsername: string }[], users: readonly KnownUser[]): RowOwner {
  const ownerByTimeline = new Map(tagsTimelines.map((t) => [t.timelineKey, t.ownerUsername]))
  const byName = new Map<string, string>()
  for (const u of users) if (u.displayName) byName.set(u.displayName.trim().toLowerCase(), u.username)
  // A user name wins over a display name that happens to read the same.
  for (const u of users) byName.set(u.username.trim().toLowerCase(), u.username)
  return {
    ownerOfKey: (key) => {
      const slash = key.indexOf('/')
      return slash < 0 ? undefined : ownerByTimeline.get(key.slice(0, slash))
    },
    userOfCell: (text) => byName.get(text.trim().toLowerCase()),
  }
}

/**
 * The rows of an Approvals tab that holds none (laid out by this run, or made again): the export writes them in its
 * own write, from the Activities rows it leaves and the record, so they are there from the first sync. Undefined
 * when the tab holds rows already, or was read without them.
 */
export async function approvalsOnLayout(
  input: {
    target: TargetConfig
    snapshot: Snapshot
    layout: HeaderLayout
    tagsTimelines: readonly { timelineKey: string; ownerUsername: string }[]
    users: readonly KnownUser[]
    today: string
    window: ExportWindow
  },
  stateFolder: string,
  /** The Activities tab as read, and the rows this export appends to it. */
  activities: TabData,
  appends: readonly CellValue[][] | undefined,
): Promise<TabWrite | undefined> {
  const config = input.target.approvals
  const tab = config ? input.snapshot.tabs[config.tab] : undefined
  if (!config || !tab?.exists || tab.headerOnly || tab.rows.some((r) => r.some((c) => c !== null && c !== ''))) return undefined
  const owners = rowOwners(input.tagsTimelines, input.users)
  const record = await loadApprovals(stateFolder, input.target.name)
  const after = { ...activities, rows: [...activities.rows, ...(appends ?? [])] }
  const wanted = wantedRows(input.users, input.window, config.period)
  const write = approvalsWrite({
    tab,
    wanted,
    periodRows: periodRowsOf(after, input.layout.index, config.period, owners),
    records: record.approvals,
    statuses: new Map(),
    timeZone: input.target.timeZone,
    today: input.today,
    userOf: owners.userOfCell,
  })
  if (isEmptyWrite(write)) return undefined
  // The rows it adds are the window's, which later runs write again through their marks (as the import's write).
  const added = approvalRowsOf({ ...tab, rows: [...tab.rows, ...(write.appends ?? [])] })
  return { ...write, rowsToRevisit: windowRows(added, wanted, owners) }
}

export interface ExportApprovals {
  /** The plan's decisions, rows of approved activities the server changed saying so. */
  decisions: Decision[]
  /** Whether the server changed an approved period (so `save` writes the record). */
  changed: boolean
  /** Writes the record when the server changed an approved period (before the sheet write). */
  save(): Promise<void>
}

/** The export's part: the server's changes to approved periods kept in the record and said on their rows. */
export async function exportApprovals(
  target: TargetConfig,
  stateFolder: string,
  changes: readonly TimelineDelta[],
  decisions: readonly Decision[],
): Promise<ExportApprovals | undefined> {
  if (!target.approvals) return undefined
  const record = await loadApprovals(stateFolder, target.name)
  const seen = serverChangesSince(record.approvals, changes, target.timeZone, parseDayStart(target.dayStartsAt))
  const byKey = new Map<string, { approval: Approval; what: string }>()
  for (const approval of seen.approvals.values()) for (const c of approval.changes) byKey.set(c.key, { approval, what: c.what })
  const approvedByKey = new Map<string, Approval>()
  for (const a of seen.approvals.values()) for (const act of a.activities) approvedByKey.set(act.key, a)
  const marked = decisions.map((d): Decision => {
    // A row of an approved period left alone as a conflict says the period is closed besides, as the import's do.
    const closed = d.kind === 'conflict' || d.kind === 'invalid' ? d.key !== undefined && approvedByKey.get(d.key) : undefined
    if (closed && !d.reason.includes(approvedReason(closed))) return { ...d, reason: `${d.reason} ${approvedReason(closed)}` }
    if (d.kind !== 'export-update' && d.kind !== 'export-append') return d
    const hit = byKey.get(d.key)
    if (!hit) return d
    return {
      ...d,
      word: 'Conflict',
      reason: `${CHANGED_AFTER_APPROVAL}: ${hit.what} (${hit.approval.user}'s ${hit.approval.period.id}, approved by ${hit.approval.approvedBy}). The row shows the server version; re-approve the period to take it, or ask the operator.`,
    }
  })
  const next: ApprovalsRecord = { ...record, approvals: seen.approvals }
  return {
    decisions: marked,
    changed: seen.changed.length > 0,
    save: () => (seen.changed.length ? saveApprovals(stateFolder, next) : Promise.resolve()),
  }
}

/** The approval tabs a layout made, kept in the state: an import reads them only then (a Google read naming a missing tab fails whole). */
export function recordApprovalTabs(
  target: TargetConfig,
  snapshot: Snapshot,
  state: Pick<TargetState, 'approvalsTab' | 'approvedTab'>,
): void {
  if (!target.approvals) return
  if (snapshot.tabs[target.approvals.tab]?.exists) state.approvalsTab = target.approvals.tab
  if (snapshot.tabs[APPROVED_TAB]?.exists) state.approvedTab = APPROVED_TAB
}
