/**
 * Arguments are checked in one place (`src/core/options.ts`): the numbers of the transport, the retry loop and
 * the pace, column indexes and letters, entity ids, the vendor token, the times of a read. A value refused there
 * is a caller's bug, coded TS_INTERNAL, and says which argument, what was expected and what was received.
 * (test/errors.test.ts checks that src makes no bare TypeError instead.)
 */
import { describe, expect, it } from 'vitest'
import { toCliFailure } from '../../src/cli/errors.ts'
import { columnLetters } from '../../src/core/columns.ts'
import { checkOption, OptionError } from '../../src/core/options.ts'
import { columnIndex } from '../../src/sheets/google/a1.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { createPace } from '../../src/http/pace.ts'
import { retryOptions } from '../../src/http/retry.ts'
import { resolveTimeouts } from '../../src/http/transport.ts'

function refusal(make: () => unknown): OptionError {
  try {
    make()
  } catch (error) {
    expect(error).toBeInstanceOf(OptionError)
    return error as OptionError
  }
  throw new Error('expected an OptionError')
}

describe('the arguments of the tool', () => {
  it('refuse a timeout that is not a finite number > 0, naming it and what it got', () => {
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '30' as unknown as number]) {
      const error = refusal(() => resolveTimeouts({ firstByteMs: value }))
      expect(error).toMatchObject({ code: 'TS_INTERNAL', option: 'firstByteMs', rule: 'a finite number > 0' })
      const shown = typeof value === 'string' ? `"${value}"` : `\`${String(value)}\``
      expect(error.message).toBe(`Expected \`firstByteMs\` to be a finite number > 0, got ${shown} (${typeof value})`)
    }
    expect(resolveTimeouts({ firstByteMs: 1 }).firstByteMs).toBe(1)
  })

  it('refuse a retry setting that is not a finite number >= 0', () => {
    expect(refusal(() => retryOptions({ baseDelay: -1 }))).toMatchObject({ code: 'TS_INTERNAL', option: 'baseDelay' })
    expect(refusal(() => retryOptions({ limit: Number.NaN }))).toMatchObject({ option: 'limit', rule: 'a finite number >= 0' })
    expect(retryOptions({ limit: 0, baseDelay: 0, jitter: 0 })).toMatchObject({ limit: 0, baseDelay: 0, jitter: 0 })
  })

  it('refuse a pace p-queue would refuse, with a code instead of p-queue’s bare TypeError', () => {
    expect(refusal(() => createPace({ concurrency: 0 }))).toMatchObject({ option: 'concurrency', rule: 'an integer >= 1' })
    expect(refusal(() => createPace({ concurrency: 1.5 }))).toMatchObject({ option: 'concurrency' })
    expect(refusal(() => createPace({ intervalCap: 0 }))).toMatchObject({ option: 'intervalCap', rule: 'an integer >= 1 or Infinity' })
    expect(refusal(() => createPace({ intervalCap: 2.5 }))).toMatchObject({ option: 'intervalCap' })
    for (const interval of [-1, 0, 2 ** 31]) {
      expect(refusal(() => createPace({ intervalCap: 2, interval }))).toMatchObject({ option: 'interval' })
    }
    expect(() => createPace({ concurrency: 1, intervalCap: 2, interval: 1 })).not.toThrow()
    expect(() => createPace({ intervalCap: Number.POSITIVE_INFINITY, interval: 0 })).not.toThrow()
    expect(() => createPace()).not.toThrow()
  })

  it('end a run as the bug they are, with the bug hint', () => {
    const failure = toCliFailure(refusal(() => createPace({ concurrency: 0 })))
    expect(failure).toMatchObject({ exitCode: 1, code: 'TS_INTERNAL' })
    expect(failure.hint).toMatch(/bug in timeline-sheets/)
  })

  it('refuse a column index, column letters and a vendor token they cannot use, naming each', () => {
    expect(refusal(() => columnLetters(-1))).toMatchObject({ option: 'index', rule: 'an integer >= 0' })
    expect(refusal(() => columnLetters(1.5))).toMatchObject({ option: 'index' })
    expect(refusal(() => columnIndex('A1')).message).toBe('Expected `letters` to be column letters such as AB, got "A1" (string)')
    expect(refusal(() => vendorIdentifiers('ManicTime'))).toMatchObject({ option: 'vendor', rule: 'a lower-case token such as manictime' })
    expect([columnLetters(0), columnIndex('ab'), vendorIdentifiers('service').token]).toEqual(['A', 27, 'service'])
  })

  it('refuse an id beyond the safe integers and a time without seconds or offset', () => {
    expect(refusal(() => checkOption('entityId', 2 ** 53, 'a safe integer'))).toMatchObject({ option: 'entityId' })
    expect(() => checkOption('entityId', 2 ** 53 - 1, 'a safe integer')).not.toThrow()
    const rule = 'an ISO 8601 date-time with seconds and an explicit offset'
    for (const value of ['2026-03-29', '2026-03-29T00:00:00', '2026-03-29T00:00+01:00', 20260329]) {
      expect(refusal(() => checkOption('from', value, rule))).toMatchObject({ option: 'from', rule })
    }
    for (const value of ['2026-03-29T00:00:00Z', '2026-03-29T00:00:00.5+01:00', '2026-03-29T00:00:00-05:30']) {
      expect(() => checkOption('from', value, rule)).not.toThrow()
    }
  })
})
