/**
 * Export writes the Summary with the layout, listing the people it exports and the clients /
 * projects of the allowed tags; a run with nothing new in either leaves it alone, a new client lays it out again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import type { Spreadsheet, TabSpec } from '../../src/sheets/port.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 4, startDate: '2026-11-07' }, { window: { days: 7 } })
})

afterAll(async () => {
  await world?.server.close()
})

/** The workbook backend, recording the tabs each layout call was given. */
function recording(layouts: TabSpec[][]): Spreadsheet {
  const inner = world.spreadsheet()
  return { ...inner, ensureLayout: (tabs, options) => (layouts.push(tabs), inner.ensureLayout(tabs, options)) }
}

async function summaryLabels(): Promise<unknown[]> {
  const tab = (await world.spreadsheet().read(['Summary'])).tabs['Summary']!
  return tab.rows.map((row) => row[0])
}

describe('the Summary and the export', () => {
  it('is laid out by the first export, left alone by the next, and laid out again for a new client', async () => {
    const { client, target, stateDir } = world
    const layouts: TabSpec[][] = []
    const run = () => runExport(target, { client, spreadsheet: recording(layouts), stateDir, reporter: silentReporter, now })
    await run()
    expect(layouts).toHaveLength(1)
    const users = (await client.tagsTimelines()).map((t) => t.ownerUsername)
    expect(await summaryLabels()).toEqual(expect.arrayContaining([...users, 'Everyone else', 'Total', 'Other tags']))

    await run()
    expect(layouts).toHaveLength(1)

    const allowed = await client.readAllowedTags({ all: true })
    await client.writeAllowedTags({ ...allowed, everyone: [...allowed.everyone, 'Zeta Industries, Audit, Fieldwork'] })
    await run()
    expect(layouts).toHaveLength(2)
    expect(await summaryLabels()).toEqual(expect.arrayContaining(['Zeta Industries', 'Zeta Industries, Audit']))
  })
})
