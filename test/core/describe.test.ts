import { describe, expect, it } from 'vitest'
import { describeActivity, withServerVersion } from '../../src/core/describe.ts'
import type { Activity } from '../../src/timeline/model.ts'

const activity: Activity = {
  timelineKey: 'tl',
  entityId: 7,
  tags: ['Acme', ':billable', 'Website'],
  notes: 'Call with the client\nabout scope',
  start: '2026-11-05T08:00:00+00:00',
  duration: 5400,
  isActive: true,
}

describe('describing an activity for a manager', () => {
  it('uses the sheet zone, hierarchy before labels, and one line of notes', () => {
    expect(describeActivity(activity, 'Europe/Berlin')).toBe(
      '2026-11-05 09:00–10:30, Acme, Website, :billable; notes "Call with the client / about scope"',
    )
  })

  it('appends the server version to a conflict reason only when there is one', () => {
    expect(withServerVersion('Changed on both sides.', activity, 'UTC')).toBe(
      'Changed on both sides. The server now has: 2026-11-05 08:00–09:30, Acme, Website, :billable; notes "Call with the client / about scope".',
    )
    expect(withServerVersion('Deleted on the server.', undefined, 'UTC')).toBe('Deleted on the server.')
  })
})
