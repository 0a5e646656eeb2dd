/**
 * `sync` killed at every server write of the import (before the request,
 * after the answer, after the journal recorded it), then run again: the
 * server and the workbook end exactly as after an uninterrupted run — no
 * activity created twice, no edit lost, no Key missing or doubled. Each case
 * starts from an identical fresh setup (see sync-scenario.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { onlyRun } from './cli.ts'
import { pointOf, SERVER_WRITE_POINTS, traceMismatch, WRITES_KILLS as KILLS } from './kill-cases.ts'
import {
  CASE_BUDGET_MS,
  expectScenarioApplied,
  observe,
  prepareTemplate,
  runKillCase,
  startCase,
  tracedSync,
  type Outcome,
  type Template,
  SETUP_BUDGET_MS,
} from './sync-scenario.ts'

let template: Template
let baseline: Outcome
let trace: string[]

beforeAll(async () => {
  template = await prepareTemplate('workbook')
  const c = await startCase(template)
  try {
    const traced = await tracedSync(c)
    const run = traced.run
    trace = traced.trace
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.imported.counts).toMatchObject({ created: 4, updated: 8, deleted: 2, conflicts: 0, invalid: 0, failed: 0 })
    // Created: the server's new activity plus the day the window moved on to.
    expect(summary.exported.counts).toMatchObject({ updated: 1, deleted: 1, conflicts: 0, invalid: 0 })
    expect(summary.exported.counts.created).toBeGreaterThan(1)
    baseline = await observe(c)
    expectScenarioApplied(baseline, template)
  } finally {
    await c.close()
  }
}, SETUP_BUDGET_MS)

afterAll(() => {
  console.log(`kill points (server writes): ${KILLS.length}`)
})

describe.concurrent('sync killed at a server write, then run again (workbook)', () => {
  it('kills at every pass of a server write the uninterrupted run makes, and only at those', () => {
    // Against the run's trace, not a count in this file: another write in the scenario, or a point renamed, fails here.
    const cases = KILLS.map((kill) => ({ kills: [kill] }))
    expect(traceMismatch(trace, cases, (p) => SERVER_WRITE_POINTS.includes(p as never))).toEqual({
      passedNotKilled: [],
      killedNotPassed: [],
    })
    // The other points the run passes are kill-sync-recovery's; a server write seen only there would be lost here.
    expect(KILLS.every((k) => SERVER_WRITE_POINTS.includes(pointOf(k) as never))).toBe(true)
  })
  for (const point of KILLS) {
    it(`killed at ${point}`, () => runKillCase(template, baseline, { kills: [point], check: point.endsWith('#1') }), CASE_BUDGET_MS)
  }
})
