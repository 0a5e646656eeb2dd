/**
 * Hostile rows the property tests in test/property/ once shrank to, kept as fixed cases: each is read,
 * refused or planned as it should be, with a message that is short and printable.
 */
import { describe, expect, it } from 'vitest'
import { planSync } from '../../src/core/plan.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import { parseSheet, type SheetLine } from '../../src/core/sheet-lines.ts'
import type { ParsedRow } from '../../src/core/row-outcome.ts'
import { activityToCells, cellsToRow } from '../../src/core/row-write.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import type { Activity } from '../../src/timeline/model.ts'
import { context, layoutOf, serverMap } from './fixtures.ts'

const layout = layoutOf()
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

function newRow(cells: Partial<Record<string, CellValue>>): CellValue[] {
  return cellsToRow({ User: 'ACME\\anna', Date: 46_110, Start: 0.5625, End: 0.6458333333333334, Tags: 'Internal', ...cells }, layout)
}

function messages(parsed: ParsedRow): string[] {
  return parsed.ok ? [] : parsed.problems.map((p) => p.message)
}

describe('hostile rows the property tests shrank to', () => {
  it('a new row in Monrovia, whose offset then had seconds (43 min 8 s), is read without throwing', () => {
    // The counterexample was 1900-03-01 00:00; Monrovia kept an offset of 44 min 30 s until 1972, inside the days the tool takes.
    for (const cells of [
      { Date: '1970-01-01', Start: '00:00', End: '01:00' },
      { Date: '1971-05-01', Start: '10:00', End: '11:00' },
    ]) {
      const parsed = parseRow(newRow(cells), layout, context({ timeZone: 'Africa/Monrovia' }))
      expect(parsed).toMatchObject({
        ok: true,
        row: {
          kind: 'new',
          values: { input: { start: expect.stringMatching(/^19\d\d-\d\d-\d\dT\d\d:\d\d:\d\d[+-]00:4[345]$/), duration: 3600 } },
        },
      })
    }
  })

  it('#N/A in Notes of an existing row is refused when the server changed its notes and Base is garbled (-0)', () => {
    const a: Activity = {
      timelineKey: 'tl-anna',
      entityId: 2,
      tags: ['Internal'],
      notes: '#N/A (server)',
      start: '2026-03-29T01:30:00+01:00',
      duration: 7200,
      isActive: true,
    }
    const key = activityKey('tl-anna', 2)
    const cells = cellsToRow({ ...activityToCells(a, 'ACME\\anna', 'UTC'), Notes: '#N/A', Base: -0 }, layout)
    const parsed = parseRow(cells, layout, context({ timeZone: 'UTC', server: serverMap({ activity: a }), baseKeys: new Set([key]) }))
    expect(parsed).toMatchObject({ ok: false, problems: [{ code: 'error-value', column: 'Notes' }] })
  })

  it('#N/A in Notes and #n/a in Tags of a new row are refused', () => {
    expect(parseRow(newRow({ Notes: '#N/A' }), layout, context({ timeZone: 'Pacific/Apia' }))).toMatchObject({
      ok: false,
      problems: [{ code: 'error-value', column: 'Notes' }],
    })
    expect(parseRow(newRow({ Tags: ' #n/a ' }), layout, context())).toMatchObject({
      ok: false,
      problems: [{ code: 'error-value', column: 'Tags' }],
    })
  })

  it('a tag of control characters or emoji over 200 characters gets a short, printable message', () => {
    for (const tag of [`:${'\u0000'.repeat(300)}`, `:${'😀'.repeat(150)}`]) {
      const found = messages(parseRow(newRow({ Labels: tag }), layout, context()))
      expect(found).toHaveLength(1)
      expect(found[0]).toMatch(/^Tags: the tag ".{1,41}…" has \d+ characters; at most 200 are allowed$/u)
      expect(found[0]).not.toMatch(UNPRINTABLE)
    }
  })

  it('a 40,000-character formula, time or Key is quoted in 40 characters, not in full', () => {
    const long = 'x'.repeat(40_000)
    for (const cells of [{ Date: `=${long}` }, { End: long }, { Key: `${long}/1` }, { Delete: long }, { User: long }]) {
      for (const message of messages(parseRow(newRow(cells), layout, context()))) expect(message.length).toBeLessThan(300)
    }
  })

  it('a control character typed as a time is shown as � in the message', () => {
    const [message] = messages(parseRow(newRow({ End: '\u0001' }), layout, context()))
    expect(message).toMatch(/^End: "\uFFFD" is not a time/)
  })

  it('the Key-on-two-rows problem comes first, so the Status names the other row even when the row has other problems', () => {
    const a: Activity = {
      timelineKey: 'tl-anna',
      entityId: 1,
      tags: ['Acme'],
      notes: undefined,
      start: '2026-03-02T09:00:00+01:00',
      duration: 5400,
      isActive: true,
    }
    const ctx = context({ server: serverMap({ activity: a }), baseKeys: new Set([activityKey('tl-anna', 1)]) })
    const own = activityToCells(a, 'ACME\\anna', 'Europe/Berlin')
    const lines = parseSheet([cellsToRow({ ...own, Delete: 'perhaps' }, layout), cellsToRow(own, layout)], layout, ctx)
    expect(lines.map((l) => (l.kind === 'invalid' ? l.problems[0]!.code : l.kind))).toEqual(['duplicate-key', 'duplicate-key'])
  })

  it('two edited rows with the same Key handed to the planner unrefused plan no PUT', () => {
    const a: Activity = {
      timelineKey: 'tl-ben',
      entityId: 5,
      tags: ['Globex'],
      notes: 'night',
      start: '2026-03-02T23:30:00+01:00',
      duration: 172_860,
      isActive: true,
    }
    const key = activityKey('tl-ben', 5)
    const ctx = context({ server: serverMap({ activity: a, user: 'ACME\\ben' }), baseKeys: new Set([key]) })
    const own = activityToCells(a, 'ACME\\ben', 'Europe/Berlin')
    const lines: SheetLine[] = [cellsToRow({ ...own, Notes: 'one' }, layout), cellsToRow({ ...own, Notes: 'two' }, layout)].map(
      (cells, i) => {
        const parsed = parseRow(cells, layout, ctx)
        if (!parsed.ok || !parsed.row) throw new Error('expected a valid row')
        return { kind: 'row', rowNumber: i + 2, row: parsed.row }
      },
    )
    const plan = planSync(new Map([[key, own.Base as string]]), lines, ctx.server)
    expect(plan.decisions.map((d) => d.kind)).toEqual(['invalid', 'invalid'])
  })

  it('Delete ticked on a made-up Key carrying a Base cell is not "already deleted on the server" (the row would go)', () => {
    const lines: SheetLine[] = [
      {
        kind: 'row',
        rowNumber: 2,
        row: { kind: 'delete', key: 'tl-anna/999', entityId: 999, timelineKey: 'tl-anna', baseCell: 'AAAAAAAAAAA', warnings: [] },
      },
    ]
    expect(planSync(new Map(), lines, new Map()).decisions).toMatchObject([{ kind: 'invalid', problems: [{ code: 'unknown-key' }] }])
  })

  it('a row whose Key was cleared but whose Base still matches is a new row: formula and error text in it are refused', () => {
    const a: Activity = {
      timelineKey: 'tl-anna',
      entityId: 3,
      tags: ['=A1+1', ':#REF!'],
      notes: '=IMPORTDATA("x")',
      start: '2026-10-25T02:30:00+02:00',
      duration: 1800,
      isActive: true,
    }
    const cells = cellsToRow({ ...activityToCells(a, 'ACME\\anna', 'Australia/Lord_Howe'), Key: null }, layout)
    const parsed = parseRow(
      cells,
      layout,
      context({ timeZone: 'Australia/Lord_Howe', server: serverMap({ activity: a }), baseKeys: new Set([activityKey('tl-anna', 3)]) }),
    )
    expect(parsed.ok).toBe(false)
    expect(parsed.ok ? [] : parsed.problems.map((p) => [p.code, p.column])).toEqual([
      ['formula', 'Tags'],
      ['formula', 'Notes'],
    ])
  })
})
