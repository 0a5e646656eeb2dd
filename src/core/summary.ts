/**
 * The Summary tab a manager opens every week: hours per person per week and
 * per client / project, as formulas over the Activities tab
 * (decisions/0007-summary-tab.md). Pure: the backends lay it out with the
 * Activities columns where they are found at layout time.
 *
 * Only SUMIFS, SUM, MAX, WEEKDAY and ROUND over whole columns, which Google Sheets,
 * Excel and LibreOffice all evaluate. The weeks follow the data by formula; the
 * people and client / project lists are fixed when the layout is made, and an
 * "everyone else" / "other tags" row (the total minus the listed rows) keeps
 * the totals whole when a name is new since.
 */
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
  /** Row of the client / project table's header. */
  groupsHeaderRow: number
  groupRows: [first: number, last: number]
  groupsTotalRow: number
}

/** The Summary tab's spec for a target: the people whose timelines it exports and the client / projects of its tags. */
export function summaryTab(input: { activities?: string; people: readonly string[]; tags: readonly string[]; weeks?: number }): TabSpec {
  const people = [...new Set(input.people.filter((p) => p.trim() !== ''))].sort((a, b) => a.localeCompare(b))
  const summary: SummarySpec = {
    activities: input.activities ?? TAB.activities,
    people,
    groups: clientProjects(input.tags),
    weeks: Math.max(1, Math.min(26, input.weeks ?? SUMMARY_WEEKS)),
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
  const groupsHeaderRow = peopleTotalRow + 2
  const groupFirst = groupsHeaderRow + 1
  const groupLast = groupFirst + spec.groups.length - 1
  return {
    width: spec.weeks + 2,
    peopleHeaderRow,
    peopleRows: [peopleFirst, peopleLast],
    peopleTotalRow,
    groupsHeaderRow,
    groupRows: [groupFirst, groupLast],
    groupsTotalRow: groupLast + 2,
  }
}

/**
 * The Summary's cells, row by row from A1. `columnOf(name)` gives the letters of an Activities column as the
 * layout finds it (by header name); `null` is an empty cell.
 */
export function summaryCells(spec: SummarySpec, columnOf: (name: string) => string): (SummaryCell | null)[][] {
  const shape = summaryShape(spec)
  const tab = `'${spec.activities.replaceAll("'", "''")}'`
  const whole = (name: string) => {
    const letters = columnOf(name)
    return `${tab}!$${letters}:$${letters}`
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
