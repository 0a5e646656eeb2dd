/**
 * `sync` killed after marking new rows, around the allowed-tags POST, the Key write-back, the state
 * save, the journal's end and the export's sheet write — and killed again
 * while the next run recovers — then run clean: the server and the workbook
 * end exactly as after an uninterrupted run, and one more run finds nothing
 * left to do. Each case starts from an identical fresh setup (sync-scenario.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import {
  NOT_KILLED_IN_SYNC,
  RECOVERY_CHAINS as CHAINS,
  RECOVERY_SINGLE as SINGLE,
  SERVER_WRITE_POINTS,
  traceMismatch,
} from './kill-cases.ts'
import {
  CASE_BUDGET_MS,
  prepareTemplate,
  runKillCase,
  type KillCase,
  type Outcome,
  type Template,
  SETUP_BUDGET_MS,
  uninterruptedRun,
} from './sync-scenario.ts'

const CASES: KillCase[] = [...SINGLE.map((p) => ({ kills: [p], check: true })), ...CHAINS.map((kills) => ({ kills, check: true }))]

let template: Template
let baseline: Outcome
let trace: string[]

beforeAll(async () => {
  template = await prepareTemplate('workbook')
  ;({ outcome: baseline, trace } = await uninterruptedRun(template))
}, SETUP_BUDGET_MS)

describe.concurrent('sync killed around the write-back, the state and the journal, and again while recovering (workbook)', () => {
  it('kills at every point the uninterrupted run passes besides the server writes, and first kills only at those', () => {
    // Server writes are kill-sync-writes' (every pass); the excluded points say why no case here needs them.
    const mine = (p: string) => !SERVER_WRITE_POINTS.includes(p as never) && !(p in NOT_KILLED_IN_SYNC)
    expect(traceMismatch(trace, CASES, mine)).toEqual({ passedNotKilled: [], killedNotPassed: [] })
  })
  for (const kase of CASES) {
    it(`killed at ${kase.kills.join(' → ')}`, () => runKillCase(template, baseline, kase), CASE_BUDGET_MS)
  }
})
