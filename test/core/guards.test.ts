import { describe, expect, it } from 'vitest'
import { asImportCarriesOut, runGuards, type GuardFacts } from '../../src/core/guards.ts'
import type { Decision, DecisionKind, SideChange, SyncPlan } from '../../src/core/plan.ts'

function planOf(entries: [DecisionKind, number, SideChange?][]): SyncPlan {
  const decisions = entries.flatMap(([kind, n, sheet]) =>
    Array.from(
      { length: n },
      (_, i) =>
        ({
          kind,
          key: `t/${kind}${i}`,
          rowNumber: i + 2,
          reason: '',
          sheet: sheet ?? 'unchanged',
          server: 'unchanged',
          warnings: [],
        }) as unknown as Decision,
    ),
  )
  const counts = Object.fromEntries(
    [
      'noop',
      'refresh-base',
      'export-update',
      'export-append',
      'export-remove',
      'export-mark-deleted',
      'import-put',
      'import-post',
      'import-delete',
      'import-delete-missing',
      'conflict',
      'invalid',
      'report-missing',
      'forget',
    ].map((k) => [k, decisions.filter((d) => d.kind === k).length]),
  ) as Record<DecisionKind, number>
  return { decisions, counts }
}

const facts = (over: Partial<GuardFacts> = {}): GuardFacts => ({
  headerProblems: [],
  sheetRowCount: 20,
  keyedRowCount: 20,
  baseCount: 20,
  ...over,
})

describe('guards', () => {
  it('pass an ordinary plan', () => {
    expect(
      runGuards(
        planOf([
          ['noop', 15],
          ['import-put', 3, 'changed'],
          ['import-delete', 2, 'deleted'],
        ]),
        facts(),
      ),
    ).toEqual([])
  })

  it('stop too many deletes on the server by share, naming --max-delete', () => {
    const f = runGuards(
      planOf([
        ['noop', 9],
        ['import-delete', 11, 'deleted'],
      ]),
      facts(),
    )
    expect(f).toEqual([
      {
        guard: 'too-many-deletes',
        flag: '--max-delete',
        count: 11,
        total: 20,
        message:
          'Safety abort: too many deletes on the server (11 of 20, 55% > 50% of the rows). Nothing was written. Check the plan with --dry-run, then run with --max-delete 55% (or --force) if this is intended.',
      },
    ])
  })

  it('count deletions of missing rows and removals from the sheet too', () => {
    expect(runGuards(planOf([['import-delete-missing', 11, 'missing']]), facts()).map((g) => g.guard)).toEqual(['too-many-deletes'])
    expect(runGuards(planOf([['export-remove', 11]]), facts())[0]?.message).toMatch(/from the sheet/)
  })

  it('count, for an import, only the rows it removes: ticked ones whose activity is gone, not those the server deleted', () => {
    // Eleven of twenty activities deleted on the server: their rows are the export's to remove, and its stop's to ask.
    const serverDeleted = planOf([['export-remove', 11]])
    expect(runGuards(asImportCarriesOut(serverDeleted), facts())).toEqual([])
    expect(runGuards(serverDeleted, facts())[0]?.message).toMatch(/from the sheet/)
    // Eleven ticked rows whose activity is gone already: the import removes them, and the stop holds.
    const ticked = planOf([['export-remove', 11, 'deleted']])
    expect(asImportCarriesOut(ticked)).toBe(ticked)
    expect(runGuards(asImportCarriesOut(ticked), facts())[0]?.message).toMatch(/too many deletes from the sheet \(11 of 20/)
    // Deletions on the server (ticked rows) are counted as before.
    expect(runGuards(asImportCarriesOut(planOf([['import-delete', 11, 'deleted']])), facts()).map((g) => g.guard)).toEqual([
      'too-many-deletes',
    ])
  })

  it('let exactly the threshold through and honour --max-delete', () => {
    expect(runGuards(planOf([['import-delete', 10, 'deleted']]), facts())).toEqual([])
    expect(runGuards(planOf([['import-delete', 11, 'deleted']]), facts(), { maxDeletePercent: 60 })).toEqual([])
  })

  it('let a small team delete a couple of rows, but not past the count limit', () => {
    expect(runGuards(planOf([['import-delete', 2, 'deleted']]), facts({ baseCount: 2, sheetRowCount: 2 }))).toEqual([])
    expect(runGuards(planOf([['import-delete', 3, 'deleted']]), facts({ baseCount: 3, sheetRowCount: 3 }))).toHaveLength(1)
    expect(runGuards(planOf([['import-delete', 6, 'deleted']]), facts({ baseCount: 1000 }), { maxDeleteCount: 5 })).toHaveLength(1)
  })

  it('stop on a damaged header, naming --force-layout', () => {
    const f = runGuards(planOf([]), facts({ headerProblems: [{ kind: 'missing', column: 'Key', message: 'Column "Key" is missing' }] }))
    expect(f.map((g) => [g.guard, g.flag])).toEqual([['damaged-layout', '--force-layout']])
    expect(f[0]?.message).toMatch(/Column "Key" is missing.*--force-layout/)
    expect(runGuards(planOf([]), facts({ headerProblems: [{ kind: 'no-header', message: 'x' }] }), { forceLayout: true })).toEqual([])
  })

  it('stop on an empty sheet where rows were expected, naming --force', () => {
    const f = runGuards(planOf([['report-missing', 20, 'missing']]), facts({ sheetRowCount: 0 }))
    expect(f.map((g) => [g.guard, g.flag])).toEqual([['empty-sheet', '--force']])
    expect(runGuards(planOf([]), facts({ sheetRowCount: 0, baseCount: 0 }))).toEqual([])
  })

  it('stop when almost every row changed (a time zone accident), naming --force', () => {
    const f = runGuards(
      planOf([
        ['import-put', 19, 'changed'],
        ['noop', 1],
      ]),
      facts(),
    )
    expect(f.map((g) => [g.guard, g.flag, g.count, g.total])).toEqual([['almost-everything-changed', '--force', 19, 20]])
    expect(f[0]?.message).toMatch(/time zone/)
    expect(
      runGuards(
        planOf([
          ['import-put', 18, 'changed'],
          ['noop', 2],
        ]),
        facts(),
      ),
    ).toEqual([])
    expect(runGuards(planOf([['import-put', 9, 'changed']]), facts({ baseCount: 9, sheetRowCount: 9, keyedRowCount: 9 }))).toEqual([])
  })

  it("count the share of changed rows against the sheet's Keys, not the rows an import planned", () => {
    // A manager retagged every row of one user's week: the import planned that week only.
    const retagged = planOf([['import-put', 10, 'changed']])
    expect(runGuards(retagged, facts({ keyedRowCount: 19, sheetRowCount: 19, baseCount: 19 }))).toEqual([])
    // A changed time zone changes the rows of every week.
    const f = runGuards(retagged, facts({ keyedRowCount: 10, sheetRowCount: 10, baseCount: 10 }))
    expect(f.map((g) => [g.guard, g.count, g.total])).toEqual([['almost-everything-changed', 10, 10]])
  })

  it('are all skipped by --force except the layout guard', () => {
    const plan = planOf([['import-delete', 20, 'deleted']])
    expect(runGuards(plan, facts({ sheetRowCount: 0 }), { force: true })).toEqual([])
    expect(runGuards(plan, facts({ headerProblems: [{ kind: 'no-header', message: 'x' }] }), { force: true }).map((g) => g.guard)).toEqual([
      'damaged-layout',
    ])
  })
})
