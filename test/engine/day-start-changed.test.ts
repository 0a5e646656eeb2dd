/**
 * A target whose dayStartsAt changed after its sheet was written: the night's rows would read as moved by a day,
 * so export and import both refuse before reading or writing anything, and say how to change it safely.
 */
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { startExportedFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startExportedFixture({ users: 1, days: 5, startDate: '2026-11-05' }, { window: { days: 7, lookBackDays: 2 } }, now)
})

afterAll(async () => {
  await world?.server.close()
})

describe('a changed dayStartsAt', () => {
  it.each(['export', 'import'] as const)('stops %s before anything is read or written, naming both hours', async (command) => {
    const shifted = { ...world.target, dayStartsAt: '04:00' }
    const before = await readFile(world.file)
    const deps = { client: world.client, spreadsheet: world.spreadsheet(), stateDir: world.stateDir, reporter: silentReporter, now }
    world.activityReads.length = 0
    const run = command === 'export' ? runExport(shifted, deps) : runImport(shifted, deps, { dryRun: false })
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_STATE')
    expect((error as TimelineSheetsError).message).toContain('counts its days from 04:00')
    expect((error as TimelineSheetsError).message).toContain('written counting them from 00:00')
    expect(world.activityReads).toEqual([])
    expect(await readFile(world.file)).toEqual(before)
  })

  it('lets the recorded hour run as before', async () => {
    const summary = await runExport(world.target, {
      client: world.client,
      spreadsheet: world.spreadsheet(),
      stateDir: world.stateDir,
      reporter: silentReporter,
      now,
    })
    expect(summary.result).toBe('success')
  })
})
