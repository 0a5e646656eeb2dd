/**
 * Properties of the cell readers, the tag functions and the time conversion
 * over values of every kind: none throws; what reads as ok is
 * finite and inside the range the tool represents; a conversion either gives
 * a start the server and this tool can read back, or says the value is out of
 * range.
 */
import fc from 'fast-check'
import { fingerprintAt, fingerprintOf } from '../../src/core/fingerprint.ts'
import { describe, expect, it } from 'vitest'
import {
  cellText,
  excerpt,
  isEmptyCell,
  isErrorValue,
  isFormula,
  readCheckboxCell,
  readDateCell,
  readTimeCell,
} from '../../src/core/cells.ts'
import {
  applicableCombinations,
  cellsToTags,
  checkAllowedTags,
  combineTags,
  parseCombination,
  splitTagName,
  splitTags,
  validateTagLimits,
} from '../../src/core/tags.ts'
import {
  activityToSheetTimes,
  FIRST_DATE_SERIAL,
  LAST_DATE_SERIAL,
  rankedSheetTimesToInterval,
  sheetTimesToInterval,
} from '../../src/core/sheet-times.ts'
import { chunkWindows } from '../../src/core/windows.ts'
import { clockJumpAt } from '../../src/core/wall-clock.ts'
import { zoneOffsetMinutes } from '../../src/core/zone-offset.ts'
import { formatOffsetInstant, offsetInstantSeconds, parseOffsetInstant } from '../../src/core/instant.ts'
import { localDateToSerial, serialToLocalDate, serialToWallSeconds } from '../../src/core/serial.ts'
import { isPlausibleStart } from '../../src/timeline/plausible-start.ts'
import { MAX_ACTIVITY_SECONDS } from '../../src/timeline/schemas.ts'
import { anyCell, anyNumber, anyString, hugeString, ZONES } from './arbitraries.ts'

const RUNS = 500
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

describe('cell readers over any value', () => {
  it('read dates, times and ticks without throwing; what is ok is finite and in range', () => {
    fc.assert(
      fc.property(anyCell, fc.constantFrom('mdy' as const, 'dmy' as const), (value, order) => {
        const date = readDateCell(value, order)
        if (date.ok) {
          expect(Number.isInteger(date.value)).toBe(true)
          expect(date.value).toBeGreaterThanOrEqual(FIRST_DATE_SERIAL)
          expect(date.value).toBeLessThanOrEqual(LAST_DATE_SERIAL)
        } else expect(date.message.length).toBeLessThan(200)
        const start = readTimeCell(value, { allowDays: false })
        if (start.ok) {
          expect(start.value).toBeGreaterThanOrEqual(0)
          expect(Math.round(start.value * 86_400)).toBeLessThan(86_400)
        } else expect(start.message.length).toBeLessThan(200)
        const end = readTimeCell(value, { allowDays: true })
        if (end.ok) expect(Number.isFinite(end.value) && end.value >= 0).toBe(true)
        const tick = readCheckboxCell(value)
        if (!tick.ok) expect(tick.message).not.toMatch(UNPRINTABLE)
        for (const message of [date, start, end, tick].flatMap((r) => (r.ok ? [] : [r.message]))) expect(message).not.toMatch(UNPRINTABLE)
        cellText(value)
        isEmptyCell(value)
        isFormula(value)
        isErrorValue(value)
      }),
      { numRuns: RUNS },
    )
  })

  it('quote any text in at most the length asked, printable', () => {
    fc.assert(
      fc.property(fc.oneof(anyString, hugeString), fc.integer({ min: 1, max: 80 }), (text, max) => {
        const shown = excerpt(text, max)
        expect(shown.length).toBeLessThanOrEqual(max + 1)
        expect(shown).not.toMatch(UNPRINTABLE)
      }),
      { numRuns: RUNS },
    )
  })
})

describe('tags over any text', () => {
  it('split, combine, validate and check against allowed combinations without throwing', () => {
    fc.assert(
      fc.property(fc.oneof(anyString, hugeString), anyString, fc.array(anyString, { maxLength: 4 }), (tagsCell, labelsCell, lines) => {
        const split = cellsToTags(tagsCell, labelsCell)
        const tags = combineTags(split)
        for (const tag of tags) {
          expect(tag).toBe(tag.trim())
          expect(tag.length).toBeGreaterThan(0)
          expect(tag).not.toContain(',')
        }
        validateTagLimits(tags)
        splitTagName(tagsCell)
        lines.forEach(parseCombination)
        const allowed = { everyone: lines, groups: [{ appliesTo: lines, combinations: lines }] }
        applicableCombinations('ACME\\anna', allowed, lines)
        checkAllowedTags(tags, 'ACME\\anna', allowed, lines, { userCanAppend: true })
      }),
      { numRuns: RUNS },
    )
  })
})

describe('time conversion over any numbers', () => {
  it('gives a start that reads back, within the representable range, or says out of range', () => {
    fc.assert(
      fc.property(
        anyNumber,
        anyNumber,
        anyNumber,
        fc.option(anyNumber, { nil: undefined }),
        fc.constantFrom(...ZONES),
        (date, start, end, durationHint, zone) => {
          const r = sheetTimesToInterval({ date, start, end, durationHint }, zone)
          if (!r.ok) {
            expect(['end-before-start', 'out-of-range']).toContain(r.problem)
            return
          }
          parseOffsetInstant(r.start)
          expect(Number.isSafeInteger(r.duration) && r.duration >= 0).toBe(true)
          // What the Timeline client accepts back from the server (src/timeline/schemas.ts).
          expect(isPlausibleStart(r.start), r.start).toBe(true)
          expect(r.duration).toBeLessThanOrEqual(MAX_ACTIVITY_SECONDS)
        },
      ),
      { numRuns: RUNS },
    )
  })

  it("decides a row whose times each have one instant as ranking every reading does (the common case's shortcut)", () => {
    // Days around the transitions of the zones (and any day), times on the second and off it, with and without a
    // Duration cell and an original start (in the zone's offset or another), so both paths and the border between run.
    const transitionDay = fc.constantFrom(
      '2026-03-08',
      '2026-03-29',
      '2026-04-05',
      '2026-09-27',
      '2026-10-04',
      '2026-10-25',
      '2026-11-01',
      '2011-12-29',
      '2011-12-30',
      '2011-12-31',
      '1972-01-07',
    )
    const date = fc.oneof(
      fc.tuple(transitionDay, fc.integer({ min: -2, max: 2 })).map(([d, k]) => localDateToSerial(d) + k),
      fc.integer({ min: FIRST_DATE_SERIAL, max: LAST_DATE_SERIAL }),
    )
    const fraction = fc.oneof(
      fc.integer({ min: 0, max: 86_399 }).map((s) => s / 86_400),
      fc.integer({ min: 0, max: 95 }).map((q) => q / 96),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
    )
    const end = fc.oneof(
      fraction,
      fc.double({ min: 0, max: 3, noNaN: true }),
      fc.integer({ min: 0, max: 3 * 96 }).map((q) => q / 96),
    )
    const hint = fc.option(
      fc.oneof(
        fraction,
        fc.integer({ min: 0, max: 4 * 96 }).map((q) => q / 96),
      ),
      { nil: undefined },
    )
    const original = fc.option(
      fc.tuple(fc.integer({ min: -2 * 86_400, max: 2 * 86_400 }), fc.option(fc.integer({ min: -720, max: 840 }), { nil: undefined })),
      {
        nil: undefined,
      },
    )
    fc.assert(
      fc.property(date, fraction, end, hint, fc.constantFrom(...ZONES), original, (date, start, end, durationHint, zone, near) => {
        const input = { date, start, end, durationHint }
        let from: { start: string } | undefined
        if (near) {
          const epoch = serialToWallSeconds(date + start) + near[0]
          from = { start: formatOffsetInstant(epoch, near[1] ?? zoneOffsetMinutes(zone, epoch)) }
        }
        let general: unknown
        try {
          general = rankedSheetTimesToInterval(input, zone, from)
        } catch (error) {
          expect(() => sheetTimesToInterval(input, zone, from)).toThrow((error as Error).message)
          return
        }
        expect(sheetTimesToInterval(input, zone, from)).toEqual(general)
      }),
      { numRuns: 3000 },
    )
  })

  it('reads the start it formatted last back as parsing it does, and fingerprints an instant as its text', () => {
    const epoch = fc.integer({ min: Date.UTC(1970, 0, 1) / 1000, max: Date.UTC(2999, 11, 31) / 1000 })
    const offset = fc.oneof(fc.integer({ min: -720, max: 840 }), fc.constantFrom(0, 60, -44.5, 330, 345, 53 + 28 / 60))
    const other = fc.tuple(epoch, offset).map(([e, o]) => formatOffsetInstant(e, o))
    fc.assert(
      fc.property(
        epoch,
        offset,
        other,
        fc.boolean(),
        anyString,
        fc.option(anyString, { nil: undefined }),
        (e, o, earlier, last, user, notes) => {
          const text = formatOffsetInstant(e, o)
          // The text made last, or one made before it (read back the long way).
          const asked = last ? text : earlier
          if (!last) formatOffsetInstant(e + 1, o)
          const parsed = parseOffsetInstant(asked).epochSeconds
          expect(offsetInstantSeconds(asked)).toBe(parsed)
          const activity = { start: asked, duration: 3600, tags: ['Acme Corp', 'Audit', ':billable'], notes }
          expect(fingerprintAt(user, parsed, 3600, activity.tags, notes)).toBe(fingerprintOf({ user, activity }))
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('fingerprints tags already in hierarchy-then-labels order (the shortcut) as it orders any others', () => {
    const tag = fc.oneof(
      anyString,
      anyString.map((t) => `:${t}`),
      fc.constantFrom('Acme', ':billable', ':', ' :x', 'A:b'),
    )
    fc.assert(
      fc.property(fc.array(tag, { maxLength: 8 }), (tags) => {
        const at = (t: readonly string[]) => fingerprintAt('ACME\\anna', 1_774_747_800, 5400, t, 'note')
        expect(at(tags)).toBe(at(combineTags(splitTags(tags))))
      }),
      { numRuns: RUNS },
    )
  })

  it('round-trips an activity through the sheet exactly, across DST and midnight', () => {
    const instant = fc.integer({ min: Date.UTC(1971, 0, 1) / 1000, max: Date.UTC(2100, 0, 1) / 1000 })
    const zone = fc.constantFrom('Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Santiago', 'UTC')
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 3 * 86_400 }), zone, (epoch, duration, timeZone) => {
        const start = formatOffsetInstant(epoch, zoneOffsetMinutes(timeZone, epoch))
        const sheet = activityToSheetTimes(start, duration, timeZone)
        const back = sheetTimesToInterval({ ...sheet, durationHint: sheet.duration }, timeZone, { start })
        expect(back).toMatchObject({ ok: true, duration })
        if (back.ok) expect(parseOffsetInstant(back.start).epochSeconds).toBe(epoch)
      }),
      { numRuns: RUNS },
    )
  })

  it('reads windows and clock jumps on any day without leaving four-digit years', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: FIRST_DATE_SERIAL, max: LAST_DATE_SERIAL }),
        fc.integer({ min: 1, max: 60 }),
        fc.constantFrom(...ZONES),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (serial, days, zone, hour) => {
          for (const w of chunkWindows(zone, serialToLocalDate(serial), days)) {
            expect(parseOffsetInstant(w.from).epochSeconds).toBeLessThan(parseOffsetInstant(w.to).epochSeconds)
          }
          const jump = clockJumpAt(zone, (serial - 25_569) * 86_400 + Math.round(hour * 86_400))
          if (jump) expect(jump.from).toMatch(/^\d\d:\d\d/)
        },
      ),
      { numRuns: 200 },
    )
  })
})
