/**
 * The one check of the numbers the transport, the retry loop and the pace are built with. They come from the
 * config, which zod has checked already, or from the code itself: a value refused here is a caller's bug, so it
 * is `TS_INTERNAL` with the bug hint, and the message says what was expected and what was received, as
 * p-queue's and ky's do.
 */
import { TimelineSheetsError } from '../errors.ts'

const RULES = {
  'a finite number > 0': (value: number) => Number.isFinite(value) && value > 0,
  'a finite number >= 0': (value: number) => Number.isFinite(value) && value >= 0,
  'an integer >= 1': (value: number) => Number.isInteger(value) && value >= 1,
  'an integer >= 1 or Infinity': (value: number) => value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 1),
  // Node's timers fire after 1 ms for a longer delay.
  'a number of milliseconds from 1 to 2147483647': (value: number) => value >= 1 && value <= 2_147_483_647,
} as const

/** What an option must be, in the words its error uses. */
export type OptionRule = keyof typeof RULES

/** An option of the transport, the retry loop or the pace that its rule refuses. */
export class OptionError extends TimelineSheetsError {
  readonly option: string
  readonly rule: OptionRule

  constructor(option: string, rule: OptionRule, value: unknown) {
    super('TS_INTERNAL', `Expected \`${option}\` to be ${rule}, got \`${String(value)}\` (${typeof value})`, {
      hint: 'This is a bug in timeline-sheets. Run again with --verbose and report the output (it contains no secrets).',
    })
    this.option = option
    this.rule = rule
  }
}

/** Throws an `OptionError` for the first of `keys` whose value `rule` refuses. */
export function checkOptions<T extends object>(options: T, keys: readonly (keyof T & string)[], rule: OptionRule): void {
  for (const key of keys) {
    const value: unknown = options[key]
    if (typeof value !== 'number' || !RULES[rule](value)) throw new OptionError(key, rule, value)
  }
}
