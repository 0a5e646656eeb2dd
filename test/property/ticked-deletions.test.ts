/**
 * A ticked row deletes its activity only when nothing in it is unreadable. Over hostile sheets, through the
 * import's whole pipeline as the engine runs it (the candidate scan with its shortcuts for rows unedited since
 * written, the rows it leaves out, the second pass, the planner), every deletion comes from a row whose cells
 * the tool can read: no formula or spreadsheet error value but the text the tool itself wrote, no Date, Start or
 * End it cannot take, nothing that would keep the same row from being saved as an edit (empty cells and the
 * allowed tags aside). A ticked row it refuses says, first thing in its Status, that nothing was deleted.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cellText, isEmptyCell, isErrorValue, isFormula, readCheckboxCell, readDateCell, readTimeCell } from '../../src/core/cells.ts'
import { findCandidates, planLines, settledRows } from '../../src/core/import-plan.ts'
import { fingerprintOf, planSync } from '../../src/core/plan.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import type { RowContext } from '../../src/core/row-context.ts'
import { activityKey, parseActivityKey } from '../../src/core/activity-key.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import { sheetKeysOf } from '../../src/core/sheet-keys.ts'
import { readSheet } from '../../src/core/sheet-readings.ts'
import type { TimeWindow } from '../../src/core/windows.ts'
import { writtenContext } from '../../src/core/written-rows.ts'
import {
  ACTIVITIES,
  activitiesTabOf,
  anyCell,
  anyRow,
  digestOfWritten,
  placeRow,
  serverOf,
  toolRow,
  withRowContext,
} from './arbitraries.ts'

const WRITTEN = serverOf(ACTIVITIES)
const ALL_KEYS = [...WRITTEN.keys()]
const TIMELINES = [...new Set(ACTIVITIES.map((a) => a.timelineKey))]
/** The columns a manager types the activity into. */
const VALUE_COLUMNS = ['User', 'Date', 'Start', 'End', 'Tags', 'Labels', 'Notes'] as const
/** Problems that say a cell is empty or its tags are not among the allowed ones: never a reason to keep an activity. */
const NO_REASON_TO_KEEP = new Set(['missing-value', 'no-tags', 'tags-not-allowed'])
/** Every week the fixture's activities lie in. */
const EVERYTHING: TimeWindow[] = [{ from: '1970-01-01T00:00:00+00:00', to: '3000-01-02T00:00:00+00:00' }]

/** A row as the tool wrote it, Delete ticked (in any form a tick takes), some of its value cells replaced by anything. */
function tickedRow(timeZone: string): fc.Arbitrary<Record<string, CellValue>> {
  return fc
    .tuple(
      fc.constantFrom(...ACTIVITIES),
      fc.constantFrom<CellValue>(true, 'x', ' TRUE ', 1),
      fc.dictionary(fc.constantFrom(...VALUE_COLUMNS), anyCell, { maxKeys: 2 }),
    )
    .map(([a, tick, changes]) => ({ ...toolRow(a, timeZone), ...changes, Delete: tick }))
}

describe('ticked rows', () => {
  it('never deletes an activity from a ticked row holding a cell the tool cannot read, through every shortcut of the import', () => {
    let deleted = 0
    let refused = 0
    fc.assert(
      fc.property(
        withRowContext((ctx) => [
          fc.array(fc.oneof({ weight: 3, arbitrary: tickedRow(ctx.timeZone) }, { weight: 1, arbitrary: anyRow(ctx.timeZone) }), {
            maxLength: 10,
          }),
          // Which rows the state remembers as written (the digests of the shortcut that reads no cell).
          fc.array(fc.boolean(), { minLength: ALL_KEYS.length, maxLength: ALL_KEYS.length }),
        ]),
        ([drawn, layout, rows, remembered]) => {
          // The engine reads without a slash-date order; the state's base is what the tool wrote.
          const { slashDateOrder: _engineReadsWithoutIt, ...tagsAndServer } = drawn
          const timeZone = drawn.timeZone
          const users = [...drawn.users]
          const base = new Map(ALL_KEYS.map((k) => [k, fingerprintOf(WRITTEN.get(k)!)]))
          const digests = new Map<string, number>()
          ACTIVITIES.forEach((a, i) => {
            const k = activityKey(a.timelineKey, a.entityId)
            const digest = digestOfWritten(toolRow(a, timeZone), base.get(k)!, layout, { timeZone, users })
            if (remembered[i] && digest !== null) digests.set(k, digest)
          })
          const tab = activitiesTabOf(rows.map((r) => placeRow(r, layout)))
          const { keys: sheetKeys, shared } = sheetKeysOf(tab, layout)
          const readings = readSheet(tab, layout, { timeZone, users }, base, { context: writtenContext(timeZone, users), digests })
          const candidates = findCandidates(tab, readings, shared, layout, base, users, timeZone, sheetKeys)
          const affected = new Set(candidates.timelines)
          const settled = settledRows(readings, candidates.verdicts, { affected, full: new Set() }, tagsAndServer)
          const left = new Set<string>()
          for (let i = 0; i < readings.length; i++) if (settled.rows[i]) left.add(readings.keyOf(i)!.text)
          const server = new Map([...drawn.server].filter(([k]) => affected.has(k.slice(0, k.indexOf('/'))) && !left.has(k)))
          const ctx: RowContext = { ...tagsAndServer, server, baseKeys: { has: (k) => base.has(k) || drawn.baseKeys.has(k) } }
          const ranges = new Map(TIMELINES.map((t) => [t, EVERYTHING]))
          const lines = planLines(tab, readings, shared, layout, ctx, affected, ranges, candidates.verdicts, settled.rows)
          const planBase = new Map([...base].filter(([k]) => !left.has(k)))
          const plan = planSync(planBase, lines, server)

          for (const d of plan.decisions) {
            if (d.kind === 'invalid' && /^Delete ticked, but nothing was deleted: fix or empty /.test(d.reason)) refused++
            if (d.kind !== 'import-delete') continue
            deleted++
            const cells = rows[d.rowNumber - 2]!
            expect(readCheckboxCell(cells['Delete'])).toEqual({ ok: true, value: true })
            // What the tool wrote for this activity, before and after the server's change: the only formula- or
            // error-looking text a deleted row may hold.
            const written = [WRITTEN.get(d.key), drawn.server.get(d.key)].flatMap((s) => (s ? [toolRow(s.activity, timeZone)] : []))
            for (const column of VALUE_COLUMNS) {
              const cell = cells[column]
              if (isFormula(cell) || isErrorValue(cell))
                expect(
                  written.some((w) => cellText(w[column]).trim() === cellText(cell).trim()),
                  `${column} ${JSON.stringify(cell)}`,
                ).toBe(true)
            }
            if (!isEmptyCell(cells['Date'])) expect(readDateCell(cells['Date'], 'mdy').ok, `Date ${String(cells['Date'])}`).toBe(true)
            if (!isEmptyCell(cells['Start'])) expect(readTimeCell(cells['Start'], { allowDays: false }).ok).toBe(true)
            if (!isEmptyCell(cells['End'])) expect(readTimeCell(cells['End'], { allowDays: true }).ok).toBe(true)
            // The same row unticked could be saved as an edit, but for what it leaves empty and the allowed tags.
            const asEdit = parseRow(placeRow({ ...cells, Delete: false }, layout), layout, ctx)
            const blocking = asEdit.ok ? [] : asEdit.problems.filter((p) => p.severity === 'error' && !NO_REASON_TO_KEEP.has(p.code))
            expect(blocking, JSON.stringify(cells)).toEqual([])
            expect(parseActivityKey(cellText(cells['Key']))?.timelineKey).toBe(d.timelineKey)
          }
        },
      ),
      { numRuns: 500 },
    )
    // Not a property that holds by never deleting, or by never refusing.
    expect(deleted).toBeGreaterThan(50)
    expect(refused).toBeGreaterThan(50)
  })
})
