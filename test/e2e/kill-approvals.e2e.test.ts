/**
 * Taking an approval, reopening it, the sync that sees the server change an approved week, and
 * `restore-approved`, each killed at every point its uninterrupted run passes, then run clean: the server, every
 * tab and the approvals record end exactly as after the uninterrupted run, and after every run, killed or not,
 * no approval is on record without what it held and no Approvals row tells of one the record lacks. One set of
 * starting files per stage (approvals-scenario.ts); every case copies them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APPROVAL_KILLS, traceMismatch } from './kill-cases.ts'
import {
  expectNothingHalfDone,
  expectStageApplied,
  filesAfter,
  observe,
  prepareApprove,
  prepareReopen,
  startCase,
  tracedRun,
  type Case,
  type Outcome,
  type Stage,
  type StageFiles,
} from './approvals-scenario.ts'
import { CASE_BUDGET_MS, SETUP_BUDGET_MS } from './sync-scenario.ts'
import type { CliRun } from './cli.ts'

const STAGES: Stage[] = ['approve', 'reopen', 'changed', 'restore']
const files = {} as Record<Stage, StageFiles>
const baseline = {} as Record<Stage, Outcome>
const traces = {} as Record<Stage, string[]>
const open: Case[] = []

beforeAll(async () => {
  files.approve = await prepareApprove()
  const approved = await baselineOf(files.approve)
  files.reopen = await prepareReopen(approved)
  files.changed = filesAfter(approved, 'changed')
  const changed = await baselineOf(files.changed)
  files.restore = filesAfter(changed, 'restore')
  await baselineOf(files.restore)
  // The reopen stage's baseline last: its files were copied before the changed stage ran on the approved folder.
  await baselineOf(files.reopen)
}, SETUP_BUDGET_MS)

afterAll(async () => {
  await Promise.all(open.map((c) => c.close()))
})

async function baselineOf(stageFiles: StageFiles): Promise<Case> {
  const { c, trace, runs } = await tracedRun(stageFiles)
  open.push(c)
  for (const run of runs) expect(run.code, run.stderr).toBe(0)
  await expectNothingHalfDone(c, true, `${stageFiles.stage} uninterrupted`)
  const outcome = await observe(c)
  expectStageApplied(stageFiles.stage, outcome, c.server.credentials.users[0]!.username)
  baseline[stageFiles.stage] = outcome
  traces[stageFiles.stage] = trace
  return c
}

function explain(runs: CliRun[]): string {
  return runs.map((r, i) => `run ${i + 1}: exit ${r.code}\n${r.stderr.split('\n').slice(-12).join('\n')}`).join('\n')
}

async function killCase(stage: Stage, kill: string): Promise<void> {
  const c = await startCase(files[stage])
  const runs: CliRun[] = []
  try {
    const killed = await c.run(kill)
    runs.push(killed)
    expect(killed.code, `${kill} was never reached:\n${explain(runs)}`).toBe(137)
    expect(killed.stderr).toContain(`crash point ${kill}:`)
    await expectNothingHalfDone(c, false, `killed at ${kill}`)
    const clean = await c.run()
    runs.push(clean)
    expect(clean.code, `the run after ${kill} failed:\n${explain(runs)}`).toBe(0)
    await expectNothingHalfDone(c, true, `run again after ${kill}`)
    for (let i = stage === 'restore' ? 0 : 1; i < 2; i++) {
      const sync = await c.sync()
      runs.push(sync)
      expect(sync.code, explain(runs)).toBe(0)
    }
    expect(await observe(c), `after ${kill}:\n${explain(runs)}`).toEqual(baseline[stage])
  } finally {
    await c.close()
  }
}

for (const stage of STAGES) {
  describe.concurrent(`${stage} killed at every point and run again (workbook)`, () => {
    it('kills at every pass the uninterrupted run makes, and only at those', () => {
      const cases = APPROVAL_KILLS[stage].map((k) => ({ kills: [k] }))
      expect(traceMismatch(traces[stage], cases, () => true)).toEqual({ passedNotKilled: [], killedNotPassed: [] })
    })
    for (const kill of APPROVAL_KILLS[stage]) it(`killed at ${kill}`, () => killCase(stage, kill), CASE_BUDGET_MS)
  })
}
