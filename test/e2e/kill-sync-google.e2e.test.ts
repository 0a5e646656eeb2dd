/**
 * A subset of the kill cases against the Google backend (the Sheets fake on
 * loopback, reached through the real googleapis client): `sync` killed at a
 * server write, around the Key write-back and around the export's sheet
 * write, then run clean, ends exactly as an uninterrupted run does.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { GOOGLE_CASES as CASES, traceMismatch } from './kill-cases.ts'
import {
  CASE_BUDGET_MS,
  prepareTemplate,
  runKillCase,
  SETUP_BUDGET_MS,
  type Outcome,
  type Template,
  uninterruptedRun,
} from './sync-scenario.ts'

let template: Template
let baseline: Outcome
let trace: string[]

beforeAll(async () => {
  template = await prepareTemplate('google')
  ;({ outcome: baseline, trace } = await uninterruptedRun(template))
}, SETUP_BUDGET_MS)

describe.concurrent('sync killed, then run again (Google backend over the Sheets fake)', () => {
  it('first kills only at passes the uninterrupted run makes on this backend', () => {
    // A subset by design (the workbook files kill at every pass): no coverage asked here, only that no case names a pass that never comes.
    expect(traceMismatch(trace, CASES, () => false)).toEqual({ passedNotKilled: [], killedNotPassed: [] })
  })
  for (const kase of CASES) {
    it(`killed at ${kase.kills.join(' → ')}`, () => runKillCase(template, baseline, kase), CASE_BUDGET_MS)
  }
})
