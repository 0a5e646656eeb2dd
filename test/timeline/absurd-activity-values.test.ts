/**
 * Absurd values from the Timeline API: a hostile or
 * broken server's activities are refused at the boundary with the URL and
 * the field, instead of flowing into the sheet (a start in the 13th month was
 * exported as if it were a date).
 */
import { describe, expect, test } from 'vitest'
import { ResponseShapeError } from '../../src/errors.ts'
import { processActivitiesResponse } from '../../src/timeline/client.ts'
import { isPlausibleStart } from '../../src/timeline/plausible-start.ts'
import { MAX_ACTIVITY_SECONDS } from '../../src/timeline/schemas.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { activityEntities, BASE, timelineBody } from './fixtures.ts'

const URL_ = `${BASE}/api/timelines/k/activities?fromTime=2026-03-01T00:00:00Z&toTime=2026-04-01T00:00:00Z`

function read(timeInterval: Record<string, unknown>) {
  return () =>
    processActivitiesResponse(URL_, vendorIdentifiers(), { ...timelineBody(), entities: activityEntities(1, ['A'], { timeInterval }) })
}

describe('activity values outside what a working day can be', () => {
  test.each([
    ['9999-12-31T23:00:00+01:00', 'the year 9999'],
    ['1969-12-31T23:00:00Z', 'before 1970'],
    ['2026-13-01T10:00:00+01:00', 'a 13th month'],
    ['2026-02-29T10:00:00Z', '29 February of a common year'],
    ['2026-03-29T24:00:00Z', 'hour 24'],
    ['2026-03-29T10:60:00Z', 'minute 60'],
    ['2026-03-29T10:00:00+25:00', 'an offset of 25 hours'],
  ])('start %s (%s) is refused, naming the field', (start) => {
    expect(read({ start, duration: 60 })).toThrow(ResponseShapeError)
    expect(read({ start, duration: 60 })).toThrow(
      /entities\[0\]\.values\.timeInterval\.start expected a real date and time between 1970 and 2999/,
    )
  })

  test.each([['2026-03-29T01:30:00+01:00'], ['2028-02-29T10:00:00Z'], ['2026-03-29T01:30:00.125-05:30'], ['2026-03-29T01:30+0100']])(
    'start %s is accepted',
    (start) => {
      expect(isPlausibleStart(start)).toBe(true)
      expect(read({ start, duration: 60 })).not.toThrow()
    },
  )

  test.each([[-1], [MAX_ACTIVITY_SECONDS + 1], [1e300], [1.5]])('duration %d is refused', (duration) => {
    expect(read({ start: '2026-03-29T01:30:00+01:00', duration })).toThrow(/timeInterval\.duration/)
  })

  test('a duration of a year is still accepted', () => {
    expect(read({ start: '2026-03-29T01:30:00+01:00', duration: MAX_ACTIVITY_SECONDS })).not.toThrow()
  })
})
