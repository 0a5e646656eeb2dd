/**
 * A service that never answers, or trickles, ends the run in bounded time and says what it waits for, through
 * the real CLI on both services and in doctor. The limits and the run's budget for timed-out requests are
 * shortened in the config's `timeouts` section only, as a user would write them; the misbehaviour is far
 * slower than the limits, and the counts asserted are read from what happened (the requests the proxy saw, the
 * attempts the message names), so nothing depends on the machine's speed.
 */
import { describe, expect, it } from 'vitest'
import type { CliRun } from '../e2e/cli.ts'
import { inGoogleWorld } from './google-world.ts'
import { errorLine, inWorld, TEST_BUDGET_MS, TEST_TIMEOUTS } from './world.ts'

const sheetsCall = (path: string) => path.startsWith('/v4/')
const activities = (path: string) => /\/api\/timelines\/[^/]+\/activities\?/.test(path)

/** The repeats the run announced on stderr (logfmt: the tests run without a terminal). */
function retryLines(run: CliRun, service: string): string[] {
  return run.stderr.split('\n').filter((line) => line.includes('level=warn') && line.includes(`msg="${service}: attempt `))
}

/** How often the final message says the request was tried. */
function triedIn(line: string): number {
  const m = /; tried (once|(\d+) times)/.exec(line)
  if (!m) throw new Error(`no "tried" in: ${line}`)
  return m[1] === 'once' ? 1 : Number(m[2])
}

describe.concurrent('a service that does not answer ends the run in bounded time', () => {
  it(
    'a Timeline server that never answers: each repeat said, then exit 1 naming the service, the URL, the limit and the tries',
    () =>
      inWorld(
        'hung-timeline',
        async (world) => {
          const { proxy } = world
          proxy.setRule(() => ({ kind: 'hang' }))
          const run = await world.run(['export'])
          expect(run.code).toBe(1)
          const line = errorLine(run)
          expect(line).toMatch(
            new RegExp(
              `^error: Timeline service: GET ${proxy.origin.replace(/\./g, '\\.')}/api: no answer within 1 s \\(first-byte timeout, timeouts\\.firstByteMs\\); tried \\d+ times; not tried again: \\d+ requests to it timed out, [\\d.]+ s of the 3\\.5 s a run allows \\(timeouts\\.retryBudgetMs\\)$`,
            ),
          )
          // The budget ended it before the retry policy's five repeats; every try reached the server.
          const tried = triedIn(line)
          expect(tried).toBeGreaterThanOrEqual(2)
          expect(tried).toBeLessThan(6)
          expect(proxy.seen).toHaveLength(tried)
          expect(run.stderr).toMatch(/hint: .*raise timeouts\.firstByteMs and timeouts\.retryBudgetMs/)
          const repeats = retryLines(run, 'Timeline service')
          expect(repeats).toHaveLength(tried - 1)
          expect(repeats[0]).toMatch(
            /msg="Timeline service: attempt 1 of 6 failed: GET http:\/\/127\.0\.0\.1:\d+\/api: no answer within 1 s \(first-byte timeout, timeouts\.firstByteMs\); trying again in [\d.]+ m?s" service=timeline attempt=1 waitMs=\d+ reason="firstByte timeout"$/,
          )
          // The config's timeouts.retryDelayMs (10) is the first wait, plus at most a quarter of it as jitter.
          expect(Number(/ waitMs=(\d+)/.exec(repeats[0]!)![1])).toBeLessThanOrEqual(13)
        },
        // 3.5 s: the first 1 s timeout may fire 2.5 s late on a busy machine and a second try still fits.
        { timeouts: { ...TEST_TIMEOUTS, retryBudgetMs: 3_500 } },
      ),
    TEST_BUDGET_MS,
  )

  it(
    'a Timeline server that trickles its activities: the first whole-request timeout spends the budget; nothing split, repeated or sent after it',
    () =>
      inWorld(
        'trickle-timeline',
        async (world) => {
          const { proxy } = world
          // Faster than the idle-body limit, which is longer than the whole request's anyway: only the whole-request
          // limit can end it, whatever the trickle's pace on a busy machine.
          proxy.setRule((r) => (activities(r.path) ? { kind: 'trickle', intervalMs: 200 } : undefined))
          const run = await world.run(['export'])
          expect(run.code).toBe(1)
          expect(errorLine(run)).toMatch(
            /^error: Timeline service: GET http:\/\/127\.0\.0\.1:\d+\/api\/timelines\/[^ ]+\/activities\?[^ ]+: not finished within 3 s \(whole-request timeout, timeouts\.totalMs\); tried once; not tried again: (a request|2 requests) to it timed out, [\d.]+ s of the 2 s a run allows \(timeouts\.retryBudgetMs\)$/,
          )
          // One read for each of the two timelines, in parallel; no halves, no repeats.
          expect(proxy.seen.filter((r) => activities(r.path))).toHaveLength(2)
        },
        { timeouts: { ...TEST_TIMEOUTS, idleBodyMs: 60_000, retryBudgetMs: 2_000 } },
      ),
    TEST_BUDGET_MS,
  )

  it(
    'doctor against a Timeline server that never answers: a line while it waits, then the check fails naming the limit and the tries',
    () =>
      inWorld(
        'hung-doctor',
        async (world) => {
          const { proxy } = world
          proxy.setRule(() => ({ kind: 'hang' }))
          const run = await world.run(['doctor'])
          expect(run.code).toBe(1)
          // The one request waits 25 s: the run says so before it ends.
          expect(run.stderr).toMatch(
            /level=info msg="Timeline service: still waiting for GET http:\/\/127\.0\.0\.1:\d+\/api, [\d.]+ s so far \(answer within 25 s, all of it within 30 s\)" service=timeline waitedMs=\d+ outstanding=1/,
          )
          expect(run.stdout).toMatch(
            /FAIL .*Timeline service: GET http:\/\/127\.0\.0\.1:\d+\/api: no answer within 25 s \(first-byte timeout, timeouts\.firstByteMs\); tried once; not tried again: a request to it timed out, [\d.]+ s of the 1 s a run allows \(timeouts\.retryBudgetMs\)/,
          )
          expect(proxy.seen).toHaveLength(1)
        },
        { timeouts: { connectMs: 2_000, firstByteMs: 25_000, idleBodyMs: 1_000, totalMs: 30_000, retryBudgetMs: 1_000 } },
      ),
    TEST_BUDGET_MS,
  )

  it(
    'a Sheets API that never answers: each repeat said, then exit 1 naming Google Sheets, the URL, the limit and the tries',
    () =>
      inGoogleWorld(
        'hung-google',
        async ({ proxy, run }) => {
          proxy.setRule((r) => (sheetsCall(r.path) ? { kind: 'hang' } : undefined))
          const result = await run(['export'])
          expect(result.code).toBe(1)
          const line = errorLine(result)
          expect(line).toMatch(
            /^error: Google Sheets: GET http:\/\/127\.0\.0\.1:\d+\/v4\/spreadsheets\/[^ ]+: no answer within 1 s \(first-byte timeout, timeouts\.firstByteMs\); tried \d+ times; not tried again: \d+ requests to it timed out, [\d.]+ s of the 3\.5 s a run allows \(timeouts\.retryBudgetMs\)$/,
          )
          const tried = triedIn(line)
          expect(tried).toBeGreaterThanOrEqual(2)
          // Google's policy allows seven repeats: the budget ended it first.
          expect(tried).toBeLessThan(8)
          expect(proxy.seen.filter((r) => sheetsCall(r.path))).toHaveLength(tried)
          const repeats = retryLines(result, 'Google Sheets')
          expect(repeats).toHaveLength(tried - 1)
          expect(repeats[0]).toMatch(
            /msg="Google Sheets: attempt 1 of 8 failed: GET http:\/\/127\.0\.0\.1:\d+\/v4\/spreadsheets\/[^ ]+: no answer within 1 s \(first-byte timeout, timeouts\.firstByteMs\); trying again in [\d.]+ m?s" service=google attempt=1/,
          )
          expect(Number(/ waitMs=(\d+)/.exec(repeats[0]!)![1])).toBeLessThanOrEqual(13)
        },
        // 3.5 s: the first 1 s timeout may fire 2.5 s late on a busy machine and a second try still fits.
        { ...TEST_TIMEOUTS, retryBudgetMs: 3_500 },
      ),
    TEST_BUDGET_MS,
  )

  it(
    'a Sheets API that trickles: the first whole-request timeout spends the budget, and the run ends naming it',
    () =>
      inGoogleWorld(
        'trickle-google',
        async ({ proxy, run }) => {
          // As above: the idle-body limit is longer than the whole request's, so only the latter can end it.
          proxy.setRule((r) => (sheetsCall(r.path) ? { kind: 'trickle', intervalMs: 200 } : undefined))
          const result = await run(['export'])
          expect(result.code).toBe(1)
          expect(errorLine(result)).toMatch(
            /^error: Google Sheets: GET http:\/\/127\.0\.0\.1:\d+\/v4\/spreadsheets\/[^ ]+: not finished within 3 s \(whole-request timeout, timeouts\.totalMs\); tried once; not tried again: a request to it timed out, [\d.]+ s of the 2 s a run allows \(timeouts\.retryBudgetMs\)$/,
          )
          expect(proxy.seen.filter((r) => sheetsCall(r.path))).toHaveLength(1)
        },
        { ...TEST_TIMEOUTS, idleBodyMs: 60_000, retryBudgetMs: 2_000 },
      ),
    TEST_BUDGET_MS,
  )

  it(
    "doctor against a Sheets API that never answers: the spreadsheet's check fails at its limit, naming Google Sheets",
    () =>
      inGoogleWorld('hung-google-doctor', async ({ proxy, run }) => {
        proxy.setRule((r) => (sheetsCall(r.path) ? { kind: 'hang' } : undefined))
        const result = await run(['doctor'])
        expect(result.code).toBe(1)
        expect(result.stdout).toMatch(
          /FAIL .*Google Sheets: GET http:\/\/127\.0\.0\.1:\d+\/v4\/spreadsheets\/[^ ]+: no answer within 1 s \(first-byte timeout, timeouts\.firstByteMs\)/,
        )
        // Doctor only looks: its probe is one request, never repeated.
        expect(proxy.seen.filter((r) => sheetsCall(r.path))).toHaveLength(1)
      }),
    TEST_BUDGET_MS,
  )
})
