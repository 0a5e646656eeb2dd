/**
 * Properties of the range planner. Whatever a server refuses, the
 * ranges answered cover the window exactly once, in order, and a range is
 * split only when it was refused.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readRanges, within } from '../../src/core/read-ranges.ts'
import { mergeRanges, MIN_SPLIT_SECONDS, planRangeReads } from '../../src/core/read-ranges.ts'
import { chunkWindows, type TimeWindow } from '../../src/core/windows.ts'
import { formatOffsetInstant, parseOffsetInstant } from '../../src/core/instant.ts'

const RUNS = 300
const seconds = (bound: string) => parseOffsetInstant(bound).epochSeconds

/** A window of 1 hour to 400 days from 2020–2030, its bounds in one offset. */
const anyWindow = fc
  .record({
    from: fc.integer({ min: 1_577_836_800, max: 1_893_456_000 }),
    length: fc.integer({ min: 3_600, max: 400 * 86_400 }),
    offsetMinutes: fc.constantFrom(0, 60, 120, -300, 330, 345, -570),
  })
  .map(({ from, length, offsetMinutes }) => ({
    from: formatOffsetInstant(from, offsetMinutes),
    to: formatOffsetInstant(from + length, offsetMinutes),
  }))

/** A server's refusals: ranges longer than a maximum, plus arbitrary ones (a flaky server). */
const anyServer = fc.record({
  maxSeconds: fc.option(fc.integer({ min: 3_600, max: 200 * 86_400 }), { nil: undefined }),
  extra: fc.array(fc.boolean(), { maxLength: 40 }),
})

interface Outcome {
  answered: TimeWindow[]
  asked: TimeWindow[]
  refusals: number
  splits: number
  gaveUp: boolean
}

function drive(window: TimeWindow, server: { maxSeconds: number | undefined; extra: boolean[] }): Outcome {
  const plan = planRangeReads(window)
  const extra = [...server.extra]
  const out: Outcome = { answered: [], asked: [], refusals: 0, splits: 0, gaveUp: false }
  for (let range = plan.next(); range; range = plan.next()) {
    out.asked.push(range)
    if (out.asked.length > 10_000) throw new Error('the plan does not end')
    const length = seconds(range.to) - seconds(range.from)
    const refused = (server.maxSeconds !== undefined && length > server.maxSeconds) || extra.shift() === true
    if (!refused) {
      plan.answered()
      out.answered.push(range)
      continue
    }
    out.refusals++
    if (!plan.refused()) {
      out.gaveUp = true
      break
    }
    out.splits++
  }
  expect(out.answered).toEqual(plan.answeredRanges)
  return out
}

describe('the range planner', () => {
  it('answered ranges cover the window once, in order, with no gap and no overlap', () => {
    fc.assert(
      fc.property(anyWindow, anyServer, (window, server) => {
        const out = drive(window, server)
        if (out.gaveUp) return
        expect(out.answered[0]!.from).toBe(window.from)
        expect(out.answered[out.answered.length - 1]!.to).toBe(window.to)
        for (let i = 1; i < out.answered.length; i++) expect(out.answered[i]!.from).toBe(out.answered[i - 1]!.to)
        for (const r of out.answered) expect(seconds(r.to)).toBeGreaterThan(seconds(r.from))
      }),
      { numRuns: RUNS },
    )
  })

  it('splits only on a refusal: a server that refuses nothing is asked once, for the whole window', () => {
    fc.assert(
      fc.property(anyWindow, anyServer, (window, server) => {
        const out = drive(window, server)
        expect(out.splits).toBe(out.refusals - (out.gaveUp ? 1 : 0))
        expect(out.asked.length).toBe(out.answered.length + out.refusals)
        if (out.refusals === 0) expect(out.asked).toEqual([window])
      }),
      { numRuns: RUNS },
    )
  })

  it('halves a refused range in the middle, and gives up only on a range of a day or less', () => {
    fc.assert(
      fc.property(anyWindow, (window) => {
        const plan = planRangeReads(window)
        const range = plan.next()!
        const length = seconds(range.to) - seconds(range.from)
        if (!plan.refused()) {
          expect(length).toBeLessThanOrEqual(MIN_SPLIT_SECONDS)
          return
        }
        const first = plan.next()!
        expect(first.from).toBe(window.from)
        expect(Math.abs(2 * (seconds(first.to) - seconds(first.from)) - length)).toBeLessThanOrEqual(1)
      }),
      { numRuns: RUNS },
    )
  })

  it('a server with a maximum gets ranges within it, in as few reads as halving gives', () => {
    fc.assert(
      fc.property(anyWindow, fc.integer({ min: 86_400, max: 100 * 86_400 }), (window, maxSeconds) => {
        const out = drive(window, { maxSeconds, extra: [] })
        expect(out.gaveUp).toBe(false)
        for (const r of out.answered) expect(seconds(r.to) - seconds(r.from)).toBeLessThanOrEqual(maxSeconds)
        const length = seconds(window.to) - seconds(window.from)
        // Halving k times gives parts of at most ceil(length / 2^k) seconds: no more reads than the first k that fits.
        let depth = 0
        while (Math.ceil(length / 2 ** depth) > maxSeconds) depth++
        expect(out.answered.length).toBeLessThanOrEqual(2 ** depth)
      }),
      { numRuns: RUNS },
    )
  })
})

/** Every zone the runtime knows, and the local date of an instant there, by Intl and nothing of the tool's. */
const EVERY_ZONE = Intl.supportedValuesOf('timeZone')
const dateFormats = new Map<string, Intl.DateTimeFormat>()
function localDateIn(timeZone: string, iso: string): string {
  let format = dateFormats.get(timeZone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    dateFormats.set(timeZone, format)
  }
  const part = (type: string) => format.formatToParts(new Date(iso)).find((p) => p.type === type)!.value
  return `${part('year')}-${part('month')}-${part('day')}`
}

/** A window of whole local days holds a date when the date is on or after its first day and before the day its end starts. */
function holdsDate(window: TimeWindow, date: string, timeZone: string): boolean {
  return localDateIn(timeZone, window.from) <= date && date < localDateIn(timeZone, window.to)
}

const START = Date.UTC(2026, 0, 5)
const dateAt = (offset: number) => new Date(START + offset * 86_400_000).toISOString().slice(0, 10)

describe('whether a day lies in a window', () => {
  it("agrees with the window's local dates, in every zone, across a year of changes of offset", () => {
    const days = fc.record({ start: fc.integer({ min: -200, max: 300 }), length: fc.integer({ min: 1, max: 40 }) })
    for (const timeZone of EVERY_ZONE) {
      fc.assert(
        fc.property(days, ({ start, length }) => {
          const fromDate = dateAt(start)
          chunkWindows(timeZone, fromDate, length, 7).forEach((week, i) => {
            // The week's days and two on either side of it.
            for (let d = start + 7 * i - 2; d < start + 7 * i + 9; d++)
              expect(within(dateAt(d), week, timeZone), `${timeZone} ${dateAt(d)} in ${week.from}`).toBe(
                holdsDate(week, dateAt(d), timeZone),
              )
          })
        }),
        { numRuns: 4 },
      )
    }
  })
})

/**
 * What an import reads of one timeline (`readRanges`): the weeks of its edited
 * days, and within the window one run of weeks from the first edited week to
 * the last, so a timeline costs one request there however its edits scatter.
 */
describe('the weeks an import reads', () => {
  // Half the cases in zones 11 hours or more from UTC, where a day's instants fall on other dates in UTC.
  const farFromUtc = EVERY_ZONE.filter((timeZone) => {
    const offset = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(START)
      .find((p) => p.type === 'timeZoneName')!.value
    return /^GMT[+-]1[1-4]/.test(offset)
  })
  const anyCase = fc.record({
    timeZone: fc.oneof(fc.constantFrom(...EVERY_ZONE), fc.constantFrom(...farFromUtc)),
    days: fc.integer({ min: 1, max: 120 }),
    // Edited days inside the window and up to a year on either side of it.
    offsets: fc.uniqueArray(fc.integer({ min: -365, max: 485 }), { maxLength: 12 }),
    full: fc.boolean(),
  })

  it('every edited day lies in a week read; inside the window the weeks read are one run, from the first edited week to the last', () => {
    fc.assert(
      fc.property(anyCase, ({ timeZone, days, offsets, full }) => {
        const fromDate = dateAt(0)
        const dates = new Set(offsets.map(dateAt))
        const chunks = readRanges(timeZone, fromDate, days, dates, full)
        for (const d of dates)
          expect(
            chunks.some((c) => holdsDate(c, d, timeZone)),
            d,
          ).toBe(true)
        const window = chunkWindows(timeZone, fromDate, days, 7)
        const inWindow = chunks.filter((c) => window.some((w) => w.from === c.from && w.to === c.to))
        const edited = window.map((w) => [...dates].some((d) => holdsDate(w, d, timeZone)))
        const first = full ? 0 : edited.indexOf(true)
        const last = full ? window.length - 1 : edited.lastIndexOf(true)
        expect(inWindow).toEqual(first < 0 ? [] : window.slice(first, last + 1))
        expect(mergeRanges(inWindow).length).toBeLessThanOrEqual(1)
        // Outside the window: only weeks around an edited day there, never a run across the gap.
        for (const c of chunks.filter((x) => !inWindow.includes(x)))
          expect(
            [...dates].some((d) => holdsDate(c, d, timeZone)),
            `${c.from} holds no edited day`,
          ).toBe(true)
      }),
      { numRuns: RUNS },
    )
  })
})
