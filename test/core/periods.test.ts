import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { inPeriod, periodOf, periodsOf } from '../../src/core/periods.ts'
import { addDays } from '../../src/core/serial.ts'

describe('the periods a manager approves', () => {
  it.each([
    ['2026-11-09', '2026-W46', '2026-11-09', '2026-11-16'],
    ['2026-11-15', '2026-W46', '2026-11-09', '2026-11-16'],
    // ISO weeks belong to the year of their Thursday.
    ['2021-01-03', '2020-W53', '2020-12-28', '2021-01-04'],
    ['2024-12-30', '2025-W01', '2024-12-30', '2025-01-06'],
    ['2026-01-01', '2026-W01', '2025-12-29', '2026-01-05'],
  ])('%s lies in ISO week %s', (date, id, from, to) => {
    expect(periodOf(date, 'week')).toEqual({ id, from, to })
  })

  it('a month runs from its first day to the next month’s', () => {
    expect(periodOf('2026-12-31', 'month')).toEqual({ id: '2026-12', from: '2026-12-01', to: '2027-01-01' })
    expect(periodOf('2026-02-14', 'month')).toEqual({ id: '2026-02', from: '2026-02-01', to: '2026-03-01' })
  })

  it('every day lies in its period, which is a Monday-to-Sunday week whose Thursday names its year', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), (offset) => {
        const date = addDays('1990-01-01', offset)
        const week = periodOf(date, 'week')
        expect(inPeriod(date, week)).toBe(true)
        expect(new Date(`${week.from}T00:00:00Z`).getUTCDay()).toBe(1)
        expect(addDays(week.from, 7)).toBe(week.to)
        expect(week.id.slice(0, 4)).toBe(addDays(week.from, 3).slice(0, 4))
        expect(inPeriod(date, periodOf(date, 'month'))).toBe(true)
      }),
    )
  })

  it('the periods of a window cover it once, in order', () => {
    expect(periodsOf('2026-10-29', 35, 'week').map((p) => p.id)).toEqual([
      '2026-W44',
      '2026-W45',
      '2026-W46',
      '2026-W47',
      '2026-W48',
      '2026-W49',
    ])
    expect(periodsOf('2026-10-29', 35, 'month').map((p) => p.id)).toEqual(['2026-10', '2026-11', '2026-12'])
  })
})
