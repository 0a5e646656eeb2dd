/**
 * The transport, the retry loop and the pace check their numbers in one place (`src/http/options.ts`): a value
 * refused there is a caller's bug, coded TS_INTERNAL, and says what was expected and what was received.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { toCliFailure } from '../../src/cli/errors.ts'
import { OptionError } from '../../src/http/options.ts'
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

describe('the options of the transport, the retry loop and the pace', () => {
  it('refuse a timeout that is not a finite number > 0, naming it and what it got', () => {
    for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '30' as unknown as number]) {
      const error = refusal(() => resolveTimeouts({ firstByteMs: value }))
      expect(error).toMatchObject({ code: 'TS_INTERNAL', option: 'firstByteMs', rule: 'a finite number > 0' })
      expect(error.message).toBe(`Expected \`firstByteMs\` to be a finite number > 0, got \`${String(value)}\` (${typeof value})`)
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

  it('are checked nowhere else in src/http: no hand-written TypeError there', () => {
    const folder = path.resolve(import.meta.dirname, '../../src/http')
    const files = readdirSync(folder).filter((name) => name.endsWith('.ts'))
    expect(files).toEqual(expect.arrayContaining(['transport.ts', 'retry.ts', 'pace.ts', 'options.ts']))
    const throwing = files.filter((name) => /new TypeError\(/.test(readFileSync(path.join(folder, name), 'utf8')))
    expect(throwing).toEqual([])
  })
})
