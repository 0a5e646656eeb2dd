/**
 * An export that reads no activity says why it may be (the window, the users, the account's rights)
 * and what the server's timeline list shows, and every summary carries its window; an incremental run that
 * finds nothing new is the normal case and says nothing of the kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 4, startDate: '2026-11-07' }, { window: { days: 7, lookBackDays: 2 } })
})

afterAll(async () => {
  await world?.server.close()
})

const deps = (now: string) => ({
  client: world.client,
  spreadsheet: world.spreadsheet(),
  stateDir: world.stateDir,
  reporter: silentReporter,
  now: () => new Date(now),
})

describe('an export that reads 0 activities', () => {
  it('names the window, the timelines read and what the server says of them', async () => {
    const summary = await runExport(world.target, deps('2027-03-01T11:00:00Z'), { dryRun: true })
    expect(summary.window).toEqual({ from: '2027-02-23', to: '2027-03-01', days: 7, timeZone: 'Europe/Berlin', lookBackDays: 2 })
    expect(summary.timelines.reduce((n, t) => n + t.activitiesRead, 0)).toBe(0)
    const warning = summary.warnings.find((w) => w.startsWith('No activity'))
    expect(warning).toContain('window 2027-02-23 to 2027-03-01 (7 days, Europe/Berlin)')
    expect(warning).toContain('2 Tags timelines read')
    for (const user of world.server.credentials.users) expect(warning).toContain(user.username)
    expect(warning).toContain('last changed:')
    expect(warning).toContain('window.days')
  })

  it('says when none of the configured users owns a visible timeline', async () => {
    const summary = await runExport({ ...world.target, users: ['nobody@example.com'] }, deps('2026-11-10T11:00:00Z'), { dryRun: true })
    expect(summary.timelines).toEqual([])
    expect(summary.warnings.join('\n')).toContain(`none of the target's users (nobody@example.com) owns one of the`)
  })

  it('an export that reads activities, and an incremental one that finds nothing new, add no such warning', async () => {
    const first = await runExport(world.target, deps('2026-11-10T11:00:00Z'))
    expect(first.counts.created).toBeGreaterThan(0)
    expect(first.window).toMatchObject({ from: '2026-11-04', to: '2026-11-10' })
    expect(first.warnings.filter((w) => w.startsWith('No activity'))).toEqual([])
    const again = await runExport(world.target, deps('2026-11-10T11:05:00Z'))
    expect(again.timelines.every((t) => t.mode === 'incremental')).toBe(true)
    expect(again.warnings.filter((w) => w.startsWith('No activity'))).toEqual([])
  })
})
