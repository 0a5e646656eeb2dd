import { describe, expect, it } from 'vitest'
import { countElementReads } from '../../counterparts/element-reads.ts'
import { createTimelineStore, expandTagLines, splitTags, TimelineStoreError } from '../../counterparts/timeline/store.ts'

function storeWithTimeline(options = {}) {
  const store = createTimelineStore(options)
  store.addUser({ username: 'alice@example.com', password: 'pw', teams: ['Design'] })
  const key = store.createTimeline({ owner: 'alice@example.com' }).key
  return { store, key }
}

function errorOf(run: () => unknown): TimelineStoreError {
  try {
    run()
  } catch (error) {
    if (error instanceof TimelineStoreError) return error
    throw error
  }
  throw new Error('expected a TimelineStoreError')
}

describe('entity model', () => {
  it('reuses one group per tag (case-insensitive, first spelling kept) and one groupList per ordered tag set', () => {
    const { store, key } = storeWithTimeline()
    const a = store.createActivity(key, { tags: 'Acme, Website', start: '2026-03-02T09:00:00+01:00', duration: 60 })
    const b = store.createActivity(key, { tags: 'acme,website', start: '2026-03-02T10:00:00+01:00', duration: 60 })
    const c = store.createActivity(key, { tags: 'Website, Acme', start: '2026-03-02T11:00:00+01:00', duration: 60 })
    const timeline = store.timeline(key)!
    expect(b.groupListId).toBe(a.groupListId)
    expect(c.groupListId).not.toBe(a.groupListId)
    expect(timeline.groups.size).toBe(2)
    expect(timeline.groupLists.size).toBe(2)
    expect(store.tagsOf(key, b)).toEqual(['Acme', 'Website'])
    expect(timeline.groupLists.get(c.groupListId!)!.groupIds).toEqual([...timeline.groupLists.get(a.groupListId!)!.groupIds].reverse())
  })

  it('gives activities, groups and groupLists ids from one increasing per-timeline counter', () => {
    const { store, key } = storeWithTimeline()
    const first = store.createActivity(key, { tags: 'A, B', start: '2026-03-02T09:00:00Z', duration: 1 })
    // A, B → groups 1, 2; groupList 3; activity 4.
    expect(first.id).toBe(4)
    expect(first.groupListId).toBe(3)
    const second = store.createActivity(key, { tags: 'A, C', start: '2026-03-02T09:00:00Z', duration: 1 })
    expect(second.id).toBe(7)
    store.deleteActivity(key, second.id)
    const third = store.createActivity(key, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 })
    expect(third.id).toBeGreaterThan(second.id)
    const other = store.createTimeline({ owner: 'alice@example.com' }).key
    expect(store.createActivity(other, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 }).id).toBe(3)
  })

  it('points an activity at another groupList when its tags change, keeping the old one', () => {
    const { store, key } = storeWithTimeline()
    const created = store.createActivity(key, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 })
    const before = created.groupListId
    const updated = store.updateActivity(key, created.id, { tags: 'A, B', start: '2026-03-02T09:00:00Z', duration: 1 })
    expect(updated.groupListId).not.toBe(before)
    expect(store.timeline(key)!.groupLists.has(before!)).toBe(true)
  })

  it('keys group-based timelines by groupId instead of groupListId', () => {
    const store = createTimelineStore()
    store.addUser({ username: 'alice@example.com', password: 'pw' })
    const key = store.createTimeline({ owner: 'alice@example.com', kind: 'ComputerUsage' }).key
    const activity = store.createActivity(key, { tags: 'Active', start: '2026-03-02T09:00:00Z', duration: 1 })
    expect(activity.groupId).toBeDefined()
    expect(activity.groupListId).toBeUndefined()
    expect(store.baseSchemaName(store.timeline(key)!)).toBe('ManicTime/Generic/Group')
  })
})

describe('change ids', () => {
  it('has no lastChangeId before the first change, then "<seq>,<rand>" with seq + 1 per change', () => {
    const { store, key } = storeWithTimeline()
    expect(store.lastChangeId(key)).toBeUndefined()
    expect(store.timestamp(key)).toMatch(/^0,\d+$/)
    const a = store.createActivity(key, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 })
    const first = store.lastChangeId(key)!
    store.updateActivity(key, a.id, { tags: 'B', start: '2026-03-02T09:00:00Z', duration: 2 })
    const second = store.lastChangeId(key)!
    store.deleteActivity(key, a.id)
    const third = store.lastChangeId(key)!
    expect([first, second, third].map((id) => Number(id.split(',')[0]))).toEqual([1, 2, 3])
    expect(new Set([first, second, third].map((id) => id.split(',')[1])).size).toBe(3)
    expect(store.timestamp(key)).toBe(third)
    expect(store.changes(key).map((c) => c.kind)).toEqual(['created', 'updated', 'deleted'])
  })

  it('repeats the same ids for the same seed', () => {
    const ids = [1, 2].map(() => {
      const { store, key } = storeWithTimeline({ seed: 99 })
      store.createActivity(key, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 })
      return [key, store.lastChangeId(key)]
    })
    expect(ids[0]).toEqual(ids[1])
  })

  it('refuses a stale expectedLastChangeId and changes nothing', () => {
    const { store, key } = storeWithTimeline()
    const a = store.createActivity(key, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 })
    const current = store.lastChangeId(key)!
    const error = errorOf(() =>
      store.updateActivity(key, a.id, { tags: 'B', start: '2026-03-02T09:00:00Z', duration: 1 }, { expectedLastChangeId: '0,1' }),
    )
    expect(error.status).toBe(409)
    expect(error.errorCode).toBe('Concurrency/InvalidTimestamp')
    expect(error.message).toBe(`Invalid last change. Should be '${current}', but is '0,1'.`)
    expect(store.lastChangeId(key)).toBe(current)
    expect(store.tagsOf(key, store.activity(key, a.id)!)).toEqual(['A'])
  })

  it('refuses an expectedLastChangeId on a timeline without changes', () => {
    const { store, key } = storeWithTimeline()
    const error = errorOf(() =>
      store.createActivity(key, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 }, { expectedLastChangeId: '1,2' }),
    )
    expect(error.message).toBe('Invalid last change. Should be null.')
    expect(store.activities(key)).toEqual([])
  })
})

describe('validation', () => {
  const cases: Array<[string, { tags: string; start: string; duration: number }, RegExp]> = [
    ['no tags', { tags: '', start: '2026-03-02T09:00:00Z', duration: 1 }, /at least one tag/],
    ['an empty tag', { tags: 'A,,B', start: '2026-03-02T09:00:00Z', duration: 1 }, /Tag 2 of name is empty/],
    ['11 tags', { tags: 'a,b,c,d,e,f,g,h,i,j,k', start: '2026-03-02T09:00:00Z', duration: 1 }, /11 tags; at most 10/],
    ['a 201-character tag', { tags: 'x'.repeat(201), start: '2026-03-02T09:00:00Z', duration: 1 }, /cannot exceed 200/],
    ['a start without offset', { tags: 'A', start: '2026-03-02T09:00:00', duration: 1 }, /with an offset/],
    ['an impossible date', { tags: 'A', start: '2026-02-30T09:00:00Z', duration: 1 }, /with an offset/],
    ['a negative duration', { tags: 'A', start: '2026-03-02T09:00:00Z', duration: -1 }, />= 0/],
    ['a fractional duration', { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1.5 }, /integer/],
  ]
  it.each(cases)('refuses %s with 400 Validation and stores nothing', (_name, write, message) => {
    const { store, key } = storeWithTimeline()
    const error = errorOf(() => store.createActivity(key, write))
    expect([error.status, error.errorCode]).toEqual([400, 'Validation'])
    expect(error.message).toMatch(message)
    expect(store.activities(key)).toEqual([])
    expect(store.lastChangeId(key)).toBeUndefined()
  })

  it('accepts 10 tags of 200 characters, zero duration, and keeps the offset the client sent', () => {
    const { store, key } = storeWithTimeline()
    const tags = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(200, 'x'))
    const activity = store.createActivity(key, { tags, start: '2026-03-29T01:30+01:00', duration: 0 })
    expect(activity.start).toBe('2026-03-29T01:30:00+01:00')
    expect(store.createActivity(key, { tags: 'A', start: '2026-03-29T01:30:00Z', duration: 0 }).start).toBe('2026-03-29T01:30:00+00:00')
  })

  it('answers 404 for an unknown timeline or activity', () => {
    const { store, key } = storeWithTimeline()
    expect(errorOf(() => store.deleteActivity(key, 999)).status).toBe(404)
    expect(errorOf(() => store.activities('nope')).errorCode).toBe('NotFound')
  })
})

describe('overlap reads', () => {
  it('returns activities overlapping [from, to), including long ones that started earlier', () => {
    const { store, key } = storeWithTimeline()
    const at = (iso: string) => Date.parse(iso)
    const long = store.createActivity(key, { tags: 'Long', start: '2026-03-01T20:00:00Z', duration: 8 * 3600 })
    const endsAtFrom = store.createActivity(key, { tags: 'Before', start: '2026-03-02T08:00:00Z', duration: 3600 })
    const inside = store.createActivity(key, { tags: 'Inside', start: '2026-03-02T09:30:00Z', duration: 60 })
    const zeroAtFrom = store.createActivity(key, { tags: 'Zero', start: '2026-03-02T09:00:00Z', duration: 0 })
    const startsAtTo = store.createActivity(key, { tags: 'After', start: '2026-03-02T10:00:00Z', duration: 60 })
    const ids = store.overlapping(key, at('2026-03-02T03:00:00Z'), at('2026-03-02T10:00:00Z')).map((a) => a.id)
    expect(ids).toContain(long.id)
    expect(store.overlapping(key, at('2026-03-02T09:00:00Z'), at('2026-03-02T10:00:00Z')).map((a) => a.id)).toEqual([
      zeroAtFrom.id,
      inside.id,
    ])
    expect(ids).not.toContain(startsAtTo.id)
    expect(store.overlapping(key, at('2026-03-02T09:00:00Z'), at('2026-03-02T09:00:00Z'))).toEqual([])
    expect(endsAtFrom.id).toBeGreaterThan(0)
  })

  it('finds a week in 100,000 activities by reading that week and a binary search, not the whole timeline', () => {
    const { store, key } = storeWithTimeline()
    const start = Date.parse('2026-01-01T00:00:00Z')
    for (let i = 0; i < 100_000; i++) {
      const iso = new Date(start + i * 600_000).toISOString().replace('.000Z', 'Z')
      store.createActivity(key, { tags: `T${i % 50}`, start: iso, duration: 300 })
    }
    // The first read orders the activities by start; the work of the reads after it is counted, not timed.
    expect(store.overlapping(key, start, start + 7 * 86_400_000)).toHaveLength(7 * 144)
    const timeline = store.timeline(key)!
    const index = countElementReads(timeline.sorted)
    timeline.sorted = index.array
    for (let i = 0; i < 100; i++) {
      const week = store.overlapping(key, start + i * 86_400_000, start + (i + 7) * 86_400_000)
      expect(week).toHaveLength(7 * 144)
      expect(week[0]!.startMs).toBe(start + i * 86_400_000)
    }
    // The reads reuse the order the first one built instead of sorting again.
    expect(timeline.sorted).toBe(index.array)
    // Each read takes its week's 1,008 activities and a few dozen more at most (the first one after the week, the 17
    // steps of a binary search over 100,000); a scan from the first activity reads up to 100,000 for each.
    expect(index.reads()).toBeLessThanOrEqual(100 * (7 * 144 + 50))
  })
})

describe('allowed tag lines', () => {
  it('expands prefix lines the way the v2 guide shows', () => {
    expect(expandTagLines(['project,', ',task1', ',task2'])).toEqual({
      ok: true,
      combinations: ['project, task1', 'project, task2'],
    })
  })

  it('expands several levels and keeps ",." lines as written after their prefix', () => {
    expect(
      expandTagLines(['Client,', ',Design,', ',,Task1', ',,Task2', ',Build', ',Review,.', 'Internal,Admin', 'Other, Thing,.']),
    ).toEqual({
      ok: true,
      combinations: [
        'Client, Design, Task1',
        'Client, Design, Task2',
        'Client, Build',
        'Client, Review,.',
        'Internal, Admin',
        'Other, Thing,.',
      ],
    })
  })

  it('refuses a comma line with no prefix of its depth, and an empty tag', () => {
    expect(expandTagLines([',task'])).toMatchObject({ ok: false, problem: expect.stringMatching(/line 1/) })
    expect(expandTagLines(['A,', ',,deep'])).toMatchObject({ ok: false, problem: expect.stringMatching(/2 comma/) })
    expect(expandTagLines(['A, ,B'])).toMatchObject({ ok: false, problem: expect.stringMatching(/empty tag/) })
  })

  it('gives each user everyone’s list plus the groups naming them or their teams', () => {
    const { store } = storeWithTimeline()
    store.addUser({ username: 'EXAMPLE\\bob', password: 'pw', teams: ['Support'] })
    store.setAllowedTags({
      everyone: ['A, B'],
      groups: [
        { appliesTo: ['alice@example.com'], combinations: ['Only, Alice'] },
        { appliesTo: ['{design}'], combinations: ['Design, Team', 'A, B'] },
        { appliesTo: ['[example\\BOB]'], combinations: ['Only, Bob'] },
      ],
    })
    expect(store.allowedTagsFor('alice@example.com')).toEqual(['A, B', 'Only, Alice', 'Design, Team'])
    expect(store.allowedTagsFor('EXAMPLE\\bob')).toEqual(['A, B', 'Only, Bob'])
    expect(store.allowedTagsListing()).toEqual([
      'A, B',
      '',
      '[alice@example.com]',
      'Only, Alice',
      '',
      '{design}',
      'Design, Team',
      'A, B',
      '',
      '[example\\BOB]',
      'Only, Bob',
    ])
  })
})

describe('tokens', () => {
  it('revokes tokens on revokeTokens and on resetPassword', () => {
    const { store } = storeWithTimeline()
    const one = store.issueToken('alice@example.com')
    expect(one).toMatch(/^[0-9a-f]{32}$/)
    expect(store.userForToken(one)?.username).toBe('alice@example.com')
    expect(store.revokeTokens('ALICE@example.com')).toBe(1)
    expect(store.userForToken(one)).toBeUndefined()
    const two = store.issueToken('alice@example.com')
    store.resetPassword('alice@example.com', 'new')
    expect(store.userForToken(two)).toBeUndefined()
    expect(store.verifyPassword('alice@example.com', 'pw')).toBeUndefined()
    expect(store.verifyPassword('alice@example.com', 'new')?.username).toBe('alice@example.com')
  })

  it('splits names on commas and trims', () => {
    expect(splitTags(' A ,B,  :billable ')).toEqual(['A', 'B', ':billable'])
  })
})

describe('setup errors', () => {
  it('refuses a duplicate user, a duplicate timeline key and an unknown owner', () => {
    const { store, key } = storeWithTimeline()
    expect(() => store.addUser({ username: 'ALICE@example.com', password: 'x' })).toThrow(/exists already/)
    expect(() => store.createTimeline({ owner: 'alice@example.com', key: key.toUpperCase() })).toThrow(/exists already/)
    expect(() => store.createTimeline({ owner: 'nobody@example.com' })).toThrow(/No user/)
    expect(() => store.issueToken('nobody@example.com')).toThrow(/No user/)
    expect(() => store.resetPassword('nobody@example.com', 'x')).toThrow(/No user/)
  })
})
