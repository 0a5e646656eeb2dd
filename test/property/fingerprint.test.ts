/**
 * The fingerprint's shortcuts against their definition: FNV-1a 64 over the UTF-8 bytes (TextEncoder's) of
 * JSON.stringify([1, user, instant, duration, tags, notes]), as a BigInt computes it byte by byte. The digest is
 * hashed in 16-bit limbs, part by part, without making the text: any text, any values must give the same Base.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fingerprint, fingerprintAt, fnv1a64Base64url, normaliseSyncedValues } from '../../src/core/fingerprint.ts'
import { combineTags, splitTags } from '../../src/core/tags.ts'
import { formatOffsetInstant } from '../../src/core/instant.ts'

const RUNS = 2_000

function referenceDigest(text: string): string {
  let hash = 0xcbf29ce484222325n
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn
  return Buffer.from(hash.toString(16).padStart(16, '0'), 'hex').toString('base64url')
}

/** The normalised text as the fingerprint defines it. */
function referenceText(user: string, epochSeconds: number, duration: number, tags: readonly string[], notes: string | undefined): string {
  return JSON.stringify([1, user.trim(), epochSeconds, duration, combineTags(splitTags(tags)), (notes ?? '').replace(/\r\n?/g, '\n')])
}

/**
 * Text of every kind: ASCII (JSON's quotes, backslashes and control characters often), any UTF-16 code unit (lone
 * surrogates included), astral characters as pairs, and the line breaks notes normalise.
 */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', '\\', '\r', '\n', '\r\n', '\u0000', '\u001f', '\u007f', ':', ',', ' ', 'a', 'Ä', '€', '😀', '\ud800', '\udfff'),
    fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  ),
  maxLength: 30,
})
/** Numbers of every kind, the integers a start or a duration is far more often. */
const anyNumber = fc.oneof(
  fc.integer({ min: -4_000_000_000, max: 300_000_000_000 }),
  fc.constantFrom(0, -0, 1, -1, 9, 10, 99, 100, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, NaN, Infinity),
  fc.double(),
)
const anyTags = fc.array(
  fc.oneof(
    anyText,
    anyText.map((t) => `:${t}`),
  ),
  { maxLength: 6 },
)

describe('fingerprint shortcuts', () => {
  it('fnv1a64Base64url is FNV-1a 64 over TextEncoder bytes, for any text', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(fnv1a64Base64url(text)).toBe(referenceDigest(text))
      }),
      { numRuns: RUNS },
    )
  })

  it('fingerprintAt digests the JSON text of the values, without making it', () => {
    fc.assert(
      fc.property(anyText, anyNumber, anyNumber, anyTags, fc.option(anyText, { nil: undefined }), (user, at, duration, tags, notes) => {
        expect(fingerprintAt(user, at, duration, tags, notes)).toBe(referenceDigest(referenceText(user, at, duration, tags, notes)))
        // A frozen list (its JSON kept for the next row) digests as a fresh one.
        const frozen = Object.freeze([...tags])
        expect(fingerprintAt(user, at, duration, frozen, notes)).toBe(fingerprintAt(user, at, duration, [...tags], notes))
        expect(fingerprintAt(user, at, duration, frozen, notes)).toBe(referenceDigest(referenceText(user, at, duration, tags, notes)))
      }),
      { numRuns: RUNS },
    )
  })

  it('fingerprint and normaliseSyncedValues agree with the definition for any start text', () => {
    fc.assert(
      fc.property(
        anyText,
        fc.integer({ min: 0, max: 253_402_300_000 - 1 }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        anyNumber,
        anyTags,
        fc.option(anyText, { nil: undefined }),
        (user, at, offset, duration, tags, notes) => {
          let start: string
          try {
            start = formatOffsetInstant(at, offset)
          } catch {
            return
          }
          const values = { user, start, duration, tags, notes }
          expect(normaliseSyncedValues(values)).toBe(referenceText(user, at, duration, tags, notes))
          expect(fingerprint(values)).toBe(referenceDigest(referenceText(user, at, duration, tags, notes)))
        },
      ),
      { numRuns: RUNS },
    )
  })
})
