/**
 * A subset of the kill cases against the Google backend (the Sheets fake on
 * loopback, reached through the real googleapis client): `sync` killed at a
 * server write, around the Key write-back and around the export's sheet
 * write, then run clean, ends exactly as an uninterrupted run does.
 */
import { beforeAll, describe, it } from 'vitest'
import {
  CASE_BUDGET_MS,
  prepareTemplate,
  runKillCase,
  SETUP_BUDGET_MS,
  type KillCase,
  type Outcome,
  type Template,
  uninterruptedOutcome,
} from './sync-scenario.ts'

const CASES: KillCase[] = [
  { kills: ['import:after-post#2'] },
  { kills: ['import:after-post-recorded#3'] },
  { kills: ['import:before-put#3'] },
  { kills: ['import:after-put#6'] },
  { kills: ['import:after-delete#1'] },
  { kills: ['import:after-tags-post#1'] },
  { kills: ['import:before-sheet-write#1'] },
  { kills: ['import:after-sheet-write#1'], check: true },
  { kills: ['export:before-sheet-write#1'] },
  { kills: ['export:after-state-save#1'] },
  { kills: ['import:after-post#1', 'import:before-sheet-write#1'], check: true },
]

let template: Template
let baseline: Outcome

beforeAll(async () => {
  template = await prepareTemplate('google')
  baseline = await uninterruptedOutcome(template)
}, SETUP_BUDGET_MS)

describe.concurrent('sync killed, then run again (Google backend over the Sheets fake)', () => {
  for (const kase of CASES) {
    it(`killed at ${kase.kills.join(' → ')}`, () => runKillCase(template, baseline, kase), CASE_BUDGET_MS)
  }
})
