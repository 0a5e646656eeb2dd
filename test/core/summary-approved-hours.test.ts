/**
 * The Summary's approved / open table (issue 37, decisions/0007 and 0026): its cells, typed into the Sheets fake
 * beside an Activities and an Approvals tab, evaluate to each person's approved and open hours per week, for
 * weekly and monthly approval periods; a target without approvals keeps the Summary it had.
 */
import { describe, expect, it } from 'vitest'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { approvalsTab } from '../../src/core/approvals-tab.ts'
import { activitiesTab, columnLetters } from '../../src/core/columns.ts'
import type { SummarySpec } from '../../src/core/sheet.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import { summaryCells, summaryShape, summaryTab, type SummaryCell } from '../../src/core/summary.ts'
import { activitiesCells, type SummaryRow } from '../sheets/summary-expected.ts'

const ANN = 'DOMAIN\\ann'
const BOB = 'DOMAIN\\bob'
const day = (date: string) => localDateToSerial(date as Parameters<typeof localDateToSerial>[0])
const TAKEN = day('2026-11-20') + 0.5

const spec = (approvals?: string): SummarySpec =>
  summaryTab({ people: [BOB, ANN], tags: [], weeks: 3, ...(approvals ? { approvals } : {}) }).summary!

function columnOf(name: string, tab: string): string {
  const columns = tab === 'Approvals' ? approvalsTab().columns : activitiesTab().columns
  const index = columns.findIndex((c) => c.name === name)
  if (index < 0) throw new Error(`no column ${name} in ${tab}`)
  return columnLetters(index)
}

interface ApprovalLine {
  user: string
  period: string
  from: string
  to: string
  ticked: boolean
  /** The tool took the approval: Approved at is filled in. */
  taken: boolean
}

/** The Summary as the fake evaluates it beside these Activities and Approvals rows: hours by row label. */
function evaluate(rows: readonly SummaryRow[], approvals: readonly ApprovalLine[]): Map<string, number[]> {
  const store = createSheetsStore({ quota: false })
  const manager = createManager(store)
  const id = manager.createSpreadsheet({ sheets: [{ title: 'Activities' }, { title: 'Approvals' }, { title: 'Summary' }] })
  manager.pasteBlock(
    id,
    'Activities',
    'A1',
    [activitiesTab().columns.map((c) => c.name), ...rows.map((r, i) => activitiesCells(r, i + 1))],
    {
      raw: true,
    },
  )
  manager.pasteBlock(
    id,
    'Approvals',
    'A1',
    [
      approvalsTab().columns.map((c) => c.name),
      ...approvals.map((a) => [a.user, a.period, day(a.from), day(a.to), 0, a.ticked, a.ticked ? 'Mia' : '', a.taken ? TAKEN : null]),
    ],
    { raw: true },
  )
  const cells = summaryCells(spec('Approvals'), columnOf)
  const typed = (cell: SummaryCell | null | undefined) => cell?.formula ?? cell?.text ?? null
  manager.pasteBlock(
    id,
    'Summary',
    'A1',
    cells.map((row) => Array.from({ length: 5 }, (_, i) => typed(row[i]))),
  )
  const out = new Map<string, number[]>()
  for (const row of manager.readTab(id, 'Summary', 'UNFORMATTED_VALUE')) {
    if (typeof row[0] === 'string' && typeof row[1] === 'number') out.set(row[0], row.slice(1, 5) as number[])
  }
  return out
}

const at = (user: string, date: string, hours: number, deleted = false): SummaryRow => ({
  user,
  date: day(date),
  duration: hours / 24,
  tags: '',
  deleted,
})

function expectHours(values: Map<string, number[]>, label: string, hours: number[]) {
  const got = values.get(label)
  expect(got, label).toBeDefined()
  hours.forEach((h, i) => expect(got![i], `${label}, column ${i + 1}`).toBeCloseTo(h, 9))
}

describe('approved and open hours on the Summary', () => {
  it('counts a week as approved when its approval is ticked and taken, and the rest of each person’s hours as open', () => {
    // Weeks shown: 2026-11-09, 11-16, 11-23 (the latest Date's week last).
    const rows = [
      at(ANN, '2026-11-09', 2),
      at(ANN, '2026-11-17', 1.5),
      at(ANN, '2026-11-24', 3),
      at(BOB, '2026-11-10', 4),
      at(BOB, '2026-11-25', 0.25),
      at(BOB, '2026-11-26', 5, true),
    ]
    const values = evaluate(rows, [
      { user: ANN, period: '2026-W46', from: '2026-11-09', to: '2026-11-15', ticked: true, taken: true },
      // Ticked, but the tool has not taken it yet (a period out of step, no name): not approved.
      { user: ANN, period: '2026-W47', from: '2026-11-16', to: '2026-11-22', ticked: true, taken: false },
      { user: BOB, period: '2026-W46', from: '2026-11-09', to: '2026-11-15', ticked: false, taken: false },
      { user: BOB, period: '2026-W48', from: '2026-11-23', to: '2026-11-29', ticked: true, taken: true },
    ])
    // The last column sums the weeks shown.
    expectHours(values, `${ANN}: approved`, [2, 0, 0, 2])
    expectHours(values, `${ANN}: open`, [0, 1.5, 3, 4.5])
    // Bob's ticked Delete counts in neither.
    expectHours(values, `${BOB}: approved`, [0, 0, 0.25, 0.25])
    expectHours(values, `${BOB}: open`, [4, 0, 0, 4])
    expectHours(values, 'Total approved', [2, 0, 0.25, 2.25])
    expectHours(values, 'Total open', [4, 1.5, 3, 8.5])
  })

  it('with monthly periods, approves a week only when it lies wholly in approved months', () => {
    // Weeks shown: 2026-11-16, 11-23, 11-30 (which ends in December).
    const rows = [at(ANN, '2026-11-17', 1), at(ANN, '2026-11-24', 2), at(ANN, '2026-12-01', 3)]
    const november = { user: ANN, period: '2026-11', from: '2026-11-01', to: '2026-11-30', ticked: true, taken: true }
    const onlyNovember = evaluate(rows, [november])
    expectHours(onlyNovember, `${ANN}: approved`, [1, 2, 0, 3])
    expectHours(onlyNovember, `${ANN}: open`, [0, 0, 3, 3])

    const both = evaluate(rows, [november, { ...november, period: '2026-12', from: '2026-12-01', to: '2026-12-31' }])
    expectHours(both, `${ANN}: approved`, [1, 2, 3, 6])
    expectHours(both, `${ANN}: open`, [0, 0, 0, 0])
  })

  it('puts the approved / open table between the people and the client / project tables, for a target with approvals only', () => {
    const shape = summaryShape(spec('Approvals'))
    const plain = spec()
    expect(shape.approvedHeaderRow).toBe(summaryShape(plain).groupsHeaderRow)
    // Two rows per person, then the two totals and an empty row.
    expect(shape.approvedRows).toEqual([shape.approvedHeaderRow! + 1, shape.approvedHeaderRow! + 4])
    expect(shape.groupsHeaderRow).toBe(shape.approvedHeaderRow! + 8)

    // Without approvals the spec (and so the layout hash) and the cells are what they were.
    expect('approvals' in plain).toBe(false)
    expect(summaryShape(plain).approvedHeaderRow).toBeUndefined()
    expect(JSON.stringify(summaryCells(plain, columnOf))).not.toMatch(/Approvals|approved/)
  })
})
