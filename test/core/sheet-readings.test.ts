/** Telling a row's Key without reading the row: the same Key `readRow` reads, for any text. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseActivityKey } from '../../src/core/activity-key.ts'
import { keyReader } from '../../src/core/sheet-readings.ts'
import { USERS } from './fixtures.ts'

const head = fc.oneof(fc.constantFrom('tl-anna', 'tl-ben', 'tl-x', 'a b', '', ' tl-anna', 'tl/anna'), fc.string({ maxLength: 6 }))
const tail = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom('007', '0', '-0', '1e3', '0x10', '-1', '1.5', ' 1', '1 ', '', '9007199254740993', '12/3'),
  fc.string({ maxLength: 4 }),
)
const text = fc.oneof(
  fc.tuple(head, tail).map(([h, t]) => `${h}/${t}`),
  fc.string({ maxLength: 12 }),
)

describe('a Key told without reading its row', () => {
  it('is the Key readRow reads, or none where it reads none', () => {
    // A timeline's first Key may not be one (tl-ben/-1); the next of that timeline still is (tl-ben/0).
    const read = keyReader(USERS)
    expect(read('tl-ben/-1')).toBeUndefined()
    expect(read('tl-ben/0')).toEqual({ text: 'tl-ben/0', timelineKey: 'tl-ben', entityId: 0 })
    fc.assert(
      fc.property(fc.array(text, { maxLength: 20 }), (texts) => {
        const read = keyReader(USERS)
        for (const t of texts) {
          const parsed = t.trim() === t ? parseActivityKey(t) : undefined
          expect(read(t)).toEqual(parsed && { text: t, timelineKey: parsed.timelineKey, entityId: parsed.entityId })
        }
      }),
      { numRuns: 1000 },
    )
  })
})
