/**
 * Properties of the row parser over cells of every kind in every column: it
 * never throws; a row that is not ok says why, in at least one error
 * with a short printable message; a row that is ok asks only for values the
 * server and the sheet can hold; a Key on several rows makes all of them
 * invalid.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isErrorValue, isFormula } from '../../src/core/cells.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import { parseSheet } from '../../src/core/sheet-lines.ts'
import type { ParsedRow } from '../../src/core/row-outcome.ts'
import type { RowContext } from '../../src/core/row-context.ts'
import { MAX_TAG_LENGTH, MAX_TAGS } from '../../src/core/tags.ts'
import { parseOffsetInstant } from '../../src/core/instant.ts'
import { isPlausibleStart } from '../../src/timeline/plausible-start.ts'
import { MAX_ACTIVITY_SECONDS } from '../../src/timeline/schemas.ts'
import { ACTIVITIES, anyCell, anyContext, anyLayout, anyRow, anyServer, placeRow, serverOf } from './arbitraries.ts'

const RUNS = 400
const UNPRINTABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** What must hold of any one parsed row. */
function checkParsed(parsed: ParsedRow, ctx: RowContext): void {
  if (!parsed.ok) {
    const errors = parsed.problems.filter((p) => p.severity === 'error')
    expect(errors.length).toBeGreaterThan(0)
    for (const p of parsed.problems) {
      expect(p.message.length).toBeGreaterThan(0)
      // A Status is one cell: short, and nothing a workbook's XML cannot hold.
      expect(p.message.length).toBeLessThan(2_000)
      expect(p.message).not.toMatch(UNPRINTABLE)
    }
    return
  }
  const row = parsed.row
  if (!row || row.kind === 'discarded' || row.kind === 'delete') return
  const { input } = row.values
  const start = parseOffsetInstant(input.start)
  expect(Number.isFinite(start.epochSeconds)).toBe(true)
  expect(Number.isSafeInteger(input.duration) && input.duration >= 0).toBe(true)
  // What the Timeline client accepts back from the server (src/timeline/schemas.ts): else the created activity is unreadable.
  expect(isPlausibleStart(input.start), input.start).toBe(true)
  expect(input.duration).toBeLessThanOrEqual(MAX_ACTIVITY_SECONDS)
  expect(input.tags.length).toBeGreaterThan(0)
  expect(input.tags.length).toBeLessThanOrEqual(MAX_TAGS)
  const original = row.kind === 'existing' ? ctx.server.get(row.key)?.activity : undefined
  for (const tag of input.tags) {
    expect(tag.length).toBeLessThanOrEqual(MAX_TAG_LENGTH)
    // An error value or a formula goes to the server only as text the tool itself wrote.
    if (isErrorValue(tag) || isFormula(tag)) expect(original?.tags ?? [], `tag ${tag}`).toContain(tag)
  }
  if (input.notes !== undefined && (isErrorValue(input.notes) || isFormula(input.notes)) && original?.notes !== input.notes) {
    expect(row.kind, `notes ${input.notes}`).toBe('existing')
    expect(row.kind === 'existing' && row.baseCell).toBe(row.values.fingerprint)
  }
  for (const n of row.notices ?? []) {
    expect(n.column).toBe('Duration')
    expect(n.value).toBe(input.duration / 86_400)
  }
}

describe('row parser over hostile cells', () => {
  it('never throws; an invalid row says why; a valid row asks only for what can be held', () => {
    fc.assert(
      fc.property(
        anyServer
          .chain((server) => anyContext(server))
          .chain((ctx) => fc.tuple(fc.constant(ctx), anyLayout, anyRow(ctx.timeZone), anyCell)),
        ([ctx, layout, cells, extra]) => {
          checkParsed(parseRow(placeRow(cells, layout, extra), layout, ctx), ctx)
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('never throws on a row of any length holding anything at all', () => {
    fc.assert(
      fc.property(
        anyServer.chain((server) => anyContext(server)),
        anyLayout,
        fc.array(anyCell, { maxLength: 20 }),
        (ctx, layout, cells) => {
          checkParsed(parseRow(cells, layout, ctx), ctx)
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('refuses every row whose Key another row holds, naming the rows', () => {
    const server = serverOf(ACTIVITIES)
    fc.assert(
      fc.property(
        anyContext(server).chain((ctx) =>
          fc.tuple(fc.constant(ctx), anyLayout, fc.array(anyRow(ctx.timeZone), { minLength: 1, maxLength: 12 })),
        ),
        ([ctx, layout, rows]) => {
          const cells = rows.map((r) => placeRow(r, layout))
          const lines = parseSheet(cells, layout, ctx)
          const keyOf = (line: (typeof lines)[number]) =>
            line.kind === 'invalid' || line.kind === 'in-step' ? line.key : 'key' in line.row ? line.row.key : undefined
          const count = new Map<string, number>()
          for (const line of lines) {
            const key = keyOf(line)
            if (key !== undefined) count.set(key, (count.get(key) ?? 0) + 1)
          }
          for (const line of lines) {
            const key = keyOf(line)
            if (key === undefined || (count.get(key) ?? 0) < 2) continue
            expect(line.kind).toBe('invalid')
            if (line.kind === 'invalid') {
              expect(line.problems[0]!.code).toBe('duplicate-key')
              expect(line.problems[0]!.message).toContain(
                `rows ${lines
                  .filter((l) => keyOf(l) === key)
                  .map((l) => l.rowNumber)
                  .join(', ')}`,
              )
            }
          }
          for (const line of lines) if (line.kind === 'invalid') checkParsed({ ok: false, key: line.key, problems: line.problems }, ctx)
        },
      ),
      { numRuns: 200 },
    )
  })
})
