/**
 * Status words: every Status the tool writes — by an export, by an import's write-back, in any
 * outcome of its server writes — starts with exactly one word a colour rule matches, over hostile sheets.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ACTIVITY_COLUMN, type HeaderLayout } from '../../src/core/columns.ts'
import { sheetWriteBack } from '../../src/core/import-write-back.ts'
import { planExport, planSync, type Decision } from '../../src/core/plan.ts'
import { parseSheet } from '../../src/core/sheet-lines.ts'
import type { WriteOutcome, ServerWrite } from '../../src/core/server-writes.ts'
import type { CellValue, TabData, TabWrite } from '../../src/core/sheet.ts'
import { activityWrites } from '../../src/core/sheet-writes.ts'
import { readStatus, rulesMatching, STATUS_WORDS } from '../../src/core/status.ts'
import { anyContext, anyLayout, anyRow, anyServer, placeRow } from './arbitraries.ts'

const TODAY = '2026-11-22'

/** Every Status cell a write puts into the sheet. */
function statusesOf(write: TabWrite, layout: HeaderLayout): string[] {
  const column = layout.index[ACTIVITY_COLUMN.status]!
  const out: string[] = []
  for (const u of write.updates ?? []) {
    const at = column - u.column
    if (at >= 0 && at < u.values.length) out.push(String(u.values[at] ?? ''))
  }
  for (const row of write.appends ?? []) out.push(String(row[column] ?? ''))
  return out.filter((s) => s !== '')
}

function expectOneWord(status: string): void {
  expect(
    rulesMatching(status).map((r) => r.word),
    status,
  ).toHaveLength(1)
  expect(STATUS_WORDS, status).toContain(readStatus(status).word)
  expect(readStatus(status).date).toBe(TODAY)
}

const isWrite = (d: Decision): d is ServerWrite =>
  d.kind === 'import-put' || d.kind === 'import-post' || d.kind === 'import-delete' || d.kind === 'import-delete-missing'

describe('every Status the tool writes matches exactly one colour rule', () => {
  it('holds for exports and import write-backs over hostile sheets, whatever became of the server writes', () => {
    fc.assert(
      fc.property(
        anyServer
          .chain((server) => anyContext(server))
          .chain((ctx) =>
            fc.tuple(
              fc.constant(ctx),
              anyLayout,
              fc.array(anyRow(ctx.timeZone), { maxLength: 10 }),
              fc.array(fc.constantFrom('done', 'conflict', 'failed', 'adopted'), { minLength: 10, maxLength: 10 }),
              fc.boolean(),
            ),
          ),
        ([ctx, layout, rows, fates, mark]) => {
          const cells = rows.map((r) => placeRow(r, layout))
          const tab: TabData = {
            title: 'Activities',
            exists: true,
            header: [],
            rows: cells as CellValue[][],
            gridRowCount: cells.length + 1,
          }
          const lines = parseSheet(cells, layout, ctx)
          const options = { deletedOnServer: mark ? ('mark' as const) : ('remove' as const) }
          const exported = activityWrites(planExport(new Map(), lines, ctx.server, options).decisions, {
            tab,
            layout,
            timeZone: ctx.timeZone,
            today: TODAY,
          })
          for (const s of statusesOf(exported.write, layout)) expectOneWord(s)

          const decisions = planSync(new Map(), lines, ctx.server, { ...options, deleteMissing: true }).decisions
          const outcomes: WriteOutcome[] = decisions.filter(isWrite).map((d, i) => {
            const status = fates[i % fates.length] as WriteOutcome['status']
            const s = 'key' in d ? ctx.server.get(d.key) : undefined
            const activity =
              s?.activity ??
              (d.kind === 'import-post' ? { ...d.input, timelineKey: d.timelineKey, entityId: 1000 + i, isActive: true } : undefined)
            if ((status === 'done' || status === 'adopted') && d.kind !== 'import-delete' && d.kind !== 'import-delete-missing' && activity)
              return { decision: d, status, activity, user: d.user }
            return {
              decision: d,
              status: status === 'conflict' ? 'conflict' : 'failed',
              message: status === 'conflict' ? 'Changed on the server while this import ran.' : 'Not saved: HTTP 500',
            }
          })
          const back = sheetWriteBack(
            tab,
            tab,
            layout,
            outcomes,
            decisions,
            { timeZone: ctx.timeZone, deletedRows: options.deletedOnServer },
            TODAY,
            new Map(ctx.server),
          )
          for (const s of statusesOf(back.write, layout)) expectOneWord(s)
        },
      ),
      { numRuns: 200 },
    )
  })
})
