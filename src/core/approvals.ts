/**
 * Approving a person's period (decisions/0026-approvals.md): what a period holds as the Activities rows show it,
 * whether a manager's tick on the Approvals tab is taken, and which planned writes an approved period refuses.
 * Pure: the engine reads the tabs and the record, calls these, and writes (src/engine/approvals.ts).
 */
import { ACTIVITY_COLUMN as C } from './columns.ts'
import { cellText, readCheckboxCell, readDateCell, readTimeCell } from './cells.ts'
import type { Decision } from './plan.ts'
import { periodOf, type Period, type PeriodKind } from './periods.ts'
import { fractionToSeconds, serialToLocalDate, type LocalDate } from './serial.ts'
import type { CellValue, TabData } from './sheet.ts'
import type { Status } from './status.ts'

/** One activity as it stood when its period was approved: the cells a payroll report and a later check need. */
export interface ApprovedActivity {
  key: string
  /** The Date cell's day (the sheet's day of the activity, whatever rule made it). */
  date: LocalDate
  /** `HH:MM` (or `HH:MM:SS`) as the Start cell holds it. */
  start: string
  seconds: number
  tags: string
  labels: string
  notes: string
}

/** A change on the server since approval, kept so later runs still show it. */
export interface ApprovalChange {
  key: string
  /** What changed, in words: `Tags`, `Start, Duration`, `deleted`. */
  what: string
  /** Seconds now minus seconds at approval (a deleted activity: minus its seconds). */
  seconds: number
}

/** A period a manager approved, and what it held then. */
export interface Approval {
  /** The owner's user name, as the server writes it. */
  user: string
  period: Period
  /** The name the manager typed into Approved by. */
  approvedBy: string
  /** When the tool saw the tick, ISO with offset Z. */
  approvedAt: string
  runId: string
  seconds: number
  /** Sorted by Key. */
  activities: ApprovedActivity[]
  /** Sorted by Key. */
  changes: ApprovalChange[]
}

/** Identity of a person's period: user name without case, then the period's id. */
export function periodKey(user: string, periodId: string): string {
  return `${user.trim().toLowerCase()}\t${periodId}`
}

/** What the Activities rows hold for one person's period. */
export interface PeriodRows {
  user: string
  period: Period
  seconds: number
  activities: ApprovedActivity[]
  rowNumbers: number[]
}

/** Whose row and which day it shows, or undefined for a row that names neither readably. */
export interface RowPlace {
  user: string
  date: LocalDate
}

export interface RowOwner {
  /** The owner of a Key's timeline, or undefined for a Key of no timeline the target knows. */
  ownerOfKey(key: string): string | undefined
  /** The user name a User cell names (a user name or a display name), or undefined. */
  userOfCell(text: string): string | undefined
}

/** Where an Activities row belongs: its Key's owner (or its User cell for a new row), and its Date cell's day. */
export function rowPlace(cells: readonly CellValue[], index: Readonly<Record<string, number>>, owners: RowOwner): RowPlace | undefined {
  // Read as the row parser reads it: a workbook keeps a typed `2026-11-05` as text, and a new row typed into an
  // approved week must be refused there as it is on Google, which parses it into a date.
  const read = readDateCell(cells[index[C.date] ?? -1], 'mdy')
  if (!read.ok) return undefined
  const date = read.value
  const key = cellText(cells[index[C.key] ?? -1]).trim()
  const user = (key && owners.ownerOfKey(key)) || owners.userOfCell(cellText(cells[index[C.user] ?? -1]).trim())
  return user ? { user, date: serialToLocalDate(date) } : undefined
}

/** Each person's periods as the Activities rows show them: hours summed from the Duration cells (End − Start without one). */
export function periodRowsOf(
  tab: TabData,
  index: Readonly<Record<string, number>>,
  kind: PeriodKind,
  owners: RowOwner,
): Map<string, PeriodRows> {
  const out = new Map<string, PeriodRows>()
  // Each row's activity as a snapshot holds it, made only for a period that asks: a night takes few approvals,
  // and the cells of every row of a 100,000-row sheet are most of what this would otherwise cost.
  const activitiesOf = (rowNumbers: readonly number[]): ApprovedActivity[] => {
    const activities: ApprovedActivity[] = []
    for (const rowNumber of rowNumbers) {
      const cells = tab.rows[rowNumber - 2]!
      const key = cellText(cells[index[C.key] ?? -1]).trim()
      if (!key) continue
      activities.push({
        key,
        date: rowPlace(cells, index, owners)!.date,
        start: timeText(cells[index[C.start] ?? -1]),
        seconds: rowSeconds(cells, index),
        tags: cellText(cells[index[C.tags] ?? -1]).trim(),
        labels: cellText(cells[index[C.labels] ?? -1]).trim(),
        notes: cellText(cells[index[C.notes] ?? -1]),
      })
    }
    return activities.sort((a, b) => compareText(a.key, b.key))
  }
  tab.rows.forEach((cells, i) => {
    const place = rowPlace(cells, index, owners)
    if (!place) return
    const period = periodOf(place.date, kind)
    const id = periodKey(place.user, period.id)
    let rows = out.get(id)
    if (!rows) {
      const rowNumbers: number[] = []
      let made: ApprovedActivity[] | undefined
      rows = {
        user: place.user,
        period,
        seconds: 0,
        get activities() {
          return (made ??= activitiesOf(rowNumbers))
        },
        rowNumbers,
      }
      out.set(id, rows)
    }
    rows.seconds += rowSeconds(cells, index)
    rows.rowNumbers.push(i + 2)
  })
  return out
}

/** Longer than any activity: ten years, in days. */
const MAX_DURATION_DAYS = 3653

function rowSeconds(cells: readonly CellValue[], index: Readonly<Record<string, number>>): number {
  const duration = cells[index[C.duration] ?? -1]
  // A number past any activity's length (a pasted 1e300) is no duration: the period's sum must stay a number a cell holds.
  if (typeof duration === 'number' && Number.isFinite(duration) && Math.abs(duration) < MAX_DURATION_DAYS)
    return fractionToSeconds(duration)
  // A row typed into a workbook holds its times as text until the export writes them back.
  const start = readTimeCell(cells[index[C.start] ?? -1], { allowDays: false })
  const end = readTimeCell(cells[index[C.end] ?? -1], { allowDays: true })
  if (!start.ok || !end.ok) return 0
  // An End before its Start is past midnight.
  return fractionToSeconds((((end.value - start.value) % 1) + 1) % 1)
}

function timeText(value: CellValue | undefined): string {
  if (typeof value !== 'number') return cellText(value).trim()
  const s = fractionToSeconds(value - Math.floor(value))
  const hh = String(Math.floor(s / 3600)).padStart(2, '0')
  const mm = String(Math.floor(s / 60) % 60).padStart(2, '0')
  return s % 60 ? `${hh}:${mm}:${String(s % 60).padStart(2, '0')}` : `${hh}:${mm}`
}

/** Why a person's period is not in step, per period key: the words a manager reads on the approval row. */
export type Blockers = Map<string, string[]>

/**
 * What keeps periods from being approved in this run: an edit the import sends now (it is approved once it is in
 * step), a row that cannot be read, a conflict. By the rows the plan names, placed with `placeOf`.
 */
export function blockersOf(
  decisions: readonly Decision[],
  placeOf: (rowNumber: number) => RowPlace | undefined,
  kind: PeriodKind,
): Blockers {
  const counts = new Map<string, { edits: number; invalid: number; conflicts: number }>()
  for (const d of decisions) {
    const which =
      d.kind === 'import-put' || d.kind === 'import-post' || d.kind === 'import-delete'
        ? 'edits'
        : d.kind === 'invalid'
          ? 'invalid'
          : d.kind === 'conflict'
            ? 'conflicts'
            : undefined
    if (!which || !('rowNumber' in d) || d.rowNumber === undefined) continue
    const place = placeOf(d.rowNumber)
    if (!place) continue
    const id = periodKey(place.user, periodOf(place.date, kind).id)
    const c = counts.get(id) ?? { edits: 0, invalid: 0, conflicts: 0 }
    c[which] += 1
    counts.set(id, c)
  }
  const out: Blockers = new Map()
  for (const [id, c] of counts) {
    const words: string[] = []
    if (c.edits) words.push(`${rowsWord(c.edits)} with edits this run sends to the server`)
    if (c.invalid) words.push(`${rowsWord(c.invalid)} that cannot be read`)
    if (c.conflicts) words.push(`${rowsWord(c.conflicts)} in conflict`)
    out.set(id, words)
  }
  return out
}

function rowsWord(n: number): string {
  return n === 1 ? '1 row' : `${n} rows`
}

/** One row of the Approvals tab as read. */
export interface ApprovalRow {
  rowNumber: number
  user: string
  periodId: string
  approved: boolean
  /** False when the Approved cell holds something that is not a tick. */
  tickReadable: boolean
  approvedBy: string
  /** Whether the tool's Approved at cell holds a time (it tells of an approval the tab showed). */
  approvedAtShown: boolean
}

/** What the Approvals tab's ticks ask for, given the record and what blocks each period. */
export interface ApprovalDecisions {
  approve: Approval[]
  reopen: Approval[]
  /** The Status of each approval row this run decides about, by row number. */
  statuses: Map<number, Status>
  /** One line each, for the Sync log. */
  log: string[]
}

export interface ApprovalContext {
  kind: PeriodKind
  records: ReadonlyMap<string, Approval>
  blockers: Blockers
  periodRows: ReadonlyMap<string, PeriodRows>
  /** Whether the target covers a user (decisions/0022). */
  covers(user: string): boolean
  /** The user name as the server writes it, for a User cell; undefined for nobody known. */
  userOf(text: string): string | undefined
  nowIso: string
  runId: string
}

/** Approvals taken and reopened, and what each approval row says. A period's first row decides; later ones are told so. */
export function decideApprovals(rows: readonly ApprovalRow[], ctx: ApprovalContext): ApprovalDecisions {
  const out: ApprovalDecisions = { approve: [], reopen: [], statuses: new Map(), log: [] }
  const seen = new Set<string>()
  for (const row of rows) {
    const say = (word: Status['word'], reason: string) => out.statuses.set(row.rowNumber, { word, reason })
    const user = ctx.userOf(row.user)
    if (!row.user && !row.periodId) continue
    if (!user || !ctx.covers(user)) {
      say('Error', `"${row.user}" is not one of the people this sheet covers; nothing is approved for them here.`)
      continue
    }
    const period = parsePeriodId(row.periodId, ctx.kind)
    if (!period) {
      say('Error', `"${row.periodId}" is not a ${ctx.kind === 'week' ? 'week like 2026-W45' : 'month like 2026-11'}.`)
      continue
    }
    const id = periodKey(user, period.id)
    if (seen.has(id)) {
      say('Error', `Another row above already stands for ${user}'s ${period.id}; this one is not read.`)
      continue
    }
    seen.add(id)
    if (!row.tickReadable) {
      say('Error', 'Approved holds something that is not a tick: tick it to approve, untick it to reopen.')
      continue
    }
    const record = ctx.records.get(id)
    if (!row.approved) {
      if (record) {
        out.reopen.push(record)
        out.log.push(`Reopened ${user} ${period.id} (approved by ${record.approvedBy}); seen ${ctx.nowIso}.`)
        say('Done', `Reopened: edits in this period are sent again. Tick Approved to approve it anew.`)
      } else if (row.approvedAtShown) {
        // Reopened on record by a run that stopped before writing the tab: the row says so now.
        say('Done', `Reopened: edits in this period are sent again. Tick Approved to approve it anew.`)
      }
      continue
    }
    if (record) continue
    const approvedBy = row.approvedBy.trim()
    if (!approvedBy) {
      say('Error', 'Not approved: type your name into Approved by, then the next run takes the approval.')
      continue
    }
    const blocking = ctx.blockers.get(id)
    if (blocking?.length) {
      say('Waiting', `Not approved yet: the period holds ${blocking.join(', ')}. The next run in step takes the approval.`)
      continue
    }
    const held = ctx.periodRows.get(id)
    const approval: Approval = {
      user,
      period,
      approvedBy,
      approvedAt: ctx.nowIso,
      runId: ctx.runId,
      seconds: held?.seconds ?? 0,
      activities: held?.activities ?? [],
      changes: [],
    }
    out.approve.push(approval)
    out.log.push(`Approved ${user} ${period.id} by ${approvedBy} (${hoursText(approval.seconds)} h); seen ${ctx.nowIso}.`)
    say('Done', `Approved by ${approvedBy}: ${hoursText(approval.seconds)} h are on record. Untick Approved to reopen.`)
  }
  return out
}

/** The period an id names (`2026-W45`, `2026-11`) of the target's kind, or undefined. */
export function parsePeriodId(text: string, kind: PeriodKind): Period | undefined {
  const t = text.trim().toUpperCase()
  if (kind === 'month') {
    const m = /^(\d{4})-(\d{2})$/.exec(t)
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) return undefined
    return periodOf(`${t}-01`, 'month')
  }
  const m = /^(\d{4})-W(\d{2})$/.exec(t)
  if (!m) return undefined
  // The ISO week holding 4 January is week 1; its Monday is at most 3 days before.
  const jan4 = periodOf(`${m[1]}-01-04`, 'week')
  const monday = new Date(`${jan4.from}T00:00:00Z`)
  monday.setUTCDate(monday.getUTCDate() + (Number(m[2]) - 1) * 7)
  const period = periodOf(monday.toISOString().slice(0, 10), 'week')
  return period.id === t ? period : undefined
}

/** Hours as `7:45` (negative `-0:30`), the way the Duration column shows elapsed time. */
export function hoursText(seconds: number): string {
  const sign = seconds < 0 ? '-' : ''
  const minutes = Math.round(Math.abs(seconds) / 60)
  return `${sign}${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`
}

/**
 * Writes the import would send into an approved period, turned into rows it refuses: a row whose Key the record
 * holds, or whose day lies in a period approved for its person. `import-delete-missing` has no row: it is
 * reported as missing instead of deleted.
 */
export function closeApprovedPeriods(
  decisions: readonly Decision[],
  standing: ReadonlyMap<string, Approval>,
  placeOf: (rowNumber: number) => RowPlace | undefined,
  kind: PeriodKind,
): { decisions: Decision[]; refused: number } {
  if (standing.size === 0) return { decisions: [...decisions], refused: 0 }
  const byKey = new Map<string, Approval>()
  for (const a of standing.values()) for (const act of a.activities) byKey.set(act.key, a)
  let refused = 0
  const out = decisions.map((d): Decision => {
    if (d.kind !== 'import-put' && d.kind !== 'import-post' && d.kind !== 'import-delete' && d.kind !== 'import-delete-missing') return d
    const key = 'key' in d ? d.key : undefined
    const place = 'rowNumber' in d ? placeOf(d.rowNumber) : undefined
    const approval =
      (key !== undefined ? byKey.get(key) : undefined) ??
      (place ? standing.get(periodKey(place.user, periodOf(place.date, kind).id)) : undefined)
    if (!approval) return d
    refused += 1
    const reason = closedReason(approval)
    if (d.kind === 'import-delete-missing') return { ...d, kind: 'report-missing', word: 'Error', reason }
    return {
      kind: 'invalid',
      key,
      rowNumber: d.rowNumber,
      problems: [{ code: 'approved-period', severity: 'error', column: undefined, message: reason }],
      word: 'Error',
      reason,
      sheet: d.sheet,
      server: d.server,
      warnings: [],
    }
  })
  return { decisions: out, refused }
}

/** What a refused row says: the approval, and how to reopen it. */
export function closedReason(approval: Approval): string {
  return `Not sent: ${approval.user}'s ${approval.period.id} was approved by ${approval.approvedBy} on ${approval.approvedAt.slice(0, 10)}. To change it, untick Approved on that row of the Approvals tab (it reopens the period), then run again.`
}

/** Reads the Approvals tab's rows by its header names. */
export function readApprovalRows(
  tab: TabData,
  names: { user: string; period: string; approved: string; approvedBy: string; approvedAt: string },
): ApprovalRow[] {
  const at = (name: string) => tab.header.findIndex((h) => typeof h === 'string' && h.trim() === name)
  const [u, p, a, b, t] = [at(names.user), at(names.period), at(names.approved), at(names.approvedBy), at(names.approvedAt)]
  const rows: ApprovalRow[] = []
  tab.rows.forEach((cells, i) => {
    if (cells.length === 0) return
    const tick = readCheckboxCell(cells[a])
    rows.push({
      rowNumber: i + 2,
      user: cellText(cells[u]).trim(),
      periodId: cellText(cells[p]).trim(),
      approved: tick.ok && tick.value,
      tickReadable: tick.ok,
      approvedBy: cellText(cells[b]),
      approvedAtShown: t >= 0 && cellText(cells[t]).trim() !== '',
    })
  })
  return rows
}

/** Code-point order, the same on every machine (localeCompare is not). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
