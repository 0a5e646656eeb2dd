import { describe, expect, it } from 'vitest'
import type { CellValue } from '../../src/sheets/port.ts'
import { fingerprint } from '../../src/core/fingerprint.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import { parseSheet } from '../../src/core/sheet-lines.ts'
import type { ParsedRow, RowProblemCode } from '../../src/core/row-outcome.ts'
import { activityToCells, activityToRow, cellsToRow, cellUpdatesFor } from '../../src/core/row-write.ts'
import type { RowContext } from '../../src/core/row-context.ts'
import { activityKey, parseActivityKey } from '../../src/core/activity-key.ts'
import { localDateToSerial } from '../../src/core/serial.ts'
import type { Activity } from '../../src/timeline/model.ts'
import { ANNA_TL, BEN_TL, HEADER, activity, context, layoutOf, serverMap, ZONE } from './fixtures.ts'

const layout = layoutOf()
const A = activity()
const KEY = activityKey(ANNA_TL, 7)

function ctxWith(...activities: Activity[]): RowContext {
  return context({
    server: serverMap(...activities.map((a) => ({ activity: a }))),
    baseKeys: new Set(activities.map((a) => activityKey(a.timelineKey, a.entityId))),
  })
}

function rowOf(a: Activity, change: Partial<Record<string, CellValue>> = {}): CellValue[] {
  return cellsToRow({ ...activityToCells(a, 'ACME\\anna', ZONE), ...change }, layout)
}

function newRow(cells: Partial<Record<string, CellValue>>): CellValue[] {
  return cellsToRow({ User: 'ACME\\anna', Date: '2026-03-02', Start: '09:00', End: '10:30', Tags: 'Acme, Website', ...cells }, layout)
}

function problemsOf(parsed: ParsedRow): { code: RowProblemCode; column: string | undefined; message: string; severity: string }[] {
  if (parsed.ok) return parsed.row ? parsed.row.warnings : []
  return parsed.problems
}

describe('keys', () => {
  it('joins and splits timelineKey/entityId', () => {
    expect(activityKey('abc', 12)).toBe('abc/12')
    expect(parseActivityKey(' abc/12 ')).toEqual({ timelineKey: 'abc', entityId: 12 })
    expect(parseActivityKey('abc')).toBeUndefined()
    expect(parseActivityKey('abc/1.5')).toBeUndefined()
  })
})

describe('activity → row', () => {
  it('writes every tool column in the header order', () => {
    const row = activityToRow(A, { timeZone: ZONE, user: 'ACME\\anna', status: 'ok' }, layout)
    expect(Object.fromEntries(HEADER.map((h, i) => [h, row[i]]))).toEqual({
      User: 'ACME\\anna',
      Date: localDateToSerial('2026-03-02'),
      Start: 9 / 24,
      End: 10.5 / 24,
      Duration: 1.5 / 24,
      Tags: 'Acme, Website',
      Labels: ':billable',
      Notes: 'Kick-off',
      Delete: false,
      Status: 'ok',
      Key: KEY,
      Base: fingerprint({ user: 'ACME\\anna', start: A.start, duration: A.duration, tags: A.tags, notes: A.notes }),
    })
  })

  it('leaves extra columns empty and follows a reordered header', () => {
    const l = layoutOf(['Extra', ...[...HEADER].reverse()])
    const row = activityToRow(A, { timeZone: ZONE, user: 'ACME\\anna' }, l)
    expect(row[0]).toBeNull()
    expect(row[1]).toBe(activityToCells(A, 'ACME\\anna', ZONE).Base)
    expect(row).toHaveLength(13)
  })

  it('builds updates that never touch extra columns', () => {
    const l = layoutOf(['User', 'Date', 'Mine', 'Start', 'End', 'Duration', 'Tags', 'Labels', 'Notes', 'Delete', 'Status', 'Key', 'Base'])
    expect(cellUpdatesFor(5, { Date: 1, Start: 2, End: 3, Status: 'ok', Base: 'b' }, l)).toEqual([
      { row: 5, column: 1, values: [1] },
      { row: 5, column: 3, values: [2, 3] },
      { row: 5, column: 10, values: ['ok'] },
      { row: 5, column: 12, values: ['b'] },
    ])
  })
})

describe('row → activity, round trip', () => {
  const cases: [string, Activity][] = [
    ['plain', A],
    ['label held first by the server', activity({ tags: [':billable', 'Acme', 'Website'] })],
    ['no notes', activity({ notes: undefined })],
    ['foreign offset', activity({ start: '2026-03-02T14:00:00+05:30' })],
    ['UTC Z', activity({ start: '2026-03-02T08:00:00Z' })],
    ['over midnight', activity({ start: '2026-03-02T23:00:00+01:00', duration: 7200 })],
    ['spring change', activity({ start: '2026-03-29T01:30:00+01:00', duration: 3600 })],
    ['autumn repeated hour, second time', activity({ start: '2026-10-25T02:15:00+01:00', duration: 1800 })],
    ['autumn, ends "before" it starts', activity({ start: '2026-10-25T02:45:00+02:00', duration: 1800 })],
    ['two days', activity({ start: '2026-03-02T09:00:00+01:00', duration: 2 * 86400 + 60 })],
    ['formula-looking note', activity({ notes: '=IMPORTDATA("x")' })],
  ]
  it.each(cases)('%s: unchanged row gives back the server values exactly', (_name, a) => {
    const parsed = parseRow(rowOf(a), layout, ctxWith(a))
    expect(parsed).toEqual({
      ok: true,
      row: {
        kind: 'existing',
        key: KEY,
        entityId: 7,
        baseCell: activityToCells(a, 'ACME\\anna', ZONE).Base,
        values: {
          user: 'ACME\\anna',
          timelineKey: ANNA_TL,
          input: { tags: a.tags, notes: a.notes, start: a.start, duration: a.duration },
          fingerprint: activityToCells(a, 'ACME\\anna', ZONE).Base,
        },
        warnings: [],
      },
    })
  })

  it('reads an edited time in the zone, keeping the activity recorded there in the zone', () => {
    const parsed = parseRow(rowOf(A, { Start: '10:00', End: '12:15' }), layout, ctxWith(A))
    expect(parsed).toMatchObject({
      ok: true,
      row: { kind: 'existing', values: { input: { start: '2026-03-02T10:00:00+01:00', duration: 8100, tags: A.tags } } },
    })
  })

  it('reads edited tags and labels in server order, and notes', () => {
    const parsed = parseRow(rowOf(A, { Tags: 'Acme, Design', Labels: 'onsite', Notes: 'Line 1\nLine 2' }), layout, ctxWith(A))
    expect(parsed).toMatchObject({ ok: true, row: { values: { input: { tags: ['Acme', 'Design', ':onsite'], notes: 'Line 1\nLine 2' } } } })
  })

  it('reads a new row typed by a person', () => {
    const parsed = parseRow(
      newRow({ User: 'ben ito', Date: '3/2/2026', Start: '1:45 PM', End: '15:00', Labels: ':billable', Notes: 0 }),
      layout,
      context(),
    )
    expect(parsed).toEqual({
      ok: true,
      row: {
        kind: 'new',
        values: {
          user: 'ACME\\ben',
          timelineKey: BEN_TL,
          input: { tags: ['Acme', 'Website', ':billable'], notes: '0', start: '2026-03-02T13:45:00+01:00', duration: 4500 },
          fingerprint: fingerprint({
            user: 'ACME\\ben',
            tags: ['Acme', 'Website', ':billable'],
            notes: '0',
            start: '2026-03-02T13:45:00+01:00',
            duration: 4500,
          }),
        },
        warnings: [],
      },
    })
  })

  it('reads 3/2/2026 as 3 February with day-first dates', () => {
    const parsed = parseRow(newRow({ Date: '3/2/2026' }), layout, context({ slashDateOrder: 'dmy' }))
    expect(parsed).toMatchObject({ ok: true, row: { values: { input: { start: '2026-02-03T09:00:00+01:00' } } } })
  })
})

describe('row rules', () => {
  type Case = [string, CellValue[], RowContext, RowProblemCode, string | undefined, RegExp]
  const ctx = ctxWith(A)
  const cases: Case[] = [
    ['missing Date', newRow({ Date: null }), context(), 'missing-value', 'Date', /^Date: is empty; type it like 2026-03-02 or 3\/2\/2026$/],
    ['missing Start', newRow({ Start: '' }), context(), 'missing-value', 'Start', /^Start: is empty; type it like 13:45/],
    ['missing End', newRow({ End: null }), context(), 'missing-value', 'End', /^End: is empty/],
    [
      'unparseable Date',
      newRow({ Date: '31/02/2026' }),
      context({ slashDateOrder: 'dmy' }),
      'unparseable-date',
      'Date',
      /^Date: "31\/02\/2026" is not a real date — type it like 2026-03-02 or 2\/3\/2026/,
    ],
    [
      'date with a time',
      newRow({ Date: localDateToSerial('2026-03-02') + 0.25 }),
      context(),
      'unparseable-date',
      'Date',
      /holds a time as well as a date/,
    ],
    [
      'unparseable Start',
      newRow({ Start: '25:99' }),
      context(),
      'unparseable-time',
      'Start',
      /^Start: "25:99" is not a time — type it like 13:45, 13:45:10 or 1:45 PM$/,
    ],
    ['unparseable End', newRow({ End: 'soon' }), context(), 'unparseable-time', 'End', /^End: "soon" is not a time/],
    [
      'end before start',
      newRow({ Date: '2026-03-29', Start: '02:30', End: '03:15' }),
      context(),
      'end-before-start',
      'End',
      /^End: is before Start/,
    ],
    [
      'end before start by an hour (swapped times, not a 23-hour night)',
      newRow({ Start: '14:00', End: '13:00' }),
      context(),
      'end-before-start',
      'End',
      /^End: is before Start, which would make this a 23-hour activity ending the next day; check the times/,
    ],
    [
      'more than 10 tags',
      newRow({ Tags: 'a,b,c,d,e,f,g,h,i', Labels: ':x, :y' }),
      context(),
      'too-many-tags',
      'Tags',
      /^Tags: has 11 tags with the labels; at most 10 are allowed — remove 1$/,
    ],
    [
      'a tag over 200 characters',
      newRow({ Tags: `Acme, ${'x'.repeat(201)}` }),
      context(),
      'tag-too-long',
      'Tags',
      /has 201 characters; at most 200 are allowed/,
    ],
    ['no tags', newRow({ Tags: ' , ' }), context(), 'no-tags', 'Tags', /^Tags: is empty; a tag activity needs at least one tag/],
    ['no user on a new row', newRow({ User: '' }), context(), 'missing-value', 'User', /^User: is empty; type the user/],
    [
      'unknown user',
      newRow({ User: 'ACME\\zoe' }),
      context(),
      'unknown-user',
      'User',
      /^User: "ACME\\zoe" is not a known user; use a user name as the server writes it \(e.g. ACME\\anna, ACME\\ben, ACME\\carl\)$/,
    ],
    [
      'user without a Tags timeline',
      newRow({ User: 'ACME\\carl' }),
      context(),
      'user-without-tags-timeline',
      'User',
      /ACME\\carl has no Tags timeline on the server/,
    ],
    [
      'user changed on an existing row',
      rowOf(A, { User: 'ACME\\ben' }),
      ctx,
      'user-changed',
      'User',
      /cannot move to another user — add a new row for ACME\\ben and tick Delete on this one/,
    ],
    ['a key the tool did not write', rowOf(A, { Key: 'nonsense' }), ctx, 'bad-key', 'Key', /^Key: "nonsense" is not a key this tool wrote/],
    [
      'a key that does not exist',
      rowOf(A, { Key: `${ANNA_TL}/999` }),
      ctx,
      'unknown-key',
      'Key',
      /activity tl-anna\/999 does not exist.*clear Key and Base/,
    ],
    [
      'a formula in Date',
      newRow({ Date: '=TODAY()' }),
      context(),
      'formula',
      'Date',
      /^Date: holds a formula \(=TODAY\(\)\); type the value itself$/,
    ],
    ['a formula in User', newRow({ User: '=A1' }), context(), 'formula', 'User', /^User: holds a formula/],
    [
      'a new formula in Notes',
      rowOf(A, { Notes: '=HYPERLINK("x")' }),
      ctx,
      'formula',
      'Notes',
      /^Notes: holds a formula .*; Notes must be plain text$/,
    ],
    ['a formula in Tags of a new row', newRow({ Tags: '=B2' }), context(), 'formula', 'Tags', /^Tags: holds a formula/],
    [
      'a bad Delete value',
      newRow({ Delete: 'perhaps' }),
      context(),
      'bad-checkbox',
      'Delete',
      /^Delete: "perhaps" is not a tick; tick the box/,
    ],
    ['a formula in Delete', rowOf(A, { Delete: '=TRUE()' }), ctx, 'formula', 'Delete', /^Delete: holds a formula/],
    [
      'a cleared row that keeps its Key',
      cellsToRow({ Key: KEY, Base: 'x', Status: 'ok' }, layout),
      ctx,
      'row-cleared',
      undefined,
      /emptied but still belongs to an activity; to remove the activity tick Delete/,
    ],
  ]
  it.each(cases)('%s', (_name, cells, c, code, column, message) => {
    const parsed = parseRow(cells, layout, c)
    expect(parsed.ok).toBe(false)
    const found = problemsOf(parsed).find((p) => p.code === code)
    expect(found, JSON.stringify(problemsOf(parsed))).toBeDefined()
    expect(found!.column).toBe(column)
    expect(found!.severity).toBe('error')
    expect(found!.message).toMatch(message)
  })

  it('reports every problem of a row at once', () => {
    const parsed = parseRow(newRow({ User: 'ACME\\zoe', Date: 'x', Start: 'y', Tags: '' }), layout, context())
    expect(
      problemsOf(parsed)
        .map((p) => p.code)
        .sort(),
    ).toEqual(['no-tags', 'unknown-user', 'unparseable-date', 'unparseable-time'])
  })

  it('accepts a formula-looking note the tool wrote (equal to the server value)', () => {
    const a = activity({ notes: '=1+1' })
    expect(parseRow(rowOf(a), layout, ctxWith(a)).ok).toBe(true)
  })

  it('accepts a formula-looking note the tool wrote when the server changed it since (the row matches its Base)', () => {
    const synced = activity({ notes: '=1+1' })
    const cells = rowOf(synced)
    const serverNow = activity({ notes: 'changed on the server' })
    expect(parseRow(cells, layout, ctxWith(serverNow))).toMatchObject({
      ok: true,
      row: { kind: 'existing', values: { input: { notes: '=1+1' } } },
    })
  })

  it('ignores blank rows (Status, Duration and Base leftovers included)', () => {
    expect(parseRow([], layout, context())).toEqual({ ok: true, row: null })
    expect(parseRow(cellsToRow({ Status: 'old', Duration: 0.1, Delete: false, Notes: '  ' }, layout), layout, context())).toEqual({
      ok: true,
      row: null,
    })
  })

  it('discards a new row with Delete ticked', () => {
    expect(parseRow(newRow({ Delete: 'x' }), layout, context())).toEqual({ ok: true, row: { kind: 'discarded', warnings: [] } })
  })

  const deletion = {
    ok: true,
    row: {
      kind: 'delete',
      key: KEY,
      entityId: 7,
      timelineKey: ANNA_TL,
      baseCell: activityToCells(A, 'ACME\\anna', ZONE).Base,
      warnings: [],
    },
  }

  it('deletes when Delete is ticked on a row whose other cells are as written, edited or emptied', () => {
    expect(parseRow(rowOf(A, { Delete: true }), layout, ctxWith(A))).toEqual(deletion)
    expect(parseRow(rowOf(A, { Delete: true, Notes: 'no longer needed', End: '11:00' }), layout, ctxWith(A))).toEqual(deletion)
    // Emptied cells are no corruption: emptying the row and ticking Delete is what its Status advises.
    expect(parseRow(rowOf(A, { Delete: true, Start: null, Tags: '', Labels: null, User: '' }), layout, ctxWith(A))).toEqual(deletion)
    expect(parseRow(cellsToRow({ Key: KEY, Delete: true }, layout), layout, ctxWith(A))).toMatchObject({
      ok: true,
      row: { kind: 'delete' },
    })
  })

  it('deletes a ticked row whose tags are not among the allowed ones, even when they are refused for an edit', () => {
    const refusing = { ...ctxWith(A), allowedTags: { everyone: ['Internal, Admin'], groups: [] }, allowedTagsSeverity: 'error' as const }
    expect(parseRow(rowOf(A, { Delete: true }), layout, refusing)).toEqual(deletion)
  })

  const unreadable: [string, Partial<Record<string, CellValue>>, RowProblemCode, string][] = [
    ['an error value in End', { End: '#REF!' }, 'error-value', 'End'],
    ['a formula in Start', { Start: '=A1' }, 'formula', 'Start'],
    ['a day outside 1970–2999', { Date: '3000-01-01' }, 'unparseable-date', 'Date'],
    ['an End over a year after Start', { Date: '2999-12-31', Start: '23:00', End: 400 }, 'out-of-range', 'End'],
    ['text that is no time', { Start: 'garbage' }, 'unparseable-time', 'Start'],
    ['a local time the clocks skip', { Date: '2026-03-29', Start: '02:30', End: '04:00' }, 'nonexistent-time', 'Start'],
    ['a formula in Notes the tool did not write', { Notes: '=HYPERLINK("x")' }, 'formula', 'Notes'],
    ['an error value in Tags', { Tags: '#N/A' }, 'error-value', 'Tags'],
    ['another user', { User: 'ACME\\ben' }, 'user-changed', 'User'],
  ]
  it.each(unreadable)(
    'deletes nothing when Delete is ticked on a row holding %s, and says what to fix first',
    (_name, change, code, column) => {
      const parsed = parseRow(rowOf(A, { ...change, Delete: true }), layout, ctxWith(A))
      expect(parsed.ok).toBe(false)
      const [first] = problemsOf(parsed)
      expect(first).toMatchObject({ code, column, severity: 'error' })
      expect(first!.message).toMatch(new RegExp(`^Delete ticked, but nothing was deleted: fix or empty this cell first — ${column}: `))
      // Without the tick the same row is refused for the same cell: a deletion asks no more of a row than an edit.
      const unticked = parseRow(rowOf(A, change), layout, ctxWith(A))
      expect(unticked.ok).toBe(false)
      expect(problemsOf(unticked).find((p) => p.severity === 'error')).toMatchObject({ code, column })
    },
  )

  it('deletes a ticked row whose Notes hold formula text the tool wrote', () => {
    const a = activity({ notes: '=1+1' })
    expect(parseRow(rowOf(a, { Delete: true }), layout, ctxWith(a))).toMatchObject({ ok: true, row: { kind: 'delete' } })
  })

  it('keeps a row whose activity the server deleted when base knows its Key (the planner decides)', () => {
    const parsed = parseRow(rowOf(A), layout, context({ baseKeys: new Set([KEY]) }))
    expect(parsed).toMatchObject({ ok: true, row: { kind: 'existing', key: KEY } })
  })

  it('warns about tags outside the allowed combinations, or refuses them by option', () => {
    const allowedTags = { everyone: ['Internal, Admin'], groups: [] }
    const warned = parseRow(newRow({}), layout, context({ allowedTags }))
    expect(warned.ok).toBe(true)
    expect(problemsOf(warned)).toEqual([
      {
        code: 'tags-not-allowed',
        severity: 'warning',
        column: 'Tags',
        message: 'Tags: "Acme, Website" is not in the allowed tags for ACME\\anna; pick a combination from the dropdown (Allowed tags tab)',
      },
    ])
    const refused = parseRow(newRow({}), layout, context({ allowedTags, allowedTagsSeverity: 'error' }))
    expect(refused.ok).toBe(false)
    expect(problemsOf(refused).map((p) => [p.code, p.severity])).toEqual([['tags-not-allowed', 'error']])
    expect(parseRow(newRow({ Tags: 'internal, admin' }), layout, context({ allowedTags, allowedTagsSeverity: 'error' })).ok).toBe(true)
  })

  it('refuses a typed time that does not exist and warns when one happens twice', () => {
    const gap = parseRow(newRow({ Date: '2026-03-29', Start: '02:30', End: '04:00' }), layout, context())
    expect(gap.ok).toBe(false)
    expect(problemsOf(gap)).toEqual([
      {
        code: 'nonexistent-time',
        severity: 'error',
        column: 'Start',
        message:
          'Start: 02:30 does not exist on 2026-03-29: the clocks jump from 02:00 to 03:00 that night; type a time that exists (before 02:00 or from 03:00 on)',
      },
    ])
    const twice = parseRow(newRow({ Date: '2026-10-25', Start: '02:30', End: '04:00' }), layout, context())
    expect(problemsOf(twice)).toEqual([
      {
        code: 'ambiguous-time',
        severity: 'warning',
        column: 'Start',
        message: 'Start: 02:30 happens twice on this day (the clocks go back); 02:30 (UTC+02:00) was used',
      },
    ])
  })
})

describe('whole sheet', () => {
  it('numbers rows from 2, skips blanks and refuses a Key that appears twice', () => {
    const b = activity({ entityId: 8 })
    const lines = parseSheet([rowOf(A), [], rowOf(b), rowOf(A, { Notes: 'copy' }), newRow({})], layout, ctxWith(A, b))
    expect(lines.map((l) => [l.kind, l.rowNumber])).toEqual([
      ['invalid', 2],
      ['row', 4],
      ['invalid', 5],
      ['row', 6],
    ])
    const dup = lines[0]
    expect(dup).toMatchObject({
      kind: 'invalid',
      key: KEY,
      problems: [
        { code: 'duplicate-key', column: 'Key', message: expect.stringMatching(/^Key: this activity is in rows 2, 5; keep one row/) },
      ],
    })
  })
})
