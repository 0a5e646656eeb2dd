/**
 * Issue 10: `parseOffsetInstant` reads the plain forms (`2026-03-29T01:30:00+01:00`, `…Z`) without its
 * regular expression. A leading space sends the same text through the regular expression (it trims),
 * so the two readings are compared on every generated text.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseOffsetInstant } from '../../src/core/time.ts'

const two = (n: number) => String(n).padStart(2, '0')

describe('issue 10: parseOffsetInstant without the regular expression', () => {
  it('reads every plain form as the regular expression does', () => {
    fc.assert(
      fc.property(
        fc.record({
          year: fc.integer({ min: 0, max: 9999 }),
          month: fc.integer({ min: 0, max: 99 }),
          day: fc.integer({ min: 0, max: 99 }),
          hour: fc.integer({ min: 0, max: 99 }),
          minute: fc.integer({ min: 0, max: 99 }),
          second: fc.integer({ min: 0, max: 99 }),
          offset: fc.option(fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }))),
        }),
        (t) => {
          const wall = `${String(t.year).padStart(4, '0')}-${two(t.month)}-${two(t.day)}T${two(t.hour)}:${two(t.minute)}:${two(t.second)}`
          const text = t.offset ? `${wall}${t.offset[0]}${two(t.offset[1])}:${two(t.offset[2])}` : `${wall}Z`
          expect(parseOffsetInstant(text)).toEqual(parseOffsetInstant(` ${text}`))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('still refuses texts of the plain lengths that are not date-times', () => {
    for (const text of [
      '2026-03-29T01:30:00+01-00',
      '2026-03-29T01:30:0a+01:00',
      '2026-03-29 01:30:00Z',
      '2026/03/29T01:30:00Z',
      '2026-03-29T01:30:00X',
    ]) {
      expect(() => parseOffsetInstant(text), text).toThrow(/is not an ISO 8601 date-time/)
    }
  })
})
