import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Approval } from '../../src/core/approvals.ts'
import { approvalsFileOf, loadApprovals, saveApprovals } from '../../src/state/approvals-store.ts'

const approval: Approval = {
  user: 'ann',
  period: { id: '2026-W46', from: '2026-11-09', to: '2026-11-16' },
  approvedBy: 'Mia',
  approvedAt: '2026-11-17T08:00:00.000Z',
  runId: 'run-1',
  seconds: 7200,
  activities: [{ key: 'tl/1', date: '2026-11-09', start: '09:00', seconds: 7200, tags: 'Acme', labels: '', notes: '' }],
  changes: [],
}

describe('the approved record', () => {
  it('reads back what was saved, and a target without one has none', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'ts-approvals-'))
    expect((await loadApprovals(folder, 'team')).approvals.size).toBe(0)
    const history = [{ at: approval.approvedAt, runId: 'run-1', event: 'approved' as const, user: 'ann', period: '2026-W46', by: 'Mia' }]
    await saveApprovals(folder, { target: 'team', approvals: new Map([['ann\t2026-W46', approval]]), history })
    const back = await loadApprovals(folder, 'team')
    expect([...back.approvals.values()]).toEqual([approval])
    expect(back.history).toEqual(history)
  })

  it('survives a crash between the atomic writer’s renames', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'ts-approvals-'))
    await saveApprovals(folder, { target: 'team', approvals: new Map([['ann\t2026-W46', approval]]), history: [] })
    const file = approvalsFileOf(folder)
    await writeFile(`${file}.new`, await readFile(file, 'utf8'))
    await rm(file)
    expect((await loadApprovals(folder, 'team')).approvals.size).toBe(1)
  })

  it('refuses a damaged file rather than forgetting the approvals it held', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'ts-approvals-'))
    await writeFile(approvalsFileOf(folder), '{"version":1')
    await expect(loadApprovals(folder, 'team')).rejects.toMatchObject({ code: 'TS_STATE' })
  })
})
