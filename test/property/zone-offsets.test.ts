/**
 * A zone's offset is looked up per quarter hour: first in a small table of the last zone's recent quarters, then
 * in a map per zone, and only then asked of the time-zone data. The tables may never answer other than the data
 * does: over any sequence of zones and instants (near one another, on slots the table shares, far apart, before
 * 1970), every answer is the data's own.
 */
import { tzOffset } from '@date-fns/tz'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { zoneOffsetMinutes } from '../../src/core/time.ts'

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Apia', 'Africa/Monrovia']
/** Quarter hours that share a slot of the recent table (it has 2,048). */
const SLOT_APART = 2_048 * 900

const fromData = (zone: string, epochSeconds: number) => Math.round(tzOffset(zone, new Date(epochSeconds * 1000)) * 60) / 60

const anyInstant = fc.oneof(
  // Around the 2026 transitions and the bench's months, on slots the table shares, and anywhere.
  fc
    .tuple(
      fc.constantFrom(1_774_746_000, 1_792_890_000, 1_767_571_200),
      fc.integer({ min: -3, max: 3 }),
      fc.integer({ min: -90_000, max: 90_000 }),
    )
    .map(([at, slots, seconds]) => at + slots * SLOT_APART + seconds),
  fc.integer({ min: -2_000_000_000, max: 4_000_000_000 }),
  fc.constantFrom(0, -1, 899, 900, 1_325_239_200, 63_000_000),
)

describe('zone offsets', () => {
  it('answers every sequence of zones and instants as the time-zone data does', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...ZONES), anyInstant), { minLength: 1, maxLength: 40 }), (asks) => {
        for (const [zone, at] of asks) expect(zoneOffsetMinutes(zone, at), `${zone} ${at}`).toBe(fromData(zone, at))
      }),
      { numRuns: 300 },
    )
  })
})
