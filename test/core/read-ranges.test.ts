/** Halving and joining read ranges (src/core/read-ranges.ts). */
import { describe, expect, it } from 'vitest'
import { halveWindow, mergeRanges, planRangeReads, readRanges, within } from '../../src/core/read-ranges.ts'
import { chunkWindows, windowForDays } from '../../src/core/windows.ts'

describe('read ranges', () => {
  it('halves a window at its middle instant, in the offset of its start', () => {
    expect(halveWindow({ from: '2026-03-01T00:00:00+01:00', to: '2026-03-03T00:00:00+01:00' })).toEqual([
      { from: '2026-03-01T00:00:00+01:00', to: '2026-03-02T00:00:00+01:00' },
      { from: '2026-03-02T00:00:00+01:00', to: '2026-03-03T00:00:00+01:00' },
    ])
    // Across the spring-forward night the window is 47 hours long; the middle keeps the start's offset.
    expect(halveWindow({ from: '2026-03-29T00:00:00+01:00', to: '2026-03-31T00:00:00+02:00' })?.[0]?.to).toBe('2026-03-29T23:30:00+01:00')
  })

  it('does not halve a day or less', () => {
    expect(halveWindow({ from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' })).toBeUndefined()
    expect(halveWindow({ from: '2026-03-01T00:00:00Z', to: '2026-03-01T06:00:00Z' })).toBeUndefined()
  })

  it('reads the whole window first, and after a refusal the earlier half first', () => {
    const window = windowForDays('UTC', '2026-01-01', 8)
    const plan = planRangeReads(window)
    expect(plan.next()).toEqual(window)
    expect(plan.refused()).toBe(true)
    expect(plan.next()).toEqual(windowForDays('UTC', '2026-01-01', 4))
    plan.answered()
    expect(plan.next()).toEqual(windowForDays('UTC', '2026-01-05', 4))
    plan.answered()
    expect(plan.next()).toBeUndefined()
    expect(plan.answeredRanges).toEqual([windowForDays('UTC', '2026-01-01', 4), windowForDays('UTC', '2026-01-05', 4)])
  })

  it('joins touching and overlapping ranges, sorted, and keeps apart ones apart', () => {
    const weeks = chunkWindows('Europe/Berlin', '2026-03-02', 35, 7)
    expect(mergeRanges([weeks[3]!, weeks[0]!, weeks[1]!])).toEqual([{ from: weeks[0]!.from, to: weeks[1]!.to }, weeks[3]])
    expect(mergeRanges(weeks)).toEqual([windowForDays('Europe/Berlin', '2026-03-02', 35)])
    const a = { from: '2026-03-01T00:00:00Z', to: '2026-03-05T00:00:00Z' }
    const inside = { from: '2026-03-02T00:00:00+01:00', to: '2026-03-03T00:00:00+01:00' }
    expect(mergeRanges([inside, a])).toEqual([a])
    expect(mergeRanges([])).toEqual([])
  })

  it('places a day in the window of that local day, in zones from UTC−12 to UTC+14', () => {
    for (const zone of [
      'Etc/GMT+12',
      'Pacific/Pago_Pago',
      'UTC',
      'Pacific/Auckland',
      'Pacific/Fiji',
      'Pacific/Tongatapu',
      'Pacific/Kiritimati',
    ]) {
      const day = windowForDays(zone, '2026-01-05', 1)
      expect(
        ['2026-01-03', '2026-01-04', '2026-01-05', '2026-01-06'].filter((d) => within(d, day, zone)),
        zone,
      ).toEqual(['2026-01-05'])
    }
  })

  it('reads, for an edit on the last day of a week, that week only, also east of UTC+12', () => {
    for (const zone of ['Europe/Berlin', 'Pacific/Auckland', 'Pacific/Kiritimati']) {
      const weeks = chunkWindows(zone, '2026-01-05', 28, 7)
      expect(readRanges(zone, '2026-01-05', 28, new Set(['2026-01-18']), false), zone).toEqual([weeks[1]])
    }
  })
})
