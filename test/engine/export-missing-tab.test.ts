/** A tab deleted after the layout was applied is made again, and the Activities tab refilled in full. */
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 1, days: 4, startDate: '2026-11-07' }, { window: { days: 7 } })
})

afterAll(async () => {
  await world?.server.close()
})

describe('a tab deleted between runs', () => {
  it('is made again and the Activities tab filled from the server, with a warning', async () => {
    const { client, target, file, stateDir } = world
    const first = await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
    expect(first.counts.created).toBeGreaterThan(0)

    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(file)
    book.removeWorksheet(book.getWorksheet('Activities')!.id)
    await book.xlsx.writeFile(file)

    const again = await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
    expect(again.warnings.join(' ')).toContain('The Activities tab was missing; it was made again')
    expect(again.counts.created).toBe(first.counts.created)
    const tab = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
    expect(tab.rows).toHaveLength(first.counts.created)
  })
})
