/**
 * Redirects and timeouts on the Google side, through the real CLI: the Sheets
 * fake behind the hostile proxy, signed in with a service-account key whose
 * token_uri is the proxy. Neither the JWT assertion nor the bearer token ever
 * reaches another origin, and a hung Google ends at its limits.
 */
import { describe, expect, it } from 'vitest'
import { inGoogleWorld } from './google-world.ts'
import { errorLine, TEST_BUDGET_MS, TEST_TIMEOUTS } from './world.ts'

/**
 * The run deadline of the tests that wait for it. Before the first Google request the CLI starts, signs in to
 * the Timeline service, reads it and signs in to Google: about a second on an idle machine. At 6 s, a busy machine
 * (five slower) left time for one Sheets try only, and the test that wants repeated tries failed; 12 s leaves
 * several at that pace.
 */
const DEADLINE = '12s'

describe.concurrent('Google: no credential to another origin, and limits on every request', () => {
  it(
    'the service-account token request redirected (307) to another host: refused, the assertion never sent there',
    () =>
      inGoogleWorld('token-307', async ({ proxy, witness, run }) => {
        proxy.setRule((r) =>
          r.method === 'POST' && r.path === '/token' ? { kind: 'redirect', status: 307, location: `${witness.origin}/token` } : undefined,
        )
        const result = await run(['export'])
        // First: nothing reached the other host, whatever the message says.
        expect(witness.seen).toEqual([])
        expect(result.code).toBe(1)
        expect(errorLine(result)).toContain(
          `POST ${proxy.origin}/token answered 307, a redirect from ${proxy.origin} to another origin, ${witness.origin}`,
        )
      }),
    TEST_BUDGET_MS,
  )

  it(
    'a Sheets API call with the bearer token redirected (302) to another host: refused, no token there',
    () =>
      inGoogleWorld('data-302', async ({ proxy, witness, run }) => {
        proxy.setRule((r) =>
          r.path.startsWith('/v4/') ? { kind: 'redirect', status: 302, location: `${witness.origin}${r.path}` } : undefined,
        )
        const result = await run(['export'])
        // First: nothing reached the other host, whatever the message says.
        expect(witness.seen).toEqual([])
        expect(result.code).toBe(1)
        expect(errorLine(result)).toMatch(
          new RegExp(
            `answered 302, a redirect from ${proxy.origin.replace(/\./g, '\\.')} to another origin, ${witness.origin.replace(/\./g, '\\.')}`,
          ),
        )
        expect(proxy.seen.some((r) => r.path.startsWith('/v4/') && r.headers.authorization?.startsWith('Bearer '))).toBe(true)
      }),
    TEST_BUDGET_MS,
  )

  it(
    'a Sheets API that never answers: first-byte timeout on each try, until the run deadline',
    () =>
      inGoogleWorld(
        'data-hang',
        async ({ proxy, run }) => {
          proxy.setRule((r) => (r.path.startsWith('/v4/') ? { kind: 'hang' } : undefined))
          const result = await run(['--deadline', DEADLINE, 'export'])
          expect(result.code).toBe(1)
          expect(errorLine(result)).toMatch(/deadline/)
          expect(errorLine(result)).toMatch(/\/v4\/spreadsheets\/[^ ]+: no answer within 1 s \(first-byte timeout, timeouts\.firstByteMs\)/)
          expect(proxy.seen.filter((r) => r.path.startsWith('/v4/')).length).toBeGreaterThan(1)
        },
        {
          ...TEST_TIMEOUTS,
          // The real back-off (0.5 s, doubled): Google's eight tries then take far longer than the deadline, which
          // must be what ends the run; with the tests' short one they would all fit into it.
          retryDelayMs: 500,
        },
      ),
    TEST_BUDGET_MS,
  )

  it(
    'a Google token endpoint whose answer stops after the headers: idle-body timeout, repeated, until the run deadline',
    () =>
      inGoogleWorld(
        'token-trickle',
        async ({ proxy, run }) => {
          // Headers and a first byte, then nothing for longer than the test runs: no later byte restarts the idle-body
          // limit, however late the CLI's timer fires on a busy machine.
          proxy.setRule((r) => (r.method === 'POST' && r.path === '/token' ? { kind: 'trickle', intervalMs: 3_600_000 } : undefined))
          const result = await run(['--deadline', DEADLINE, 'export'])
          expect(result.code).toBe(1)
          expect(errorLine(result)).toMatch(
            new RegExp(
              `POST ${proxy.origin.replace(/\./g, '\\.')}/token: the answer stopped arriving: nothing for 1 s \\(idle-body timeout, timeouts\\.idleBodyMs\\)`,
            ),
          )
        },
        // The whole-request limit far beyond the idle-body one: only the limit under test can end a stalled answer;
        // the real back-off, so that the deadline ends the run, as in the test before.
        { ...TEST_TIMEOUTS, totalMs: 60_000, retryDelayMs: 500 },
      ),
    TEST_BUDGET_MS,
  )
})
