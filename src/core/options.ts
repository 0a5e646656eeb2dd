/**
 * The one check of the arguments a function is built or called with: the numbers of the transport, the retry
 * loop and the pace, a column index or letters, an entity id, a vendor token, a time of a read. They come from
 * the config, which zod has checked already, or from the code itself: a value refused here is a caller's bug, so
 * it is `TS_INTERNAL` with the bug hint, and the message says which argument, what was expected and what was
 * received, as p-queue's and ky's do.
 */
import { BUG_HINT, TimelineSheetsError } from '../errors.ts'

const isNumber = (test: (value: number) => boolean) => (value: unknown) => typeof value === 'number' && test(value)
const isText = (pattern: RegExp) => (value: unknown) => typeof value === 'string' && pattern.test(value)

const RULES = {
  'a finite number > 0': isNumber((value) => Number.isFinite(value) && value > 0),
  'a finite number >= 0': isNumber((value) => Number.isFinite(value) && value >= 0),
  'an integer >= 0': isNumber((value) => Number.isInteger(value) && value >= 0),
  'an integer >= 1': isNumber((value) => Number.isInteger(value) && value >= 1),
  'an integer >= 1 or Infinity': isNumber((value) => value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 1)),
  // Node's timers fire after 1 ms for a longer delay.
  'a number of milliseconds from 1 to 2147483647': isNumber((value) => value >= 1 && value <= 2_147_483_647),
  // Beyond 2^53 two ids read as the same number.
  'a safe integer': isNumber(Number.isSafeInteger),
  'column letters such as AB': isText(/^[A-Za-z]+$/),
  'a lower-case token such as manictime': isText(/^[a-z][a-z0-9-]*$/),
  // The Timeline API's fromTime and toTime: without an offset the server would read the server's own zone.
  'an ISO 8601 date-time with seconds and an explicit offset': isText(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/),
} as const

/** What an argument must be, in the words its error uses. */
export type OptionRule = keyof typeof RULES

/** An argument its rule refuses: a caller's bug. */
export class OptionError extends TimelineSheetsError {
  readonly option: string
  readonly rule: OptionRule

  constructor(option: string, rule: OptionRule, value: unknown) {
    const shown = typeof value === 'string' ? JSON.stringify(value) : `\`${String(value)}\``
    super('TS_INTERNAL', `Expected \`${option}\` to be ${rule}, got ${shown} (${typeof value})`, { hint: BUG_HINT })
    this.option = option
    this.rule = rule
  }
}

/** Throws an `OptionError` when `rule` refuses `value`, the argument called `option`. */
export function checkOption(option: string, value: unknown, rule: OptionRule): void {
  if (!RULES[rule](value)) throw new OptionError(option, rule, value)
}

/** Throws an `OptionError` for the first of `keys` whose value `rule` refuses. */
export function checkOptions<T extends object>(options: T, keys: readonly (keyof T & string)[], rule: OptionRule): void {
  for (const key of keys) checkOption(key, options[key], rule)
}
