/**
 * The Summary tab a manager opens every week: hours per person per week and
 * per client / project, as formulas over the Activities tab
 * (decisions/0007-summary-tab.md). Pure: the backends lay it out with the
 * Activities columns where they are found at layout time.
 *
 * Only SUMIFS, COUNTIFS, SUM, MIN, MAX, WEEKDAY and ROUND over whole columns, which Google Sheets,
 * Excel and LibreOffice all evaluate. The weeks follow the data by formula; the
 * people and client / project lists are fixed when the layout is made, and an
 * "everyone else" / "other tags" row (the total minus the listed rows) keeps
 * the totals whole when a name is new since.
 *
 * A target with approvals also gets, under the people table, each person's approved and open hours per week
 * (decisions/0026): approved where the person's Approvals rows covering the week's Monday and its Sunday are both
 * ticked and taken (Approved at filled in), so a week lies wholly in approved periods, weeks and months alike.
 */
import { APPROVALS_COLUMN } from './approvals-tab.ts'
import { ACTIVITY_COLUMN, columnLetters, TAB } from './columns.ts'
import type { SummarySpec, TabSpec } from './sheet.ts'

/** Title of the Summary tab. */
export const SUMMARY_TAB = 'Summary'

/** Weeks shown by default, up to the week of the latest Date in Activities. */
export const SUMMARY_WEEKS = 8

/** A cell of the Summary: a label, or a formula (`=…`) with how its number is shown. */
export interface SummaryCell {
  text?: string
  formula?: string
  /** `hours`: a number with one decimal; `week`: the date a week starts. */
  format?: 'hours' | 'week'
  bold?: boolean
  /** Aligned to the right, over a column of numbers. */
  right?: boolean
}

/** Where the parts of the Summary sit: rows are 1-based. */
export interface SummaryShape {
  /** Number of columns the Summary owns (A…); a manager's columns to the right are left alone. */
  width: number
  /** Row of the people table's header (week start dates in columns B…). */
  peopleHeaderRow: number
  /** Rows of the listed people. */
  peopleRows: [first: number, last: number]
  /** Row of the grand total of the people table. */
  peopleTotalRow: number
  /**
   * With approvals: the approved / open table's header, its rows (an approved row, then an open row, per
   * listed person) and its two total rows (approved, open).
   */
  approvedHeaderRow?: number
  approvedRows?: [first: number, last: number]
  approvedTotalRows?: [approved: number, open: number]
  /** Row of the client / project table's header. */
  groupsHeaderRow: number
  groupRows: [first: number, last: number]
  groupsTotalRow: number
}

/** The Summary tab's spec for a target: the people whose timelines it exports and the client / projects of its tags. */
export function summaryTab(input: {
  activities?: string
  people: readonly string[]
  tags: readonly string[]
  weeks?: number
  /** Title of the target's Approvals tab, when approvals are on. */
  approvals?: string
}): TabSpec {
  const people = [...new Set(input.people.filter((p) => p.trim() !== ''))].sort((a, b) => a.localeCompare(b))
  const summary: SummarySpec = {
    activities: input.activities ?? TAB.activities,
    people,
    groups: clientProjects(input.tags),
    weeks: Math.max(1, Math.min(26, input.weeks ?? SUMMARY_WEEKS)),
    // Only when on: a target without approvals keeps the spec, and so the layout hash, it had.
    ...(input.approvals !== undefined ? { approvals: { tab: input.approvals } } : {}),
  }
  return { title: SUMMARY_TAB, readOnly: true, columns: [], summary }
}

/**
 * The first two levels of tag combinations (`Client, Project, Task`), each client followed by its projects,
 * sorted; level 1 rows are the clients, whose sum is the whole of the tagged hours.
 */
export function clientProjects(tags: readonly string[]): { name: string; level: 1 | 2 }[] {
  const clients = new Map<string, Set<string>>()
  for (const combination of tags) {
    const parts = combination.split(',').map((part) => part.trim())
    const client = parts[0]
    if (client === undefined || client === '') continue
    const projects = clients.get(client) ?? new Set<string>()
    clients.set(client, projects)
    if (parts[1]) projects.add(parts[1])
  }
  const byName = (a: string, b: string) => a.localeCompare(b)
  return [...clients.keys()]
    .sort(byName)
    .flatMap((client) => [
      { name: client, level: 1 as const },
      ...[...clients.get(client)!].sort(byName).map((project) => ({ name: `${client}, ${project}`, level: 2 as const })),
    ])
}

/** Where each table sits for this spec. */
export function summaryShape(spec: SummarySpec): SummaryShape {
  const peopleHeaderRow = 3
  const peopleFirst = peopleHeaderRow + 1
  const peopleLast = peopleFirst + spec.people.length - 1
  // After the people: "everyone else", then the total.
  const peopleTotalRow = peopleLast + 2
  let groupsHeaderRow = peopleTotalRow + 2
  const approved: Partial<SummaryShape> = {}
  if (spec.approvals) {
    const header = groupsHeaderRow
    const last = header + 2 * spec.people.length
    approved.approvedHeaderRow = header
    approved.approvedRows = [header + 1, last]
    approved.approvedTotalRows = [last + 1, last + 2]
    groupsHeaderRow = last + 4
  }
  const groupFirst = groupsHeaderRow + 1
  const groupLast = groupFirst + spec.groups.length - 1
  return {
    width: spec.weeks + 2,
    peopleHeaderRow,
    peopleRows: [peopleFirst, peopleLast],
    peopleTotalRow,
    ...approved,
    groupsHeaderRow,
    groupRows: [groupFirst, groupLast],
    groupsTotalRow: groupLast + 2,
  }
}

/**
 * The Summary's cells, row by row from A1. `columnOf(name, tab)` gives the letters of a column of the Activities
 * (or Approvals) tab as the layout finds it (by header name); `null` is an empty cell.
 */
export function summaryCells(spec: SummarySpec, columnOf: (name: string, tab: string) => string): (SummaryCell | null)[][] {
  const shape = summaryShape(spec)
  const whole = (name: string, of: string = spec.activities) => {
    const letters = columnOf(name, of)
    return `'${of.replaceAll("'", "''")}'!$${letters}:$${letters}`
  }
  const C = ACTIVITY_COLUMN
  const duration = whole(C.duration)
  const user = whole(C.user)
  const date = whole(C.date)
  const tags = whole(C.tags)
  const ticked = whole(C.delete)
  const weekColumns = Array.from({ length: spec.weeks }, (_, i) => columnLetters(i + 1))
  const allColumn = columnLetters(spec.weeks + 1)

  /** Hours of the rows meeting `criteria` (pairs of range and criterion), rows with Delete ticked left out. */
  const hours = (criteria: string[][]) => {
    if (criteria.length === 0) return `24*(SUM(${duration})-SUMIFS(${duration},${ticked},TRUE))`
    const pairs = criteria.map(([range, criterion]) => `${range},${criterion}`).join(',')
    return `24*(SUMIFS(${duration},${pairs})-SUMIFS(${duration},${pairs},${ticked},TRUE))`
  }
  const inWeek = (week: string) => [
    [date, `">="&${week}$${shape.peopleHeaderRow}`],
    [date, `"<"&(${week}$${shape.peopleHeaderRow}+7)`],
  ]
  /** One row of a table: hours per week and over all dates for the criteria a label cell gives. */
  const line = (label: SummaryCell, criteria: (row: number) => string[][][], row: number): SummaryCell[] => {
    const variants = criteria(row)
    // Rounded to a millionth of an hour: sums of day fractions carry float noise that shows 6.75 as 6.7.
    const sum = (extra: string[][]) => `=ROUND(${variants.map((c) => hours([...c, ...extra])).join('+')},6)`
    return [
      label,
      ...weekColumns.map((week) => ({ formula: sum(inWeek(week)), format: 'hours' as const })),
      { formula: sum([]), format: 'hours', bold: true },
    ]
  }
  const rest = (label: string, row: number, from: number, to: number, rows?: readonly number[]): SummaryCell[] => {
    const listed = (column: string) =>
      to < from ? '0' : rows ? rows.map((r) => `${column}${r}`).join('+') || '0' : `SUM(${column}${from}:${column}${to})`
    const total = row + 1
    return [
      { text: label },
      ...[...weekColumns, allColumn].map((column) => ({
        formula: `=ROUND(${column}${total}-(${listed(column)}),6)`,
        format: 'hours' as const,
      })),
    ]
  }
  const header = (label: string, weeksFromRow?: number): SummaryCell[] => [
    { text: label, bold: true },
    ...weekColumns.map((week, i) =>
      weeksFromRow !== undefined
        ? { formula: `=${week}${weeksFromRow}`, format: 'week' as const, bold: true }
        : i === 0
          ? {
              formula: `=MAX(${date})-WEEKDAY(MAX(${date}),2)+1-${7 * (spec.weeks - 1)}`,
              format: 'week' as const,
              bold: true,
            }
          : { formula: `=${weekColumns[i - 1]}${shape.peopleHeaderRow}+7`, format: 'week' as const, bold: true },
    ),
    { text: 'All dates', bold: true, right: true },
  ]
  const totalLine = (): SummaryCell[] =>
    line({ text: 'Total', bold: true }, () => [[]], 0).map((cell, i) => (i === 0 ? cell : { ...cell, bold: true }))

  const rows: (SummaryCell | null)[][] = []
  rows.push([
    {
      text: `Hours from ${spec.activities}; rows with Delete ticked do not count. Weeks start on Monday, up to the latest Date.`,
      bold: true,
    },
  ])
  rows.push([])
  rows.push(header('Person'))
  spec.people.forEach((person, i) => {
    const row = shape.peopleRows[0] + i
    rows.push(line({ text: person }, (r) => [[[user, `"="&$A${r}`]]], row))
  })
  rows.push(rest('Everyone else', shape.peopleTotalRow - 1, shape.peopleRows[0], shape.peopleRows[1]))
  rows.push(totalLine())
  rows.push([])
  if (spec.approvals) rows.push(...approvedCells(spec, shape, whole), [])
  rows.push(header('Client / project', shape.peopleHeaderRow))
  const clientRows: number[] = []
  spec.groups.forEach((group, i) => {
    const row = shape.groupRows[0] + i
    if (group.level === 1) clientRows.push(row)
    // Exactly the name, or the name followed by further levels (`Acme` and `Acme, Website, Design`).
    rows.push(
      line(
        { text: group.name, ...(group.level === 1 ? { bold: true } : {}) },
        (r) => [[[tags, `"="&$A${r}`]], [[tags, `"="&$A${r}&",*"`]]],
        row,
      ),
    )
  })
  rows.push(rest('Other tags', shape.groupsTotalRow - 1, shape.groupRows[0], shape.groupRows[1], clientRows))
  rows.push(totalLine())
  return rows
}

/**
 * The approved / open table: per listed person, the hours of each week that lies wholly in approved periods, and
 * the rest. The hours are the people table's own cells (live over Activities, Delete ticked left out), so approved
 * plus open is always the person's week; the last column sums the weeks shown, not all dates, since a period
 * outside them cannot be read from a week's column.
 */
function approvedCells(spec: SummarySpec, shape: SummaryShape, whole: (name: string, tab?: string) => string): (SummaryCell | null)[][] {
  const tab = spec.approvals!.tab
  const A = APPROVALS_COLUMN
  const [user, from, to, approved, approvedAt] = [A.user, A.from, A.to, A.approved, A.approvedAt].map((name) => whole(name, tab))
  const weekColumns = Array.from({ length: spec.weeks }, (_, i) => columnLetters(i + 1))
  const weekOf = (column: string) => `${column}$${shape.peopleHeaderRow}`
  // 1 when an approval the tool has taken (a tick alone is not yet on record) covers the day, else 0.
  const coveredOn = (personRow: number, day: string) =>
    `COUNTIFS(${user},"="&$A$${personRow},${from},"<="&${day},${to},">="&${day},${approved},TRUE,${approvedAt},">0")`
  const rows: (SummaryCell | null)[][] = [
    [
      { text: 'Approved / open', bold: true },
      ...weekColumns.map((column) => ({ formula: `=${weekOf(column)}`, format: 'week' as const, bold: true })),
      { text: 'Weeks shown', bold: true, right: true },
    ],
  ]
  const shown = (row: number) => ({ formula: `=ROUND(SUM(B${row}:${weekColumns.at(-1)}${row}),6)`, format: 'hours' as const, bold: true })
  spec.people.forEach((person, i) => {
    const personRow = shape.peopleRows[0] + i
    const approvedRow = shape.approvedRows![0] + 2 * i
    rows.push([
      { text: `${person}: approved` },
      ...weekColumns.map((column) => ({
        // A week across two periods (a month's end) is approved only when both are.
        formula: `=ROUND(${column}${personRow}*MIN(1,${coveredOn(personRow, weekOf(column))},${coveredOn(personRow, `(${weekOf(column)}+6)`)}),6)`,
        format: 'hours' as const,
      })),
      shown(approvedRow),
    ])
    rows.push([
      { text: `${person}: open` },
      ...weekColumns.map((column) => ({ formula: `=ROUND(${column}${personRow}-${column}${approvedRow},6)`, format: 'hours' as const })),
      shown(approvedRow + 1),
    ])
  })
  const [first, last] = shape.approvedRows!
  const approvedRows = Array.from({ length: spec.people.length }, (_, i) => first + 2 * i)
  const [totalApproved] = shape.approvedTotalRows!
  const sumOf = (column: string) => (last < first ? '0' : approvedRows.map((r) => `${column}${r}`).join('+'))
  rows.push([
    { text: 'Total approved', bold: true },
    ...weekColumns.map((column) => ({ formula: `=ROUND(${sumOf(column)},6)`, format: 'hours' as const, bold: true })),
    shown(totalApproved),
  ])
  // Everyone else's hours have no approval rows of theirs in this table: they are open.
  rows.push([
    { text: 'Total open', bold: true },
    ...weekColumns.map((column) => ({
      formula: `=ROUND(${column}${shape.peopleTotalRow}-${column}${totalApproved},6)`,
      format: 'hours' as const,
      bold: true,
    })),
    shown(totalApproved + 1),
  ])
  return rows
}
