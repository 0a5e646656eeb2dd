/**
 * Properties of the planner over sheets of hostile rows: it never
 * throws; no server write is planned from an invalid row or for a Key that
 * more than one row holds; every invalid decision carries an error with a
 * message; an export plans no import.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fingerprintOf, planExport, planSync, type Decision } from '../../src/core/plan.ts'
import { ACTIVITY_COLUMN } from '../../src/core/columns.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import { parseSheet, type SheetLine } from '../../src/core/sheet-lines.ts'
import { activityToCells } from '../../src/core/row-write.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import { ACTIVITIES, anyContext, anyLayout, anyRow, anyServer, placeRow, serverOf } from './arbitraries.ts'

const RUNS = 300
const ALL = serverOf(ACTIVITIES)
const WRITES = new Set(['import-put', 'import-post', 'import-delete', 'import-delete-missing'])

/** Base: a few of the state's fingerprints (current, outdated or garbage) for keys on the sheet or not. */
const anyBase = fc
  .array(
    fc.tuple(
      fc.constantFrom(...ACTIVITIES.map((a) => activityKey(a.timelineKey, a.entityId)), 'tl-anna/999'),
      fc.oneof(fc.constantFrom(...[...ALL.values()].map(fingerprintOf)), fc.constant('outdated000')),
    ),
    { maxLength: 6 },
  )
  .map((entries) => new Map(entries))

/** A context (server, users, zone, allowed tags), a header layout, up to `maxRows` hostile rows and a base. */
function anySheet(maxRows: number) {
  return anyServer
    .chain((server) => anyContext(server))
    .chain((ctx) => fc.tuple(fc.constant(ctx), anyLayout, fc.array(anyRow(ctx.timeZone), { maxLength: maxRows }), anyBase))
}

/** The rows placed under the layout and parsed as a whole sheet. */
function parsedSheet(rows: Parameters<typeof placeRow>[0][], layout: Parameters<typeof parseRow>[1], ctx: Parameters<typeof parseRow>[2]) {
  return parseSheet(
    rows.map((r) => placeRow(r, layout)),
    layout,
    ctx,
  )
}

/** Lines as the engine may hand them over: one parse per row, duplicates not yet refused. */
function linesOf(
  rows: ReturnType<typeof placeRow>[],
  layout: Parameters<typeof parseRow>[1],
  ctx: Parameters<typeof parseRow>[2],
): SheetLine[] {
  const lines: SheetLine[] = []
  rows.forEach((cells, i) => {
    const parsed = parseRow(cells, layout, ctx)
    if (!parsed.ok) lines.push({ kind: 'invalid', rowNumber: i + 2, key: parsed.key, problems: parsed.problems })
    else if (parsed.row) lines.push({ kind: 'row', rowNumber: i + 2, row: parsed.row })
  })
  return lines
}

function keyOf(line: SheetLine): string | undefined {
  if (line.kind === 'invalid' || line.kind === 'in-step') return line.key
  return 'key' in line.row ? line.row.key : undefined
}

function checkPlan(decisions: Decision[], lines: readonly SheetLine[], mode: 'sync' | 'export'): void {
  const byRow = new Map(lines.map((l) => [l.rowNumber, l]))
  const count = new Map<string, number>()
  for (const line of lines) {
    const key = keyOf(line)
    if (key !== undefined) count.set(key, (count.get(key) ?? 0) + 1)
  }
  for (const d of decisions) {
    if (d.kind === 'invalid') {
      expect(d.problems.some((p) => p.severity === 'error' && p.message.length > 0)).toBe(true)
      expect(d.reason.length).toBeGreaterThan(0)
    }
    if (!WRITES.has(d.kind)) continue
    expect(mode).toBe('sync')
    if (d.kind === 'import-delete-missing') continue
    const line = 'rowNumber' in d && d.rowNumber !== undefined ? byRow.get(d.rowNumber) : undefined
    expect(line?.kind, `${d.kind} from row ${'rowNumber' in d ? d.rowNumber : '?'}`).toBe('row')
    if (line?.kind !== 'row') continue
    const key = keyOf(line)
    if (key !== undefined) expect(count.get(key), `${d.kind} for ${key} held by several rows`).toBe(1)
    if (d.kind === 'import-put') expect(line.row.kind).toBe('existing')
    if (d.kind === 'import-post') expect(line.row.kind).toBe('new')
    if (d.kind === 'import-delete') expect(line.row.kind).toBe('delete')
  }
}

describe('planner over hostile sheets', () => {
  it('plans no write from an invalid row or a duplicated Key, whoever refused them', () => {
    fc.assert(
      fc.property(anySheet(14), ([ctx, layout, rows, base]) => {
        const cells = rows.map((r) => placeRow(r, layout))
        for (const lines of [parseSheet(cells, layout, ctx), linesOf(cells, layout, ctx)]) {
          checkPlan(planSync(base, lines, ctx.server).decisions, lines, 'sync')
          checkPlan(planSync(base, lines, ctx.server, { deleteMissing: true, deletedOnServer: 'mark' }).decisions, lines, 'sync')
          checkPlan(planExport(base, lines, ctx.server).decisions, lines, 'export')
        }
      }),
      { numRuns: RUNS },
    )
  })

  it('gives every row it exports the fingerprint of what it writes (sheet-writes uses it as the Base cell)', () => {
    fc.assert(
      fc.property(anySheet(10), ([ctx, layout, rows, base]) => {
        const lines = parsedSheet(rows, layout, ctx)
        for (const plan of [planSync(base, lines, ctx.server), planExport(base, lines, ctx.server)]) {
          for (const d of plan.decisions) {
            if (d.kind !== 'export-update' && d.kind !== 'export-append') continue
            expect(d.fingerprint, d.key).toBe(fingerprintOf({ user: d.user, activity: d.activity }))
            expect(activityToCells(d.activity, d.user, ctx.timeZone)[ACTIVITY_COLUMN.base]).toBe(d.fingerprint)
          }
        }
      }),
      { numRuns: RUNS },
    )
  })

  it('calls no Key deleted on the server that the state never knew', () => {
    fc.assert(
      fc.property(anySheet(10), ([ctx, layout, rows, base]) => {
        const lines = parsedSheet(rows, layout, ctx)
        for (const d of planSync(base, lines, ctx.server).decisions) {
          if (d.server === 'deleted' && 'key' in d) expect(base.has(d.key!), `${d.kind} ${d.key}: ${d.reason}`).toBe(true)
        }
      }),
      { numRuns: RUNS },
    )
  })
})
