/**
 * Header names are compared as the collator compares them (case overlooked, accents not); printable ASCII
 * takes a shortcut without one. The shortcut must give the collator's answer for every pair.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { columnIndex } from '../../src/core/columns.ts'

const collator = new Intl.Collator('en', { sensitivity: 'accent' })
const collatorSays = (a: string, b: string) => collator.compare(a.trim(), b) === 0

/** Printable ASCII, with the letters of a header name weighted in so that near misses come up often. */
const printable = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...'NnOoTtEeSs _-.'),
    fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 8,
})
/** A variant of `name`: some letters in the other case, sometimes one character changed. */
const variantOf = (name: string) =>
  fc.tuple(fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }), fc.option(fc.nat())).map(([flips, change]) => {
    const flipped = [...name].map((c, i) => (flips[i] ? (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) : c)).join('')
    if (change === null || flipped.length === 0) return flipped
    const at = change % flipped.length
    return `${flipped.slice(0, at)}${String.fromCharCode(0x20 + ((flipped.charCodeAt(at) - 0x20 + 1) % 95))}${flipped.slice(at + 1)}`
  })

describe('header names compared as the collator compares them', () => {
  it('printable ASCII: the shortcut agrees with the collator', () => {
    fc.assert(
      fc.property(
        printable.chain((name) => fc.tuple(fc.constant(name), fc.oneof(variantOf(name), printable))),
        ([name, cell]) => {
          expect(columnIndex([cell], name) === 0).toBe(collatorSays(cell, name))
        },
      ),
      { numRuns: 5_000 },
    )
  })

  it('anything else goes to the collator: accents count, case does not, ignorable characters are ignored', () => {
    expect(columnIndex(['NOTES'], 'Notes')).toBe(0)
    expect(columnIndex(['Notés'], 'Notes')).toBe(-1)
    expect(columnIndex(['NOTÉS'], 'Notés')).toBe(0)
    expect(columnIndex(['No\u200Btes'], 'Notes')).toBe(collatorSays('No\u200Btes', 'Notes') ? 0 : -1)
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 6 }), (cell, name) => {
        expect(columnIndex([cell], name) === 0).toBe(collatorSays(cell, name))
      }),
      { numRuns: 3_000 },
    )
  })
})
