/** The window as runs print it, and why an export may have read nothing. */
import { describe, expect, it } from 'vitest'
import { emptyReadExplanation, windowText, windowView } from '../../src/core/window-text.ts'

const window = windowView({
  timeZone: 'America/New_York',
  dayStart: 0,
  fromDate: '2026-10-28',
  days: 7,
  window: { from: '2026-10-28T00:00:00-04:00', to: '2026-11-04T00:00:00-05:00' },
  lookBackDays: 3,
})

describe('the window of a run', () => {
  it('names its first and last local day (across a DST change), its length and the zone', () => {
    expect(window).toEqual({ from: '2026-10-28', to: '2026-11-03', days: 7, timeZone: 'America/New_York', lookBackDays: 3 })
    expect(windowText(window)).toBe('2026-10-28 to 2026-11-03 (7 days, America/New_York)')
    expect(windowText({ ...window, to: '2026-10-28', days: 1 })).toBe('2026-10-28 to 2026-10-28 (1 day, America/New_York)')
  })
})

describe('why an export read no activity', () => {
  const alice = { ownerUsername: 'alice', lastChangeId: '7,a', lastUpdated: '2025-03-02T10:00:00+00:00' }
  const bob = { ownerUsername: 'bob', lastChangeId: undefined, lastUpdated: undefined }
  const full = (...owners: string[]) => owners.map((owner) => ({ owner, mode: 'full' as const }))

  it('says nothing when something was read, or when a read was incremental (nothing new is normal)', () => {
    expect(emptyReadExplanation({ window, visible: [alice], users: [], read: full('alice'), activitiesRead: 3 })).toBeUndefined()
    expect(
      emptyReadExplanation({ window, visible: [alice], users: [], read: [{ owner: 'alice', mode: 'incremental' }], activitiesRead: 0 }),
    ).toBeUndefined()
  })

  it('an account that sees no Tags timeline: the rights', () => {
    expect(emptyReadExplanation({ window, visible: [], users: [], read: [], activitiesRead: 0 })).toMatch(
      /sees no Tags timeline.*administrator or content editor/,
    )
  })

  it('users that own none of the visible timelines: names both', () => {
    const text = emptyReadExplanation({ window, visible: [alice, bob], users: ['carol'], read: [], activitiesRead: 0 })
    expect(text).toContain(`none of the target's users (carol) owns one of the 2 Tags timelines`)
    expect(text).toContain('(alice, bob)')
  })

  it('timelines read in full with nothing in the window: the window, and what the list says of each', () => {
    const text = emptyReadExplanation({ window, visible: [alice, bob], users: [], read: full('alice', 'bob'), activitiesRead: 0 })
    expect(text).toContain('window 2026-10-28 to 2026-11-03 (7 days, America/New_York)')
    expect(text).toContain('bob never had a change')
    expect(text).toContain('last changed: alice 2025-03-02')
    expect(text).toContain('"window.days"')
    expect(text).toContain('"users"')
  })
})
