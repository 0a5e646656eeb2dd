/**
 * References after rows were removed or inserted name the same cells they named before: checked against a
 * model sheet whose rows carry their old numbers, over random removals and insertions.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { rowShift, shiftFormulaRefs, shiftRef, shiftSqref, type RowMoves } from '../../src/sheets/workbook/row-refs.ts'
import { MAX_ROWS } from '../../src/sheets/workbook/sheet-xml.ts'

const ROWS = 40

/** The sheet after the moves, top to bottom: each row's old number, or 0 for an inserted row. */
function modelAfter(moves: { remove: number[]; insert: Array<{ before: number; count: number }> }): number[] {
  const removed = new Set(moves.remove)
  const out: number[] = []
  for (let row = 1; row <= ROWS + 1; row++) {
    for (const insert of moves.insert) if (insert.before === row) for (let i = 0; i < insert.count; i++) out.push(0)
    if (row <= ROWS && !removed.has(row)) out.push(row)
  }
  return out
}

const anyMoves = fc.record({
  remove: fc.uniqueArray(fc.integer({ min: 1, max: ROWS }), { maxLength: 15 }),
  insert: fc.uniqueArray(fc.record({ before: fc.integer({ min: 1, max: ROWS + 1 }), count: fc.integer({ min: 1, max: 3 }) }), {
    maxLength: 4,
    selector: (insert) => insert.before,
  }),
})

describe('a row reference after rows moved', () => {
  it('names the row that now holds the old row, or nothing when the row was removed', () => {
    fc.assert(
      fc.property(anyMoves, fc.integer({ min: 1, max: ROWS }), (moves, row) => {
        const after = modelAfter(moves)
        const found = after.indexOf(row)
        expect(rowShift(moves).row(row)).toBe(found < 0 ? undefined : found + 1)
      }),
    )
  })

  it('covers exactly the surviving rows of a range, and rows inserted between them', () => {
    fc.assert(
      fc.property(anyMoves, fc.integer({ min: 1, max: ROWS }), fc.integer({ min: 1, max: ROWS }), (moves, a, b) => {
        const [top, bottom] = a <= b ? [a, b] : [b, a]
        const after = modelAfter(moves)
        const moved = rowShift(moves).range(top, bottom)
        const surviving = after.filter((row) => row >= top && row <= bottom)
        if (surviving.length === 0) {
          expect(moved).toBeUndefined()
          return
        }
        expect(moved).toBeDefined()
        const covered = after.slice(moved!.top - 1, moved!.bottom)
        expect(covered.filter((row) => row !== 0)).toEqual(surviving)
        expect(covered[0]).not.toBe(0)
        expect(covered.at(-1)).not.toBe(0)
      }),
    )
  })

  it('puts something on a removed row onto the row that takes its place', () => {
    fc.assert(
      fc.property(anyMoves, fc.integer({ min: 1, max: ROWS }), (moves, row) => {
        const after = modelAfter(moves)
        const next = after.findIndex((old) => old > row || (old === row && old !== 0))
        const shift = rowShift(moves)
        if (shift.row(row) !== undefined) expect(shift.edge(row)).toBe(shift.row(row))
        else if (next >= 0 && moves.insert.every((i) => i.before <= row || i.before > (after[next] ?? 0)))
          expect(shift.edge(row)).toBe(next + 1)
      }),
    )
  })

  it('moves nothing when nothing moves', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const shift = rowShift({})
        expect(shift.identity).toBe(true)
        expect(shiftRef(text, shift)).toBe(text)
        expect(shiftFormulaRefs(text, 'Activities', shift)).toBe(text)
      }),
    )
  })
})

describe('references in the forms a worksheet writes them', () => {
  const removeFour: RowMoves = { remove: [3, 5, 6, 20] }
  const shift = rowShift(removeFour)

  it('moves a cell below removed rows up, keeping its $ marks', () => {
    expect(shiftRef('D10', shift)).toBe('D7')
    expect(shiftRef('$D$10', shift)).toBe('$D$7')
    expect(shiftRef('D$2', shift)).toBe('D$2')
    expect(shiftRef('XFD21', shift)).toBe('XFD17')
  })

  it('drops a cell of a removed row', () => {
    expect(shiftRef('B5', shift)).toBeUndefined()
  })

  it('shrinks a range that spans removed rows and drops one wholly inside them', () => {
    expect(shiftRef('A2:L30', shift)).toBe('A2:L26')
    expect(shiftRef('$A$5:$C$6', shift)).toBeUndefined()
    expect(shiftRef('A5:C7', shift)).toBe('A4:C4')
    expect(shiftRef('C7:A5', shift)).toBe('C4:A4')
  })

  it('moves whole-row ranges, and leaves whole-column ranges and the rows to the end of the sheet', () => {
    expect(shiftRef('$8:$9', shift)).toBe('$5:$6')
    expect(shiftRef('A:C', shift)).toBe('A:C')
    expect(shiftRef(`A1:L${MAX_ROWS}`, shift)).toBe(`A1:L${MAX_ROWS}`)
  })

  it('gives back text that is no reference as it is', () => {
    expect(shiftRef('#REF!', shift)).toBe('#REF!')
    expect(shiftRef('A1:7', shift)).toBe('A1:7')
  })

  it('shifts each range of an sqref list and drops the removed ones', () => {
    expect(shiftSqref('B3 D10:D12  A5:A6 F21', shift)).toBe('D7:D9 F17')
    expect(shiftSqref('B3 B5', shift)).toBeUndefined()
  })

  it('moves a range down by rows inserted above it, and widens it by rows inserted inside', () => {
    const inserted = rowShift({
      insert: [
        { before: 2, count: 1 },
        { before: 10, count: 2 },
      ],
    })
    expect(shiftRef('A2:L5', inserted)).toBe('A3:L6')
    expect(shiftRef('A5:L12', inserted)).toBe('A6:L15')
    expect(shiftRef('A1', inserted)).toBe('A1')
    expect(shiftRef('A9:A9', inserted)).toBe('A10:A10')
  })

  it('shifts references to its tab in a formula, as a defined name or a chart writes them, and no other tab', () => {
    expect(shiftFormulaRefs("'Activities'!$A$1:$L$30", 'Activities', shift)).toBe("'Activities'!$A$1:$L$26")
    expect(shiftFormulaRefs('Activities!$B$10,Activities!$B$5,Other!$B$10', 'activities', shift)).toBe(
      'Activities!$B$7,Activities!#REF!,Other!$B$10',
    )
    expect(shiftFormulaRefs("'Bob''s tab'!$8:$9", "Bob's tab", shift)).toBe("'Bob''s tab'!$5:$6")
    expect(shiftFormulaRefs('"Activities!A10"&Activities!A10', 'Activities', shift)).toBe('"Activities!A10"&Activities!A7')
    expect(shiftFormulaRefs('[1]Activities!A10', 'Activities', shift)).toBe('[1]Activities!A10')
    expect(shiftFormulaRefs('SUM(Übersicht!A10:A30)', 'Übersicht', shift)).toBe('SUM(Übersicht!A7:A26)')
  })
})
