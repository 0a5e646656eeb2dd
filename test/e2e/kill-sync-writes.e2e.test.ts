/**
 * `sync` killed at every server write of the import (before the request,
 * after the answer, after the journal recorded it), then run again: the
 * server and the workbook end exactly as after an uninterrupted run — no
 * activity created twice, no edit lost, no Key missing or doubled. Each case
 * starts from an identical fresh setup (see sync-scenario.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { onlyRun } from './cli.ts'
import {
  CASE_BUDGET_MS,
  expectScenarioApplied,
  observe,
  passes,
  prepareTemplate,
  runKillCase,
  startCase,
  type Outcome,
  type Template,
  SETUP_BUDGET_MS,
} from './sync-scenario.ts'

/** The scenario writes 4 POSTs, 8 PUTs and 2 DELETEs (two timelines, written side by side). */
const KILLS = [
  ...passes('import:before-post', 4),
  ...passes('import:after-post', 4),
  ...passes('import:after-post-recorded', 4),
  ...passes('import:before-put', 8),
  ...passes('import:after-put', 8),
  ...passes('import:after-put-recorded', 8),
  ...passes('import:before-delete', 2),
  ...passes('import:after-delete', 2),
  ...passes('import:after-delete-recorded', 2),
]

let template: Template
let baseline: Outcome

beforeAll(async () => {
  template = await prepareTemplate('workbook')
  const c = await startCase(template)
  try {
    const run = await c.sync()
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
  it('the scenario has as many kill points as the test claims', () => {
    expect(new Set(KILLS).size).toBe(42)
  })
  for (const point of KILLS) {
    it(`killed at ${point}`, () => runKillCase(template, baseline, { kills: [point], check: point.endsWith('#1') }), CASE_BUDGET_MS)
  }
})
