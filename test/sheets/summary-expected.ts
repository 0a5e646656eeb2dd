/**
 * What the Summary tab must show for some Activities rows, computed here row by row, for the Summary tests of
 * both backends.
 */
import { expect } from 'vitest'
import { activitiesTab, allowedTagsTab, syncLogTab } from '../../src/core/columns.ts'
import { summaryShape, summaryTab } from '../../src/core/summary.ts'
import type { SummarySpec, TabSpec } from '../../src/core/sheet.ts'
import type { CellValue } from '../../src/sheets/port.ts'

export interface SummaryRow {
  user: string
  date: number
  /** Fraction of a day. */
  duration: number
  tags: string
  deleted: boolean
}

/** An Activities row (the columns of `activitiesTab()`) for a summary row. */
export function activitiesCells(row: SummaryRow, n: number): CellValue[] {
  return [row.user, row.date, 0.375, 0.375 + row.duration, row.duration, row.tags, '', `note ${n}`, row.deleted, '', `key/${n}`, '']
}

/** Monday on or before a serial date. */
export function mondayOf(serial: number): number {
  // Serial 2 (1900-01-01) was a Monday.
  return serial - ((((serial - 2) % 7) + 7) % 7)
}

/** The Summary's values (A1 down, as UNFORMATTED_VALUE shows them, hours rounded to 1e-9) for `rows`. */
export function expectedSummary(spec: SummarySpec, rows: readonly SummaryRow[]): Map<string, number> {
  const shape = summaryShape(spec)
  const out = new Map<string, number>()
  const live = rows.filter((r) => !r.deleted)
  const latest = Math.max(...rows.map((r) => r.date))
  const weeks = Array.from({ length: spec.weeks }, (_, i) => mondayOf(latest) - 7 * (spec.weeks - 1 - i))
  const hours = (keep: (r: SummaryRow) => boolean, week?: number) =>
    24 * live.filter((r) => keep(r) && (week === undefined || (r.date >= week && r.date < week + 7))).reduce((n, r) => n + r.duration, 0)
  const put = (row: number, keep: (r: SummaryRow) => boolean) => {
    weeks.forEach((week, i) => out.set(cell(i + 1, row), hours(keep, week)))
    out.set(cell(spec.weeks + 1, row), hours(keep))
  }
  weeks.forEach((week, i) => {
    out.set(cell(i + 1, shape.peopleHeaderRow), week)
    out.set(cell(i + 1, shape.groupsHeaderRow), week)
  })
  spec.people.forEach((person, i) => put(shape.peopleRows[0] + i, (r) => r.user.toLowerCase() === person.toLowerCase()))
  put(shape.peopleTotalRow - 1, (r) => !spec.people.some((p) => p.toLowerCase() === r.user.toLowerCase()))
  put(shape.peopleTotalRow, () => true)
  const under = (name: string) => (r: SummaryRow) => {
    const tags = r.tags.toLowerCase()
    const n = name.toLowerCase()
    return tags === n || tags.startsWith(`${n},`)
  }
  spec.groups.forEach((group, i) => put(shape.groupRows[0] + i, under(group.name)))
  const clients = spec.groups.filter((g) => g.level === 1).map((g) => under(g.name))
  put(shape.groupsTotalRow - 1, (r) => !clients.some((inClient) => inClient(r)))
  put(shape.groupsTotalRow, () => true)
  return out
}

/** `B4` for a 0-based column and a 1-based row. */
export function cell(column: number, row: number): string {
  return `${String.fromCharCode(65 + column)}${row}`
}

/** Rows over three weeks: two listed people and one not, listed and unlisted tags, one row ticked for deletion. */
export function summaryRows(): SummaryRow[] {
  const monday = 46349 // 2026-11-23
  return [
    { user: 'DOMAIN\\ann', date: monday - 14, duration: 2 / 24, tags: 'Acme, Website, Design', deleted: false },
    { user: 'DOMAIN\\ann', date: monday - 8, duration: 1.5 / 24, tags: 'Acme, Support', deleted: false },
    { user: 'DOMAIN\\ann', date: monday, duration: 3 / 24, tags: 'Acme, Website, Build', deleted: false },
    { user: 'DOMAIN\\bob', date: monday - 7, duration: 4 / 24, tags: 'Beta, App, Build', deleted: false },
    { user: 'DOMAIN\\bob', date: monday + 2, duration: 0.25 / 24, tags: 'Beta', deleted: false },
    { user: 'DOMAIN\\bob', date: monday + 3, duration: 5 / 24, tags: 'Acme, Website, Design', deleted: true },
    { user: 'DOMAIN\\cy', date: monday + 1, duration: 6 / 24, tags: 'Gamma, X', deleted: false },
    { user: 'DOMAIN\\ann', date: monday + 4, duration: 0.75 / 24, tags: 'Acmeish, Other', deleted: false },
  ]
}

export const LAYOUT = { timeZone: 'Europe/Berlin' }
const TAGS = ['Acme, Website, Design', 'Acme, Website, Build', 'Acme, Support', 'Beta, App, Build']

/** The tabs both backends' Summary tests lay out: the Summary fourth. */
export function specs(people = ['DOMAIN\\bob', 'DOMAIN\\ann']): TabSpec[] {
  return [activitiesTab(), allowedTagsTab(), syncLogTab(), summaryTab({ people, tags: TAGS })]
}

/** Every cell of the Summary as the rows say it must be: a number, equal to the sum computed row by row. */
export function expectSummary(actual: Map<string, unknown>, rows: readonly SummaryRow[], people?: string[]) {
  const expected = expectedSummary(specs(people)[3]!.summary!, rows)
  expect(expected.size).toBeGreaterThan(60)
  for (const [address, value] of expected) {
    const got = actual.get(address)
    expect(typeof got, `${address}: ${String(got)}`).toBe('number')
    expect(got as number, address).toBeCloseTo(value, 9)
  }
}
