import { describe, expect, it } from 'vitest'
import { everyToCron } from '../../src/cli/commands/sync.ts'
import { parseMaxDelete } from '../../src/cli/commands/import.ts'

describe('--every', () => {
  it.each([
    ['15m', '*/15 * * * *'],
    ['30min', '*/30 * * * *'],
    ['1h', '0 */1 * * *'],
    ['6h', '0 */6 * * *'],
    ['1d', '0 2 * * *'],
  ])('%s runs as %s', (every, cron) => {
    expect(everyToCron(every)).toBe(cron)
  })

  it.each([
    ['7m', /minutes must divide an hour/],
    ['5h', /hours must divide a day/],
    ['2d', /use --cron/],
    ['soon', /not understood/],
    ['0m', /at least 1/],
  ])('refuses %s and says what works', (every, message) => {
    expect(() => everyToCron(every)).toThrow(message)
  })
})

describe('--max-delete', () => {
  it('takes a share or a count, and nothing else', () => {
    expect(parseMaxDelete('30%')).toEqual({ maxDeletePercent: 30 })
    expect(parseMaxDelete('500')).toEqual({ maxDeleteCount: 500 })
    expect(parseMaxDelete(undefined)).toEqual({})
    expect(() => parseMaxDelete('lots')).toThrow(/neither a share like 30% nor a count like 500/)
  })
})
