/**
 * A first export reads the server's whole window while the layout is applied, so the layout's round trips to
 * Google cost no time of their own; a layout that fails ends the run only once that read has settled. A later
 * run with a changed layout reads the server after it, since a tab the layout makes changes what it must read.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { type Reporter, silentReporter } from '../../src/cli/reporter.ts'
import type { EngineDeps } from '../../src/engine/deps.ts'
import { runExport } from '../../src/engine/export.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'first-export-reads-while-laying-out-token'
const NOW = new Date('2026-11-10T11:00:00Z')
let world: GoogleWorld | undefined
afterEach(async () => world?.close())

/**
 * Deps that log in `events` when the server read begins (its first progress report) and ends, and when the
 * layout starts and settles; `layout` stands in for the backend's.
 */
function depsOf(w: GoogleWorld, events: string[], layout?: Spreadsheet['ensureLayout']): EngineDeps {
  const spreadsheet = createGoogleSpreadsheet({
    spreadsheetId: w.spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: w.fake.rootUrl,
    retry: { limit: 0 },
  })
  const ensureLayout = layout ?? spreadsheet.ensureLayout.bind(spreadsheet)
  const reporter: Reporter = {
    ...silentReporter,
    progress: (label, done) => {
      if (label === 'Reading timelines' && done === 0) events.push('server read started')
    },
    endProgress: () => void events.push('server read settled'),
  }
  return {
    client: w.client,
    spreadsheet: {
      ...spreadsheet,
      describe: spreadsheet.describe.bind(spreadsheet),
      ensureLayout: async (tabs, options) => {
        events.push('layout started')
        try {
          return await ensureLayout(tabs, options)
        } finally {
          events.push('layout settled')
        }
      },
    },
    stateDir: w.stateDir,
    reporter,
    now: () => NOW,
  }
}

/** Waits, turn by turn of the event loop, for `done`; fails after many turns without it. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 10_000; turn++) {
    if (done()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  throw new Error(`never happened: ${what}`)
}

describe('a first export', () => {
  it('reads the server while the layout is applied', async () => {
    world = await startGoogleWorld(TOKEN, 'ts-first-export-alongside-')
    const events: string[] = []
    const w = world
    const real = createGoogleSpreadsheet({ spreadsheetId: w.spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: w.fake.rootUrl })
    // The layout is applied only once a server read has begun: a run that read the server after it would wait for ever.
    const layout: Spreadsheet['ensureLayout'] = async (tabs, options) => {
      await until(() => events.includes('server read started'), 'a server read while the layout is applied')
      return real.ensureLayout(tabs, options)
    }
    const summary = await runExport(world.target, depsOf(world, events, layout))
    expect(summary.result).toBe('success')
    expect(summary.counts.created).toBeGreaterThan(0)
    expect(events.indexOf('server read started')).toBeLessThan(events.indexOf('layout settled'))
  })

  it('ends at a layout that fails only once its server read has settled', async () => {
    world = await startGoogleWorld(TOKEN, 'ts-first-export-layout-fails-')
    const events: string[] = []
    const layout: Spreadsheet['ensureLayout'] = async () => {
      await until(() => events.includes('server read started'), 'a server read while the layout is applied')
      throw new Error('the layout was refused by the test')
    }
    await expect(runExport(world.target, depsOf(world, events, layout))).rejects.toThrow('the layout was refused by the test')
    expect(events).toEqual(['layout started', 'server read started', 'layout settled', 'server read settled'])
  })
})

describe('a later run whose layout changed', () => {
  it('reads the server only after the layout is applied', async () => {
    world = await startGoogleWorld(TOKEN, 'ts-later-layout-first-')
    expect((await runExport(world.target, depsOf(world, []))).result).toBe('success')
    const events: string[] = []
    // Another week of window: the Summary's layout changes with it.
    const target = { ...world.target, window: { ...world.target.window, days: world.target.window.days + 7 } }
    const summary = await runExport(target, depsOf(world, events))
    expect(summary.layoutChanged).toBe(true)
    expect(events.indexOf('layout settled')).toBeGreaterThanOrEqual(0)
    expect(events.indexOf('server read started')).toBeGreaterThan(events.indexOf('layout settled'))
  })
})
