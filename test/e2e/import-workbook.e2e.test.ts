/**
 * End to end: a manager edits the workbook, `import` sends the edits, `sync`
 * brings both sides in step. CLI as a subprocess, reference server on
 * loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReferenceServer } from '../../counterparts/timeline/server.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { onlyRun, runCli } from './cli.ts'
import { startWorkbookTarget } from './workbook-target.ts'

const timeZone = 'Europe/Berlin'
const NOW = '2026-11-10T11:00:00Z'

let server: ReferenceServer
let configFile: string
let workbookFile: string
let env: Record<string, string>
let alice: { username: string; tagsTimelineKey: string }

beforeAll(async () => {
  ;({ server, configFile, workbookFile, env } = await startWorkbookTarget(
    'import',
    { users: 2, days: 12, startDate: '2026-10-30', timeZones: [timeZone] },
    { timeZone, window: { days: 10, lookBackDays: 3 } },
  ))
  const first = server.credentials.users[0]!
  alice = { username: first.username, tagsTimelineKey: first.tagsTimelineKey! }
  const run = await runCli(['export', '--config', configFile, '--now', NOW], env)
  expect(run.code, run.stderr).toBe(0)
})

afterAll(async () => {
  await server?.close()
})

async function activities() {
  const tab = (await createWorkbookSpreadsheet({ path: workbookFile }).read(['Activities'])).tabs['Activities']!
  const col = (name: string) => tab.header.indexOf(name)
  return { tab, col }
}

describe('import and sync from a local workbook, end to end', () => {
  it('refuses to apply without a terminal unless told --yes', async () => {
    const run = await runCli(['import', '--config', configFile, '--now', NOW], env)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--yes')
  })

  it('sends an edit, a new row and a ticked deletion; keys come back; nothing twice', async () => {
    const { tab, col } = await activities()
    const manager = managerEditing(workbookFile)
    const aliceRows = tab.rows.map((r, i) => ({ r, row: i + 2 })).filter(({ r }) => r[col('User')] === alice.username)
    const edited = aliceRows[0]!
    const ticked = aliceRows[1]!
    const editedKey = edited.r[col('Key')] as string
    const tickedKey = ticked.r[col('Key')] as string
    await manager.editCell('Activities', edited.row, col('Notes'), 'Corrected by the manager')
    await manager.editCell('Activities', ticked.row, col('Delete'), true)
    const newRow = tab.rows.length + 2
    for (const [name, value] of [
      ['User', alice.username],
      ['Date', '2026-11-09'],
      ['Start', '14:00'],
      ['End', '15:30'],
      ['Tags', 'Globex, Migration, Analysis'],
      ['Notes', '=not a formula?'],
    ] as const) {
      await manager.editCell('Activities', newRow, col(name), value)
    }

    const dry = await runCli(['import', '--config', configFile, '--now', NOW, '--dry-run'], env)
    expect(dry.code, dry.stderr).toBe(3) // the formula in Notes is an invalid row
    expect(dry.stdout).toContain('update')
    expect(dry.stdout).toContain('Notes: holds a formula')

    await manager.editCell('Activities', newRow, col('Notes'), 'typed as text')
    const run = await runCli(['import', '--config', configFile, '--now', NOW, '--yes', '--json'], env)
    expect(run.code, run.stderr + run.stdout).toBe(0)
    const summary = onlyRun(run)
    expect(summary.counts).toMatchObject({ created: 1, updated: 1, deleted: 1, conflicts: 0, invalid: 0 })

    const entityId = Number(editedKey.split('/')[1])
    expect(server.store.activity(alice.tagsTimelineKey, entityId)?.notes).toBe('Corrected by the manager')
    expect(server.store.activity(alice.tagsTimelineKey, Number(tickedKey.split('/')[1]))).toBeUndefined()
    const created = server.store.activities(alice.tagsTimelineKey).filter((a) => a.notes === 'typed as text')
    expect(created).toHaveLength(1)
    expect(created[0]!.start).toBe('2026-11-09T14:00:00+01:00')
    expect(created[0]!.duration).toBe(5400)

    const after = await activities()
    const keys = after.tab.rows.map((r) => r[after.col('Key')])
    expect(keys).toContain(`${alice.tagsTimelineKey}/${created[0]!.id}`)
    expect(keys).not.toContain(tickedKey)

    // Run again: nothing left to do.
    const again = await runCli(['import', '--config', configFile, '--now', NOW, '--yes', '--json'], env)
    expect(again.code, again.stderr).toBe(0)
    expect(onlyRun(again).counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    expect(server.store.activities(alice.tagsTimelineKey).filter((a) => a.notes === 'typed as text')).toHaveLength(1)
  })

  it('a row changed in the sheet and on the server is a conflict: nothing written, the edit kept', async () => {
    const { tab, col } = await activities()
    const manager = managerEditing(workbookFile)
    const index = tab.rows.findIndex((r) => r[col('User')] === alice.username && r[col('Key')])
    const key = tab.rows[index]![col('Key')] as string
    const entityId = Number(key.split('/')[1])
    await manager.editCell('Activities', index + 2, col('Notes'), 'manager version')
    const current = server.store.activity(alice.tagsTimelineKey, entityId)!
    server.store.updateActivity(alice.tagsTimelineKey, entityId, {
      tags: server.store.tagsOf(alice.tagsTimelineKey, current),
      notes: 'server version',
      start: current.start,
      duration: current.duration,
    })

    const run = await runCli(['sync', '--config', configFile, '--now', NOW, '--json'], env)
    expect(run.code, run.stderr).toBe(3)
    expect(server.store.activity(alice.tagsTimelineKey, entityId)?.notes).toBe('server version')
    const after = await activities()
    const row = after.tab.rows.find((r) => r[after.col('Key')] === key)!
    expect(row[after.col('Notes')]).toBe('manager version')
    expect(String(row[after.col('Status')])).toContain('Changed both here and on the server')
  })

  it('--dry-run --plan-tab writes the plan into a Plan tab for review, and nothing else', async () => {
    const { tab, col } = await activities()
    // Not the first of alice's rows: that one holds the conflict of the test before.
    const index = tab.rows.findIndex(
      (r, i) => i > 0 && r[col('User')] === alice.username && r[col('Key')] && !String(r[col('Status')] ?? '').includes('Changed both'),
    )
    await managerEditing(workbookFile).editCell('Activities', index + 2, col('Notes'), 'for the plan tab')
    const run = await runCli(['import', '--config', configFile, '--now', NOW, '--dry-run', '--plan-tab'], env)
    // 3: the conflict of the test before is still waiting for a person.
    expect(run.code, run.stderr).toBe(3)
    const plan = (await createWorkbookSpreadsheet({ path: workbookFile }).read(['Plan'])).tabs['Plan']!
    expect(plan.header).toEqual(['Action', 'User', 'Row', 'What'])
    expect(plan.rows).toContainEqual(['update', alice.username, index + 2, expect.any(String)])
    expect(plan.rows.some((r) => r[0] === 'conflict')).toBe(true)
    const key = tab.rows[index]![col('Key')] as string
    expect(server.store.activity(alice.tagsTimelineKey, Number(key.split('/')[1]))?.notes).not.toBe('for the plan tab')
  })
})
