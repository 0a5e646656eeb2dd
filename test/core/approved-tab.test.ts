import { describe, expect, it } from 'vitest'
import type { Approval } from '../../src/core/approvals.ts'
import { approvedRows, approvedTab, approvedWrite } from '../../src/core/approved-tab.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import type { TabData } from '../../src/core/sheet.ts'

const approval = (user: string, changes: Approval['changes'] = []): Approval => ({
  user,
  period: { id: '2026-W46', from: '2026-11-09', to: '2026-11-16' },
  approvedBy: 'Mia Manager',
  approvedAt: '2026-11-17T08:00:00.000Z',
  runId: 'r',
  seconds: 9000,
  activities: [
    { key: 'tl/2', date: '2026-11-10', start: '09:00', seconds: 3600, tags: 'Acme, Web', labels: 'billable', notes: 'Review' },
    { key: 'tl/3', date: '2026-11-09', start: '09:00:30', seconds: 3600, tags: 'Acme, Web', labels: '', notes: '' },
    { key: 'tl/1', date: '2026-11-09', start: '9:00', seconds: 1800, tags: 'Acme, Web', labels: '', notes: '' },
  ],
  changes,
})

const records = (...list: Approval[]) => new Map(list.map((a) => [`${a.user}\t${a.period.id}`, a]))

function tabOf(rows: TabData['rows']): TabData {
  return { title: 'Approved', exists: true, header: approvedTab().columns.map((c) => c.name), rows, gridRowCount: rows.length + 1 }
}

describe('the Approved tab', () => {
  it('is read-only and closed to managers, with the Activities names for the columns a formula reads', () => {
    const spec = approvedTab()
    expect(spec).toMatchObject({ title: 'Approved', readOnly: true, closed: true })
    expect(spec.columns.map((c) => c.name)).toEqual([
      'User',
      'Period',
      'Date',
      'Start',
      'Duration',
      'Tags',
      'Labels',
      'Notes',
      'Status',
      'Key',
    ])
  })

  it('shows the record period by period and each period by day and start, with what changed on the server since', () => {
    const rows = approvedRows(
      records(
        approval('bob', [
          { key: 'tl/9', what: 'added', seconds: 600 },
          { key: 'tl/2', what: 'Tags', seconds: 0 },
        ]),
        approval('Ann'),
      ),
    )
    expect(rows.map((r) => [r[0], r[9]])).toEqual([
      ['Ann', 'tl/1'],
      ['Ann', 'tl/3'],
      ['Ann', 'tl/2'],
      ['bob', 'tl/1'],
      ['bob', 'tl/3'],
      ['bob', 'tl/2'],
      ['bob', 'tl/9'],
    ])
    expect(rows[2]).toEqual([
      'Ann',
      '2026-W46',
      localDateToSerial('2026-11-10'),
      '09:00',
      3600 / 86_400,
      'Acme, Web',
      'billable',
      'Review',
      null,
      'tl/2',
    ])
    expect(rows[5]![8]).toMatch(/^Changed on the server after approval: Tags\. This row shows what was approved by Mia Manager/)
    expect(rows[6]).toEqual(['bob', '2026-W46', null, null, null, null, null, null, expect.stringMatching(/: added\./), 'tl/9'])
  })

  it('costs no write when it shows the record, and empties when the period is reopened, as a closed tab', () => {
    const shown = approvedRows(records(approval('ann')))
    expect(approvedWrite(tabOf(shown), records(approval('ann')))).toEqual({
      tab: 'Approved',
      updates: [],
      appends: [],
      deleteRows: [],
      closed: true,
    })
    expect(approvedWrite(tabOf(shown), new Map())).toEqual({
      tab: 'Approved',
      updates: [],
      appends: [],
      deleteRows: [2, 3, 4],
      closed: true,
    })
  })
})
