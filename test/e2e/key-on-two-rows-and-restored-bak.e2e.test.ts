/**
 * A Key on two rows and a restored .bak, as an operator meets them: the real CLI as a
 * subprocess, the reference server on loopback, a local workbook.
 * - A Key pasted onto a second row never makes that row's content replaced,
 *   and both rows say so in their Status.
 * - Restoring the workbook's .bak never sends the old values back.
 */
import { copyFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { runCli } from './cli.ts'
import { startWorkbookTarget, type WorkbookTarget } from './workbook-target.ts'

const timeZone = 'Europe/Berlin'
const NOW = '2026-11-10T11:00:00Z'
let world: WorkbookTarget | undefined

afterEach(async () => {
  await world?.server.close()
  world = undefined
})

async function start(name: string): Promise<WorkbookTarget> {
  world = await startWorkbookTarget(
    name,
    { users: 1, days: 6, startDate: '2026-11-03', timeZones: [timeZone] },
    { timeZone, window: { days: 10, lookBackDays: 3 } },
  )
  const run = await runCli(['export', '--config', world.configFile, '--now', NOW], world.env)
  expect(run.code, run.stderr).toBe(0)
  return world
}

async function activities(file: string) {
  const tab = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
  const col = (name: string) => tab.header.indexOf(name)
  return { tab, col }
}

describe('a Key on two rows', () => {
  it('writes nothing for that activity, keeps the second row as typed and names the other row in both Statuses', async () => {
    const { configFile, env, workbookFile, server } = await start('dup-key')
    const { tab, col } = await activities(workbookFile)
    const manager = managerEditing(workbookFile)
    const key = tab.rows[0]![col('Key')] as string
    const [timelineKey, entityId] = [key.split('/')[0]!, Number(key.split('/')[1])]
    const before = { ...server.store.activity(timelineKey, entityId)! }
    // Row 2's Notes edited; row 2's Key pasted into row 5, whose Date and Notes change too.
    await manager.editCell('Activities', 2, col('Notes'), 'edited on row 2')
    await manager.editCell('Activities', 5, col('Key'), key)
    await manager.editCell('Activities', 5, col('Date'), '2026-11-04')
    await manager.editCell('Activities', 5, col('Notes'), 'row 5, my own')
    const row5Before = (await activities(workbookFile)).tab.rows[3]!

    const run = await runCli(['import', '--config', configFile, '--now', NOW, '--yes'], env)
    expect(run.code, run.stderr + run.stdout).toBe(3)

    expect(server.store.activity(timelineKey, entityId)?.notes).toBe(before.notes)
    const after = await activities(workbookFile)
    const row2 = after.tab.rows[0]!
    const row5 = after.tab.rows[3]!
    expect(row2[col('Notes')]).toBe('edited on row 2')
    expect(row2[col('Status')]).toMatch(/rows 2, 5/)
    expect(row5[col('Status')]).toMatch(/rows 2, 5/)
    // Row 5's own content is untouched (only its Status was written).
    expect(row5.filter((_, i) => i !== col('Status'))).toEqual(row5Before.filter((_, i) => i !== col('Status')))
  })

  it('is found even when nothing else of that user changed', async () => {
    const { configFile, env, workbookFile, server } = await start('dup-key-alone')
    const { tab, col } = await activities(workbookFile)
    const key = tab.rows[0]![col('Key')] as string
    const [timelineKey, entityId] = [key.split('/')[0]!, Number(key.split('/')[1])]
    const notes = server.store.activity(timelineKey, entityId)?.notes
    await managerEditing(workbookFile).editCell('Activities', 4, col('Key'), key)
    const run = await runCli(['import', '--config', configFile, '--now', NOW, '--yes'], env)
    expect(run.code, run.stderr + run.stdout).toBe(3)
    expect(server.store.activity(timelineKey, entityId)?.notes).toBe(notes)
    const after = await activities(workbookFile)
    expect(after.tab.rows[0]![col('Status')]).toMatch(/rows 2, 4/)
    expect(after.tab.rows[2]![col('Status')]).toMatch(/rows 2, 4/)
  })
})

describe('restoring the workbook .bak', () => {
  it('refreshes the stale rows from the server instead of sending the old values back', async () => {
    const { configFile, env, workbookFile, server } = await start('bak')
    const { tab, col } = await activities(workbookFile)
    const key = tab.rows[0]![col('Key')] as string
    const [timelineKey, entityId] = [key.split('/')[0]!, Number(key.split('/')[1])]
    const current = server.store.activity(timelineKey, entityId)!
    server.store.updateActivity(timelineKey, entityId, {
      tags: server.store.tagsOf(timelineKey, current),
      notes: 'changed on the server',
      start: current.start,
      duration: current.duration,
    })

    const second = await runCli(['export', '--config', configFile, '--now', NOW, '--full'], env)
    expect(second.code, second.stderr).toBe(0)
    expect((await activities(workbookFile)).tab.rows.find((r) => r[col('Key')] === key)![col('Notes')]).toBe('changed on the server')

    await copyFile(`${workbookFile}.bak`, workbookFile)
    expect((await activities(workbookFile)).tab.rows.find((r) => r[col('Key')] === key)![col('Notes')]).not.toBe('changed on the server')

    const sync = await runCli(['sync', '--config', configFile, '--now', NOW], env)
    expect(sync.code, sync.stderr + sync.stdout).toBe(0)
    expect(server.store.activity(timelineKey, entityId)?.notes).toBe('changed on the server')
    expect((await activities(workbookFile)).tab.rows.find((r) => r[col('Key')] === key)![col('Notes')]).toBe('changed on the server')
  })
})
