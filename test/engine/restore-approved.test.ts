/**
 * Putting an approved week back on the server: what the server changed since approval goes back through the
 * journal, a change made while the restore runs is refused after the re-read, and the next syncs show the week
 * as approved again.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runRestoreApproved } from '../../src/engine/restore-approved.ts'
import { runSync } from '../../src/engine/sync.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import { APPROVALS_FILE } from '../../src/state/approvals-store.ts'
import type { CellValue, TabData } from '../../src/sheets/port.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-12T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 1, days: 10, startDate: '2026-11-02' }, { window: { days: 14 }, approvals: { period: 'week' } })
})

afterAll(async () => {
  await world?.server.close()
})

const sync = () =>
  runSync(world.target, { client: world.client, spreadsheet: world.spreadsheet(), stateDir: world.stateDir, reporter: silentReporter, now })

const restore = (dryRun = false) =>
  runRestoreApproved(
    world.target,
    { user: world.server.credentials.users[0]!.username, period: '2026-W45' },
    { client: world.client, spreadsheet: world.spreadsheet(), stateDir: world.stateDir, reporter: silentReporter, now },
    { dryRun },
  )

async function tabs(): Promise<{ activities: TabData; approvals: TabData }> {
  const snapshot = await world.spreadsheet().read(['Activities', 'Approvals'])
  return { activities: snapshot.tabs['Activities']!, approvals: snapshot.tabs['Approvals']! }
}

const cell = (tab: TabData, row: CellValue[] | undefined, name: string) => row?.[tab.header.indexOf(name)]

describe('restoring an approved week', () => {
  it('re-creates, deletes and puts back what the approval row showed, and refuses what changed while it ran', async () => {
    const { store } = world.server
    const user = world.server.credentials.users[0]!
    const timelineKey = user.tagsTimelineKey!
    await sync()
    await sync()
    let { activities, approvals } = await tabs()
    const approvalRow = approvals.rows.findIndex((r) => cell(approvals, r, 'Period') === '2026-W45') + 2
    const manager = managerEditing(world.file)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved'), true)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved by'), 'Mia Manager')
    await sync()
    ;({ activities } = await tabs())
    const inWeek = activities.rows
      .filter((r) => (cell(activities, r, 'Date') as number) < localDateToSerial('2026-11-09'))
      .map((r) => Number(String(cell(activities, r, 'Key')).split('/')[1]))
    const [retagged, deleted, touchedMeanwhile] = inWeek
    expect(touchedMeanwhile).toBeDefined()
    const recordFile = path.join(world.stateDir, 'team', APPROVALS_FILE)
    const approvedCount = store.activities(timelineKey).length

    // After approval, on the server: two retagged, one deleted, one added.
    for (const id of [retagged!, touchedMeanwhile!]) {
      const a = store.activity(timelineKey, id)!
      store.updateActivity(timelineKey, id, { tags: ['Retagged'], notes: a.notes, start: a.start, duration: a.duration })
    }
    store.deleteActivity(timelineKey, deleted!)
    const added = store.createActivity(timelineKey, {
      tags: ['Added', 'Later'],
      notes: undefined,
      start: '2026-11-04T18:00:00+01:00',
      duration: 1800,
    })
    await sync() // The export sees them and keeps them in the record.
    expect(JSON.parse(await readFile(recordFile, 'utf8')).approvals[0].changes).toHaveLength(4)

    const planned = await restore(true)
    expect(planned.plan.writes.map((w) => w.kind).sort()).toEqual(['delete', 'recreate', 'restore', 'restore'])

    // Right before the restore's first write, someone edits one of the retagged activities again.
    world.server.faults.addConcurrentWriter({
      before: { writesOnly: true },
      nth: 1,
      run: (s) => {
        const a = s.activity(timelineKey, touchedMeanwhile!)!
        s.updateActivity(timelineKey, touchedMeanwhile!, {
          tags: s.tagsOf(timelineKey, a),
          notes: 'someone else',
          start: a.start,
          duration: a.duration,
        })
      },
    })
    const done = await restore()
    expect(done).toMatchObject({
      applied: true,
      result: 'partial',
      counts: { restored: 1, recreated: 1, deleted: 1, conflicts: 1, failed: 0 },
    })
    expect(done.plan.conflicts[0]!.reason).toMatch(
      /^Changed on the server since the last sync saw it \(now: Tags, Labels, Notes; the approval row showed Tags, Labels\)/,
    )
    expect(store.activity(timelineKey, touchedMeanwhile!)!.notes).toBe('someone else')
    expect(store.activity(timelineKey, added.id)).toBeUndefined()
    expect(store.activities(timelineKey)).toHaveLength(approvedCount)
    const journal = await readFile(path.join(world.stateDir, 'team', 'journal', `${done.runId}.jsonl`), 'utf8')
    expect(journal.match(/"type":"done"/g)).toHaveLength(3)

    const log = (await world.spreadsheet().read(['Sync log'])).tabs['Sync log']!
    expect(log.rows.some((r) => r.some((c) => String(c).includes(`restore-approved of ${user.username}'s 2026-W45: put back 1`)))).toBe(
      true,
    )

    // Run again: nothing is created twice, and the refusal stands.
    const again = await restore()
    expect(again.counts).toMatchObject({ restored: 0, recreated: 0, deleted: 0, conflicts: 1 })
    expect(store.activities(timelineKey)).toHaveLength(approvedCount)

    await sync()
    await sync()
    ;({ activities, approvals } = await tabs())
    const approval = approvals.rows.find((r) => cell(approvals, r, 'Period') === '2026-W45')
    expect(cell(approvals, approval, 'Changed since')).toMatch(/^1 activity changed since approval/)
    const record = JSON.parse(await readFile(recordFile, 'utf8')).approvals[0]
    expect(record.changes.map((c: { key: string }) => c.key)).toEqual([`${timelineKey}/${touchedMeanwhile!}`])
  })
  it("sends nothing past the target's wall", async () => {
    const { store } = world.server
    const timelineKey = world.server.credentials.users[0]!.tagsTimelineKey!
    const { activities } = await tabs()
    const row = activities.rows.find(
      (r) => (cell(activities, r, 'Date') as number) < localDateToSerial('2026-11-09') && cell(activities, r, 'Tags') !== 'Retagged',
    )!
    const id = Number(String(cell(activities, row, 'Key')).split('/')[1])
    const a = store.activity(timelineKey, id)!
    store.updateActivity(timelineKey, id, { tags: ['Moved', 'Elsewhere'], notes: a.notes, start: a.start, duration: a.duration })
    await sync()
    const narrowed = { ...world.target, users: ['someone-else'] }
    // As the import's: a write past the wall is refused before it is sent, and the run is partial.
    const walled = await runRestoreApproved(
      narrowed,
      { user: world.server.credentials.users[0]!.username, period: '2026-W45' },
      { client: world.client, spreadsheet: world.spreadsheet(), stateDir: world.stateDir, reporter: silentReporter, now },
    )
    expect(walled).toMatchObject({ result: 'partial', counts: { restored: 0, failed: 2 } })
    for (const f of walled.failures)
      expect(f.reason).toMatch(/^Target team may not change an activity .* it covers someone-else only\. Nothing was sent\./)
    expect(store.tagsOf(timelineKey, store.activity(timelineKey, id)!)).toEqual(['Moved', 'Elsewhere'])
  })
})
