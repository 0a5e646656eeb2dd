/**
 * The too-many-deletes guard names the rule that fired (the share of the rows, the count cap, or
 * both) and suggests `--max-delete` flags that pass: following the suggestion, whatever limits were given
 * before, never stops at the same guard again (a guard that says "3% > 4%" hides that the 200-row cap fired).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runGuards, type GuardFailure, type GuardOptions } from '../../src/core/guards.ts'
import type { DecisionKind, SyncPlan } from '../../src/core/plan.ts'
import { parseMaxDelete } from '../../src/cli/commands/import.ts'

function planOf(serverDeletes: number, missingDeletes: number, sheetRemoves: number): SyncPlan {
  const counts = { 'import-delete': serverDeletes, 'import-delete-missing': missingDeletes, 'export-remove': sheetRemoves }
  return { decisions: [], counts: counts as Record<DecisionKind, number> }
}

const deleteStops = (plan: SyncPlan, baseCount: number, options: GuardOptions): GuardFailure[] =>
  runGuards(plan, { headerProblems: [], sheetRowCount: Math.max(baseCount, 1), keyedRowCount: baseCount, baseCount }, options).filter(
    (f) => f.guard === 'too-many-deletes',
  )

/** The flag values a stop suggests, as the operator would type them. */
function suggested(failure: GuardFailure): string[] {
  const flags = /run with (.+) \(or --force\)/.exec(failure.message)?.[1]
  expect(flags, failure.message).toBeDefined()
  return [...flags!.matchAll(/--max-delete (\S+)/g)].map((m) => m[1]!)
}

describe('the delete guard', () => {
  it('names the count cap when it fired (not the share), and its suggestion passes', () => {
    const plan = planOf(210, 0, 0)
    const [stop] = deleteStops(plan, 7000, {})
    expect(stop!.message).toContain('(210 of 7000, more than the 200 deletions one run may make)')
    expect(stop!.message).not.toContain('% >')
    expect(suggested(stop!)).toEqual(['210'])
    expect(deleteStops(plan, 7000, parseMaxDelete(suggested(stop!)))).toEqual([])
    // A share cannot lift the count cap, whatever share is given.
    expect(deleteStops(plan, 7000, parseMaxDelete('4%'))).toHaveLength(1)
  })

  it('names the share when it fired, and suggests it', () => {
    const [stop] = deleteStops(planOf(3, 0, 0), 4, {})
    expect(stop!.message).toContain('(3 of 4, 75% > 50% of the rows)')
    expect(suggested(stop!)).toEqual(['75%'])
  })

  it('names both when both fired, and suggests both', () => {
    const plan = planOf(300, 0, 0)
    const [stop] = deleteStops(plan, 400, {})
    expect(stop!.message).toContain('75% > 50% of the rows, and more than the 200 deletions one run may make')
    expect(suggested(stop!)).toEqual(['75%', '300'])
    expect(deleteStops(plan, 400, parseMaxDelete(suggested(stop!)))).toEqual([])
  })

  it('a limit the operator tightened: the suggestion is in the form of the rule that fired', () => {
    const [stop] = deleteStops(planOf(15, 0, 0), 100, parseMaxDelete('10%'))
    expect(suggested(stop!)).toEqual(['15%'])
    const [count] = deleteStops(planOf(6, 0, 0), 1000, parseMaxDelete('5'))
    expect(suggested(count!)).toEqual(['6'])
  })

  it('more deletions than the rows the last run left (a shrunk counterexample): the share over 100% is suggested as it is', () => {
    const plan = planOf(0, 0, 3)
    const [stop] = deleteStops(plan, 0, {})
    expect(suggested(stop!)).toEqual(['300%'])
    expect(deleteStops(plan, 0, parseMaxDelete(suggested(stop!)))).toEqual([])
  })

  it('--max-delete given twice: once as a share and once as a count, never two of one kind', () => {
    expect(parseMaxDelete(['75%', '300'])).toEqual({ maxDeletePercent: 75, maxDeleteCount: 300 })
    expect(() => parseMaxDelete(['75%', '80%'])).toThrow(/two shares/)
    expect(() => parseMaxDelete(['7', '8'])).toThrow(/two counts/)
  })

  it('following the suggested --max-delete always passes the guard (property)', () => {
    fc.assert(
      fc.property(
        fc.record({
          serverDeletes: fc.nat({ max: 800 }),
          missingDeletes: fc.nat({ max: 300 }),
          sheetRemoves: fc.nat({ max: 800 }),
          baseCount: fc.nat({ max: 10_000 }),
          given: fc.record(
            {
              maxDeletePercent: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.double({ min: 0, max: 100, noNaN: true })),
              maxDeleteCount: fc.nat({ max: 1000 }),
            },
            { requiredKeys: [] },
          ),
        }),
        ({ serverDeletes, missingDeletes, sheetRemoves, baseCount, given }) => {
          const plan = planOf(serverDeletes, missingDeletes, sheetRemoves)
          const stops = deleteStops(plan, baseCount, given)
          for (const stop of stops) {
            const flags = suggested(stop)
            expect(flags.length).toBeGreaterThan(0)
            expect(deleteStops(plan, baseCount, parseMaxDelete(flags)), stop.message).toEqual([])
            // The rule named is the rule that fired.
            const share = stop.count > 2 && (stop.count * 100) / Math.max(baseCount, 1) > (given.maxDeletePercent ?? 50)
            expect(stop.message.includes('% of the rows')).toBe(share)
            expect(stop.message.includes('deletions one run may make')).toBe(stop.count > (given.maxDeleteCount ?? 200))
          }
        },
      ),
      { numRuns: 2000 },
    )
  })
})
