import { describe, expect, it } from 'vitest'
import { seedStore, STAFF } from '../../counterparts/timeline/seed.ts'
import { createTimelineStore, type TimelineStore } from '../../counterparts/timeline/store.ts'

function snapshot(store: TimelineStore) {
  return store.timelines().map((t) => ({
    key: t.key,
    owner: t.owner,
    kind: t.kind,
    lastChangeId: store.lastChangeId(t.key),
    activities: store.activities(t.key).map((a) => [a.id, store.tagsOf(t.key, a).join(', '), a.start, a.duration, a.notes]),
  }))
}

function seeded(options: Parameters<typeof seedStore>[1] = {}) {
  const store = createTimelineStore()
  const result = seedStore(store, { users: 4, days: 14, ...options })
  return { store, result }
}

describe('seedStore', () => {
  it('makes the same data for the same options', () => {
    expect(snapshot(seeded().store)).toEqual(snapshot(seeded().store))
    expect(snapshot(seeded({ seed: 1 }).store)).not.toEqual(snapshot(seeded({ seed: 2 }).store))
  })

  it('creates staff with known passwords and roles, and users with a timeline of each kind', () => {
    const { store, result } = seeded()
    expect(result.transfer).toMatchObject({ username: 'transfer@example.com', password: STAFF.transfer.password, role: 'contentEditor' })
    expect(result.admin?.role).toBe('administrator')
    expect(result.reader?.role).toBe('contentReader')
    expect(result.users.map((u) => u.username)).toEqual(['alice@example.com', 'bob@example.com', 'carol@example.com', 'dave@example.com'])
    expect(store.verifyPassword('alice@example.com', 'alice-password')).toBeDefined()
    for (const user of result.users) {
      expect(['Tags', 'ComputerUsage', 'Applications'].map((kind) => store.timelineOf(user.username, kind as 'Tags')?.kind)).toEqual([
        'Tags',
        'ComputerUsage',
        'Applications',
      ])
      expect(user.tagsTimelineKey).toBe(store.timelineOf(user.username)!.key)
    }
    expect(result.activityCount).toBe(store.timelines().reduce((n, t) => n + t.activities.size, 0))
  })

  it('writes a tag tree with labels, spreadsheet-hostile notes, overlaps, midnight and DST cases', () => {
    const { store, result } = seeded({ days: 240 })
    const alice = result.users[0]!
    expect(alice.timeZone).toBe('Europe/Berlin')
    const key = alice.tagsTimelineKey!
    const activities = store.activities(key)
    const names = activities.map((a) => store.tagsOf(key, a))
    expect(names.every((tags) => tags.length >= 3)).toBe(true)
    expect(names.some((tags) => tags.includes(':billable'))).toBe(true)
    const notes = new Set(activities.map((a) => a.notes))
    for (const note of ['=IMPORTDATA(x)', '0042']) expect(notes).toContain(note)
    expect([...notes].some((n) => n?.includes('\n'))).toBe(true)
    const overlaps = activities.filter((a, i) => i > 0 && activities[i - 1]!.startMs + activities[i - 1]!.duration * 1000 > a.startMs)
    expect(overlaps.length).toBeGreaterThan(0)
    expect(activities.some((a) => a.start.includes('T23:15:00'))).toBe(true)
    // Both Berlin clock changes of 2026 get night work across the change.
    expect(activities.find((a) => a.start === '2026-03-29T01:30:00+01:00')?.duration).toBe(7200)
    expect(activities.find((a) => a.start === '2026-10-25T01:30:00+02:00')?.duration).toBe(7200)
    expect(activities.some((a) => a.start.startsWith('2026-07') && a.start.endsWith('+02:00'))).toBe(true)
  })

  it('sets allowed tags for everyone, the first user and a team', () => {
    const { store } = seeded()
    const listing = store.allowedTagsListing()
    expect(listing).toContain('Acme Corp, Website, Design')
    expect(listing).toContain('[alice@example.com]')
    expect(listing).toContain('{Design}')
    expect(store.allowedTagsFor('alice@example.com')).toContain('Secret Client, Due diligence')
    expect(store.allowedTagsFor('bob@example.com')).not.toContain('Secret Client, Due diligence')
  })

  it('can name users DOMAIN\\user style and leave out other timelines, staff and tags', () => {
    const store = createTimelineStore()
    const result = seedStore(store, { users: 1, days: 2, directoryUsers: true, otherTimelines: false, staff: false, allowedTags: false })
    expect(result.users[0]!.username).toBe('EXAMPLE\\alice')
    expect(result.transfer).toBeUndefined()
    expect(store.timelines()).toHaveLength(1)
    expect(store.allowedTags()).toEqual({ everyone: [], groups: [] })
  })

  // How long seeding takes is not asserted: on shared, busy machines time proves nothing
  // (counterparts/timeline/README.md gives the figure).
  it('makes about 100,000 activities from 50 users × 90 days', () => {
    const { result } = seeded({ users: 50, days: 90, startDate: '2026-01-05' })
    expect(result.activityCount).toBeGreaterThan(90_000)
    expect(result.activityCount).toBeLessThan(130_000)
  })

  it.each([
    [{ startDate: '5 Jan' }, /startDate/],
    [{ users: -1 }, /users/],
    [{ days: 1.5 }, /days/],
    [{ timeZones: [] }, /timeZones/],
  ])('refuses bad options %j', (options, message) => {
    expect(() => seedStore(createTimelineStore(), options)).toThrow(message)
  })
})
