/**
 * Through the real CLI against the reference server behind a
 * hostile proxy: hung, trickling and endless answers end at their configured
 * limit with a message naming the URL and the limit, exit code 1; an
 * idempotent call is repeated like after a 503, a create is not.
 */
import { describe, expect, it } from 'vitest'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { errorLine, inWorld, TEST_BUDGET_MS, TEST_TIMEOUTS } from './world.ts'

const timelinesList = (path: string) => path === '/api/timelines' || path.startsWith('/api/timelines?')

/**
 * Headers and a first byte, then nothing for longer than any test runs: no later byte restarts the idle-body
 * limit, however late the CLI's timer fires on a busy machine.
 */
const STALLED_BODY = { kind: 'trickle', intervalMs: 3_600_000 } as const

// Each test has its own world, and most of their time is spent waiting: run them side by side.
describe.concurrent('every request has timeouts', () => {
  it(
    'a server that never answers: first-byte timeout, named, repeated like a 503, then exit 1',
    () =>
      inWorld('hang', async (world) => {
        const { proxy } = world
        proxy.setRule((r) => (r.method === 'GET' && timelinesList(r.path) ? { kind: 'hang' } : undefined))
        const run = await world.run(['export'])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toBe(
          `error: Timeline service: GET ${proxy.origin}/api/timelines: no answer within 1 s (first-byte timeout, timeouts.firstByteMs); tried 6 times`,
        )
        expect(run.stderr).toMatch(/hint: Run again/)
        // One attempt and the retry policy's five repeats.
        expect(proxy.seen.filter((r) => timelinesList(r.path)).length).toBe(6)
      }),
    TEST_BUDGET_MS,
  )

  it(
    'headers, then the body stops: idle-body timeout',
    () =>
      inWorld(
        'trickle',
        async (world) => {
          const { proxy } = world
          proxy.setRule((r) => (r.method === 'GET' && r.path.includes('/activities') ? STALLED_BODY : undefined))
          const run = await world.run(['export'])
          expect(run.code).toBe(1)
          expect(errorLine(run)).toMatch(
            /^error: Timeline service: GET http:\/\/127\.0\.0\.1:\d+\/api\/timelines\/[^ ]+\/activities\?[^ ]+: the answer stopped arriving: nothing for 1 s \(idle-body timeout, timeouts\.idleBodyMs\); tried 6 times$/,
          )
        },
        // The whole-request limit far beyond the idle-body one: only the limit under test can end a stalled read.
        { timeouts: { ...TEST_TIMEOUTS, totalMs: 60_000 } },
      ),
    TEST_BUDGET_MS,
  )

  it(
    'an endless body arriving steadily: whole-request timeout',
    () =>
      inWorld(
        'endless',
        async (world) => {
          const { proxy } = world
          proxy.setRule((r) => (r.method === 'GET' && timelinesList(r.path) ? { kind: 'endless', intervalMs: 50 } : undefined))
          const run = await world.run(['export'])
          expect(run.code).toBe(1)
          expect(errorLine(run)).toBe(
            `error: Timeline service: GET ${proxy.origin}/api/timelines: not finished within 3 s (whole-request timeout, timeouts.totalMs); tried 6 times`,
          )
        },
        // The idle-body limit longer than the whole request's: a pause in the stream on a busy machine cannot end it first.
        { timeouts: { ...TEST_TIMEOUTS, idleBodyMs: 60_000 } },
      ),
    TEST_BUDGET_MS,
  )

  it(
    '--deadline ends the run, retries included, and says so',
    () =>
      inWorld('deadline', async (world) => {
        const { proxy } = world
        proxy.setRule((r) => (r.method === 'GET' && timelinesList(r.path) ? { kind: 'hang' } : undefined))
        const run = await world.run(['--deadline', '3s', 'export'])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toMatch(/deadline.*--deadline 3s/)
        // Fewer than the six attempts a run without a deadline makes.
        expect(proxy.seen.filter((r) => timelinesList(r.path)).length).toBeLessThan(6)
      }),
    TEST_BUDGET_MS,
  )

  it(
    'a create (POST) that gets no answer is not sent again: the server may have made it',
    () =>
      inWorld('post-hang', async (world) => {
        const exported = await world.run(['export'])
        expect(exported.code, exported.stderr).toBe(0)
        const tab = (await createWorkbookSpreadsheet({ path: world.workbookFile }).read(['Activities'])).tabs['Activities']!
        const col = (name: string) => tab.header.indexOf(name)
        const user = tab.rows[0]![col('User')] as string
        const manager = managerEditing(world.workbookFile)
        const newRow = tab.rows.length + 2
        for (const [name, value] of [
          ['User', user],
          ['Date', '2026-11-09'],
          ['Start', '14:00'],
          ['End', '15:30'],
          ['Tags', 'Globex, Migration'],
          ['Notes', 'new'],
        ] as const) {
          await manager.editCell('Activities', newRow, col(name), value)
        }
        const { proxy } = world
        const isCreate = (r: { method: string; path: string }) => r.method === 'POST' && r.path.endsWith('/activities')
        proxy.setRule((r) => (isCreate(r) ? { kind: 'hang' } : undefined))
        const run = await world.run(['import', '--yes'])
        // Partly done (3): the row says what happened; the journal lets the next run find out whether it was made.
        expect(run.code, run.stderr).toBe(3)
        expect(run.stdout).toMatch(/1 failed/)
        const after = (await createWorkbookSpreadsheet({ path: world.workbookFile }).read(['Activities'])).tabs['Activities']!
        const status = after.rows.map((r) => String(r[after.header.indexOf('Status')] ?? '')).find((text) => /timeout/.test(text))
        expect(status).toMatch(/no answer within 1 s \(first-byte timeout, timeouts\.firstByteMs\)/)
        expect(proxy.seen.filter(isCreate).length).toBe(1)
      }),
    TEST_BUDGET_MS,
  )
})
