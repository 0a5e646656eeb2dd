import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ActivityInput } from '../../src/core/activity.ts'
import { activityChanges, describeChanges, linesPerPerson, sheetFields, whenOf, withChanges } from '../../src/core/changes.ts'

const base: ActivityInput = { tags: ['Acme', 'Website', ':billable'], notes: 'a', start: '2026-11-05T09:00:00+01:00', duration: 3600 }
const ZONE = 'Europe/Berlin'

describe('plans and Statuses say what changes', () => {
  it('names each changed column with its old and new value, in local time', () => {
    expect(describeChanges(activityChanges(base, { ...base, notes: 'b' }, ZONE))).toBe('Notes: "a" → "b"')
    expect(describeChanges(activityChanges(base, { ...base, start: '2026-11-05T09:30:00+01:00' }, ZONE))).toBe(
      'Start: 09:00 → 09:30; End: 10:00 → 10:30',
    )
    expect(describeChanges(activityChanges(base, { ...base, duration: 5400 }, ZONE))).toBe('End: 10:00 → 10:30')
    // The same instant written with another offset is no change.
    expect(activityChanges(base, { ...base, start: '2026-11-05T08:00:00Z' }, ZONE)).toEqual([])
    expect(describeChanges(activityChanges(base, { ...base, tags: ['Acme', 'Support'] }, ZONE))).toBe(
      'Tags: Acme, Website → Acme, Support; Labels: :billable → (empty)',
    )
    expect(describeChanges(activityChanges(base, { ...base, notes: undefined }, ZONE))).toBe('Notes: "a" → ""')
    expect(describeChanges(activityChanges(base, { ...base, start: '2026-11-06T09:00:00+01:00' }, ZONE))).toBe(
      'Date: 2026-11-05 → 2026-11-06',
    )
  })

  it('says an End on a later day with its day offset', () => {
    expect(describeChanges(activityChanges(base, { ...base, duration: 3600 + 2 * 86_400 }, ZONE))).toBe('End: 10:00 → +2d 10:00')
    expect(sheetFields({ ...base, start: '2026-11-05T23:00:00+01:00', duration: 7200 }, ZONE).End).toBe('01:00')
  })

  it('keeps notes to one short line', () => {
    const long = 'x'.repeat(100)
    expect(describeChanges(activityChanges(base, { ...base, notes: `line one\nline two ${long}` }, ZONE))).toBe(
      `Notes: "a" → "line one / line two ${'x'.repeat(39)}…"`,
    )
  })

  it('appends the changes to a reason, and leaves the reason alone without any', () => {
    const changes = activityChanges(base, { ...base, notes: 'b' }, ZONE)
    expect(withChanges('Saved to the server.', changes)).toBe('Saved to the server: Notes: "a" → "b".')
    expect(withChanges('Saved to the server.', [])).toBe('Saved to the server.')
    expect(describeChanges([])).toBe('no change')
    expect(whenOf(base, 'UTC')).toBe('2026-11-05 08:00')
  })

  it('shows the first lines per person and counts the rest', () => {
    const items = [...Array.from({ length: 300 }, (_, i) => ({ person: 'anna', line: `delete ${i}` })), { person: 'ben', line: 'update 1' }]
    expect(linesPerPerson(items, 3)).toEqual([
      '  anna:',
      '    delete 0',
      '    delete 1',
      '    delete 2',
      '    … and 297 more',
      '  ben:',
      '    update 1',
    ])
  })

  it('lists exactly the columns that differ (property)', () => {
    const input = fc.record({
      tags: fc.subarray(['Acme', 'Globex', 'Website', ':billable', ':travel']),
      notes: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
      start: fc
        .integer({ min: 0, max: 400 * 86_400 })
        .map((s) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString().replace(/\.\d+Z$/, '+00:00')),
      duration: fc.integer({ min: 0, max: 3 * 86_400 }),
    })
    fc.assert(
      fc.property(input, input, fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kathmandu'), (a, b, zone) => {
        expect(activityChanges(a, a, zone)).toEqual([])
        const changes = activityChanges(a, b, zone)
        const fa = sheetFields(a, zone)
        const fb = sheetFields(b, zone)
        for (const c of changes) expect([c.from, c.to]).toEqual([fa[c.field], fb[c.field]])
        for (const field of ['Date', 'Start', 'End', 'Tags', 'Labels', 'Notes'] as const) {
          expect(changes.some((c) => c.field === field)).toBe(fa[field] !== fb[field])
        }
        // Nothing the sheet shows differs, or a change is named.
        const same = Object.keys(fa).every((k) => fa[k as keyof typeof fa] === fb[k as keyof typeof fb])
        expect(changes.length === 0).toBe(same)
      }),
      { numRuns: 300 },
    )
  })

  it('keeps every item once: shown or counted (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ person: fc.constantFrom('a', 'b', 'c'), line: fc.string() })),
        fc.integer({ min: 1, max: 5 }),
        (items, n) => {
          const out = linesPerPerson(items, n)
          const shown = out.filter((l) => l.startsWith('    ') && !/^ {4}… and \d+ more$/.test(l)).length
          const counted = out.reduce((sum, l) => sum + Number(/^ {4}… and (\d+) more$/.exec(l)?.[1] ?? 0), 0)
          expect(shown + counted).toBe(items.length)
        },
      ),
    )
  })
})
