/**
 * `sync` killed after marking new rows, around the allowed-tags POST, the Key write-back, the state
 * save, the journal's end and the export's sheet write — and killed again
 * while the next run recovers — then run clean: the server and the workbook
 * end exactly as after an uninterrupted run, and one more run finds nothing
 * left to do. Each case starts from an identical fresh setup (sync-scenario.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import {
  CASE_BUDGET_MS,
  prepareTemplate,
  runKillCase,
  type KillCase,
  type Outcome,
  type Template,
  SETUP_BUDGET_MS,
  uninterruptedOutcome,
} from './sync-scenario.ts'

const SINGLE = [
  'import:after-marks#1',
  'import:after-journal-open#1',
  'import:before-tags-post#1',
  'import:after-tags-post#1',
  'import:after-tags-recorded#1',
  'import:before-sheet-write#1',
  'import:after-sheet-write#1',
  'import:after-state-save#1',
  'import:after-journal-end#1',
  'export:before-sheet-write#1',
  'export:after-sheet-write#1',
  'export:after-state-save#1',
]

/** Killed again while the next run finishes the interrupted one. */
const CHAINS: string[][] = [
  ['import:after-post#2', 'import:after-post#1'],
  ['import:after-post#3', 'import:before-sheet-write#1'],
  ['import:after-put#4', 'import:after-put-recorded#2'],
  ['import:after-tags-post#1', 'import:after-journal-end#1'],
  ['import:after-delete#1', 'import:after-close-interrupted#1'],
  ['import:after-sheet-write#1', 'export:after-sheet-write#1'],
  ['import:before-post#1', 'import:after-post-recorded#2', 'export:before-sheet-write#1'],
  ['export:after-sheet-write#1', 'export:after-sheet-write#1'],
]

const CASES: KillCase[] = [...SINGLE.map((p) => ({ kills: [p], check: true })), ...CHAINS.map((kills) => ({ kills, check: true }))]

let template: Template
let baseline: Outcome

beforeAll(async () => {
  template = await prepareTemplate('workbook')
  baseline = await uninterruptedOutcome(template)
}, SETUP_BUDGET_MS)

describe.concurrent('sync killed around the write-back, the state and the journal, and again while recovering (workbook)', () => {
  it('counts its kill points', () => {
    expect(new Set(SINGLE).size + CHAINS.length).toBe(20)
  })
  for (const kase of CASES) {
    it(`killed at ${kase.kills.join(' → ')}`, () => runKillCase(template, baseline, kase), CASE_BUDGET_MS)
  }
})
