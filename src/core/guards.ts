/**
 * Named safety checks run on a plan before the first write (bisync's safety
 * aborts). Each failure says what looked wrong and which flag overrides it;
 * the engine refuses to write while any remains and exits as "aborted" (safe
 * to rerun).
 */
import type { HeaderProblem } from './columns.ts'
import type { SyncPlan } from './plan.ts'

export type GuardName = 'too-many-deletes' | 'damaged-layout' | 'almost-everything-changed' | 'empty-sheet'

/** One guard that stopped the run. */
export interface GuardFailure {
  guard: GuardName
  /** The command-line flag that overrides it. */
  flag: string
  /** What looked wrong, the numbers, and the flag. */
  message: string
  count: number
  total: number
}

/** What the guards know besides the plan. */
export interface GuardFacts {
  /** Header problems of the Activities tab (empty when the header is fine). */
  headerProblems: readonly HeaderProblem[]
  /** Data rows that are not blank. */
  sheetRowCount: number
  /**
   * The Keys the Activities tab holds: every activity the sheet shows, whether or not this run read its week. An
   * import plans only the weeks around the edits, so its plan alone cannot say what share of the sheet changed.
   */
  keyedRowCount: number
  /** Activities the last successful run left in the sheet (size of base). */
  baseCount: number
}

export interface GuardOptions {
  /**
   * Largest share of base, in percent, that one run may delete (on the server,
   * or rows from the sheet). Same meaning as `--max-delete`.
   * @default 50
   */
  maxDeletePercent?: number
  /** Deletions at or below this count never trip the share check (a team of four deleting two). @default 2 */
  smallDeleteCount?: number
  /** Largest number of deletions on either side in one run, whatever the share. @default 200 */
  maxDeleteCount?: number
  /** Share of keyed rows, in percent, that may change in one import before it looks like a time zone accident. @default 90 */
  maxChangedPercent?: number
  /** The changed-share check needs at least this many rows. @default 10 */
  minRowsForChangedCheck?: number
  /** `--force`: skip the too-many-deletes, everything-changed and empty-sheet guards. */
  force?: boolean
  /** `--force-layout`: skip the damaged-layout guard. */
  forceLayout?: boolean
}

/** Runs every guard; an empty list means the plan may be applied. */
export function runGuards(plan: SyncPlan, facts: GuardFacts, options: GuardOptions = {}): GuardFailure[] {
  const failures: GuardFailure[] = []
  if (!options.forceLayout) failures.push(...damagedLayout(facts))
  if (!options.force) {
    failures.push(...emptySheet(facts), ...tooManyDeletes(plan, facts, options), ...almostEverythingChanged(plan, facts, options))
  }
  return failures
}

/**
 * The plan's counts as an import carries them out, for `runGuards`. An import removes a row only where Delete was
 * ticked and the activity is gone already; a row whose activity was deleted on the server is the export's to
 * remove, and the export's own guard asks about it. Counted here too, such rows stopped an import that removes
 * none of them ("too many deletes from the sheet"), holding back the managers' edits.
 */
export function asImportCarriesOut(plan: SyncPlan): SyncPlan {
  let removed = 0
  for (const d of plan.decisions) if (d.kind === 'export-remove' && d.sheet === 'deleted') removed++
  return removed === plan.counts['export-remove'] ? plan : { ...plan, counts: { ...plan.counts, 'export-remove': removed } }
}

function damagedLayout(facts: GuardFacts): GuardFailure[] {
  if (facts.headerProblems.length === 0) return []
  const what = facts.headerProblems.map((p) => p.message).join('; ')
  return [
    {
      guard: 'damaged-layout',
      flag: '--force-layout',
      count: facts.headerProblems.length,
      total: facts.headerProblems.length,
      message: `Safety abort: the Activities header is damaged (${what}). Without it rows cannot be matched to activities, so nothing was written. Repair the header, or run with --force-layout if you are sure.`,
    },
  ]
}

function emptySheet(facts: GuardFacts): GuardFailure[] {
  if (facts.sheetRowCount > 0 || facts.baseCount === 0) return []
  return [
    {
      guard: 'empty-sheet',
      flag: '--force',
      count: 0,
      total: facts.baseCount,
      message: `Safety abort: the Activities tab is empty but the last run left ${facts.baseCount} rows in it. A cleared or truncated sheet is not a request to delete; nothing was written. Run with --force if the sheet really should be empty.`,
    },
  ]
}

/** The limits without a `--max-delete`: the command line the suggestion is for replaces any given before. */
export const DEFAULT_MAX_DELETE_PERCENT = 50
export const DEFAULT_MAX_DELETE_COUNT = 200

function tooManyDeletes(plan: SyncPlan, facts: GuardFacts, options: GuardOptions): GuardFailure[] {
  const maxPercent = options.maxDeletePercent ?? DEFAULT_MAX_DELETE_PERCENT
  const small = options.smallDeleteCount ?? 2
  const maxCount = options.maxDeleteCount ?? DEFAULT_MAX_DELETE_COUNT
  const sides = [
    { where: 'on the server', count: plan.counts['import-delete'] + plan.counts['import-delete-missing'] },
    { where: 'from the sheet', count: plan.counts['export-remove'] },
  ]
  const fired = sides.map(({ count }) => ({ count, share: count > small && sharePercent(count, facts.baseCount) > maxPercent }))
  const suggestion = maxDeleteSuggestion(
    sides.map((s) => s.count),
    facts.baseCount,
    { share: fired.some((f) => f.share), count: fired.some((f) => f.count > maxCount) },
    small,
  )
  return sides.flatMap(({ where, count }) => {
    const percent = sharePercent(count, facts.baseCount)
    const overShare = count > small && percent > maxPercent
    const overCount = count > maxCount
    if (!overShare && !overCount) return []
    // Each rule that fired, by name: a share said while the count cap fired sends the operator the wrong way.
    const rules = [
      overShare ? `${Math.round(percent)}% > ${maxPercent}% of the rows` : '',
      overCount ? `more than the ${maxCount} deletions one run may make` : '',
    ].filter(Boolean)
    return [
      {
        guard: 'too-many-deletes' as const,
        flag: '--max-delete',
        count,
        total: facts.baseCount,
        message: `Safety abort: too many deletes ${where} (${count} of ${facts.baseCount}, ${rules.join(', and ')}). Nothing was written. Check the plan with --dry-run, then run with ${suggestion} (or --force) if this is intended.`,
      },
    ]
  })
}

function sharePercent(count: number, baseCount: number): number {
  return (count * 100) / Math.max(baseCount, 1)
}

/**
 * The `--max-delete` flags that let every side's deletions through: a share (`75%`) when the shares are over
 * the default, a count (`210`) when a count is over the default cap, both when both are; counted against the
 * defaults, since the flags suggested replace any given before. Where the defaults would pass (the operator
 * gave a tighter limit), the form of the rule that fired. A bare count never lifts the share (it could be a
 * share typed without its %), so one value cannot always pass both limits.
 */
export function maxDeleteSuggestion(
  counts: readonly number[],
  baseCount: number,
  fired: { share: boolean; count: boolean },
  smallDeleteCount = 2,
): string {
  const shares = counts.filter((c) => c > smallDeleteCount).map((c) => Math.ceil(sharePercent(c, baseCount)))
  const percentNeeded = Math.max(0, ...shares)
  const largest = Math.max(0, ...counts)
  const overDefaults = percentNeeded > DEFAULT_MAX_DELETE_PERCENT || largest > DEFAULT_MAX_DELETE_COUNT
  const flags: string[] = []
  if (percentNeeded > DEFAULT_MAX_DELETE_PERCENT || (fired.share && !overDefaults)) flags.push(`--max-delete ${percentNeeded}%`)
  if (largest > DEFAULT_MAX_DELETE_COUNT || (fired.count && !overDefaults)) flags.push(`--max-delete ${largest}`)
  return flags.join(' ')
}

/**
 * A changed time zone changes every row of the sheet. The share is of the sheet's Keys, not of the rows planned: an
 * import plans only the weeks around the edits, and a manager who retags one user's whole week changed every row
 * of that week (the plan) but few of the sheet's.
 */
function almostEverythingChanged(plan: SyncPlan, facts: GuardFacts, options: GuardOptions): GuardFailure[] {
  const maxPercent = options.maxChangedPercent ?? 90
  const minRows = options.minRowsForChangedCheck ?? 10
  const keyed = facts.keyedRowCount
  const changed = plan.decisions.filter((d) => d.sheet === 'changed' && d.kind !== 'invalid' && d.kind !== 'refresh-base').length
  if (keyed < minRows || facts.baseCount < minRows) return []
  const percent = (changed * 100) / keyed
  if (percent <= maxPercent) return []
  return [
    {
      guard: 'almost-everything-changed',
      flag: '--force',
      count: changed,
      total: keyed,
      message: `Safety abort: ${changed} of ${keyed} rows (${Math.round(percent)}%) differ from the last sync. That usually means the spreadsheet's time zone or the configured time zone changed, not that a manager edited every row. Nothing was written. Check with --dry-run, then run with --force if the edits are real.`,
    },
  ]
}
