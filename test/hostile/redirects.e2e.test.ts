/**
 * Through the real CLI: a credential never follows a
 * redirect to another origin, the token POST follows no redirect at all, and
 * a data GET redirected to another origin is refused with both origins named.
 * The witness on another host proves nothing reached it.
 */
import { describe, expect, it } from 'vitest'
import { errorLine, inWorld, printed, TEST_BUDGET_MS } from './world.ts'

describe.concurrent('no credential follows a redirect to another origin', () => {
  it(
    'the password token POST redirected (307) to another host: refused, nothing sent there',
    () =>
      inWorld('token-307', async (world) => {
        const { witness, proxy } = world
        proxy.setRule((r) =>
          r.method === 'POST' && r.path === '/api/token'
            ? { kind: 'redirect', status: 307, location: `${witness.origin}/api/token` }
            : undefined,
        )
        const run = await world.run(['export'])
        // First: nothing reached the other host, whatever the message says.
        expect(witness.seen).toEqual([])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toContain(proxy.origin)
        expect(errorLine(run)).toContain(witness.origin)
        expect(errorLine(run)).toMatch(/not followed/)
        expect(printed(run)).not.toContain(world.password)
      }),
    TEST_BUDGET_MS,
  )

  it(
    'the token POST redirected within its own origin (308): not followed either, and not sent twice',
    () =>
      inWorld('token-308', async (world) => {
        const { proxy } = world
        proxy.setRule((r) =>
          r.method === 'POST' && r.path === '/api/token' ? { kind: 'redirect', status: 308, location: '/api/token-moved' } : undefined,
        )
        const run = await world.run(['export'])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toMatch(/POST is never redirected/)
        expect(proxy.seen.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/api/token'])
      }),
    TEST_BUDGET_MS,
  )

  it(
    'a data GET with the bearer token redirected (302) to another host: refused naming both origins, no token there',
    () =>
      inWorld('data-302', async (world) => {
        const { witness, proxy } = world
        proxy.setRule((r) =>
          r.method === 'GET' && r.path.startsWith('/api/timelines')
            ? { kind: 'redirect', status: 302, location: `${witness.origin}${r.path}` }
            : undefined,
        )
        const run = await world.run(['export'])
        // First: nothing reached the other host, whatever the message says.
        expect(witness.seen).toEqual([])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toContain(`a redirect from ${proxy.origin} to another origin, ${witness.origin}`)
        // The bearer token did reach the configured server, and only it.
        expect(proxy.seen.some((r) => r.path.startsWith('/api/timelines') && r.headers.authorization?.startsWith('Bearer '))).toBe(true)
      }),
    TEST_BUDGET_MS,
  )

  it(
    'the sign-in challenge GET redirected (301) to another host: refused before any credential is at stake',
    () =>
      inWorld('entry-301', async (world) => {
        const { witness, proxy } = world
        proxy.setRule((r) =>
          r.method === 'GET' && r.path === '/api' ? { kind: 'redirect', status: 301, location: `${witness.origin}/api` } : undefined,
        )
        const run = await world.run(['export'])
        // First: nothing reached the other host, whatever the message says.
        expect(witness.seen).toEqual([])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toContain(witness.origin)
      }),
    TEST_BUDGET_MS,
  )
})
