/**
 * The day as ManicTime counts it, over zones, day starts and instants near the clock changes: a row's cells and
 * the activity they stand for convert there and back without loss, the Date column is the activity's day, and
 * that day's read window holds the activity (a day either side, where the day start is a wall time the clocks
 * repeat: there the Date follows the wall clock, the window the instants).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { activityDay, dayStartInstant } from '../../src/core/day-start.ts'
import { formatOffsetInstant } from '../../src/core/instant.ts'
import { startsWithin } from '../../src/core/read-ranges.ts'
import { addDays, fractionToSeconds, localDateToSerial, SECONDS_PER_DAY } from '../../src/core/serial.ts'
import { activityToSheetTimes, sheetTimesToInterval } from '../../src/core/sheet-times.ts'
import { instantsForWall } from '../../src/core/wall-clock.ts'
import { windowForDays } from '../../src/core/windows.ts'
import { zoneOffsetMinutes } from '../../src/core/zone-offset.ts'
import { ZONES } from './arbitraries.ts'

/** 2026's clock changes in Europe, North America, Chile and Lord Howe, and ordinary days. */
const NEAR = [1_774_746_000, 1_792_890_000, 1_772_953_200, 1_793_512_800, 1_775_347_200, 1_788_055_200, 1_767_571_200]

const anyInstant = fc.oneof(
  fc.tuple(fc.constantFrom(...NEAR), fc.integer({ min: -2 * SECONDS_PER_DAY, max: 2 * SECONDS_PER_DAY })).map(([at, d]) => at + d),
  // From 1973: the tool takes days from 1970 on, read in the start's own offset and a day before with a day start.
  fc.integer({ min: 100_000_000, max: 4_000_000_000 }),
)
/** Whole minutes below 24:00, midnight, 04:00 and hours the clocks change at more often than chance would give. */
const anyDayStart = fc.oneof(
  fc.integer({ min: 0, max: 1439 }).map((m) => m * 60),
  fc.constantFrom(0, 4 * 3600, 2 * 3600, 2.5 * 3600, 3 * 3600, 23 * 3600 + 30 * 60),
)
const anyDuration = fc.oneof(fc.integer({ min: 0, max: 3 * SECONDS_PER_DAY }), fc.constantFrom(0, 60, 3600, 5400, 86_400))
const anyZone = fc.constantFrom(...ZONES)
/** The zone's own offset, or one from a device elsewhere. */
const anyOffset = (zone: string, epoch: number) => fc.constantFrom(zoneOffsetMinutes(zone, epoch), -600, 0, 330, 840)

const anyActivity = fc
  .tuple(anyZone, anyInstant, anyDuration, anyDayStart)
  .chain(([zone, epoch, duration, dayStart]) =>
    anyOffset(zone, epoch).map((offset) => ({ zone, start: formatOffsetInstant(epoch, offset), epoch, duration, dayStart })),
  )

describe('the day an activity belongs to', () => {
  it('converts an activity to cells and back to the same start and duration, in every zone and for every day start', () => {
    fc.assert(
      fc.property(anyActivity, ({ zone, start, duration, dayStart }) => {
        const cells = activityToSheetTimes(start, duration, zone, dayStart)
        const back = sheetTimesToInterval({ ...cells, durationHint: cells.duration }, zone, { start }, dayStart)
        expect(back).toEqual({ ok: true, start, duration, warnings: [] })
      }),
      { numRuns: 3000 },
    )
  })

  it('shows in the Date column the day activityDay gives, and the Start as the clock reads it', () => {
    fc.assert(
      fc.property(anyActivity, ({ zone, start, epoch, duration, dayStart }) => {
        const cells = activityToSheetTimes(start, duration, zone, dayStart)
        expect(cells.date).toBe(localDateToSerial(activityDay(start, zone, dayStart)))
        expect(cells).toMatchObject({ start: activityToSheetTimes(start, duration, zone).start })
        const wall = epoch + zoneOffsetMinutes(zone, epoch) * 60
        expect(fractionToSeconds(cells.start) < dayStart).toBe(localDateToSerial(activityDay(start, zone, 0)) === cells.date + 1)
        expect(((wall % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY).toBe(fractionToSeconds(cells.start))
      }),
      { numRuns: 2000 },
    )
  })

  it('lies in the read window of its day, or where the clocks repeat the day start, in the days either side', () => {
    fc.assert(
      fc.property(anyZone, anyInstant, anyDayStart, (zone, epoch, dayStart) => {
        const start = formatOffsetInstant(epoch, zoneOffsetMinutes(zone, epoch))
        const day = activityDay(start, zone, dayStart)
        const repeated = [day, addDays(day, 1)].some(
          (d) => instantsForWall(zone, (localDateToSerial(d) - 25_569) * SECONDS_PER_DAY + dayStart).length > 1,
        )
        if (repeated) expect(startsWithin(start, windowForDays(zone, addDays(day, -1), 3, dayStart))).toBe(true)
        else expect(startsWithin(start, windowForDays(zone, day, 1, dayStart)), `${start} on ${day}`).toBe(true)
      }),
      { numRuns: 3000 },
    )
  })

  it('reads typed cells as an activity that shows the same cells again, whatever the day start', () => {
    const anyCells = fc.record({
      date: fc.integer({ min: localDateToSerial('2000-01-01'), max: localDateToSerial('2040-12-31') }),
      start: fc.integer({ min: 0, max: SECONDS_PER_DAY - 1 }),
      end: fc.integer({ min: 0, max: SECONDS_PER_DAY - 1 }),
    })
    fc.assert(
      fc.property(anyZone, anyCells, anyDayStart, (zone, typed, dayStart) => {
        const input = { date: typed.date, start: typed.start / SECONDS_PER_DAY, end: typed.end / SECONDS_PER_DAY }
        const read = sheetTimesToInterval(input, zone, undefined, dayStart)
        // Refused (End before Start), or a wall time the clocks skip or repeat: the row says so instead.
        if (!read.ok || read.warnings.length > 0) return
        const shown = activityToSheetTimes(read.start, read.duration, zone, dayStart)
        expect(shown.date).toBe(typed.date)
        expect(fractionToSeconds(shown.start)).toBe(typed.start)
        expect(fractionToSeconds(shown.end)).toBe(typed.end)
      }),
      { numRuns: 3000 },
    )
  })

  it('starts each day at the first instant whose wall clock reads the day start', () => {
    fc.assert(
      fc.property(anyZone, fc.constantFrom(...NEAR), fc.integer({ min: -3, max: 3 }), anyDayStart, (zone, near, days, dayStart) => {
        const day = addDays(new Date(near * 1000).toISOString().slice(0, 10), days)
        const first = dayStartInstant(zone, localDateToSerial(day), dayStart)
        const at = formatOffsetInstant(first, zoneOffsetMinutes(zone, first))
        const before = formatOffsetInstant(first - 1, zoneOffsetMinutes(zone, first - 1))
        expect(activityDay(at, zone, dayStart)).toBe(day)
        expect(activityDay(before, zone, dayStart) < day).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})
