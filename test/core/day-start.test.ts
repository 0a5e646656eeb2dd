/** The day as ManicTime counts it from a configured hour: the Date column, the windows and the weeks an import reads. */
import { describe, expect, it } from 'vitest'
import { activityDay, dayStartText, parseDayStart } from '../../src/core/day-start.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { readRanges, within } from '../../src/core/read-ranges.ts'
import { localDateToSerial, serialToLocalDate } from '../../src/core/serial.ts'
import { activityToSheetTimes, sheetTimesToInterval } from '../../src/core/sheet-times.ts'
import { windowForDays } from '../../src/core/windows.ts'
import { exportWindow } from '../../src/core/export-plan.ts'
import { activityToCells } from '../../src/core/row-write.ts'
import { ACTIVITY_COLUMN } from '../../src/core/columns.ts'

const zone = 'Europe/Berlin'
const FOUR = 4 * 3600
const HOUR = 3600

describe('the hour a day starts at', () => {
  it('reads 04:00 as four hours after midnight, and nothing configured as midnight', () => {
    expect(parseDayStart('04:00')).toBe(FOUR)
    expect(parseDayStart('23:59')).toBe(23 * HOUR + 59 * 60)
    expect(parseDayStart('00:00')).toBe(0)
    expect(parseDayStart(undefined)).toBe(0)
    expect(dayStartText(parseDayStart('04:30'))).toBe('04:30')
  })

  it('refuses an hour that is not hours and minutes below 24:00', () => {
    for (const bad of ['24:00', '4:00', '04:00:00', '04:60', '']) {
      expect(() => parseDayStart(bad)).toThrow(TimelineSheetsError)
    }
  })
})

describe('the day of an activity', () => {
  it('is the day before for a start after midnight and before the day starts', () => {
    expect(activityDay('2026-11-10T01:30:00+01:00', zone, FOUR)).toBe('2026-11-09')
    expect(activityDay('2026-11-10T03:59:59+01:00', zone, FOUR)).toBe('2026-11-09')
    expect(activityDay('2026-11-10T04:00:00+01:00', zone, FOUR)).toBe('2026-11-10')
    expect(activityDay('2026-11-10T01:30:00+01:00', zone, 0)).toBe('2026-11-10')
  })

  it("is the sheet zone's day, not the day the start's own offset reads", () => {
    // 01:30 in Berlin is 19:30 the evening before in New York; the sheet is in Berlin.
    expect(activityDay('2026-11-09T19:30:00-05:00', zone, FOUR)).toBe('2026-11-09')
    expect(activityDay('2026-11-09T19:30:00-05:00', zone, 0)).toBe('2026-11-10')
  })
})

describe('a row when days start at 04:00', () => {
  it('shows 01:30 on the ManicTime day 2026-11-09 as Date 2026-11-09, Start 01:30, and reads it back', () => {
    const start = '2026-11-10T01:30:00+01:00'
    const t = activityToSheetTimes(start, HOUR, zone, FOUR)
    expect(serialToLocalDate(t.date)).toBe('2026-11-09')
    expect(t.start).toBeCloseTo(1.5 / 24, 12)
    expect(t.end).toBeCloseTo(2.5 / 24, 12)
    expect(sheetTimesToInterval({ date: t.date, start: t.start, end: t.end }, zone, undefined, FOUR)).toMatchObject({
      ok: true,
      start,
      duration: HOUR,
    })
  })

  it('reads End before Start as the next calendar day after the one Start reads on', () => {
    const date = localDateToSerial('2026-11-09')
    // 23:00 on the 9th to 01:00 on the 10th.
    expect(sheetTimesToInterval({ date, start: 23 / 24, end: 1 / 24 }, zone, undefined, FOUR)).toMatchObject({
      ok: true,
      start: '2026-11-09T23:00:00+01:00',
      duration: 2 * HOUR,
    })
    // 02:00 to 01:00 of the ManicTime day 2026-11-09: from the 10th 02:00 to the 11th 01:00.
    expect(sheetTimesToInterval({ date, start: 2 / 24, end: 1 / 24, durationHint: 23 / 24 }, zone, undefined, FOUR)).toMatchObject({
      ok: true,
      start: '2026-11-10T02:00:00+01:00',
      duration: 23 * HOUR,
    })
  })

  it('keeps an activity across the day start on the day it starts: 03:00 to 05:00 is one row of the day before', () => {
    const t = activityToSheetTimes('2026-11-10T03:00:00+01:00', 2 * HOUR, zone, FOUR)
    expect(serialToLocalDate(t.date)).toBe('2026-11-09')
    expect([t.start * 24, t.end * 24].map((h) => Math.round(h * 60) / 60)).toEqual([3, 5])
  })

  it('reads the same cells as another instant when days start at midnight', () => {
    const input = { date: localDateToSerial('2026-11-09'), start: 1.5 / 24, end: 2.5 / 24 }
    expect(sheetTimesToInterval(input, zone)).toMatchObject({ ok: true, start: '2026-11-09T01:30:00+01:00' })
    expect(sheetTimesToInterval(input, zone, undefined, FOUR)).toMatchObject({ ok: true, start: '2026-11-10T01:30:00+01:00' })
  })

  it('writes the Date of the day the activity belongs to in its row', () => {
    const activity = {
      timelineKey: 't',
      entityId: 1,
      start: '2026-11-10T01:30:00+01:00',
      duration: HOUR,
      tags: [],
      notes: undefined,
      isActive: undefined,
    }
    const cells = activityToCells(activity, 'alice', zone, '', undefined, FOUR)
    expect(serialToLocalDate(cells[ACTIVITY_COLUMN.date] as number)).toBe('2026-11-09')
  })
})

describe('windows when days start at 04:00', () => {
  it('run from 04:00 to 04:00, with the offsets of a DST change between', () => {
    expect(windowForDays(zone, '2026-10-24', 2, FOUR)).toEqual({ from: '2026-10-24T04:00:00+02:00', to: '2026-10-26T04:00:00+01:00' })
  })

  it('start a day whose start hour the clocks skip where they land', () => {
    // 2026-03-29 02:00 CET jumps to 03:00 CEST: a day from 02:30 starts at 03:00.
    expect(windowForDays(zone, '2026-03-29', 1, 2.5 * HOUR).from).toBe('2026-03-29T03:00:00+02:00')
    // And where the clocks repeat the hour, at its first reading.
    expect(windowForDays(zone, '2026-10-25', 1, 2.5 * HOUR).from).toBe('2026-10-25T02:30:00+02:00')
  })

  it("end an export's window at the start of tomorrow's day: at 02:00 on the 10th, today is still the 9th", () => {
    const target = { timeZone: zone, dayStartsAt: '04:00', window: { days: 2, lookBackDays: 1 } } as Parameters<typeof exportWindow>[0]
    const w = exportWindow(target, new Date('2026-11-10T01:00:00Z'))
    expect(w).toMatchObject({ fromDate: '2026-11-08', days: 2, dayStart: FOUR })
    expect(w.window).toEqual({ from: '2026-11-08T04:00:00+01:00', to: '2026-11-10T04:00:00+01:00' })
  })

  it("read the week holding an edited day's activities, the night after it included", () => {
    const dayStart = FOUR
    const chunk = windowForDays(zone, '2026-11-02', 7, dayStart)
    expect(within('2026-11-08', chunk, zone, dayStart)).toBe(true)
    expect(within('2026-11-09', chunk, zone, dayStart)).toBe(false)
    const ranges = readRanges(zone, '2026-10-26', 21, new Set(['2026-11-08']), false, dayStart)
    expect(ranges).toEqual([chunk])
  })
})
