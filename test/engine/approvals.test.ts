/**
 * A manager approves a person's week in the Approvals tab: the sync takes it only once the week is in step, keeps
 * what it held in a record beside the state, refuses the sheet's edits into it, and lets them through again once
 * the manager unticks Approved.
 */
import { access, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runRestoreApproved } from '../../src/engine/restore-approved.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import { APPROVALS_FILE } from '../../src/state/approvals-store.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import type { EngineFixture } from './fixture.ts'
import { approvalsStory, cell, now, startApprovalsWorld } from './approvals-world.ts'

let world: EngineFixture

beforeAll(async () => {
  world = await startApprovalsWorld(2)
})

afterAll(async () => {
  await world?.server.close()
})

const { sync, tabs } = approvalsStory(() => world)

describe('approving a week', () => {
  it('is offered for every person and week, taken once the week is in step, and closes the week to the sheet', async () => {
    await sync() // Lays the tabs out, and the export fills the Approvals rows in its own write.
    const user = world.server.credentials.users[0]!.username
    let { activities, approvals } = await tabs()
    const weeks = approvals.rows.filter((r) => cell(approvals, r, 'User') === user).map((r) => cell(approvals, r, 'Period'))
    expect(weeks).toEqual(['2026-W44', '2026-W45', '2026-W46'])
    const hours = approvals.rows.find((r) => cell(approvals, r, 'User') === user && cell(approvals, r, 'Period') === '2026-W45')
    expect(cell(approvals, hours, 'Hours')).toBeGreaterThan(0)
    await sync() // From now on the import reads the tab and keeps it.
    const approvalRow =
      approvals.rows.findIndex((r) => cell(approvals, r, 'User') === user && cell(approvals, r, 'Period') === '2026-W45') + 2
    const manager = managerEditing(world.file)

    // An edit in the week and the tick in the same run: the edit is sent, the approval waits for the next run.
    const inWeek =
      activities.rows.findIndex(
        (r) =>
          String(cell(activities, r, 'Key')).startsWith(world.server.credentials.users[0]!.tagsTimelineKey!) &&
          (cell(activities, r, 'Date') as number) < localDateToSerial('2026-11-09'),
      ) + 2
    expect(inWeek).toBeGreaterThan(1)
    await manager.editCell('Activities', inWeek, activities.header.indexOf('Notes'), 'checked before approval')
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved'), true)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved by'), 'Mia Manager')
    let summary = await sync()
    expect(summary.imported.counts.updated).toBe(1)
    ;({ approvals } = await tabs())
    expect(String(cell(approvals, approvals.rows[approvalRow - 2], 'Status'))).toMatch(
      /^Waiting \(2026-11-12\): Not approved yet: the period holds 1 row with edits/,
    )

    // In step now: approved, and on record.
    await sync()
    ;({ activities, approvals } = await tabs())
    expect(String(cell(approvals, approvals.rows[approvalRow - 2], 'Status'))).toMatch(/^Done \(2026-11-12\): Approved by Mia Manager/)
    expect(cell(approvals, approvals.rows[approvalRow - 2], 'Hours at approval')).toBeGreaterThan(0)
    const record = JSON.parse(await readFile(path.join(world.stateDir, 'team', APPROVALS_FILE), 'utf8'))
    expect(record.approvals[0]).toMatchObject({ user, approvedBy: 'Mia Manager', period: { id: '2026-W45' } })
    expect(record.approvals[0].activities.some((a: { notes: string }) => a.notes === 'checked before approval')).toBe(true)

    // An edit into the approved week is not sent; its Status says why and how to reopen; the run is partial (exit 3).
    const key = String(cell(activities, activities.rows[inWeek - 2], 'Key'))
    const row = activities.rows.findIndex((r) => cell(activities, r, 'Key') === key) + 2
    await manager.editCell('Activities', row, activities.header.indexOf('Notes'), 'changed after approval')
    summary = await sync()
    expect(summary.imported.result).toBe('partial')
    expect(summary.imported.counts.updated).toBe(0)
    const [timelineKey, id] = key.split('/')
    expect(world.server.store.activity(timelineKey!, Number(id))!.notes).toBe('checked before approval')
    ;({ activities } = await tabs())
    const refused = activities.rows.find((r) => cell(activities, r, 'Key') === key)
    expect(String(cell(activities, refused, 'Status'))).toMatch(
      /^Error \(2026-11-12\): Not sent: .*2026-W45 was approved by Mia Manager.*untick Approved/,
    )

    // Unticked: the week is open again, and the edit goes through.
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved'), false)
    summary = await sync()
    expect(summary.imported.counts.updated).toBe(1)
    expect(world.server.store.activity(timelineKey!, Number(id))!.notes).toBe('changed after approval')
    const reopened = JSON.parse(await readFile(path.join(world.stateDir, 'team', APPROVALS_FILE), 'utf8'))
    expect(reopened.approvals).toEqual([])
    expect(reopened.history.map((e: { event: string }) => e.event)).toEqual(['approved', 'reopened'])
    await access(path.join(world.stateDir, 'team', 'state.json'))
  })
})

describe('a change on the server after approval', () => {
  it('shows on the row and on the approval row, and stays in the record', async () => {
    const user = world.server.credentials.users[1]!
    let { activities, approvals } = await tabs()
    const approvalRow =
      approvals.rows.findIndex((r) => cell(approvals, r, 'User') === user.username && cell(approvals, r, 'Period') === '2026-W45') + 2
    const manager = managerEditing(world.file)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved'), true)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved by'), 'Mia Manager')
    await sync()
    ;({ activities } = await tabs())
    const row = activities.rows.find(
      (r) =>
        String(cell(activities, r, 'Key')).startsWith(`${user.tagsTimelineKey!}/`) &&
        (cell(activities, r, 'Date') as number) < localDateToSerial('2026-11-09'),
    )!
    const id = Number(String(cell(activities, row, 'Key')).split('/')[1])
    const a = world.server.store.activity(user.tagsTimelineKey!, id)!
    world.server.store.updateActivity(user.tagsTimelineKey!, id, {
      tags: ['Retagged', 'Later'],
      notes: a.notes,
      start: a.start,
      duration: a.duration,
    })

    await sync() // The export sees the retag; the next import says it on the approval row.
    await sync()
    ;({ activities, approvals } = await tabs())
    const retagged = activities.rows.find((r) => cell(activities, r, 'Key') === `${user.tagsTimelineKey!}/${id}`)
    expect(String(cell(activities, retagged, 'Status'))).toMatch(/^Conflict \(2026-11-12\): Changed on the server after approval: Tags/)
    const approval = approvals.rows.find((r) => cell(approvals, r, 'User') === user.username && cell(approvals, r, 'Period') === '2026-W45')
    expect(cell(approvals, approval, 'Changed since')).toMatch(/^1 activity changed since approval, \+0:00 h$/)
    expect(String(cell(approvals, approval, 'Status'))).toMatch(/^Conflict/)
  })
})

describe('restoring an approved period on the server', () => {
  it('puts the approved values back through the journal, and the next sync shows them and clears Changed since', async () => {
    const user = world.server.credentials.users[1]!
    const recordFile = path.join(world.stateDir, 'team', APPROVALS_FILE)
    const before = JSON.parse(await readFile(recordFile, 'utf8'))
    const approval = before.approvals.find(
      (a: { user: string; period: { id: string } }) => a.user === user.username && a.period.id === '2026-W45',
    )
    const [change] = approval.changes as { key: string; what: string }[]
    expect(change!.what).toMatch(/Tags/)
    const approved = approval.activities.find((a: { key: string }) => a.key === change!.key)
    const id = Number(change!.key.split('/')[1])
    const restore = (dryRun: boolean) =>
      runRestoreApproved(
        world.target,
        { user: user.username, period: '2026-W45' },
        { client: world.client, spreadsheet: world.spreadsheet(), stateDir: world.stateDir, reporter: silentReporter, now },
        { dryRun },
      )

    const retagged = world.server.store.activity(user.tagsTimelineKey!, id)!.groupListId
    const planned = await restore(true)
    expect(planned.plan.writes.map((w) => [w.kind, w.key])).toEqual([['restore', change!.key]])
    expect(world.server.store.activity(user.tagsTimelineKey!, id)!.groupListId).toBe(retagged) // A dry run writes nothing.

    const done = await restore(false)
    expect(done).toMatchObject({ applied: true, result: 'success', counts: { restored: 1, conflicts: 0, failed: 0 } })
    expect(world.server.store.activity(user.tagsTimelineKey!, id)!.groupListId).not.toBe(retagged)
    const journal = await readFile(path.join(world.stateDir, 'team', 'journal', `${done.runId}.jsonl`), 'utf8')
    expect(journal).toMatch(/"op":"put"/)
    expect(JSON.parse(await readFile(recordFile, 'utf8')).history.at(-1)).toMatchObject({ event: 'restored', user: user.username })

    await sync() // The export writes the approved values back into the row.
    await sync() // The import says on the approval row that nothing changed since.
    const { activities, approvals } = await tabs()
    const row = activities.rows.find((r) => cell(activities, r, 'Key') === change!.key)
    expect(cell(activities, row, 'Tags')).toBe(approved.tags)
    expect(String(cell(activities, row, 'Status'))).not.toMatch(/Conflict/)
    const approvalRow = approvals.rows.find(
      (r) => cell(approvals, r, 'User') === user.username && cell(approvals, r, 'Period') === '2026-W45',
    )
    expect(cell(approvals, approvalRow, 'Changed since') ?? '').toBe('')
    expect(
      JSON.parse(await readFile(recordFile, 'utf8')).approvals.find((a: { user: string }) => a.user === user.username).changes,
    ).toEqual([])
  })
})
