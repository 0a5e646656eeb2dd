/**
 * One read of a tab (`readSheet`) reads each distinct Tags and Labels pair, and each User text (per Key timeline),
 * once and shares what it found between the rows that hold it. Sharing may never change a reading: over hostile sheets whose rows repeat a few cell
 * texts, every row reads and judges as it does on its own, and what rows share is frozen, so a change made for
 * one row throws instead of reaching the others.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readSheet, type SheetReadings } from '../../src/core/sheet-readings.ts'
import { judgeRow } from '../../src/core/row-judge.ts'
import { readRow, type RowReading } from '../../src/core/row-read.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import { activitiesTabOf, anyCell, anyLayout, anyRow, anyRowContext, placeRow, withRowContext } from './arbitraries.ts'

/** A few cell values the rows draw their Tags, Labels and User from, so that texts repeat. */
const pool = fc.array(fc.oneof(anyCell, fc.constantFrom<CellValue>('Acme, Website', ':billable', 'billable', 'ACME\\anna', 'Ben Ito')), {
  minLength: 1,
  maxLength: 4,
})

describe('one read of a tab shares what rows repeat', () => {
  it('reads and judges every row as it reads alone', () => {
    fc.assert(
      fc.property(
        withRowContext((ctx) => [
          fc.array(fc.tuple(anyRow(ctx.timeZone), fc.nat(), fc.nat(), fc.nat(), fc.boolean()), { maxLength: 12 }),
          pool,
        ]),
        ([ctx, layout, drawn, texts]) => {
          const rows = drawn.map(([row, tags, labels, user, keep]) =>
            placeRow(
              keep
                ? row
                : { ...row, Tags: texts[tags % texts.length]!, Labels: texts[labels % texts.length]!, User: texts[user % texts.length]! },
              layout,
            ),
          )
          const readings = all(readSheet(activitiesTabOf(rows), layout, ctx))
          const alone = rows.map((cells) => readRow(cells, layout, ctx))
          expect(readings).toEqual(alone)
          expect(readings.map((r) => judgeRow(r, ctx))).toEqual(alone.map((r) => judgeRow(r, ctx)))
          for (const reading of readings) expectShareFrozen(reading)
        },
      ),
      { numRuns: 400 },
    )
  })

  it('hands rows with the same tags one frozen list, which no row can change', () => {
    const layout = fc.sample(anyLayout, { numRuns: 1, seed: 1 })[0]!
    const row = { User: 'ACME\\anna', Date: '2026-03-02', Start: '09:00', End: '10:00', Tags: 'Acme, Website', Labels: 'billable' }
    const ctx = fc.sample(anyRowContext, { numRuns: 1, seed: 1 })[0]!
    const [a, b] = all(readSheet(activitiesTabOf([placeRow(row, layout), placeRow({ ...row, Start: '11:00' }, layout)]), layout, ctx))
    const tags = a!.fields!.combined!
    expect(tags).toEqual(['Acme', 'Website', ':billable'])
    expect(b!.fields!.combined).toBe(tags)
    expect(() => (tags as string[]).push('Other')).toThrow(TypeError)
    // The list a row asks the server for is that same list: sorting it for one row would throw, not reorder both.
    const judged = judgeRow(a!, { ...ctx, allowedTags: undefined })
    const input = judged.ok && judged.row?.kind === 'new' ? judged.row.values.input : undefined
    expect(input?.tags).toBe(tags)
    expect(() => input?.tags.sort()).toThrow(TypeError)
  })
})

/** What a reading may share with other rows is frozen: its tag list and its tag and user problems. */
function expectShareFrozen(reading: RowReading): void {
  const f = reading.fields
  if (!f) return
  if (f.combined) expect(Object.isFrozen(f.combined)).toBe(true)
  expect(Object.isFrozen(f.tagProblems)).toBe(true)
  for (const p of f.tagProblems) expect(Object.isFrozen(p)).toBe(true)
  expect(Object.isFrozen(f.userProblems)).toBe(true)
  for (const p of f.userProblems) expect(Object.isFrozen(p)).toBe(true)
}

function all(readings: SheetReadings) {
  return Array.from({ length: readings.length }, (_, i) => readings.at(i))
}
