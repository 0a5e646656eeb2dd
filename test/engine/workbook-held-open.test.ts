/**
 * A run whose workbook someone has open loses nothing. An export that cannot replace the file leaves the file
 * and the target's state as they were, and the next run, the file closed, writes what the first could not. A
 * sync whose write-back is refused after it sent a manager's edit to the server finishes with the next run:
 * the edit on the server once, its row marked as synced, no conflict; a new row is created once, and not at
 * all while the workbook is held from the first save (the save that marks the row) on.
 */
import { readFile, readdir } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runSync } from '../../src/engine/sync.ts'
import { retryOptions } from '../../src/http/retry.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { nodeFileSystem, type WorkbookFileSystem } from '../../src/sheets/workbook/file.ts'
import { WorkbookOpenError } from '../../src/sheets/workbook/open-by.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startExportedFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeEach(async () => {
  world = await startExportedFixture({ users: 1, days: 3, startDate: '2026-11-06' }, { window: { days: 7 } }, now)
})

afterEach(async () => {
  await world?.server.close()
})

/** The workbook as a run opens it while someone holds it open from the `saves`+1-th save on: every later rename refused. */
function heldOpenAfter(saves: number) {
  let renames = 0
  const fileSystem: WorkbookFileSystem = {
    ...nodeFileSystem,
    rename: async (from, to) => {
      if (++renames > saves) throw Object.assign(new Error('EBUSY: resource busy or locked, rename'), { code: 'EBUSY' })
      return nodeFileSystem.rename(from, to)
    },
  }
  return createWorkbookSpreadsheet({
    path: world.file,
    fileSystem,
    heldOpen: { retry: retryOptions({ limit: 3, sleep: async () => undefined }) },
  })
}

/** Every file of the target's state folder and its bytes. */
async function stateFiles(): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  const folder = path.join(world.stateDir, world.target.name)
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    files.set(path.relative(folder, file), await readFile(file, 'utf8'))
  }
  return files
}

async function activitiesTab() {
  const tab = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
  return { tab, col: (name: string) => tab.header.indexOf(name) }
}

/** A manager types a new row (no Key) at `row`, with tags the server allows. */
async function typeNewRow(row: number, col: (name: string) => number): Promise<void> {
  const { server } = world
  const user = server.credentials.users[0]!
  const key = user.tagsTimelineKey!
  const template = server.store.activities(key)[0]!
  const tags = server.store
    .tagsOf(key, template)
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
    await managerEditing(world.file).editCell('Activities', row, col(name), value)
  }
}

describe('an export into a workbook someone has open', () => {
  it('leaves the file and the state as they were; the next run writes the change', async () => {
    const { server } = world
    const key = server.credentials.users[0]!.tagsTimelineKey!
    const activity = server.store.activities(key).at(-1)!
    server.store.updateActivity(key, activity.id, {
      tags: server.store.tagsOf(key, activity),
      notes: 'changed on the server',
      start: activity.start,
      duration: activity.duration,
    })
    const before = { workbook: await readFile(world.file), state: await stateFiles() }

    const deps = { client: world.client, stateDir: world.stateDir, reporter: silentReporter, now }
    const failed = await runExport(world.target, { ...deps, spreadsheet: heldOpenAfter(0) }).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(WorkbookOpenError)

    expect(Buffer.compare(await readFile(world.file), before.workbook)).toBe(0)
    expect((await readdir(path.dirname(world.file))).filter((name) => name.endsWith('.tmp'))).toEqual([])
    expect(await stateFiles()).toEqual(before.state)

    const summary = await runExport(world.target, { ...deps, spreadsheet: world.spreadsheet() })
    expect(summary.result).toBe('success')
    const { tab, col } = await activitiesTab()
    expect(tab.rows.find((row) => row[col('Key')] === `${key}/${activity.id}`)![col('Notes')]).toBe('changed on the server')
  })
})

describe('a sync whose workbook is opened while it writes', () => {
  it("sends a manager's edit once and a new row's activity once; the next run marks both rows as synced", async () => {
    const { server } = world
    const user = server.credentials.users[0]!
    const key = user.tagsTimelineKey!
    const manager = managerEditing(world.file)
    const { tab, col } = await activitiesTab()
    const edited = tab.rows.findIndex((row) => String(row[col('Key')]).startsWith(`${key}/`))
    const editedId = Number(String(tab.rows[edited]![col('Key')]).split('/')[1])
    await manager.editCell('Activities', edited + 2, col('Notes'), 'edited by the manager')
    await typeNewRow(tab.rows.length + 2, col)
    const changesBefore = server.store.lastChangeId(key)

    // The first save (the new row's mark) lands; the person opens the file before the next.
    const deps = { client: world.client, stateDir: world.stateDir, reporter: silentReporter, now }
    const failed = await runSync(world.target, { ...deps, spreadsheet: heldOpenAfter(1) }).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(WorkbookOpenError)
    expect(server.store.activity(key, editedId)!.notes).toBe('edited by the manager')
    expect(server.store.activities(key).filter((a) => a.notes === 'a new row')).toHaveLength(1)
    expect(server.store.lastChangeId(key)).not.toBe(changesBefore)
    const changesAfterFirst = server.store.lastChangeId(key)

    const again = await runSync(world.target, { ...deps, spreadsheet: world.spreadsheet() })
    // The journal's finished create is adopted (counted as this run's), not sent again.
    expect(again.imported.counts).toMatchObject({ conflicts: 0, failed: 0, invalid: 0 })
    // Nothing was sent to the server a second time.
    expect(server.store.lastChangeId(key)).toBe(changesAfterFirst)
    expect(server.store.activities(key).filter((a) => a.notes === 'a new row')).toHaveLength(1)
    const after = await activitiesTab()
    const created = server.store.activities(key).find((a) => a.notes === 'a new row')!
    const rows = after.tab.rows.filter((row) => row[after.col('Notes')] === 'a new row')
    expect(rows).toHaveLength(1)
    expect(rows[0]![after.col('Key')]).toBe(`${key}/${created.id}`)
    const editedRow = after.tab.rows.find((row) => row[after.col('Key')] === `${key}/${editedId}`)!
    expect(editedRow[after.col('Notes')]).toBe('edited by the manager')
    expect(String(editedRow[after.col('Status')])).not.toMatch(/conflict|waits/i)
  })
})

describe('a sync whose workbook is open from its first save on', () => {
  it("creates no new row's activity: the row's mark is saved before the create", async () => {
    const { server } = world
    const key = server.credentials.users[0]!.tagsTimelineKey!
    const { tab, col } = await activitiesTab()
    await typeNewRow(tab.rows.length + 2, col)
    const changesBefore = server.store.lastChangeId(key)
    const deps = { client: world.client, stateDir: world.stateDir, reporter: silentReporter, now }
    const failed = await runSync(world.target, { ...deps, spreadsheet: heldOpenAfter(0) }).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(WorkbookOpenError)
    expect(server.store.activities(key).filter((a) => a.notes === 'a new row')).toEqual([])
    expect(server.store.lastChangeId(key)).toBe(changesBefore)

    await runSync(world.target, { ...deps, spreadsheet: world.spreadsheet() })
    expect(server.store.activities(key).filter((a) => a.notes === 'a new row')).toHaveLength(1)
  })
})
