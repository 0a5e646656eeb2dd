/**
 * `sync --every/--cron` run in the target's time zone (or the one --zone names), never the host's.
 * The clock is injected (the next runs after a given instant), across the changes to and from summer time.
 */
import { describe, expect, it } from 'vitest'
import type { TargetConfig } from '../../src/config/schema.ts'
import { nextRuns, scheduleOf } from '../../src/cli/schedule.ts'

const target = (name: string, timeZone: string) => ({ name, timeZone }) as TargetConfig
const iso = (dates: Date[]) => dates.map((d) => d.toISOString())

describe('schedules in the target zone', () => {
  it("--every 1d is 02:00 in the target's zone, on both sides of the autumn change (Berlin)", () => {
    const schedule = scheduleOf({ every: '1d' }, [target('team', 'Europe/Berlin')])
    expect(schedule).toEqual({ pattern: '0 2 * * *', timeZone: 'Europe/Berlin' })
    // 02:00 CEST is 00:00Z; after 25 October 02:00 CET is 01:00Z. 02:00 happens twice on the 25th: one run.
    expect(iso(nextRuns(schedule, new Date('2026-10-23T12:00:00Z'), 4))).toEqual([
      '2026-10-24T00:00:00.000Z',
      '2026-10-25T00:00:00.000Z',
      '2026-10-26T01:00:00.000Z',
      '2026-10-27T01:00:00.000Z',
    ])
  })

  it('a night whose 02:00 the clocks skip runs once, when they resume (New York, spring)', () => {
    const schedule = scheduleOf({ every: '1d' }, [target('team', 'America/New_York')])
    // 02:00 EST is 07:00Z; on 8 March 2026 02:00 does not exist and the run is at 03:00 EDT (07:00Z); then 06:00Z.
    expect(iso(nextRuns(schedule, new Date('2026-03-06T12:00:00Z'), 4))).toEqual([
      '2026-03-07T07:00:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:00:00.000Z',
      '2026-03-10T06:00:00.000Z',
    ])
  })

  it('--cron hours are read in the zone too, and --zone overrides the target', () => {
    const tokyo = scheduleOf({ cron: '30 6 * * 1-5', zone: 'Asia/Tokyo' }, [target('team', 'Europe/Berlin')])
    expect(tokyo).toEqual({ pattern: '30 6 * * 1-5', timeZone: 'Asia/Tokyo' })
    expect(iso(nextRuns(tokyo, new Date('2026-11-06T00:00:00Z'), 2))).toEqual(['2026-11-08T21:30:00.000Z', '2026-11-09T21:30:00.000Z'])
  })

  it('targets in different zones need --zone; an unknown zone is refused', () => {
    const two = [target('a', 'Europe/Berlin'), target('b', 'America/New_York')]
    expect(() => scheduleOf({ every: '1d' }, two)).toThrow(/different time zones \(Europe\/Berlin, America\/New_York\)/)
    expect(scheduleOf({ every: '1d', zone: 'UTC' }, two).timeZone).toBe('UTC')
    expect(scheduleOf({ every: '1h' }, [target('a', 'UTC'), target('b', 'UTC')]).timeZone).toBe('UTC')
    expect(() => scheduleOf({ every: '1d', zone: 'Mars/Olympus' }, two)).toThrow(/not an IANA time zone/)
  })
})
