import { describe, expect, it } from 'vitest'
import type { Activity } from '../../src/core/activity.ts'
import { recordedOf, serverChangesSince } from '../../src/core/approvals-changes.ts'
import type { Approval, ApprovalChange } from '../../src/core/approvals.ts'
import type { ServerActivity } from '../../src/core/row-context.ts'
import { planRestore } from '../../src/core/restore-plan.ts'

const zone = 'Europe/Berlin'
const user = 'ann'
const tl = 'tl-ann'

function activity(entityId: number, over: Partial<Activity> = {}): Activity {
  return {
    timelineKey: tl,
    entityId,
    tags: ['Project', 'Design', ':billable'],
    notes: 'spec',
    start: '2026-11-03T09:00:00+01:00',
    duration: 3600,
    isActive: undefined,
    ...over,
  }
}

function approvalOf(activities: Activity[], changes: ApprovalChange[]): Approval {
  return {
    user,
    period: { id: '2026-W45', from: '2026-11-02', to: '2026-11-08' },
    approvedBy: 'Mia',
    approvedAt: '2026-11-10T10:00:00.000Z',
    runId: 'r1',
    seconds: activities.reduce((s, a) => s + a.duration, 0),
    activities: activities.map((a) => recordedOf(a, user, zone)),
    changes,
  }
}

function server(...activities: Activity[]): Map<string, ServerActivity> {
  return new Map(activities.map((a) => [`${tl}/${a.entityId}`, { activity: a, user }]))
}

describe('planning the restore of an approved period', () => {
  it('puts back the approved values the record saw changed, keeping what still reads as approved', () => {
    const approved = activity(1, { notes: 'x'.repeat(40) })
    const { items: plan } = planRestore({
      approval: approvalOf([approved], [{ key: `${tl}/1`, what: 'Duration, Tags', seconds: 1800 }]),
      timelineKey: tl,
      server: server({ ...approved, tags: ['Retagged', ':billable'], duration: 5400 }),
      timeZone: zone,
    })
    expect(plan).toMatchObject([
      {
        kind: 'restore',
        entityId: 1,
        input: { tags: ['Project', 'Design', ':billable'], duration: 3600, start: approved.start, notes: approved.notes },
      },
    ])
  })

  it('creates again an approved activity deleted on the server, and deletes one added since approval', () => {
    const kept = activity(1)
    const gone = activity(2, { start: '2026-11-04T13:30:00+01:00', duration: 1200, notes: undefined })
    const added = activity(3, { start: '2026-11-05T08:00:00+01:00' })
    const { items: plan } = planRestore({
      approval: approvalOf(
        [kept, gone],
        [
          { key: `${tl}/2`, what: 'deleted', seconds: -1200 },
          { key: `${tl}/3`, what: 'added', seconds: 3600 },
        ],
      ),
      timelineKey: tl,
      server: server(kept, added),
      timeZone: zone,
    })
    expect(plan).toMatchObject([
      { kind: 'recreate', key: `${tl}/2`, input: { tags: gone.tags, start: gone.start, duration: 1200, notes: undefined } },
      { kind: 'delete', key: `${tl}/3`, entityId: 3 },
    ])
  })

  it('refuses an activity changed in a way the approval row never showed', () => {
    const approved = activity(1)
    const { items: plan } = planRestore({
      approval: approvalOf([approved, activity(2, { start: '2026-11-04T09:00:00+01:00' })], [{ key: `${tl}/1`, what: 'Tags', seconds: 0 }]),
      timelineKey: tl,
      server: server(
        { ...approved, tags: ['Retagged', ':billable'], notes: 'edited again' },
        { ...activity(2, { start: '2026-11-04T09:00:00+01:00' }), duration: 60 },
      ),
      timeZone: zone,
    })
    expect(plan.map((i) => [i.kind, i.key])).toEqual([
      ['conflict', `${tl}/1`],
      ['conflict', `${tl}/2`],
    ])
    expect(plan[0]!.reason).toMatch(/since the last sync saw it \(now: Tags, Notes; the approval row showed Tags\)/)
  })

  it('plans nothing for a period the server holds as approved', () => {
    const approved = activity(1)
    expect(
      planRestore({
        approval: approvalOf([approved], [{ key: `${tl}/1`, what: 'Tags', seconds: 0 }]),
        timelineKey: tl,
        server: server(approved),
        timeZone: zone,
      }),
    ).toEqual({ items: [], twins: [] })
  })

  it("takes an added activity holding a deleted approved one's values for it, so a killed restore is not created twice", () => {
    const gone = activity(2)
    const plan = planRestore({
      approval: approvalOf([gone], [{ key: `${tl}/2`, what: 'deleted', seconds: -3600 }]),
      timelineKey: tl,
      server: server({ ...gone, entityId: 9 }),
      timeZone: zone,
    })
    expect(plan).toEqual({ items: [], twins: [{ approvedKey: `${tl}/2`, key: `${tl}/9` }] })
  })
  it('refuses to write notes the record holds only the beginning of', () => {
    const long = activity(2, { notes: 'n'.repeat(60_000) })
    const { items } = planRestore({
      approval: approvalOf([long], [{ key: `${tl}/2`, what: 'deleted', seconds: -3600 }]),
      timelineKey: tl,
      server: server(),
      timeZone: zone,
    })
    expect(items).toMatchObject([{ kind: 'conflict', key: `${tl}/2` }])
    expect(items[0]!.reason).toMatch(/only the beginning of its long notes/)
  })
})

describe('the server’s changes to an approved period, as the export sees them', () => {
  it('drops an added activity’s change once the server deletes it again, and keeps an approved one’s deletion', () => {
    const kept = activity(1)
    const gone = activity(2, { start: '2026-11-04T13:30:00+01:00', duration: 1200 })
    const approval = approvalOf(
      [kept, gone],
      [
        { key: `${tl}/3`, what: 'added', seconds: 3600 },
        { key: `${tl}/4`, what: 'added', seconds: 600 },
      ],
    )
    const timeline = { timelineKey: tl, ownerUsername: user } as never
    const seen = serverChangesSince(
      new Map([[`${user} 2026-W45`, approval]]),
      [{ mode: 'incremental', timeline, activities: [], deletedIds: [2, 3] } as never],
      zone,
    )
    expect(seen.changed[0]?.changes).toEqual([
      { key: `${tl}/2`, what: 'deleted', seconds: -1200 },
      { key: `${tl}/4`, what: 'added', seconds: 600 },
    ])
  })
})
