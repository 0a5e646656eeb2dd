import { describe, expect, it } from 'vitest'
import { fingerprintOf, planExport, planSync, ruleFor, SYNC_TABLE, type Decision, type SideChange } from '../../src/core/plan.ts'
import type { SheetLine } from '../../src/core/sheet-lines.ts'
import type { RowValues, SheetActivity } from '../../src/core/row-outcome.ts'
import type { ServerActivity } from '../../src/core/row-context.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import type { Activity } from '../../src/timeline/model.ts'
import { ANNA_TL, activity } from './fixtures.ts'

const USER = 'ACME\\anna'
const KEY = activityKey(ANNA_TL, 7)
const BASE_ACTIVITY = activity()
const SERVER_EDIT = activity({ notes: 'changed on the server' })
const SHEET_EDIT = activity({ tags: ['Acme', 'Design'] })

function fp(a: Activity): string {
  return fingerprintOf({ activity: a, user: USER })
}

function values(a: Activity): RowValues {
  return {
    user: USER,
    timelineKey: a.timelineKey,
    input: { tags: a.tags, notes: a.notes, start: a.start, duration: a.duration },
    fingerprint: fp(a),
  }
}

function existing(a: Activity, baseCell: string | undefined, rowNumber = 2): SheetLine {
  return { kind: 'row', rowNumber, row: { kind: 'existing', key: KEY, entityId: 7, baseCell, values: values(a), warnings: [] } }
}

function ticked(baseCell: string | undefined, rowNumber = 2): SheetLine {
  return { kind: 'row', rowNumber, row: { kind: 'delete', key: KEY, entityId: 7, timelineKey: ANNA_TL, baseCell, warnings: [] } }
}

function newLine(rowNumber = 3): SheetLine {
  const row: SheetActivity = { kind: 'new', values: values(activity({ entityId: 0, tags: ['Internal'] })), warnings: [] }
  return { kind: 'row', rowNumber, row }
}

function server(...activities: Activity[]): Map<string, ServerActivity> {
  return new Map(activities.map((a) => [activityKey(a.timelineKey, a.entityId), { activity: a, user: USER }]))
}

/** Builds base, sheet and server for one cell of the table. */
function scenario(
  sheet: SideChange,
  srv: SideChange,
): { base: Map<string, string>; lines: SheetLine[]; current: Map<string, ServerActivity> } {
  const knownToBase = srv === 'unchanged' || srv === 'changed' || srv === 'deleted'
  const base = new Map(knownToBase ? [[KEY, fp(BASE_ACTIVITY)]] : [])
  const baseCell = knownToBase ? fp(BASE_ACTIVITY) : undefined
  const current = srv === 'unchanged' ? server(BASE_ACTIVITY) : srv === 'changed' || srv === 'added' ? server(SERVER_EDIT) : server()
  const lines: SheetLine[] =
    sheet === 'unchanged'
      ? [existing(BASE_ACTIVITY, baseCell)]
      : sheet === 'changed'
        ? [existing(SHEET_EDIT, baseCell)]
        : sheet === 'deleted'
          ? [ticked(baseCell)]
          : sheet === 'added'
            ? [newLine()]
            : []
  return { base, lines, current }
}

function only(decisions: Decision[]): Decision {
  expect(decisions).toHaveLength(1)
  return decisions[0]!
}

describe('decisions/0000-product.md §3, cell by cell', () => {
  it('has one rule per pair of side changes', () => {
    const pairs = SYNC_TABLE.map((r) => `${r.sheet}/${r.server}`)
    expect(new Set(pairs).size).toBe(pairs.length)
    expect(ruleFor('added', 'changed')).toBeUndefined()
  })

  it.each(SYNC_TABLE.map((r) => [r.sheet, r.server, r.action, r] as const))(
    'sheet %s, server %s → %s',
    (sheetSide, serverSide, action, rule) => {
      const { base, lines, current } = scenario(sheetSide, serverSide)
      const d = only(planSync(base, lines, current).decisions)
      expect(d.kind).toBe(action)
      expect(d.sheet).toBe(sheetSide)
      expect(d.server).toBe(serverSide)
      expect(d.reason).toBe(rule.reason)
    },
  )

  it('writes what each action needs', () => {
    const put = only(planSync(...args(scenario('changed', 'unchanged'))).decisions)
    expect(put).toMatchObject({
      kind: 'import-put',
      key: KEY,
      rowNumber: 2,
      timelineKey: ANNA_TL,
      entityId: 7,
      user: USER,
      input: values(SHEET_EDIT).input,
      fingerprint: fp(SHEET_EDIT),
    })
    const update = only(planSync(...args(scenario('unchanged', 'changed'))).decisions)
    expect(update).toMatchObject({
      kind: 'export-update',
      key: KEY,
      rowNumber: 2,
      activity: SERVER_EDIT,
      user: USER,
      fingerprint: fp(SERVER_EDIT),
    })
    const post = only(planSync(...args(scenario('added', 'missing'))).decisions)
    expect(post).toMatchObject({ kind: 'import-post', rowNumber: 3, timelineKey: ANNA_TL, user: USER, input: { tags: ['Internal'] } })
    const del = only(planSync(...args(scenario('deleted', 'unchanged'))).decisions)
    expect(del).toMatchObject({ kind: 'import-delete', key: KEY, rowNumber: 2, timelineKey: ANNA_TL, entityId: 7 })
    const append = only(planSync(...args(scenario('missing', 'added'))).decisions)
    expect(append).toMatchObject({ kind: 'export-append', key: KEY, activity: SERVER_EDIT, fingerprint: fp(SERVER_EDIT) })
  })
})

function args(s: ReturnType<typeof scenario>): [Map<string, string>, SheetLine[], Map<string, ServerActivity>] {
  return [s.base, s.lines, s.current]
}

describe('beyond the table', () => {
  const base = new Map([[KEY, fp(BASE_ACTIVITY)]])

  it('turns the same change on both sides into a Base refresh, not a conflict', () => {
    const d = only(planSync(base, [existing(SERVER_EDIT, fp(BASE_ACTIVITY))], server(SERVER_EDIT)).decisions)
    expect(d).toMatchObject({
      kind: 'refresh-base',
      key: KEY,
      rowNumber: 2,
      fingerprint: fp(SERVER_EDIT),
      sheet: 'changed',
      server: 'changed',
    })
  })

  it('refreshes when the tool has no record but sheet and server agree', () => {
    const d = only(planSync(new Map(), [existing(SERVER_EDIT, undefined)], server(SERVER_EDIT)).decisions)
    expect(d).toMatchObject({ kind: 'refresh-base', sheet: 'changed', server: 'added' })
  })

  it('refreshes a stale Base cell when nothing else changed', () => {
    const d = only(planSync(base, [existing(BASE_ACTIVITY, 'stale')], server(BASE_ACTIVITY)).decisions)
    expect(d).toMatchObject({ kind: 'refresh-base', sheet: 'unchanged', server: 'unchanged', fingerprint: fp(BASE_ACTIVITY) })
  })

  it('uses the Base cell when state has lost the key', () => {
    const d = only(planSync(new Map(), [existing(SHEET_EDIT, fp(BASE_ACTIVITY))], server(BASE_ACTIVITY)).decisions)
    expect(d.kind).toBe('import-put')
  })

  it('is idempotent after a crash between writing the sheet and saving state (export)', () => {
    // The row and its Base cell show the server's new version; state still has the old fingerprint.
    const d = only(planSync(base, [existing(SERVER_EDIT, fp(SERVER_EDIT))], server(SERVER_EDIT)).decisions)
    expect(d.kind).toBe('refresh-base')
  })

  it('is idempotent after a crash between PUT and writing the sheet (import)', () => {
    const d = only(planSync(base, [existing(SHEET_EDIT, fp(BASE_ACTIVITY))], server(SHEET_EDIT)).decisions)
    expect(d.kind).toBe('refresh-base')
  })

  describe('a workbook restored from its .bak', () => {
    // The state knows the server's newer version; the restored row still shows the old one, unedited.
    const newer = new Map([[KEY, fp(SERVER_EDIT)]])

    it('refreshes a stale row that nobody edited instead of sending it back (export)', () => {
      const d = only(planExport(newer, [existing(BASE_ACTIVITY, fp(BASE_ACTIVITY))], server(SERVER_EDIT)).decisions)
      expect(d).toMatchObject({ kind: 'export-update', sheet: 'unchanged', server: 'changed', fingerprint: fp(SERVER_EDIT) })
    })

    it('never plans a PUT for it in a sync', () => {
      const d = only(planSync(newer, [existing(BASE_ACTIVITY, fp(BASE_ACTIVITY))], server(SERVER_EDIT)).decisions)
      expect(d.kind).not.toBe('import-put')
      expect(d.kind).toBe('export-update')
    })

    it('removes it when the server deleted the activity meanwhile', () => {
      const d = only(planExport(newer, [existing(BASE_ACTIVITY, fp(BASE_ACTIVITY))], server()).decisions)
      expect(d.kind).toBe('export-remove')
    })

    it('still sends a real edit of a row whose Base is current', () => {
      const d = only(planSync(newer, [existing(SHEET_EDIT, fp(SERVER_EDIT))], server(SERVER_EDIT)).decisions)
      expect(d.kind).toBe('import-put')
    })
  })

  it('never deletes when Delete is ticked but the server changed', () => {
    expect(only(planSync(base, [ticked(fp(BASE_ACTIVITY))], server(SERVER_EDIT)).decisions).kind).toBe('conflict')
  })

  it('marks instead of removing rows deleted on the server, by option', () => {
    const d = only(planSync(base, [existing(BASE_ACTIVITY, fp(BASE_ACTIVITY))], server(), { deletedOnServer: 'mark' }).decisions)
    expect(d).toMatchObject({ kind: 'export-mark-deleted', key: KEY, rowNumber: 2 })
  })

  it('deletes a missing row only when the operator allows it and the server did not change', () => {
    expect(only(planSync(base, [], server(BASE_ACTIVITY)).decisions).kind).toBe('report-missing')
    expect(only(planSync(base, [], server(BASE_ACTIVITY), { deleteMissing: true }).decisions)).toMatchObject({
      kind: 'import-delete-missing',
      key: KEY,
      timelineKey: ANNA_TL,
      entityId: 7,
    })
    expect(only(planSync(base, [], server(SERVER_EDIT), { deleteMissing: true }).decisions).kind).toBe('report-missing')
  })

  it('reports an invalid row with its first error, and keeps its activity out of export and missing', () => {
    const invalid: SheetLine = {
      kind: 'invalid',
      rowNumber: 4,
      key: KEY,
      problems: [
        { code: 'tags-not-allowed', severity: 'warning', column: 'Tags', message: 'Tags: warning' },
        { code: 'unparseable-time', severity: 'error', column: 'Start', message: 'Start: "x" is not a time' },
      ],
    }
    const d = only(planSync(base, [invalid], server(SERVER_EDIT)).decisions)
    expect(d).toMatchObject({ kind: 'invalid', rowNumber: 4, key: KEY, reason: 'Start: "x" is not a time' })
  })

  it('creates nothing for a new row with Delete ticked', () => {
    const d = only(planSync(new Map(), [{ kind: 'row', rowNumber: 9, row: { kind: 'discarded', warnings: [] } }], server()).decisions)
    expect(d).toMatchObject({ kind: 'noop', rowNumber: 9 })
  })

  it('passes row warnings on for the Status column', () => {
    const line = newLine()
    if (line.kind === 'row')
      line.row.warnings.push({ code: 'nonexistent-time', severity: 'warning', column: 'Start', message: 'Start: moved' })
    expect(only(planSync(new Map(), [line], server()).decisions).warnings).toHaveLength(1)
  })

  it('plans a mixed sheet and counts by kind', () => {
    const other = activity({ entityId: 8 })
    const fresh = activity({ entityId: 9 })
    const gone = activityKey(ANNA_TL, 10)
    const b = new Map([
      [KEY, fp(BASE_ACTIVITY)],
      [activityKey(ANNA_TL, 8), fp(other)],
      [gone, 'x'],
    ])
    const p = planSync(b, [existing(SHEET_EDIT, fp(BASE_ACTIVITY)), newLine()], server(BASE_ACTIVITY, other, fresh))
    expect(p.decisions.map((d) => d.kind)).toEqual(['import-put', 'import-post', 'report-missing', 'export-append', 'forget'])
    expect(p.counts).toMatchObject({ 'import-put': 1, 'import-post': 1, 'report-missing': 1, 'export-append': 1, forget: 1, conflict: 0 })
  })
})

describe('export-only runs', () => {
  const base = new Map([[KEY, fp(BASE_ACTIVITY)]])
  const WAITING = 'Waiting for the next import (sync) to send this edit to the server.'

  it('never overwrites an edit that has not been imported', () => {
    expect(only(planExport(base, [existing(SHEET_EDIT, fp(BASE_ACTIVITY))], server(BASE_ACTIVITY)).decisions)).toMatchObject({
      kind: 'noop',
      reason: WAITING,
    })
    const both = only(planExport(base, [existing(SHEET_EDIT, fp(BASE_ACTIVITY))], server(SERVER_EDIT)).decisions)
    expect(both.kind).toBe('conflict')
    expect(both.reason).toMatch(/on the server/)
  })

  it('leaves new rows and ticked deletes for the import', () => {
    expect(only(planExport(new Map(), [newLine()], server()).decisions)).toMatchObject({ kind: 'noop', rowNumber: 3, reason: WAITING })
    expect(only(planExport(base, [ticked(fp(BASE_ACTIVITY))], server(BASE_ACTIVITY)).decisions)).toMatchObject({
      kind: 'noop',
      reason: WAITING,
    })
  })

  it('still exports server changes and never deletes missing rows on the server', () => {
    expect(only(planExport(base, [existing(BASE_ACTIVITY, fp(BASE_ACTIVITY))], server(SERVER_EDIT)).decisions).kind).toBe('export-update')
    expect(only(planExport(base, [], server(BASE_ACTIVITY), { deleteMissing: true }).decisions).kind).toBe('report-missing')
  })
})
