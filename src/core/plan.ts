/**
 * The three-way planner (decisions/0000-product.md §3). Each activity is seen three times: base
 * (what the last successful run left, from state, or from the row's Base cell
 * when state does not know it), sheet (the row now) and server (the activity
 * now). Detection first: each side against base gives a `SideChange`. Then
 * the decision: `SYNC_TABLE` maps the pair to an action; a two-sided change
 * whose sides now agree is not a conflict but a Base refresh. Pure: the
 * engine applies the plan.
 *
 * Why base = state's fingerprint ?? the Base cell (for both sides): every
 * crash window (written the sheet but not state, PUT but not the sheet)
 * leaves sheet and server agreeing, which the false-positive check turns into
 * a refresh rather than a second write or a conflict.
 *
 * Two rules hold whatever the caller passes in:
 * - A Key on more than one line makes every one of those lines invalid: no
 *   write is planned for that activity until one row is left.
 * - A Key the server does not have and `base` (the state) never knew is
 *   unknown, not "deleted on the server": a Base cell alone proves only that
 *   some row somewhere once carried it (a row pasted from another sheet).
 *
 * Longer than most files because detection, `SYNC_TABLE` and the rules that override it must be read together
 * to see that every pair of changes is decided once.
 */
import type { Activity, ActivityInput } from './activity.ts'
import { fingerprintOf } from './fingerprint.ts'
import type { StatusWord } from './status.ts'

export { fingerprintOf } from './fingerprint.ts'
import { withDuplicatesRefused, type SheetLine } from './sheet-lines.ts'
import type { RowNotice, RowProblem } from './row-outcome.ts'
import type { ServerActivity } from './row-context.ts'

/** How one side stands against base. */
export type SideChange = 'unchanged' | 'changed' | 'deleted' | 'added' | 'missing'

export type DecisionKind =
  | 'noop'
  | 'refresh-base'
  | 'export-update'
  | 'export-append'
  | 'export-remove'
  | 'export-mark-deleted'
  | 'import-put'
  | 'import-post'
  | 'import-delete'
  | 'import-delete-missing'
  | 'conflict'
  | 'invalid'
  | 'report-missing'
  | 'forget'

/** Actions the table can name (options then turn some into their variants). */
export type TableAction = Extract<
  DecisionKind,
  | 'noop'
  | 'export-update'
  | 'export-append'
  | 'export-remove'
  | 'import-put'
  | 'import-post'
  | 'import-delete'
  | 'conflict'
  | 'invalid'
  | 'report-missing'
  | 'forget'
>

export interface SyncRule {
  sheet: SideChange
  server: SideChange
  action: TableAction
  /** The Status word a row with this pair gets (status.ts). */
  word: StatusWord
  /** For the Status column and the plan printout. */
  reason: string
}

/**
 * decisions/0000-product.md §3 as data, plus the cells it implies. `sheet: 'deleted'` is Delete
 * ticked; `'missing'` is no row (sheet) / no activity and no base (server);
 * `'added'` is a new row without Key (sheet) / an activity base does not know (server).
 */
export const SYNC_TABLE = [
  { sheet: 'unchanged', server: 'unchanged', word: 'Done', action: 'noop', reason: 'In step with the server.' },
  {
    sheet: 'unchanged',
    server: 'changed',
    word: 'Done',
    action: 'export-update',
    reason: 'Changed on the server since the last sync; the row now shows the server version.',
  },
  { sheet: 'unchanged', server: 'deleted', word: 'Deleted', action: 'export-remove', reason: 'Deleted on the server since the last sync.' },
  {
    sheet: 'changed',
    server: 'unchanged',
    word: 'Done',
    action: 'import-put',
    reason: 'Edited in the sheet; the edit is saved to the server.',
  },
  {
    sheet: 'changed',
    server: 'changed',
    word: 'Conflict',
    action: 'conflict',
    reason:
      'Changed both here and on the server since the last sync, so nothing was written and your edit is kept. Make the row match the server version to accept it, or ask the operator.',
  },
  {
    sheet: 'changed',
    server: 'deleted',
    word: 'Conflict',
    action: 'conflict',
    reason:
      'Edited here but deleted on the server since the last sync, so nothing was written and your edit is kept. Clear Key and Base to add it again as a new activity, or delete the row.',
  },
  {
    sheet: 'changed',
    server: 'added',
    word: 'Conflict',
    action: 'conflict',
    reason:
      'The tool has no record of the last sync for this row and it differs from the server, so nothing was written. Make the row match the server, or clear Key and Base to add it as a new activity.',
  },
  {
    sheet: 'changed',
    server: 'missing',
    word: 'Error',
    action: 'invalid',
    reason:
      'This activity is not on the server and the tool has no record of it (a Key pasted from another sheet, or typed?), so nothing was written. Clear Key and Base to add the row as a new activity, or delete the row.',
  },
  {
    sheet: 'deleted',
    server: 'unchanged',
    word: 'Deleted',
    action: 'import-delete',
    reason: 'Delete ticked; the activity is deleted on the server.',
  },
  {
    sheet: 'deleted',
    server: 'changed',
    word: 'Conflict',
    action: 'conflict',
    reason:
      'Delete ticked, but the activity changed on the server since the last sync, so it was not deleted. Untick Delete to see the server version, or tick it again after the next sync.',
  },
  {
    sheet: 'deleted',
    server: 'deleted',
    word: 'Deleted',
    action: 'export-remove',
    reason: 'Delete ticked and already deleted on the server.',
  },
  {
    sheet: 'deleted',
    server: 'added',
    word: 'Conflict',
    action: 'conflict',
    reason:
      'Delete ticked, but the tool has no record of the last sync for this row, so it was not deleted. Untick Delete and tick it again after the next sync.',
  },
  {
    sheet: 'deleted',
    server: 'missing',
    word: 'Error',
    action: 'invalid',
    reason:
      'Delete ticked on an activity that is not on the server and that the tool has no record of (a Key pasted from another sheet, or typed?); nothing was deleted. Delete the row itself.',
  },
  { sheet: 'added', server: 'missing', word: 'Done', action: 'import-post', reason: 'New row; the activity is created on the server.' },
  {
    sheet: 'missing',
    server: 'unchanged',
    word: 'Done',
    action: 'report-missing',
    reason:
      'The row for this activity is missing from the sheet; the activity was kept on the server. Tick Delete on its row to remove it.',
  },
  {
    sheet: 'missing',
    server: 'changed',
    word: 'Done',
    action: 'report-missing',
    reason: 'The row for this activity is missing from the sheet and the activity changed on the server; it was kept.',
  },
  { sheet: 'missing', server: 'deleted', word: 'Deleted', action: 'forget', reason: 'Gone from the sheet and from the server.' },
  { sheet: 'missing', server: 'added', word: 'Done', action: 'export-append', reason: 'New on the server; added to the sheet.' },
] as const satisfies readonly SyncRule[]

/** The table's rule for a pair of side changes, or undefined for a pair that cannot occur. */
export function ruleFor(sheet: SideChange, server: SideChange): SyncRule | undefined {
  return SYNC_TABLE.find((r) => r.sheet === sheet && r.server === server)
}

type Common = {
  /** The Status word (status.ts): with `reason`, what the row's Status says. */
  word: StatusWord
  reason: string
  sheet: SideChange
  server: SideChange
  warnings: RowProblem[]
  /** Tool-written cells of the row to put back, with what to say in Status (`cellsToRestore`). */
  notices?: RowNotice[]
}

/** What to do for one activity or row. `rowNumber` is the sheet row as read. */
export type Decision = Common &
  (
    | { kind: 'noop'; key: string | undefined; rowNumber: number | undefined }
    | { kind: 'refresh-base'; key: string; rowNumber: number | undefined; fingerprint: string }
    | { kind: 'export-update'; key: string; rowNumber: number; activity: Activity; user: string; fingerprint: string }
    | { kind: 'export-append'; key: string; activity: Activity; user: string; fingerprint: string }
    | { kind: 'export-remove'; key: string; rowNumber: number }
    | { kind: 'export-mark-deleted'; key: string; rowNumber: number }
    | {
        kind: 'import-put'
        key: string
        rowNumber: number
        timelineKey: string
        entityId: number
        user: string
        input: ActivityInput
        fingerprint: string
      }
    | {
        kind: 'import-post'
        rowNumber: number
        timelineKey: string
        user: string
        input: ActivityInput
        fingerprint: string
        pending?: string
      }
    | { kind: 'import-delete'; key: string; rowNumber: number; timelineKey: string; entityId: number }
    | { kind: 'import-delete-missing'; key: string; timelineKey: string; entityId: number }
    | { kind: 'conflict'; key: string; rowNumber: number }
    | { kind: 'invalid'; key: string | undefined; rowNumber: number; problems: RowProblem[] }
    | { kind: 'report-missing'; key: string }
    | { kind: 'forget'; key: string }
  )

export interface SyncPlan {
  decisions: Decision[]
  counts: Record<DecisionKind, number>
}

export interface PlanOptions {
  /** An activity deleted on the server: remove its row, or keep it marked deleted. @default 'remove' */
  deletedOnServer?: 'remove' | 'mark'
  /** Delete on the server an unchanged activity whose row is missing from the sheet. @default false */
  deleteMissing?: boolean
}

/** Base: Key → fingerprint as the last successful run left it (from state). */
export type BaseFingerprints = ReadonlyMap<string, string>

/** A planner: base, sheet and server in, the plan out. Pure. */
export type Planner = (
  base: BaseFingerprints,
  sheet: readonly SheetLine[],
  server: ReadonlyMap<string, ServerActivity>,
  options?: PlanOptions,
) => SyncPlan

/** Plans a sync (import and export) for every row, every base entry and every server activity. Pure. */
export const planSync: Planner = (base, sheet, server, options = {}) => plan(base, sheet, server, options, 'sync')

/**
 * Plans an export-only run: what a sync would import is left waiting (never
 * overwritten), and a row edited here and changed on the server is a conflict
 * whose Status says so.
 */
export const planExport: Planner = (base, sheet, server, options = {}) => plan(base, sheet, server, options, 'export')

function plan(
  base: BaseFingerprints,
  sheet: readonly SheetLine[],
  server: ReadonlyMap<string, ServerActivity>,
  options: PlanOptions,
  mode: 'sync' | 'export',
): SyncPlan {
  const decisions: Decision[] = []
  const seen = new Set<string>()
  const serverFp = (key: string): string | undefined => {
    const s = server.get(key)
    return s && fingerprintOf(s)
  }

  for (const line of withDuplicatesRefused(sheet)) {
    if (line.kind === 'invalid') {
      if (line.key !== undefined) seen.add(line.key)
      const problems = line.problems.some((p) => p.severity === 'error') ? line.problems : [...line.problems, UNREADABLE]
      const first = problems.find((p) => p.severity === 'error')!
      decisions.push({
        kind: 'invalid',
        key: line.key,
        rowNumber: line.rowNumber,
        problems,
        word: 'Error',
        reason: first.message,
        sheet: 'changed',
        server: 'missing',
        warnings: [],
      })
      continue
    }
    if (line.kind === 'in-step') {
      // What the table decides for a row whose cells, Base cell, base and server all agree (the caller checked).
      seen.add(line.key)
      decisions.push({ kind: 'noop', key: line.key, rowNumber: line.rowNumber, ...IN_STEP, warnings: [] })
      continue
    }
    const row = line.row
    const notices = row.kind === 'existing' || row.kind === 'new' ? row.notices : undefined
    if (row.kind === 'discarded') {
      decisions.push({
        kind: 'noop',
        key: undefined,
        rowNumber: line.rowNumber,
        word: 'Deleted',
        reason: 'New row with Delete ticked: nothing was created.',
        sheet: 'added',
        server: 'missing',
        warnings: row.warnings,
      })
      continue
    }
    if (row.kind === 'new') {
      decisions.push(
        adapt(
          {
            kind: 'import-post',
            rowNumber: line.rowNumber,
            timelineKey: row.values.timelineKey,
            user: row.values.user,
            input: row.values.input,
            fingerprint: row.values.fingerprint,
            ...(row.pending ? { pending: row.pending } : {}),
            ...fromRule('added', 'missing'),
            warnings: row.warnings,
            ...withNotices(notices),
          },
          mode,
          options,
        ),
      )
      continue
    }
    seen.add(row.key)
    const now = serverFp(row.key)
    if (now === undefined && !base.has(row.key)) {
      // Neither the server nor the state knows it: a made-up Key, never a deletion (module comment).
      const sheetSide: SideChange = row.kind === 'delete' ? 'deleted' : 'changed'
      const rule = fromRule(sheetSide, 'missing')
      decisions.push({
        kind: 'invalid',
        key: row.key,
        rowNumber: line.rowNumber,
        problems: [{ code: 'unknown-key', severity: 'error', column: 'Key', message: rule.reason }],
        ...rule,
        warnings: row.warnings,
      })
      continue
    }
    // A row that still holds exactly what its own Base cell records was edited by nobody, even when the
    // state knows a newer base: it is a stale copy (a workbook restored from its .bak), to be refreshed
    // by an export and never sent back. Otherwise the state's base wins, as it survives crash windows.
    const unedited = row.kind === 'existing' && row.baseCell !== undefined && row.values.fingerprint === row.baseCell
    const baseFp = unedited ? row.baseCell : (base.get(row.key) ?? row.baseCell)
    const serverSide = detectServer(baseFp, now)
    const sheetSide: SideChange =
      row.kind === 'delete' ? 'deleted' : baseFp !== undefined && row.values.fingerprint === baseFp ? 'unchanged' : 'changed'
    const s = server.get(row.key)
    const rowFp = row.kind === 'existing' ? row.values.fingerprint : undefined

    // A two-sided change that ended in agreement is no conflict (and no write).
    // In step but unknown to the state (a run killed after its sheet write, before its state save): record the base.
    if (
      rowFp !== undefined &&
      now !== undefined &&
      rowFp === now &&
      (sheetSide === 'changed' || rowFp !== baseFp || row.baseCell !== now || base.get(row.key) !== now)
    ) {
      decisions.push({
        kind: 'refresh-base',
        key: row.key,
        rowNumber: line.rowNumber,
        fingerprint: now,
        word: 'Done',
        reason: sheetSide === 'changed' ? 'Same change made here and on the server; nothing to write.' : 'In step with the server.',
        sheet: sheetSide,
        server: serverSide,
        warnings: row.warnings,
        ...withNotices(notices),
      })
      continue
    }
    const rule = ruleFor(sheetSide, serverSide)
    const common = {
      word: rule?.word ?? 'Error',
      reason: rule?.reason ?? 'Unexpected state.',
      sheet: sheetSide,
      server: serverSide,
      warnings: row.warnings,
      ...withNotices(notices),
    }
    switch (rule?.action) {
      case 'noop':
        decisions.push({ kind: 'noop', key: row.key, rowNumber: line.rowNumber, ...common })
        break
      case 'export-update':
        decisions.push(
          adapt(
            {
              kind: 'export-update',
              key: row.key,
              rowNumber: line.rowNumber,
              activity: s!.activity,
              user: s!.user,
              fingerprint: now!,
              ...common,
            },
            mode,
            options,
          ),
        )
        break
      case 'export-remove':
        decisions.push(adapt({ kind: 'export-remove', key: row.key, rowNumber: line.rowNumber, ...common }, mode, options))
        break
      case 'import-put': {
        const v = (row as Extract<typeof row, { kind: 'existing' }>).values
        decisions.push(
          adapt(
            {
              kind: 'import-put',
              key: row.key,
              rowNumber: line.rowNumber,
              timelineKey: v.timelineKey,
              entityId: row.entityId,
              user: v.user,
              input: v.input,
              fingerprint: v.fingerprint,
              ...common,
            },
            mode,
            options,
          ),
        )
        break
      }
      case 'import-delete':
        decisions.push(
          adapt(
            {
              kind: 'import-delete',
              key: row.key,
              rowNumber: line.rowNumber,
              timelineKey: (row as Extract<typeof row, { kind: 'delete' }>).timelineKey,
              entityId: row.entityId,
              ...common,
            },
            mode,
            options,
          ),
        )
        break
      case 'conflict':
        decisions.push({ kind: 'conflict', key: row.key, rowNumber: line.rowNumber, ...common })
        break
      default:
        decisions.push({
          kind: 'invalid',
          key: row.key,
          rowNumber: line.rowNumber,
          problems: [{ ...UNREADABLE, message: common.reason }],
          ...common,
        })
    }
  }

  for (const [key, s] of server) {
    if (seen.has(key)) continue
    seen.add(key)
    const baseFp = base.get(key)
    const now = fingerprintOf(s)
    const serverSide = detectServer(baseFp, now)
    const rule = fromRule('missing', serverSide)
    if (serverSide === 'added') {
      decisions.push({ kind: 'export-append', key, activity: s.activity, user: s.user, fingerprint: now, ...rule, warnings: [] })
    } else {
      decisions.push(adapt({ kind: 'report-missing', key, ...rule, warnings: [] }, mode, options, s))
    }
  }
  for (const key of base.keys()) {
    if (!seen.has(key)) decisions.push({ kind: 'forget', key, ...fromRule('missing', 'deleted'), warnings: [] })
  }
  return { decisions, counts: countKinds(decisions) }
}

const IN_STEP = fromRule('unchanged', 'unchanged')

const UNREADABLE: RowProblem = { code: 'unreadable', severity: 'error', column: undefined, message: 'This row cannot be read.' }

function withNotices(notices: RowNotice[] | undefined): { notices?: RowNotice[] } {
  return notices && notices.length > 0 ? { notices } : {}
}

/** The fingerprint of a server activity as the sheet would carry it. */

function detectServer(baseFp: string | undefined, now: string | undefined): SideChange {
  if (now === undefined) return baseFp === undefined ? 'missing' : 'deleted'
  if (baseFp === undefined) return 'added'
  return now === baseFp ? 'unchanged' : 'changed'
}

function fromRule(sheet: SideChange, server: SideChange): { word: StatusWord; reason: string; sheet: SideChange; server: SideChange } {
  const rule = ruleFor(sheet, server)
  return { word: rule?.word ?? 'Error', reason: rule?.reason ?? 'Unexpected state.', sheet, server }
}

const WAITING = 'Waiting for the next import (sync) to send this edit to the server.'

/** Applies options and the export-only mode to a table decision. */
function adapt(d: Decision, mode: 'sync' | 'export', options: PlanOptions, s?: ServerActivity): Decision {
  const keep = { word: d.word, reason: d.reason, sheet: d.sheet, server: d.server, warnings: d.warnings }
  if (d.kind === 'export-remove' && options.deletedOnServer === 'mark') {
    return { kind: 'export-mark-deleted', key: d.key, rowNumber: d.rowNumber, ...keep, word: 'Deleted' }
  }
  if (d.kind === 'report-missing' && options.deleteMissing && mode === 'sync' && d.server === 'unchanged' && s) {
    return {
      kind: 'import-delete-missing',
      key: d.key,
      timelineKey: s.activity.timelineKey,
      entityId: s.activity.entityId,
      ...keep,
      word: 'Deleted',
      reason:
        'The row for this activity was removed from the sheet; the activity is deleted on the server (deleting missing rows is switched on).',
    }
  }
  if (mode === 'export' && (d.kind === 'import-put' || d.kind === 'import-post' || d.kind === 'import-delete')) {
    return {
      kind: 'noop',
      key: d.kind === 'import-post' ? undefined : d.key,
      rowNumber: d.rowNumber,
      ...keep,
      word: 'Waiting',
      reason: WAITING,
    }
  }
  return d
}

export function countKinds(decisions: readonly Decision[]): Record<DecisionKind, number> {
  const counts: Record<DecisionKind, number> = {
    noop: 0,
    'refresh-base': 0,
    'export-update': 0,
    'export-append': 0,
    'export-remove': 0,
    'export-mark-deleted': 0,
    'import-put': 0,
    'import-post': 0,
    'import-delete': 0,
    'import-delete-missing': 0,
    conflict: 0,
    invalid: 0,
    'report-missing': 0,
    forget: 0,
  }
  for (const d of decisions) counts[d.kind]++
  return counts
}
