/**
 * End to end: export → a manager edits a row, adds a row and ticks a
 * deletion → `import --yes` → `undo <run-id> --yes` puts the server back as it
 * was before the import (ids of re-created activities aside), and the export
 * that follows shows it in the sheet. A second undo writes nothing; an undo of
 * the undo brings the import's result back; a change made on the server
 * between import and undo is reported and left alone (exit 3). CLI as a
 * subprocess, reference server on loopback, a real workbook.
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
    'undo',
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

const cli = (...args: string[]) => runCli([...args, '--config', configFile, '--now', NOW], env)

/** Every Tags activity on the server by its values, ids left out (a re-created activity has a new one). */
function serverValues(): string[] {
  const out: string[] = []
  for (const t of server.store.timelines()) {
    if (t.kind !== 'Tags') continue
    for (const a of server.store.activities(t.key))
      out.push(JSON.stringify([t.key, server.store.tagsOf(t.key, a), a.notes ?? '', a.startMs, a.duration]))
  }
  return out.sort()
}

async function activities() {
  const tab = (await createWorkbookSpreadsheet({ path: workbookFile }).read(['Activities'])).tabs['Activities']!
  const col = (name: string) => tab.header.indexOf(name)
  const byKey = (key: string) => tab.rows.find((r) => r[col('Key')] === key)
  return { tab, col, byKey }
}

const idOf = (key: string) => Number(key.split('/')[1])

describe('undo of an import, end to end', () => {
  let importRunId: string
  let undoRunId: string
  let beforeImport: string[]
  let afterImport: string[]
  let editedKey: string
  let tickedKey: string
  let editedNotes: string | undefined
  let ticked: { notes: string | undefined; start: string; duration: number; tags: string[] }

  it('import applies an edit, a new row and a ticked deletion', async () => {
    beforeImport = serverValues()
    const { tab, col } = await activities()
    const manager = managerEditing(workbookFile)
    const aliceRows = tab.rows.map((r, i) => ({ r, row: i + 2 })).filter(({ r }) => r[col('User')] === alice.username)
    editedKey = aliceRows[0]!.r[col('Key')] as string
    tickedKey = aliceRows[1]!.r[col('Key')] as string
    editedNotes = server.store.activity(alice.tagsTimelineKey, idOf(editedKey))!.notes
    const t = server.store.activity(alice.tagsTimelineKey, idOf(tickedKey))!
    ticked = { notes: t.notes, start: t.start, duration: t.duration, tags: server.store.tagsOf(alice.tagsTimelineKey, t) }
    await manager.editCell('Activities', aliceRows[0]!.row, col('Notes'), 'Corrected by the manager')
    await manager.editCell('Activities', aliceRows[1]!.row, col('Delete'), true)
    const newRow = tab.rows.length + 2
    for (const [name, value] of [
      ['User', alice.username],
      ['Date', '2026-11-09'],
      ['Start', '14:00'],
      ['End', '15:30'],
      ['Tags', 'Globex, Migration, Analysis'],
      ['Notes', 'added by the manager'],
    ] as const) {
      await manager.editCell('Activities', newRow, col(name), value)
    }
    const run = await cli('import', '--yes', '--json')
    expect(run.code, run.stderr + run.stdout).toBe(0)
    const summary = onlyRun(run)
    expect(summary.counts).toMatchObject({ created: 1, updated: 1, deleted: 1 })
    importRunId = summary.runId
    afterImport = serverValues()
    expect(afterImport).not.toEqual(beforeImport)
  })

  it('refuses without a terminal unless told --yes, and names the recent runs for an unknown run id', async () => {
    const noYes = await cli('undo', importRunId)
    expect(noYes.code).toBe(2)
    expect(noYes.stderr).toContain('--yes')
    const unknown = await cli('undo', '20200101T000000Z-none', '--yes')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('No run "20200101T000000Z-none"')
    expect(unknown.stderr).toContain(importRunId)
    const traversal = await cli('undo', '../../state', '--yes')
    expect(traversal.code).toBe(2)
    expect(serverValues()).toEqual(afterImport)
  })

  it('--dry-run shows the plan and writes nothing', async () => {
    const dry = await cli('undo', importRunId, '--dry-run')
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain('delete')
    expect(dry.stdout).toContain('put back')
    expect(dry.stdout).toContain('create again')
    expect(dry.stdout).toContain('nothing was written')
    expect(serverValues()).toEqual(afterImport)
  })

  it('undo puts the server back as before the import, and the sheet shows it after the automatic export', async () => {
    const run = await cli('undo', importRunId, '--yes', '--json')
    expect(run.code, run.stderr + run.stdout).toBe(0)
    const summary = onlyRun(run)
    undoRunId = summary.runId
    expect(summary.counts).toMatchObject({ deleted: 1, restored: 1, recreated: 1, conflicts: 0, manual: 0, failed: 0 })
    expect(summary.exported.result).toBe('success')
    expect(serverValues()).toEqual(beforeImport)

    expect(server.store.activity(alice.tagsTimelineKey, idOf(editedKey))?.notes).toBe(editedNotes)
    const recreated = server.store
      .activities(alice.tagsTimelineKey)
      .filter((a) => a.start === ticked.start && a.duration === ticked.duration && a.notes === ticked.notes && a.id !== idOf(tickedKey))
    expect(recreated).toHaveLength(1)

    const sheet = await activities()
    expect(sheet.byKey(editedKey)?.[sheet.col('Notes')] ?? null).toBe(editedNotes ?? null)
    expect(sheet.tab.rows.some((r) => r[sheet.col('Notes')] === 'added by the manager')).toBe(false)
    expect(sheet.byKey(tickedKey)).toBeUndefined()
    const back = sheet.byKey(`${alice.tagsTimelineKey}/${recreated[0]!.id}`)
    expect(back).toBeDefined()
    expect(back![sheet.col('Tags')]).toBe(ticked.tags.filter((t) => !t.startsWith(':')).join(', '))
    // Every Tags activity in the window has exactly one row, and the Sync log names the undo.
    const keys = sheet.tab.rows.map((r) => r[sheet.col('Key')]).filter(Boolean)
    expect(new Set(keys).size).toBe(keys.length)
    const log = (await createWorkbookSpreadsheet({ path: workbookFile }).read(['Sync log'])).tabs['Sync log']!
    expect(log.rows.some((r) => r.includes(undoRunId) && r.includes('undo'))).toBe(true)
  })

  it('undo again is a no-op', async () => {
    const run = await cli('undo', importRunId, '--yes', '--json')
    expect(run.code, run.stderr + run.stdout).toBe(0)
    const summary = onlyRun(run)
    expect(summary.plan.writes).toEqual([])
    expect(summary.plan.nothing).toHaveLength(3)
    expect(summary.counts).toMatchObject({ deleted: 0, restored: 0, recreated: 0, conflicts: 0 })
    expect(serverValues()).toEqual(beforeImport)
  })

  it('an undo can itself be undone: the import result comes back', async () => {
    const run = await cli('undo', undoRunId, '--yes', '--json')
    expect(run.code, run.stderr + run.stdout).toBe(0)
    expect(onlyRun(run).counts).toMatchObject({ deleted: 1, restored: 1, recreated: 1 })
    expect(serverValues()).toEqual(afterImport)
    const sheet = await activities()
    expect(sheet.tab.rows.filter((r) => r[sheet.col('Notes')] === 'added by the manager')).toHaveLength(1)
    expect(sheet.byKey(editedKey)?.[sheet.col('Notes')]).toBe('Corrected by the manager')
  })

  it('a change made on the server between import and undo is reported and left alone (exit 3); the rest is undone', async () => {
    const { tab, col } = await activities()
    const manager = managerEditing(workbookFile)
    const rows = tab.rows.map((r, i) => ({ r, row: i + 2 })).filter(({ r }) => r[col('User')] !== alice.username && r[col('Key')])
    const [a, b] = [rows[0]!, rows[1]!]
    const keyA = a.r[col('Key')] as string
    const keyB = b.r[col('Key')] as string
    const timelineKey = keyA.split('/')[0]!
    const notesB = server.store.activity(timelineKey, idOf(keyB))!.notes
    await manager.editCell('Activities', a.row, col('Notes'), 'manager edit A')
    await manager.editCell('Activities', b.row, col('Notes'), 'manager edit B')
    const imported = await cli('import', '--yes', '--json')
    expect(imported.code, imported.stderr + imported.stdout).toBe(0)
    const runId = onlyRun(imported).runId as string

    const current = server.store.activity(timelineKey, idOf(keyA))!
    server.store.updateActivity(timelineKey, idOf(keyA), {
      tags: server.store.tagsOf(timelineKey, current),
      notes: 'changed on the server',
      start: current.start,
      duration: current.duration,
    })

    const run = await cli('undo', runId, '--yes', '--json')
    expect(run.code, run.stderr + run.stdout).toBe(3)
    const summary = onlyRun(run)
    expect(summary.plan.conflicts).toHaveLength(1)
    expect(summary.plan.conflicts[0].key).toBe(keyA)
    expect(summary.counts).toMatchObject({ restored: 1, conflicts: 1 })
    expect(server.store.activity(timelineKey, idOf(keyA))?.notes).toBe('changed on the server')
    expect(server.store.activity(timelineKey, idOf(keyB))?.notes).toBe(notesB)

    const text = await cli('undo', runId, '--dry-run')
    expect(text.code).toBe(3)
    expect(text.stdout).toContain('changed on the server again since')
  })

  it('an undo killed right after a server write, run again, finishes the job and creates nothing twice', async () => {
    const before = serverValues()
    const { tab, col } = await activities()
    const manager = managerEditing(workbookFile)
    const rows = tab.rows.map((r, i) => ({ r, row: i + 2 })).filter(({ r }) => r[col('User')] === alice.username && r[col('Key')])
    await manager.editCell('Activities', rows[2]!.row, col('Notes'), 'second edit')
    await manager.editCell('Activities', rows[3]!.row, col('Delete'), true)
    const newRow = tab.rows.length + 2
    for (const [name, value] of [
      ['User', alice.username],
      ['Date', '2026-11-08'],
      ['Start', '10:00'],
      ['End', '10:45'],
      ['Tags', 'Globex, Migration, Analysis'],
      ['Notes', 'another new row'],
    ] as const) {
      await manager.editCell('Activities', newRow, col(name), value)
    }
    const imported = await cli('import', '--yes', '--json')
    expect(imported.code, imported.stderr + imported.stdout).toBe(0)
    const runId = onlyRun(imported).runId as string
    expect(onlyRun(imported).counts).toMatchObject({ created: 1, updated: 1, deleted: 1 })

    // Killed after its 2nd write, then (run again) after the one write left: each time the answer is lost.
    for (const nth of [2, 1]) {
      const killed = await runCli(['undo', runId, '--yes', '--config', configFile, '--now', NOW], {
        ...env,
        TIMELINE_SHEETS_CRASH_AT: `undo:after-write#${nth}`,
      })
      expect(killed.code, killed.stderr).toBe(137)
    }
    const rerun = await cli('undo', runId, '--yes', '--json')
    expect(rerun.code, rerun.stderr + rerun.stdout).toBe(0)
    expect(onlyRun(rerun).plan.writes).toEqual([])
    expect(serverValues()).toEqual(before)
    const sheet = await activities()
    expect(sheet.tab.rows.some((r) => r[sheet.col('Notes')] === 'another new row' || r[sheet.col('Notes')] === 'second edit')).toBe(false)
  })

  it('an invalid row elsewhere in the sheet makes the export afterwards partial, not the undo (exit, Sync log and --json agree)', async () => {
    const { tab, col } = await activities()
    const manager = managerEditing(workbookFile)
    const rows = tab.rows.map((r, i) => ({ r, row: i + 2 })).filter(({ r }) => r[col('User')] === alice.username && r[col('Key')])
    await manager.editCell('Activities', rows[4]!.row, col('Notes'), 'an edit to undo')
    const imported = await cli('import', '--yes', '--json')
    expect(imported.code, imported.stderr + imported.stdout).toBe(0)
    const runId = onlyRun(imported).runId as string
    // Unrelated to that import: another person's row, typed over since, which the export cannot read.
    const other = tab.rows.findIndex((r) => r[col('User')] !== alice.username && r[col('Key')])
    await manager.editCell('Activities', other + 2, col('End'), 'after lunch')

    const run = await cli('undo', runId, '--yes', '--json')
    expect(run.code, run.stderr + run.stdout).toBe(0)
    const summary = onlyRun(run)
    expect(summary.result).toBe('success')
    expect(summary.counts).toMatchObject({ restored: 1, conflicts: 0, failed: 0 })
    expect(summary.exported.result).toBe('partial')
    const log = (await createWorkbookSpreadsheet({ path: workbookFile }).read(['Sync log'])).tabs['Sync log']!
    const result = log.header.indexOf('Result')
    const undoRow = log.rows.find((r) => r.includes(summary.runId) && r.includes('undo'))
    expect(undoRow?.[result]).toBe('Done')

    const text = await cli('undo', runId, '--yes')
    expect(text.code, text.stderr + text.stdout).toBe(0)
    expect(text.stdout).toContain('The export afterwards is partial')
  })
})
