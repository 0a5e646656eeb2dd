/**
 * The approved periods as a report people can hand to payroll (decisions/0026-approvals.md): hours per person,
 * day and tags, each period with its approver and when the tool took the approval, and periods the server
 * changed since marked. The same approvals always give the same bytes: sorted in code-point order, hours with
 * two decimals, and nothing of the report's own run (no time, no run id).
 */
import { compareText, type Approval } from './approvals.ts'

export interface ReportInput {
  target: string
  approvals: readonly Approval[]
}

interface DayLine {
  date: string
  tags: string
  seconds: number
}

/** Hours with two decimals, from whole seconds: the same text on every machine. */
export function hoursDecimal(seconds: number): string {
  const hundredths = Math.round(seconds / 36)
  const sign = hundredths < 0 ? '-' : ''
  const abs = Math.abs(hundredths)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

function daysOf(approval: Approval): DayLine[] {
  const byDay = new Map<string, DayLine>()
  for (const a of approval.activities) {
    const id = `${a.date}\t${a.tags}`
    const line = byDay.get(id) ?? { date: a.date, tags: a.tags, seconds: 0 }
    line.seconds += a.seconds
    byDay.set(id, line)
  }
  return [...byDay.values()].sort((a, b) => compareText(a.date, b.date) || compareText(a.tags, b.tags))
}

function sorted(inputs: readonly ReportInput[]): { target: string; approval: Approval }[] {
  return inputs
    .flatMap((i) => i.approvals.map((approval) => ({ target: i.target, approval })))
    .sort(
      (a, b) =>
        compareText(a.target, b.target) ||
        compareText(a.approval.user.toLowerCase(), b.approval.user.toLowerCase()) ||
        compareText(a.approval.period.from, b.approval.period.from),
    )
}

/** One line per target, person, period, day and tags; RFC 4180 quoting, CRLF line ends. */
export function approvalsCsv(inputs: readonly ReportInput[]): string {
  const header = ['target', 'user', 'period', 'from', 'to', 'date', 'tags', 'hours', 'approved_by', 'approved_at', 'changed_since_approval']
  const lines = [header.map(csvCell).join(',')]
  for (const { target, approval: a } of sorted(inputs)) {
    const last = lastDay(a.period.to)
    for (const d of daysOf(a))
      lines.push(
        [
          target,
          a.user,
          a.period.id,
          a.period.from,
          last,
          d.date,
          d.tags,
          hoursDecimal(d.seconds),
          a.approvedBy,
          a.approvedAt,
          a.changes.length ? 'yes' : 'no',
        ]
          .map(csvCell)
          .join(','),
      )
  }
  return `${lines.join('\r\n')}\r\n`
}

/** The same periods as JSON, with the changes since approval spelt out. */
export function approvalsJson(inputs: readonly ReportInput[]): string {
  const periods = sorted(inputs).map(({ target, approval: a }) => ({
    target,
    user: a.user,
    period: a.period.id,
    from: a.period.from,
    to: lastDay(a.period.to),
    approvedBy: a.approvedBy,
    approvedAt: a.approvedAt,
    hours: hoursDecimal(a.seconds),
    changedSinceApproval: a.changes.length > 0,
    changes: a.changes.map((c) => ({ key: c.key, what: c.what, hours: hoursDecimal(c.seconds) })),
    days: daysOf(a).map((d) => ({ date: d.date, tags: d.tags, hours: hoursDecimal(d.seconds) })),
  }))
  return `${JSON.stringify({ periods }, null, 2)}\n`
}

function lastDay(to: string): string {
  const d = new Date(`${to}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() - 1)
  return d.toISOString().slice(0, 10)
}

function csvCell(text: string): string {
  // A leading =, +, - or @ would be a formula to a spreadsheet opening the file: quoted with a leading apostrophe.
  const safe = /^[=+\-@]/.test(text) && !/^-?\d/.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replace(/"/g, '""')}"` : safe
}
