/**
 * A new row a person keeps typing into while the import creates its activity. The import marks
 * the row (a pending mark in its Key cell) before it creates the activity, so the row is found again by
 * the mark and gets its Key, and the activity is created once — also when the run is repeated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runImport } from '../../src/engine/import.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { nodeFileSystem, type WorkbookFileSystem } from '../../src/sheets/workbook/file.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startExportedFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startExportedFixture({ users: 1, days: 3, startDate: '2026-11-06' }, { window: { days: 7 } }, now)
})

afterAll(async () => {
  await world?.server.close()
})

describe('a new row edited while its activity is created', () => {
  it('gets its Key, keeps what was typed meanwhile, and is created once', async () => {
    const { server, file } = world
    const user = server.credentials.users[0]!
    const timelineKey = user.tagsTimelineKey!
    const manager = managerEditing(file)
    const tab = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
    const col = (name: string) => tab.header.indexOf(name)
    const row = tab.rows.length + 2
    const template = server.store.activities(timelineKey)[0]!
    const tags = server.store
      .tagsOf(timelineKey, template)
      .filter((t) => !t.startsWith(':'))
      .join(', ')
    for (const [name, value] of [
      ['User', user.username],
      ['Date', '2026-11-09'],
      ['Start', '14:00'],
      ['End', '15:00'],
      ['Tags', tags],
      ['Notes', 'a new row'],
    ] as const) {
      await manager.editCell('Activities', row, col(name), value)
    }

    // The import's first save marks the row; right after it, the person types a label into the row.
    let saves = 0
    const fileSystem: WorkbookFileSystem = {
      ...nodeFileSystem,
      async rename(from, to) {
        await nodeFileSystem.rename(from, to)
        if (++saves === 1) await manager.editCell('Activities', row, col('Labels'), ':typed-late')
      },
    }
    const spreadsheet = createWorkbookSpreadsheet({ path: file, fileSystem })
    const summary = await runImport(world.target, {
      client: world.client,
      spreadsheet,
      stateDir: world.stateDir,
      reporter: silentReporter,
      now,
    })
    expect(summary.counts.created).toBe(1)

    const created = server.store.activities(timelineKey).filter((a) => a.notes === 'a new row')
    expect(created).toHaveLength(1)
    const after = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
    const rows = after.rows.filter((r) => r[col('Notes')] === 'a new row')
    expect(rows).toHaveLength(1)
    expect(rows[0]![col('Key')]).toBe(`${timelineKey}/${created[0]!.id}`)
    expect(rows[0]![col('Labels')]).toBe(':typed-late')

    // The next import sends the label typed meanwhile to the same activity; nothing is created again.
    const again = await runImport(world.target, {
      client: world.client,
      spreadsheet: world.spreadsheet(),
      stateDir: world.stateDir,
      reporter: silentReporter,
      now,
    })
    expect(again.counts).toMatchObject({ created: 0, updated: 1 })
    expect(server.store.activities(timelineKey).filter((a) => a.notes === 'a new row')).toHaveLength(1)
    expect(server.store.tagsOf(timelineKey, server.store.activity(timelineKey, created[0]!.id)!)).toContain(':typed-late')
  })

  it('restores garbage typed over the tool-written Duration, and says so in Status', async () => {
    const { file } = world
    const tab = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
    const col = (name: string) => tab.header.indexOf(name)
    const duration = tab.rows[0]![col('Duration')]
    await managerEditing(file).editCell('Activities', 2, col('Duration'), 'about an hour')
    await runImport(world.target, {
      client: world.client,
      spreadsheet: world.spreadsheet(),
      stateDir: world.stateDir,
      reporter: silentReporter,
      now,
    })
    const row = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!.rows[0]!
    expect(row[col('Duration')]).toBeCloseTo(duration as number, 8)
    expect(String(row[col('Status')])).toContain('Duration is calculated by the tool; it was restored')
  })
})
