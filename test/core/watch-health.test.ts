/** /healthz's verdict: late when no interval ended within lateAfterMs (from the start, for the first), failing when the last one failed. */
import { describe, expect, it } from 'vitest'
import { NO_ROWS, type RunOutcomeKind, type TargetRunOutcome } from '../../src/core/run-outcome.ts'
import { lateAfterMs, watchHealth } from '../../src/core/watch-health.ts'

const outcome = (kind: RunOutcomeKind, endedMs: number): TargetRunOutcome => ({
  target: 'team',
  kind,
  endedAt: new Date(endedMs),
  runId: 'r1',
  rows: NO_ROWS,
  sheetsRequests: { reads: 0, writes: 0 },
  ...(kind === 'failed' ? { error: { code: 'TS_TIMEOUT', message: 'slow' } } : {}),
})

describe('the watch health verdict', () => {
  it('is healthy while intervals end in time, and late once none has for lateAfterMs', () => {
    expect(watchHealth([{ target: 'team', last: undefined }], 0, 1_000, 1_000).healthy).toBe(true)
    const late = watchHealth([{ target: 'team', last: undefined }], 0, 1_001, 1_000)
    expect(late).toMatchObject({ healthy: false, live: false, late: [{ target: 'team', lastEndedAt: null }] })
    expect(watchHealth([{ target: 'team', last: outcome('idle', 5_000) }], 0, 5_900, 1_000).healthy).toBe(true)
    expect(watchHealth([{ target: 'team', last: outcome('locked', 5_000) }], 0, 6_100, 1_000).late).toHaveLength(1)
  })

  it('names a failing target, and stays live', () => {
    const health = watchHealth([{ target: 'team', last: outcome('failed', 5_000) }], 0, 5_100, 1_000)
    expect(health).toMatchObject({ healthy: false, live: true, failing: [{ target: 'team', code: 'TS_TIMEOUT', runId: 'r1' }] })
  })

  it('allows two periods and a run deadline before it calls a target late', () => {
    expect(lateAfterMs(120_000, 600_000)).toBe(840_000)
  })
})
