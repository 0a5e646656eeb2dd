import { describe, expect, it } from 'vitest'
import type { Approval } from '../../src/core/approvals.ts'
import { approvalsCsv, approvalsJson, hoursDecimal } from '../../src/core/approvals-report.ts'

const approval = (user: string, changes: Approval['changes'] = []): Approval => ({
  user,
  period: { id: '2026-W46', from: '2026-11-09', to: '2026-11-16' },
  approvedBy: 'Mia, Manager',
  approvedAt: '2026-11-17T08:00:00.000Z',
  runId: 'r',
  seconds: 9000,
  activities: [
    { key: 'tl/2', date: '2026-11-10', start: '09:00', seconds: 3600, tags: 'Acme, Web', labels: '', notes: '' },
    { key: 'tl/1', date: '2026-11-09', start: '09:00', seconds: 1800, tags: 'Acme, Web', labels: '', notes: '' },
    { key: 'tl/3', date: '2026-11-09', start: '11:00', seconds: 3600, tags: 'Acme, Web', labels: '', notes: '' },
  ],
  changes,
})

describe('the payroll report', () => {
  it('gives hours per person, day and tags, with the approver, and marks periods changed since', () => {
    const csv = approvalsCsv([
      { target: 'team', approvals: [approval('bob', [{ key: 'tl/1', what: 'Tags', seconds: 0 }]), approval('ann')] },
    ])
    expect(csv).toBe(
      [
        'target,user,period,from,to,date,tags,hours,approved_by,approved_at,changed_since_approval',
        'team,ann,2026-W46,2026-11-09,2026-11-15,2026-11-09,"Acme, Web",1.50,"Mia, Manager",2026-11-17T08:00:00.000Z,no',
        'team,ann,2026-W46,2026-11-09,2026-11-15,2026-11-10,"Acme, Web",1.00,"Mia, Manager",2026-11-17T08:00:00.000Z,no',
        'team,bob,2026-W46,2026-11-09,2026-11-15,2026-11-09,"Acme, Web",1.50,"Mia, Manager",2026-11-17T08:00:00.000Z,yes',
        'team,bob,2026-W46,2026-11-09,2026-11-15,2026-11-10,"Acme, Web",1.00,"Mia, Manager",2026-11-17T08:00:00.000Z,yes',
        '',
      ].join('\r\n'),
    )
  })

  it('gives the same bytes for the same approvals in any order', () => {
    const a = [{ target: 'team', approvals: [approval('ann'), approval('bob')] }]
    const b = [{ target: 'team', approvals: [approval('bob'), approval('ann')] }]
    expect(approvalsJson(a)).toBe(approvalsJson(b))
    expect(approvalsCsv(a)).toBe(approvalsCsv(b))
    expect(JSON.parse(approvalsJson(a)).periods[0]).toMatchObject({ user: 'ann', hours: '2.50', changedSinceApproval: false })
  })

  it('rounds hours to two decimals, a negative change included', () => {
    expect(hoursDecimal(-1800)).toBe('-0.50')
    expect(hoursDecimal(3599)).toBe('1.00')
    expect(hoursDecimal(5400)).toBe('1.50')
  })
})
