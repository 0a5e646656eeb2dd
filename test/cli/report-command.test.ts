/** `timeline-sheets report` says what it wrote in words that fit the count. */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { runReportCommand } from '../../src/cli/commands/report.ts'
import type { Approval } from '../../src/core/approvals.ts'
import { saveApprovals } from '../../src/state/approvals-store.ts'
import { stateLocation } from '../../src/state/target-state.ts'

const approval = (period: { id: string; from: string; to: string }): Approval => ({
  user: 'ann',
  period,
  approvedBy: 'Mia',
  approvedAt: '2026-11-10T10:00:00.000Z',
  runId: 'r1',
  seconds: 3600,
  activities: [{ key: 'tl/1', date: period.from, start: '09:00', seconds: 3600, tags: 'Acme', labels: '', notes: '' }],
  changes: [],
})

async function reportOf(approvals: Approval[]): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-report-'))
  const config = path.join(folder, 'timeline-sheets.json')
  await writeFile(
    config,
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:9/', username: 'transfer' } },
      stateDir: 'state',
      targets: [
        { name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'Europe/Berlin', approvals: { period: 'week' } },
      ],
    }),
  )
  const record = new Map(approvals.map((a) => [`ann ${a.period.id}`, a]))
  await saveApprovals(stateLocation(path.join(folder, 'state'), 'team').folder, { target: 'team', approvals: record, history: [] })
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
  try {
    await runReportCommand({ config, json: false, verbose: false, quiet: true }, { out: folder })
    return out.mock.calls.map((c) => String(c[0])).join('')
  } finally {
    out.mockRestore()
  }
}

describe('the report command', () => {
  it('says "1 approved period" for one, and "2 approved periods" for two', async () => {
    const w45 = { id: '2026-W45', from: '2026-11-02', to: '2026-11-08' }
    const w46 = { id: '2026-W46', from: '2026-11-09', to: '2026-11-15' }
    expect(await reportOf([approval(w45)])).toMatch(/^Wrote 1 approved period to /)
    expect(await reportOf([approval(w45), approval(w46)])).toMatch(/^Wrote 2 approved periods to /)
  })
})
