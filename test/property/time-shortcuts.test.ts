/**
 * Shortcuts of the time module held to its general path.
 *
 * A zone's offset is looked up per quarter hour: first in a small table of the last zone's recent quarters, then
 * in a map per zone, and only then asked of the time-zone data. The tables may never answer other than the data
 * does: over any sequence of zones and instants (near one another, on slots the table shares, far apart, before
 * 1970), every answer is the data's own.
 *
 * A start in the form the server and the tool write is read by hand, any other text by the pattern: for any text
 * of that form, and any text one character away from it, the reading is the pattern's (or both refuse it). So is
 * the check of a server's start (`isPlausibleStart`), for that form and its `Z` form.
 */
import { tzOffset } from '@date-fns/tz'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { zoneOffsetMinutes } from '../../src/core/zone-offset.ts'
import { parseOffsetInstant, parseOffsetInstantByPattern } from '../../src/core/instant.ts'
import { isPlausibleStart, isPlausibleStartByPattern } from '../../src/timeline/plausible-start.ts'

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

const digits = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: n, maxLength: n })
/** Offset digits, zero often: `-00:00` must read as the pattern reads it too. */
const offsetDigits = fc.oneof(digits(2), fc.constant('00'))
/** `YYYY-MM-DDTHH:MM:SS±HH:MM` with any digits (months past 12, hours past 23 and years before 100 included). */
const canonicalText = fc
  .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), fc.constantFrom('+', '-'), offsetDigits, offsetDigits)
  .map(([y, mo, d, h, mi, s, sign, oh, om]) => `${y}-${mo}-${d}T${h}:${mi}:${s}${sign}${oh}:${om}`)
/** One character of such a text replaced by anything: another digit, a separator, a space, a non-ASCII digit. */
const nearlyCanonical = fc
  .tuple(
    canonicalText,
    fc.nat({ max: 24 }),
    fc.oneof(fc.constantFrom('0', '9', '-', '+', ':', 'T', 'Z', ' ', '\u0663', '.', 'x'), fc.string({ maxLength: 2 })),
  )
  .map(([text, at, other]) => text.slice(0, at) + other + text.slice(at + 1))

function reading(read: () => unknown): unknown {
  try {
    return read()
  } catch (error) {
    return { refused: (error as Error).message }
  }
}

describe('start texts', () => {
  it('reads the written form by hand exactly as the pattern reads it', () => {
    fc.assert(
      fc.property(fc.oneof(canonicalText, nearlyCanonical), (text) => {
        expect(reading(() => parseOffsetInstant(text))).toEqual(reading(() => parseOffsetInstantByPattern(text)))
        const again = reading(() => parseOffsetInstant(text))
        if (typeof again === 'object' && again !== null && !('refused' in again)) expect(Object.isFrozen(again)).toBe(true)
      }),
      { numRuns: 5_000 },
    )
  })

  it("judges a server's start by hand exactly as the pattern judges it", () => {
    /** Plausible calendar dates often (years 1970–2999, months 1–12), so the calendar checks are reached too. */
    const plausibleText = fc
      .tuple(
        fc.integer({ min: 1960, max: 3010 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
      )
      .map(([y, mo, d, h]) => `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:59:59`)
    const zoned = fc
      .tuple(
        fc.oneof(
          plausibleText,
          canonicalText.map((t) => t.slice(0, 19)),
        ),
        fc.oneof(
          fc.constant('Z'),
          fc.tuple(fc.constantFrom('+', '-'), offsetDigits, offsetDigits).map(([sign, h, m]) => `${sign}${h}:${m}`),
          fc.constantFrom('+14:59', '+15:00', '-14:00', '+1400', '.5Z'),
        ),
      )
      .map(([wall, zone]) => wall + zone)
    const oneAway = fc
      .tuple(
        zoned,
        fc.nat({ max: 25 }),
        fc.oneof(fc.constantFrom('0', '9', '-', '+', ':', 'T', 'Z', ' ', '\u0663', '.', 'x', ''), fc.string({ maxLength: 2 })),
      )
      .map(([text, at, other]) => text.slice(0, at) + other + text.slice(at + 1))
    fc.assert(
      fc.property(fc.oneof(zoned, oneAway, canonicalText, nearlyCanonical), (text) => {
        expect(isPlausibleStart(text), text).toBe(isPlausibleStartByPattern(text))
      }),
      { numRuns: 20_000 },
    )
    for (const text of [
      '2024-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2000-02-29T23:59:59+14:59',
      '1970-01-01T00:00:00-00:00',
      '2999-12-31T23:59:59Z',
    ])
      expect(isPlausibleStart(text), text).toBe(isPlausibleStartByPattern(text))
  })
})

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
