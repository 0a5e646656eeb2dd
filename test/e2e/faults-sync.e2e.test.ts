/**
 * Both services failing a fifth of the time: the reference Timeline server
 * answers 429 and 503 and drops connections on a seeded share of requests,
 * the Sheets fake answers 429, 500 and "applied, then 503". `sync` may give
 * up on some runs (a POST is never repeated blindly, so a lost one waits for
 * the next run); run again until it succeeds, at most 8 times, and the server
 * and the spreadsheet end exactly as after a fault-free run.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { CliRun } from './cli.ts'
import {
  CASE_BUDGET_MS,
  journalText,
  observe,
  prepareTemplate,
  SETUP_BUDGET_MS,
  startCase,
  withoutIds,
  type CaseFaults,
  type Outcome,
  type Template,
  uninterruptedOutcome,
} from './sync-scenario.ts'

const MAX_RUNS = 8

/** About 20% of each service's requests fail. */
function faults(seed: number): CaseFaults {
  return {
    seed,
    timeline: {
      drop: { share: 0.04 },
      rateLimit: { share: 0.09, retryAfterSeconds: 1 },
      serverError: { share: 0.08, status: 503 },
    },
    sheets: [
      { status: 429, share: 0.07 },
      { status: 500, share: 0.05 },
      { status: 503, share: 0.1, applyThenFail: true },
    ],
  }
}

let template: Template
let baseline: Outcome

beforeAll(async () => {
  template = await prepareTemplate('google')
  baseline = await uninterruptedOutcome(template)
}, SETUP_BUDGET_MS)

/** On top of the share: the first activity POST's connection dropped, the first structural and values writes applied and then answered 503. */
function targeted(seed: number): CaseFaults {
  const base = faults(seed)
  return {
    ...base,
    timeline: { ...base.timeline, drop: { next: 1, match: { method: 'POST', path: '/activities' } } },
    sheets: [
      { status: 503, times: 1, method: 'BatchUpdateSpreadsheet', applyThenFail: true },
      { status: 503, times: 1, method: 'BatchUpdateValues', applyThenFail: true },
      ...base.sheets!,
    ],
  }
}

const CASES: [string, CaseFaults][] = [
  ...[1, 2, 3, 4].map((seed): [string, CaseFaults] => [`fault seed ${seed}`, faults(seed)]),
  ['a dropped POST and applied-then-503 writes, fault seed 5', targeted(5)],
]

describe.concurrent('sync with 20% of requests to each service failing (Google backend over the Sheets fake)', () => {
  for (const [name, setup] of CASES) {
    it(
      `${name}: reruns reach the fault-free final state`,
      async () => {
        const c = await startCase(template, setup)
        const runs: CliRun[] = []
        try {
          while (runs.length < MAX_RUNS) {
            const run = await c.sync()
            runs.push(run)
            if (run.code === 0) break
            // Only "run again" outcomes are acceptable on the way: failed (1) or partly done (3).
            expect([1, 3], `run ${runs.length} exited ${run.code}:\n${run.stderr.slice(-3000)}`).toContain(run.code)
          }
          const codes = runs.map((r) => r.code)
          expect(codes.at(-1), `exit codes ${codes.join(', ')}:\n${runs.at(-1)!.stderr.slice(-3000)}\n${await journalText(c)}`).toBe(0)
          const timelineFaults = c.server.faults.counts()
          const sheetsFaults = c.fake!.store.stats().faultsInjected
          console.log(
            `${name}: exit codes ${codes.join(', ')}; timeline faults ${JSON.stringify(timelineFaults)}; sheets faults ${sheetsFaults}`,
          )
          // The dice did fire: this is no fault-free run in disguise.
          expect(timelineFaults.rateLimited + timelineFaults.serverErrors + timelineFaults.dropped + sheetsFaults).toBeGreaterThan(2)
          if (setup.timeline?.drop?.next) expect(timelineFaults.dropped).toBeGreaterThan(0)
          if (setup.sheets?.some((r) => r.applyThenFail && r.times)) expect(sheetsFaults).toBeGreaterThan(1)
          const outcome = await observe(c)
          expect(
            outcome.keyed.map(([k]) => k).every((k) => k in outcome.identities),
            'every Key names an activity the server holds',
          ).toBe(true)
          expect(withoutIds(outcome), `exit codes ${codes.join(', ')}`).toEqual(withoutIds(baseline))
        } finally {
          await c.close()
        }
      },
      CASE_BUDGET_MS,
    )
  }
})
