/** When a failure notice is sent: once a failure, again only after repeatAfterMs, once on recovery, never for a lock. */
import { describe, expect, it } from 'vitest'
import { decideNotice, noticeBody } from '../../src/core/notice.ts'
import { NO_ROWS, type RunOutcomeKind, type TargetRunOutcome } from '../../src/core/run-outcome.ts'

const HOUR = 3_600_000
const at = (h: number) => new Date(Date.UTC(2026, 10, 20, h))
const run = (kind: RunOutcomeKind, h: number, code = 'TS_NETWORK'): TargetRunOutcome => ({
  target: 'team',
  kind,
  endedAt: at(h),
  runId: `run-${h}`,
  rows: NO_ROWS,
  sheetsRequests: { reads: 0, writes: 0 },
  ...(kind === 'failed' || kind === 'refused' ? { error: { code, message: `${'x'.repeat(2000)}` } } : {}),
})

describe('failure notices', () => {
  it('tell a failure once, the same one again only after repeatAfterMs, another one at once', () => {
    const first = decideNotice(undefined, run('failed', 0), 24 * HOUR)
    expect(first.notice).toMatchObject({ event: 'failed', code: 'TS_NETWORK', runId: 'run-0' })
    expect(first.told).toEqual({ code: 'TS_NETWORK', runId: 'run-0', at: at(0).toISOString() })
    expect(decideNotice(first.told, run('failed', 1), 24 * HOUR)).toEqual({ notice: undefined, told: first.told })
    expect(decideNotice(first.told, run('failed', 25), 24 * HOUR).notice).toMatchObject({ event: 'failed' })
    expect(decideNotice(first.told, run('refused', 2, 'TS_GUARD'), 24 * HOUR).notice).toMatchObject({ code: 'TS_GUARD' })
  })

  it('tell the recovery once, and nothing for a lock or an incomplete run', () => {
    const { told } = decideNotice(undefined, run('failed', 0), HOUR)
    expect(decideNotice(told, run('locked', 1), HOUR)).toEqual({ notice: undefined, told })
    expect(decideNotice(told, run('incomplete', 1), HOUR)).toEqual({ notice: undefined, told })
    const recovered = decideNotice(told, run('idle', 2), HOUR)
    expect(recovered.notice).toMatchObject({ event: 'recovered', code: 'TS_NETWORK' })
    expect(recovered.told).toBeUndefined()
    expect(decideNotice(undefined, run('synced', 3), HOUR).notice).toBeUndefined()
  })

  it('cut a long message short and give Slack and Teams their text', () => {
    const { notice } = decideNotice(undefined, run('failed', 0), HOUR)
    expect(notice!.message.length).toBeLessThanOrEqual(600)
    const body = noticeBody(notice!)
    expect(body.text).toMatch(/^timeline-sheets: target team failed \(TS_NETWORK\)/)
    expect(body.text).toContain('timeline-sheets doctor --target team')
  })
})
