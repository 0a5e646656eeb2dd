/**
 * The "almost everything changed" safety stop, end to end: a target whose time zone changed reads every row
 * as moved, and the import stops before any write. Its share is of the sheet's Keys, so a manager who
 * changed every row of the weeks an import reads, and few of the sheet's, is not stopped (scenario
 * retag-a-users-week).
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 14, startDate: '2026-10-28' }, { window: { days: 14 } })
  const { client, target, stateDir } = world
  await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
})

afterAll(async () => {
  await world?.server.close()
})

it('an import after the target changed its time zone stops before any write, naming --force', async () => {
  const { client, stateDir } = world
  const moved = { ...world.target, timeZone: world.target.timeZone === 'Asia/Tokyo' ? 'America/Chicago' : 'Asia/Tokyo' }
  const deps = { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now }
  const dry = await runImport(moved, deps, { dryRun: true })
  expect(dry.result).toBe('refused')
  expect(dry.plan.guards.map((g) => [g.guard, g.flag])).toEqual([['almost-everything-changed', '--force']])
  expect(dry.plan.guards[0]!.count).toBe(dry.plan.guards[0]!.total)
  const refused = await runImport(moved, { ...deps, spreadsheet: world.spreadsheet() }).catch((e: unknown) => e)
  expect(refused).toBeInstanceOf(TimelineSheetsError)
  expect((refused as TimelineSheetsError).code).toBe('TS_GUARD')
  // The target as it was: nothing to send, nothing stopped.
  const fine = await runImport(world.target, { ...deps, spreadsheet: world.spreadsheet() }, { dryRun: true })
  expect(fine.result).toBe('success')
  expect(fine.plan.writes).toEqual([])
})
