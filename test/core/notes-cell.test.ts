/**
 * Notes longer than a cell holds (50,000 characters on Google): shown shortened with a marker, read back as the
 * whole notes while the cell holds what the tool wrote, and an edit of the shortened text refused, since it
 * would replace notes the sheet never showed.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CELL_CHARS, notesCellText, notesShortened, SHORTENED_MARKER } from '../../src/core/notes-cell.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import { activityToCells, cellsToRow } from '../../src/core/row-write.ts'
import type { RowContext } from '../../src/core/row-context.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import type { Activity } from '../../src/timeline/model.ts'
import { activity, context, layoutOf, serverMap, ZONE } from './fixtures.ts'

const layout = layoutOf()

function ctxWith(a: Activity): RowContext {
  return context({ server: serverMap({ activity: a }), baseKeys: new Set([activityKey(a.timelineKey, a.entityId)]) })
}

function rowOf(a: Activity, change: Partial<Record<string, CellValue>> = {}): CellValue[] {
  return cellsToRow({ ...activityToCells(a, 'ACME\\anna', ZONE), ...change }, layout)
}

describe('notes longer than a cell', () => {
  it('fit a cell: as they are up to 50,000 characters, shortened with the marker beyond, never more than a cell holds', () => {
    expect(notesCellText(undefined)).toBe('')
    expect(notesCellText('x'.repeat(CELL_CHARS))).toBe('x'.repeat(CELL_CHARS))
    const long = notesCellText('y'.repeat(CELL_CHARS + 1))
    expect(long.length).toBeLessThanOrEqual(CELL_CHARS)
    expect(long.endsWith(SHORTENED_MARKER)).toBe(true)
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: CELL_CHARS - 5, maxLength: CELL_CHARS + 50 }), (notes) => {
        const cell = notesCellText(notes)
        expect(cell.length).toBeLessThanOrEqual(CELL_CHARS)
        expect(cell === notes).toBe(!notesShortened(notes))
        // No half of a surrogate pair before the marker.
        if (cell !== notes) expect(/[\uD800-\uDBFF]$/.test(cell.slice(0, -SHORTENED_MARKER.length))).toBe(false)
      }),
      { numRuns: 30 },
    )
  })

  it('read back unchanged: the row stands for the whole notes, so an import sends nothing new', () => {
    const a = activity({ notes: 'z'.repeat(60_000) })
    const parsed = parseRow(rowOf(a), layout, ctxWith(a))
    const base = activityToCells(a, 'ACME\\anna', ZONE).Base
    expect(parsed).toMatchObject({ ok: true, row: { kind: 'existing', values: { input: { notes: a.notes }, fingerprint: base } } })
    // Another cell edited in the same row: the edit goes, with the whole notes.
    const edited = parseRow(rowOf(a, { Start: '10:00', End: '11:30' }), layout, ctxWith(a))
    expect(edited).toMatchObject({ ok: true, row: { values: { input: { notes: a.notes, start: '2026-03-02T10:00:00+01:00' } } } })
  })

  it('the shortened text edited: refused with a Status that says why, so the whole notes are never replaced', () => {
    const a = activity({ notes: 'z'.repeat(60_000) })
    const parsed = parseRow(rowOf(a, { Notes: 'a manager typed this' }), layout, ctxWith(a))
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.problems).toEqual([
      expect.objectContaining({
        code: 'notes-shortened',
        severity: 'error',
        column: 'Notes',
        message: expect.stringContaining('60,000 characters'),
      }),
    ])
  })
})
