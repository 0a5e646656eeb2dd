import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  blockersOf,
  closeApprovedPeriods,
  decideApprovals,
  parsePeriodId,
  periodKey,
  periodRowsOf,
  rowPlace,
  type Approval,
  type ApprovalContext,
  type ApprovalRow,
  type RowOwner,
} from '../../src/core/approvals.ts'
import { approvalRowsOf, approvalsTab, approvalsWrite } from '../../src/core/approvals-tab.ts'
import { ACTIVITY_COLUMN as C } from '../../src/core/columns.ts'
import type { Decision } from '../../src/core/plan.ts'
import { periodOf } from '../../src/core/periods.ts'
import { addDays, localDateToSerial } from '../../src/core/serial.ts'
import type { CellValue, TabData } from '../../src/core/sheet.ts'

const header = [C.user, C.date, C.start, C.end, C.duration, C.tags, C.labels, C.notes, C.delete, C.status, C.key, C.base]
const index = Object.fromEntries(header.map((h, i) => [h, i]))
const owners: RowOwner = {
  ownerOfKey: (key) => (key.startsWith('tl-ann/') ? 'ann' : key.startsWith('tl-bob/') ? 'bob' : undefined),
  userOfCell: (text) => (['ann', 'bob', 'eve'].includes(text.toLowerCase()) ? text.toLowerCase() : undefined),
}

function row(user: string, date: string, start: string, hours: number, tags: string, key = ''): CellValue[] {
  const [h, m] = start.split(':').map(Number)
  const s = (h! * 60 + m!) / 1440
  return [user, localDateToSerial(date), s, s + hours / 24, hours / 24, tags, null, null, false, null, key || null, null]
}

function activities(rows: CellValue[][]): TabData {
  return { title: 'Activities', exists: true, header, rows, gridRowCount: rows.length + 1 }
}

// 2026-11-09 is the Monday of 2026-W46.
const tab = activities([
  row('ann', '2026-11-09', '09:00', 2, 'Acme, Web', 'tl-ann/1'),
  row('ann', '2026-11-10', '13:30', 1.5, 'Acme, App', 'tl-ann/2'),
  row('ann', '2026-11-16', '09:00', 1, 'Acme, Web', 'tl-ann/3'),
  row('bob', '2026-11-09', '09:00', 4, 'Beta', 'tl-bob/7'),
  row('ann', '2026-11-11', '08:00', 0.25, 'Acme, Web'),
])

function context(over: Partial<ApprovalContext> = {}): ApprovalContext {
  return {
    kind: 'week',
    records: new Map(),
    blockers: new Map(),
    periodRows: periodRowsOf(tab, index, 'week', owners),
    covers: (u) => u === 'ann' || u === 'bob',
    userOf: owners.userOfCell,
    nowIso: '2026-11-17T08:00:00.000Z',
    runId: 'run-1',
    ...over,
  }
}

const tick = (over: Partial<ApprovalRow> = {}): ApprovalRow => ({
  rowNumber: 2,
  user: 'ann',
  periodId: '2026-W46',
  approved: true,
  tickReadable: true,
  approvedBy: 'Mia Manager',
  approvedAtShown: false,
  ...over,
})

describe('what a period holds', () => {
  it('sums each person’s week from the Duration cells of the rows whose Date lies in it, new rows included', () => {
    const rows = periodRowsOf(tab, index, 'week', owners)
    const ann = rows.get(periodKey('ann', '2026-W46'))!
    expect(ann.seconds).toBe(3.75 * 3600)
    expect(ann.rowNumbers).toEqual([2, 3, 6])
    expect(ann.activities.map((a) => [a.key, a.date, a.start, a.seconds, a.tags])).toEqual([
      ['tl-ann/1', '2026-11-09', '09:00', 7200, 'Acme, Web'],
      ['tl-ann/2', '2026-11-10', '13:30', 5400, 'Acme, App'],
    ])
    expect(rows.get(periodKey('ann', '2026-W47'))!.seconds).toBe(3600)
    expect(rows.get(periodKey('bob', '2026-W46'))!.seconds).toBe(4 * 3600)
  })

  it('reads a Duration no activity has (a pasted 1e300) from Start and End, so the week’s hours stay a number', () => {
    const pasted = row('ann', '2026-11-09', '09:00', 2, 'Acme')
    pasted[index[C.duration]!] = 1e300
    const seconds = periodRowsOf(activities([pasted]), index, 'week', owners).get(periodKey('ann', '2026-W46'))!.seconds
    expect(seconds).toBe(7200)
  })

  it('takes the person from the Key’s timeline, not from a User cell someone retyped', () => {
    const retyped = activities([row('bob', '2026-11-09', '09:00', 2, 'Acme', 'tl-ann/1')])
    expect([...periodRowsOf(retyped, index, 'week', owners).keys()]).toEqual([periodKey('ann', '2026-W46')])
  })

  it('reads a Date typed as text, as a workbook keeps it, so a new row typed into a week belongs to it', () => {
    const typed = row('ann', '2026-11-09', '09:00', 1, 'Acme')
    typed[index[C.date]!] = '2026-11-12'
    expect(rowPlace(typed, index, owners)).toEqual({ user: 'ann', date: '2026-11-12' })
    typed[index[C.date]!] = '11/12/2026'
    expect(rowPlace(typed, index, owners)).toEqual({ user: 'ann', date: '2026-11-12' })
    typed[index[C.date]!] = 'next Thursday'
    expect(rowPlace(typed, index, owners)).toBeUndefined()
  })

  it('counts the hours of a row whose Start and End are typed as text, as Google counts the times it parsed', () => {
    const typed = row('ann', '2026-11-09', '09:00', 1, 'Acme')
    Object.assign(typed, {
      [index[C.date]!]: '2026-11-12',
      [index[C.start]!]: '9:00',
      [index[C.end]!]: '10:30 AM',
      [index[C.duration]!]: null,
    })
    expect(periodRowsOf(activities([typed]), index, 'week', owners).get(periodKey('ann', '2026-W46'))!.seconds).toBe(5400)
  })
})

describe('taking an approval', () => {
  it('records what the period holds, with the approver and when the tool saw the tick', () => {
    const out = decideApprovals([tick()], context())
    expect(out.approve).toHaveLength(1)
    expect(out.approve[0]).toMatchObject({
      user: 'ann',
      approvedBy: 'Mia Manager',
      approvedAt: '2026-11-17T08:00:00.000Z',
      seconds: 13_500,
    })
    expect(out.approve[0]!.period).toEqual({ id: '2026-W46', from: '2026-11-09', to: '2026-11-16' })
    expect(out.statuses.get(2)).toEqual({
      word: 'Done',
      reason: 'Approved by Mia Manager: 3:45 h are on record. Untick Approved to reopen.',
    })
    expect(out.log).toEqual(['Approved ann 2026-W46 by Mia Manager (3:45 h); seen 2026-11-17T08:00:00.000Z.'])
  })

  it('is not taken without a name in Approved by', () => {
    const out = decideApprovals([tick({ approvedBy: '  ' })], context())
    expect(out.approve).toEqual([])
    expect(out.statuses.get(2)?.word).toBe('Error')
  })

  it('is not taken while the period holds an edit being sent, an unreadable row or a conflict, and says which', () => {
    const decisions = [
      { kind: 'import-put', rowNumber: 2 },
      { kind: 'invalid', rowNumber: 3 },
      { kind: 'conflict', rowNumber: 6 },
      { kind: 'conflict', rowNumber: 5 },
    ] as unknown as Decision[]
    const placeOf = (n: number) => ({ user: n === 5 ? 'bob' : 'ann', date: '2026-11-10' })
    const blockers = blockersOf(decisions, placeOf, 'week')
    const out = decideApprovals([tick()], context({ blockers }))
    expect(out.approve).toEqual([])
    expect(out.statuses.get(2)).toEqual({
      word: 'Waiting',
      reason:
        'Not approved yet: the period holds 1 row with edits this run sends to the server, 1 row that cannot be read, 1 row in conflict. The next run in step takes the approval.',
    })
  })

  it('is refused for a person the sheet does not cover', () => {
    const out = decideApprovals([tick({ user: 'eve' })], context())
    expect(out.approve).toEqual([])
    expect(out.statuses.get(2)?.word).toBe('Error')
  })

  it('reopens an approved period when Approved is unticked, and logs it', () => {
    const record = decideApprovals([tick()], context()).approve[0]!
    const out = decideApprovals([tick({ approved: false })], context({ records: new Map([[periodKey('ann', '2026-W46'), record]]) }))
    expect(out.reopen).toEqual([record])
    expect(out.log[0]).toContain('Reopened ann 2026-W46 (approved by Mia Manager)')
  })

  it('says a period reopened on record is reopened when its row still shows the approval (a run stopped before the tab)', () => {
    const out = decideApprovals([tick({ approved: false, approvedAtShown: true })], context())
    expect(out.reopen).toEqual([])
    expect(out.statuses.get(2)).toEqual({
      word: 'Done',
      reason: 'Reopened: edits in this period are sent again. Tick Approved to approve it anew.',
    })
    expect(decideApprovals([tick({ approved: false })], context()).statuses.size).toBe(0)
  })

  it('leaves a standing approval as recorded, though the rows changed since', () => {
    const record = { ...decideApprovals([tick()], context()).approve[0]!, seconds: 1 }
    const out = decideApprovals([tick()], context({ records: new Map([[periodKey('ann', '2026-W46'), record]]) }))
    expect(out.approve).toEqual([])
    expect(out.statuses.size).toBe(0)
  })
})

describe('an approved period is closed to the sheet', () => {
  const approval: Approval = decideApprovals([tick()], context()).approve[0]!
  const standing = new Map([[periodKey('ann', '2026-W46'), approval]])
  const placeOf = (n: number) => (n === 9 ? { user: 'ann', date: '2026-11-20' } : { user: 'ann', date: '2026-11-12' })
  const base = { word: 'Done' as const, reason: 'x', sheet: 'changed' as const, server: 'unchanged' as const, warnings: [] }

  it('turns an edit, a new row, a ticked Delete and a cleared row into refusals that name the approval', () => {
    const decisions: Decision[] = [
      {
        ...base,
        kind: 'import-put',
        key: 'tl-ann/1',
        rowNumber: 9,
        timelineKey: 'tl-ann',
        entityId: 1,
        user: 'ann',
        input: {} as never,
        fingerprint: '',
      },
      { ...base, kind: 'import-post', rowNumber: 4, timelineKey: 'tl-ann', user: 'ann', input: {} as never, fingerprint: '' },
      { ...base, kind: 'import-delete', key: 'tl-ann/2', rowNumber: 5, timelineKey: 'tl-ann', entityId: 2 },
      { ...base, kind: 'import-delete-missing', key: 'tl-ann/2', timelineKey: 'tl-ann', entityId: 2 },
      { ...base, kind: 'import-post', rowNumber: 9, timelineKey: 'tl-ann', user: 'ann', input: {} as never, fingerprint: '' },
    ]
    const out = closeApprovedPeriods(decisions, standing, placeOf, 'week')
    expect(out.refused).toBe(4)
    expect(out.decisions.map((d) => d.kind)).toEqual(['invalid', 'invalid', 'invalid', 'report-missing', 'import-post'])
    expect(out.decisions[0]!.reason).toBe(
      "Not sent: ann's 2026-W46 was approved by Mia Manager on 2026-11-17. To change it, untick Approved on that row of the Approvals tab (it reopens the period), then run again.",
    )
  })
})

describe('period ids', () => {
  it('reads back every week and month it names', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.constantFrom('week' as const, 'month' as const), (offset, kind) => {
        const period = periodOf(addDays('1990-01-01', offset), kind)
        expect(parsePeriodId(period.id, kind)).toEqual(period)
      }),
    )
  })

  it('refuses a week the year does not have', () => {
    expect(parsePeriodId('2025-W53', 'week')).toBeUndefined()
    expect(parsePeriodId('2020-W53', 'week')?.from).toBe('2020-12-28')
    expect(parsePeriodId('2026-13', 'month')).toBeUndefined()
  })
})

describe('the Approvals tab', () => {
  const spec = approvalsTab()
  const empty: TabData = { title: 'Approvals', exists: true, header: spec.columns.map((c) => c.name), rows: [], gridRowCount: 1 }
  const wanted = [{ user: 'ann', period: periodOf('2026-11-09', 'week') }]
  const input = {
    wanted,
    periodRows: periodRowsOf(tab, index, 'week', owners),
    records: new Map<string, Approval>(),
    statuses: new Map(),
    timeZone: 'Europe/Berlin',
    today: '2026-11-17',
    userOf: owners.userOfCell,
  }

  it('adds a row per person and period it lacks, and writes nothing to a tab that shows them already', () => {
    const first = approvalsWrite({ ...input, tab: empty })
    expect(first.appends).toEqual([
      [
        'ann',
        '2026-W46',
        localDateToSerial('2026-11-09'),
        localDateToSerial('2026-11-15'),
        13_500 / 86_400,
        false,
        null,
        null,
        null,
        null,
        null,
      ],
    ])
    const again = approvalsWrite({ ...input, tab: { ...empty, rows: first.appends! } })
    expect(again.updates).toEqual([])
    expect(again.appends).toEqual([])
  })

  it('makes a row of a period on record again as approved, so a deleted tab reopens nothing', () => {
    const approval = decideApprovals([tick()], context()).approve[0]!
    const records = new Map([[periodKey('ann', '2026-W46'), approval]])
    const out = approvalsWrite({ ...input, records, tab: empty })
    const row = out.appends![0]!
    expect(row[spec.columns.findIndex((c) => c.name === 'Approved')]).toBe(true)
    expect(row[spec.columns.findIndex((c) => c.name === 'Approved by')]).toBe('Mia Manager')
    const rows = approvalRowsOf({ ...empty, rows: out.appends! })
    expect(decideApprovals(rows, context({ records })).reopen).toEqual([])
  })
})
