import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { activityToSheetTimes, sheetTimesToInterval } from '../../src/core/sheet-times.ts'
import { chunkWindows, windowForDays } from '../../src/core/windows.ts'
import { instantsForWall, localDateOf } from '../../src/core/wall-clock.ts'
import { zoneOffsetMinutes } from '../../src/core/zone-offset.ts'
import { formatOffsetInstant, parseOffsetInstant } from '../../src/core/instant.ts'
import { localDateToSerial, serialToLocalDate, serialToWallSeconds } from '../../src/core/serial.ts'

const HOUR = 3600
const DAY = 86_400

function epoch(iso: string): number {
  return parseOffsetInstant(iso).epochSeconds
}

describe('serial numbers', () => {
  it.each([
    ['2020-01-01', 43831],
    ['1999-01-02', 36162],
    ['2024-01-02', 45293],
    ['1900-01-01', 2],
    ['1899-12-30', 0],
  ])('%s is serial %i', (date, serial) => {
    expect(localDateToSerial(date)).toBe(serial)
    expect(serialToLocalDate(serial)).toBe(date)
  })

  it('rounds a serial float to the nearest second', () => {
    const serial = 45293 + (10 * HOUR + 0.4) / DAY
    expect(serialToWallSeconds(serial) % DAY).toBe(10 * HOUR)
    expect(serialToWallSeconds(45293 + (10 * HOUR + 0.6) / DAY) % DAY).toBe(10 * HOUR + 1)
  })

  it('refuses a date that is not YYYY-MM-DD', () => {
    expect(() => localDateToSerial('2.3.2026')).toThrow(/YYYY-MM-DD/)
  })
})

describe('ISO instants with offsets', () => {
  it('parses and formats whole seconds with the offset kept', () => {
    expect(parseOffsetInstant('2026-03-29T01:30:00+01:00')).toEqual({ epochSeconds: epoch('2026-03-29T00:30:00Z'), offsetMinutes: 60 })
    expect(parseOffsetInstant('2026-03-29T01:30:00.6-05:30').offsetMinutes).toBe(-330)
    expect(parseOffsetInstant('2026-03-29T01:30:00.6Z').epochSeconds).toBe(Date.UTC(2026, 2, 29, 1, 30, 1) / 1000)
    expect(formatOffsetInstant(epoch('2026-03-29T00:30:00Z'), 120)).toBe('2026-03-29T02:30:00+02:00')
    expect(formatOffsetInstant(epoch('2026-03-29T00:30:00Z'), -330)).toBe('2026-03-28T19:00:00-05:30')
    expect(formatOffsetInstant(0, 0)).toBe('1970-01-01T00:00:00+00:00')
  })

  it('refuses a start without an offset', () => {
    expect(() => parseOffsetInstant('2026-03-29T01:30:00')).toThrow(/offset/)
  })

  it('reads a text it formatted as the instant it was given, from its cache as from the text itself', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -62_135_596_800, max: 253_402_300_799 }),
        fc.oneof(fc.integer({ min: -1080, max: 1080 }), fc.double({ min: -1080, max: 1080, noNaN: true })),
        (epochSeconds, offsetMinutes) => {
          let text: string
          try {
            text = formatOffsetInstant(epochSeconds, offsetMinutes)
          } catch {
            return // outside four-digit years: refused, nothing cached
          }
          const expected = { epochSeconds, offsetMinutes: Math.round(offsetMinutes) || 0 }
          expect(parseOffsetInstant(text)).toEqual(expected)
          // With a space after it the text is not the cached one: this one is parsed by the regular expression.
          expect(parseOffsetInstant(`${text} `)).toEqual(expected)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('formats as Date#toISOString would, for every instant of a four-digit year and any offset', () => {
    const reference = (epochSeconds: number, offsetMinutes: number) => {
      const minutes = Math.round(offsetMinutes)
      const abs = Math.abs(minutes)
      const wall = new Date((epochSeconds + minutes * 60) * 1000).toISOString().slice(0, 19)
      return `${wall}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
    }
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -62_135_596_800, max: 253_402_300_799 }),
          fc.double({ min: -62_135_596_800, max: 253_402_300_799, noNaN: true }),
          fc.integer({ min: -86_400 * 3, max: 86_400 * 3 }),
        ),
        fc.oneof(fc.integer({ min: -1080, max: 1080 }), fc.double({ min: -1080, max: 1080, noNaN: true })),
        (epochSeconds, offsetMinutes) => {
          let expected: string
          try {
            expected = reference(epochSeconds, offsetMinutes)
          } catch {
            return
          }
          if (!/^\d{4}-/.test(expected)) return // outside four-digit years: refused (tested above)
          expect(formatOffsetInstant(epochSeconds, offsetMinutes)).toBe(expected)
        },
      ),
      { numRuns: 5000 },
    )
  })

  it('hands out parsed instants no caller can change', () => {
    const parsed = parseOffsetInstant('2026-03-29T01:30:00+01:00')
    expect(Object.isFrozen(parsed)).toBe(true)
    expect(parseOffsetInstant('2026-03-29T01:30:00+01:00')).toEqual({ epochSeconds: epoch('2026-03-29T00:30:00Z'), offsetMinutes: 60 })
  })
})

describe('wall clock resolution', () => {
  it('finds no instant in the spring gap, two in the autumn overlap, one otherwise', () => {
    const wall = (iso: string) => Date.parse(`${iso}Z`) / 1000
    expect(instantsForWall('Europe/Berlin', wall('2026-03-29T02:30:00'))).toEqual([])
    expect(instantsForWall('Europe/Berlin', wall('2026-10-25T02:30:00'))).toEqual([
      epoch('2026-10-25T02:30:00+02:00'),
      epoch('2026-10-25T02:30:00+01:00'),
    ])
    expect(instantsForWall('America/New_York', wall('2026-07-01T12:00:00'))).toEqual([epoch('2026-07-01T12:00:00-04:00')])
  })
})

/** Days with a DST change, per zone, plus zones without DST. */
const ZONE_DAYS: [string, string][] = [
  ['Europe/Berlin', '2026-03-29'],
  ['Europe/Berlin', '2026-10-25'],
  ['America/New_York', '2026-03-08'],
  ['America/New_York', '2026-11-01'],
  ['Australia/Lord_Howe', '2026-04-05'],
  ['Australia/Lord_Howe', '2026-10-04'],
  ['Asia/Kolkata', '2026-03-29'],
  ['UTC', '2026-03-29'],
]
const DURATIONS = [0, 59, 1800, HOUR, 5400, 2 * HOUR, 3 * HOUR + 17, 23 * HOUR, DAY, DAY + 2 * HOUR, 3 * DAY]
/** Offsets the start string may carry: the zone's own, or a device elsewhere. */
const FOREIGN_OFFSETS = [330, -180, 0]

describe.each(ZONE_DAYS)('round trip in %s on %s', (zone, day) => {
  const from = epoch(`${day}T00:00:00Z`) - 14 * HOUR
  const starts = Array.from({ length: (48 + 28) * 2 }, (_, i) => from + i * 1800)

  it('is lossless for every half hour, duration and offset (existing activity)', () => {
    let checked = 0
    for (const startEpoch of starts) {
      const offsets = [zoneOffsetMinutes(zone, startEpoch), ...FOREIGN_OFFSETS]
      for (const offset of offsets) {
        const start = formatOffsetInstant(startEpoch, offset)
        for (const duration of DURATIONS) {
          const times = activityToSheetTimes(start, duration, zone)
          expect(Number.isInteger(times.date)).toBe(true)
          expect(times.start).toBeGreaterThanOrEqual(0)
          expect(times.start).toBeLessThan(1)
          const back = sheetTimesToInterval({ ...times, durationHint: times.duration }, zone, { start })
          expect(back, `${start} + ${duration}s`).toEqual({ ok: true, start, duration, warnings: [] })
          checked++
        }
      }
    }
    expect(checked).toBeGreaterThan(5000)
  })

  it('keeps the instant and duration of a new row unless its start is a repeated local time', () => {
    for (const startEpoch of starts) {
      const start = formatOffsetInstant(startEpoch, zoneOffsetMinutes(zone, startEpoch))
      for (const duration of DURATIONS) {
        const times = activityToSheetTimes(start, duration, zone)
        const back = sheetTimesToInterval({ ...times, durationHint: times.duration }, zone)
        if (!back.ok) throw new Error(`${start} failed`)
        const repeated = instantsForWall(zone, startEpoch + zoneOffsetMinutes(zone, startEpoch) * 60).length > 1
        if (repeated && back.start !== start) {
          expect(back.warnings.map((w) => w.kind)).toContain('ambiguous-time')
          continue
        }
        expect(back.start).toBe(start)
        expect(back.duration).toBe(duration)
      }
    }
  })
})

describe('the End rule', () => {
  const zone = 'Europe/Berlin'
  it('shows 23:00–01:00 as End < Start on the start date, read back as the next day', () => {
    const t = activityToSheetTimes('2026-03-02T23:00:00+01:00', 2 * HOUR, zone)
    expect(serialToLocalDate(t.date)).toBe('2026-03-02')
    expect(t.start).toBeCloseTo(23 / 24, 12)
    expect(t.end).toBeCloseTo(1 / 24, 12)
    expect(sheetTimesToInterval({ date: t.date, start: t.start, end: t.end }, zone)).toMatchObject({
      ok: true,
      start: '2026-03-02T23:00:00+01:00',
      duration: 2 * HOUR,
    })
  })

  it('reads End = Start as zero length, and carries whole days in End for 24 h or more', () => {
    const zero = activityToSheetTimes('2026-03-02T10:00:00+01:00', 0, zone)
    expect(zero.end).toBe(zero.start)
    const long = activityToSheetTimes('2026-03-02T10:00:00+01:00', DAY + 2 * HOUR, zone)
    expect(long.end).toBeCloseTo(1 + 12 / 24, 12)
    expect(sheetTimesToInterval({ date: long.date, start: long.start, end: long.end }, zone)).toMatchObject({
      ok: true,
      duration: DAY + 2 * HOUR,
    })
  })

  it('counts real seconds across the spring change (01:00–04:00 is 2 h)', () => {
    const date = localDateToSerial('2026-03-29')
    expect(sheetTimesToInterval({ date, start: 1 / 24, end: 4 / 24 }, zone)).toMatchObject({
      ok: true,
      start: '2026-03-29T01:00:00+01:00',
      duration: 2 * HOUR,
    })
  })

  it('uses Duration to read a short activity that ends "before" it starts in the autumn repeated hour', () => {
    const t = activityToSheetTimes('2026-10-25T02:45:00+02:00', 1800, zone)
    expect(t.end).toBeLessThan(t.start)
    expect(sheetTimesToInterval({ ...t, durationHint: t.duration }, zone)).toMatchObject({
      ok: true,
      start: '2026-10-25T02:45:00+02:00',
      duration: 1800,
    })
  })

  it('resolves a non-existent 02:30 forward to 03:30 and warns', () => {
    const date = localDateToSerial('2026-03-29')
    const r = sheetTimesToInterval({ date, start: 2.5 / 24, end: 5 / 24 }, zone)
    expect(r).toEqual({
      ok: true,
      start: '2026-03-29T03:30:00+02:00',
      duration: 1.5 * HOUR,
      warnings: [{ kind: 'nonexistent-time', field: 'start', typed: '02:30', usedAs: '03:30' }],
    })
  })

  it('takes the earlier 02:30 of the autumn change when nothing decides, and warns', () => {
    const date = localDateToSerial('2026-10-25')
    const r = sheetTimesToInterval({ date, start: 2.5 / 24, end: 5 / 24 }, zone)
    expect(r).toMatchObject({ ok: true, start: '2026-10-25T02:30:00+02:00', duration: 3.5 * HOUR })
    if (r.ok) expect(r.warnings).toEqual([{ kind: 'ambiguous-time', field: 'start', typed: '02:30', usedAs: '02:30 (UTC+02:00)' }])
  })

  it('fails when the end falls before the start', () => {
    const date = localDateToSerial('2026-03-29')
    // 02:30 does not exist and moves to 03:30, after the 03:15 end.
    expect(sheetTimesToInterval({ date, start: 2.5 / 24, end: 3.25 / 24 }, zone)).toMatchObject({ ok: false, problem: 'end-before-start' })
  })
})

describe('offsets written back', () => {
  const zone = 'Europe/Berlin'
  it('keeps the original start string when the instant did not change', () => {
    const start = '2026-03-02T08:00:00Z'
    const t = activityToSheetTimes(start, HOUR, zone)
    expect(sheetTimesToInterval(t, zone, { start })).toMatchObject({ start })
  })

  it('takes the zone offset at the new time for an activity recorded in the zone moved across DST', () => {
    const original = '2026-03-28T10:00:00+01:00'
    const date = localDateToSerial('2026-03-30')
    expect(sheetTimesToInterval({ date, start: 10 / 24, end: 11 / 24 }, zone, { start: original })).toMatchObject({
      start: '2026-03-30T10:00:00+02:00',
      duration: HOUR,
    })
  })

  it('keeps the original offset for an activity recorded elsewhere', () => {
    const original = '2026-03-02T14:00:00+05:30' // 09:30 in Berlin
    const date = localDateToSerial('2026-03-02')
    expect(sheetTimesToInterval({ date, start: 10 / 24, end: 11 / 24 }, zone, { start: original })).toMatchObject({
      start: '2026-03-02T14:30:00+05:30',
      duration: HOUR,
    })
  })

  it('uses the zone offset for new rows', () => {
    const date = localDateToSerial('2026-07-01')
    expect(sheetTimesToInterval({ date, start: 0.5, end: 0.75 }, 'America/New_York')).toMatchObject({
      start: '2026-07-01T12:00:00-04:00',
      duration: 6 * HOUR,
    })
  })
})

describe('read windows', () => {
  it('spans local days with explicit offsets across DST', () => {
    expect(windowForDays('Europe/Berlin', '2026-03-29', 1)).toEqual({ from: '2026-03-29T00:00:00+01:00', to: '2026-03-30T00:00:00+02:00' })
    expect(windowForDays('America/New_York', '2026-10-31', 2)).toEqual({
      from: '2026-10-31T00:00:00-04:00',
      to: '2026-11-02T00:00:00-05:00',
    })
  })

  it('starts a day whose midnight does not exist at the end of the gap', () => {
    // Chile moves its clocks at 00:00 (2026-09-06 00:00 does not exist).
    expect(windowForDays('America/Santiago', '2026-09-06', 1).from).toBe('2026-09-06T01:00:00-03:00')
  })

  it('chunks into consecutive windows of at most 7 days', () => {
    const w = chunkWindows('America/New_York', '2026-03-01', 17)
    expect(w).toEqual([
      { from: '2026-03-01T00:00:00-05:00', to: '2026-03-08T00:00:00-05:00' },
      { from: '2026-03-08T00:00:00-05:00', to: '2026-03-15T00:00:00-04:00' },
      { from: '2026-03-15T00:00:00-04:00', to: '2026-03-18T00:00:00-04:00' },
    ])
    expect(chunkWindows('UTC', '2026-03-01', 3, 1)).toHaveLength(3)
    expect(chunkWindows('UTC', '2026-03-01', 7)).toHaveLength(1)
  })

  it('refuses a window of no days and an unknown zone', () => {
    expect(() => windowForDays('UTC', '2026-03-01', 0)).toThrow(/days/)
    expect(() => windowForDays('Mars/Olympus', '2026-03-01', 1)).toThrow(/time zone/)
  })

  it('finds the local day of an instant', () => {
    expect(localDateOf('Europe/Berlin', epoch('2026-03-01T23:30:00Z'))).toBe('2026-03-02')
    expect(localDateOf('America/New_York', epoch('2026-03-02T03:30:00Z'))).toBe('2026-03-01')
  })
})

describe('zone offsets from the quarter-hour cache', () => {
  it('equal a fresh lookup at every minute around the clock changes of several zones', async () => {
    const { tzOffset } = await import('@date-fns/tz')
    const { zoneOffsetMinutes } = await import('../../src/core/zone-offset.ts')
    const changes: [string, string][] = [
      ['Europe/Berlin', '2026-03-29T01:00:00Z'],
      ['Europe/Berlin', '2026-10-25T01:00:00Z'],
      ['America/New_York', '2026-03-08T07:00:00Z'],
      ['Australia/Lord_Howe', '2026-04-04T15:00:00Z'],
      ['Asia/Kathmandu', '2026-01-01T00:00:00Z'],
    ]
    for (const [zone, at] of changes) {
      const center = Date.parse(at) / 1000
      for (let t = center - 7200; t <= center + 7200; t += 60) {
        // Ask twice: the second answer comes from the cache.
        zoneOffsetMinutes(zone, t)
        expect(zoneOffsetMinutes(zone, t + 7), `${zone} ${new Date((t + 7) * 1000).toISOString()}`).toBe(
          tzOffset(zone, new Date((t + 7) * 1000)),
        )
      }
    }
  })
})
