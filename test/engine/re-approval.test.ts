/**
 * Re-approving a week the server changed after approval (untick, sync, tick, sync): the new state becomes the
 * record, and the rows that said "changed on the server after approval" stop saying it in that same sync.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localDateToSerial } from '../../src/core/serial.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import type { EngineFixture } from './fixture.ts'
import { approvalsStory, cell, startApprovalsWorld } from './approvals-world.ts'

let world: EngineFixture

beforeAll(async () => {
  world = await startApprovalsWorld(1)
})

afterAll(async () => {
  await world?.server.close()
})

const { sync, tabs } = approvalsStory(() => world)

describe('re-approving a week the server changed', () => {
  it('clears the rows’ "changed on the server after approval" in the sync that takes the new approval', async () => {
    const timelineKey = world.server.credentials.users[0]!.tagsTimelineKey!
    await sync()
    await sync()
    let { activities, approvals } = await tabs()
    const approvalRow = approvals.rows.findIndex((r) => cell(approvals, r, 'Period') === '2026-W45') + 2
    const approved = approvals.header.indexOf('Approved')
    const manager = managerEditing(world.file)
    await manager.editCell('Approvals', approvalRow, approved, true)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved by'), 'Mia Manager')
    await sync()

    const row = activities.rows.find((r) => (cell(activities, r, 'Date') as number) < localDateToSerial('2026-11-09'))!
    const key = String(cell(activities, row, 'Key'))
    const id = Number(key.split('/')[1])
    const a = world.server.store.activity(timelineKey, id)!
    world.server.store.updateActivity(timelineKey, id, {
      tags: ['Retagged', 'Later'],
      notes: a.notes,
      start: a.start,
      duration: a.duration,
    })
    await sync()
    const statusOf = async () => {
      ;({ activities, approvals } = await tabs())
      return String(
        cell(
          activities,
          activities.rows.find((r) => cell(activities, r, 'Key') === key),
          'Status',
        ),
      )
    }
    expect(await statusOf()).toMatch(/^Conflict \(2026-11-12\): Changed on the server after approval: Tags/)

    await manager.editCell('Approvals', approvalRow, approved, false)
    await sync()
    await manager.editCell('Approvals', approvalRow, approved, true)
    await sync()
    const status = await statusOf()
    expect(String(cell(approvals, approvals.rows[approvalRow - 2], 'Status'))).toMatch(/^Done \(2026-11-12\): Approved by Mia Manager/)
    expect(status).toMatch(/^Done \(2026-11-12\): Re-approved by Mia Manager: the server's version is on record\.$/)
  })
})
