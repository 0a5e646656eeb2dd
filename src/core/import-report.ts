/** How an import's plan and outcome are shown: the plan view, the counts, the guard error. */
import type { TagsPlan } from './allowed-tags-plan.ts'
import { activityChanges, describeChanges, whenOf, type FieldChange } from './changes.ts'
import { describeInput } from './describe.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'
import type { GuardFailure } from './guards.ts'
import type { Decision } from './plan.ts'
import type { ServerActivity } from './row-context.ts'
import type { WriteOutcome } from './server-writes.ts'
import type { RunCounts } from './sync-log.ts'
import { TimelineSheetsError } from '../errors.ts'

export interface PlannedWrite {
  kind: 'create' | 'update' | 'delete' | 'delete-missing'
  user: string
  rowNumber: number | undefined
  key: string | undefined
  what: string
  /** For an update: the columns it changes, from the server's version to the row's (the `what` says them too). */
  changes?: FieldChange[]
}

export interface ImportPlanView {
  target: string
  writes: PlannedWrite[]
  conflicts: { rowNumber: number | undefined; key: string | undefined; reason: string }[]
  invalid: { rowNumber: number | undefined; reason: string }[]
  missing: string[]
  tags: 'unchanged' | 'send' | 'refused' | 'invalid'
  tagsMessage: string | undefined
  guards: GuardFailure[]
}

/** What an import did, for the summary and the Sync log. */
export type ImportCounts = RunCounts & { failed: number; recovered: number }

export function planView(
  target: string,
  decisions: Decision[],
  adoptions: Map<number, ServerActivity>,
  missingKeys: string[],
  tags: TagsPlan,
  guards: GuardFailure[],
  server: Map<string, ServerActivity>,
  /** The target's zone: changes are said in the sheet's local times. */
  timeZone: string,
  /** The hour the target's days start at: the Dates changes name are the sheet's. */
  dayStart: DayStart = MIDNIGHT,
): ImportPlanView {
  const writes: PlannedWrite[] = []
  const serverSide = (key: string) => {
    const s = server.get(key)
    return s ? { user: s.user, what: describeInput(s.activity, dayStart) } : { user: '', what: `activity ${key}` }
  }
  for (const d of decisions) {
    if (d.kind === 'import-post') {
      writes.push({
        kind: 'create',
        user: d.user,
        rowNumber: d.rowNumber,
        key: undefined,
        what: adoptions.has(d.rowNumber)
          ? `${describeInput(d.input, dayStart)} (already created by an interrupted run: only its Key is written back)`
          : describeInput(d.input, dayStart),
      })
    } else if (d.kind === 'import-put') {
      const now = server.get(d.key)?.activity
      if (now) {
        const changes = activityChanges(now, d.input, timeZone, dayStart)
        writes.push({
          kind: 'update',
          user: d.user,
          rowNumber: d.rowNumber,
          key: d.key,
          what: `${whenOf(now, timeZone, dayStart)}: ${describeChanges(changes)}`,
          changes,
        })
      } else writes.push({ kind: 'update', user: d.user, rowNumber: d.rowNumber, key: d.key, what: describeInput(d.input, dayStart) })
    } else if (d.kind === 'import-delete') {
      const s = serverSide(d.key)
      writes.push({ kind: 'delete', user: s.user, rowNumber: d.rowNumber, key: d.key, what: `${s.what} (Delete ticked)` })
    } else if (d.kind === 'import-delete-missing') {
      const s = serverSide(d.key)
      writes.push({
        kind: 'delete-missing',
        user: s.user,
        rowNumber: undefined,
        key: d.key,
        what: `${s.what} (its row was removed from the sheet)`,
      })
    }
  }
  const decided = new Set<string>()
  for (const d of decisions) if ('key' in d && d.key !== undefined) decided.add(d.key)
  return {
    target,
    writes,
    conflicts: decisions
      .filter((d) => d.kind === 'conflict')
      .map((d) => ({ rowNumber: 'rowNumber' in d ? d.rowNumber : undefined, key: d.key, reason: d.reason })),
    invalid: decisions
      .filter((d) => d.kind === 'invalid')
      .map((d) => ({ rowNumber: 'rowNumber' in d ? d.rowNumber : undefined, reason: d.reason })),
    missing: [
      ...new Set([
        ...decisions.filter((d) => d.kind === 'report-missing').map((d) => d.key!),
        ...missingKeys.filter((k) => !decided.has(k)),
      ]),
    ],
    tags: tags.kind,
    tagsMessage: 'message' in tags ? tags.message : undefined,
    guards,
  }
}

export function countOutcomes(outcomes: WriteOutcome[], decisions: Decision[], recovered: number): ImportCounts {
  const ok = outcomes.filter((o) => o.status === 'done' || o.status === 'adopted')
  return {
    created: ok.filter((o) => o.decision.kind === 'import-post').length,
    updated: ok.filter((o) => o.decision.kind === 'import-put').length,
    deleted: ok.filter((o) => o.decision.kind === 'import-delete' || o.decision.kind === 'import-delete-missing').length,
    conflicts: decisions.filter((d) => d.kind === 'conflict').length + outcomes.filter((o) => o.status === 'conflict').length,
    invalid: decisions.filter((d) => d.kind === 'invalid').length,
    waiting: 0,
    failed: outcomes.filter((o) => o.status === 'failed').length,
    recovered,
  }
}

export function emptyView(target: string): ImportPlanView {
  return { target, writes: [], conflicts: [], invalid: [], missing: [], tags: 'unchanged', tagsMessage: undefined, guards: [] }
}

export function emptyCounts(): ImportCounts {
  return { created: 0, updated: 0, deleted: 0, conflicts: 0, invalid: 0, waiting: 0, failed: 0, recovered: 0 }
}

export function guardError(guards: GuardFailure[]): TimelineSheetsError {
  return new TimelineSheetsError('TS_GUARD', guards.length === 1 ? guards[0]!.message : guards.map((g) => `- ${g.message}`).join('\n'), {
    hint: 'Look at the sheet first: a filter, a deleted block of rows or a changed time zone are the usual causes. Each message names the flag to use when the plan really is what you want.',
  })
}
