/**
 * `export` for one target: read what changed on the server, plan against the
 * sheet (pure planner), write the fewest cells, and only then advance the
 * cursors. A crash anywhere before the state save repeats the same changes
 * next run, which land on the same rows by Key: nothing is duplicated.
 *
 * Longer than most files because it wires one whole run in order (reads, plan, layout, writes, state); each
 * step's decisions are in core.
 */
import {
  activitiesLayout,
  allowedTagsWrite,
  baseKeysByTimeline,
  exportedTimelines,
  exportWindow,
  type ExportWindow,
  indexRowsByKey,
  keysOfRows,
  planTimeline,
  type PlanContext,
  type TimelineDelta,
  requireTab,
  staleTimelines,
  tabSpecs,
} from '../core/export-plan.ts'
import { ACTIVITY_COLUMN } from '../core/columns.ts'
import { fnv1a64Base64url } from '../core/fingerprint.ts'
import type { Decision } from '../core/plan.ts'
import type { KnownUser } from '../core/row-context.ts'
import { knownUsers, scopeOfTarget } from '../core/target-scope.ts'
import { viewOf } from '../core/scoped-allowed-tags.ts'
import { activityKey } from '../core/activity-key.ts'
import { activityWrites, isEmptyWrite, writtenDigester, type WrittenRow } from '../core/sheet-writes.ts'
import { writtenContext } from '../core/written-rows.ts'
import { plural } from '../core/describe.ts'
import { summaryLine, syncLogRow, type RunCounts } from '../core/sync-log.ts'
import { summaryTab } from '../core/summary.ts'
import { localDateOf } from '../core/wall-clock.ts'
import { emptyReadExplanation, windowView, type WindowView } from '../core/window-text.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { ReadOptions, TabWrite } from '../sheets/port.ts'
import type { AllowedTags, TimelineInfo } from '../timeline/model.ts'
import type { TargetConfig } from '../config/schema.ts'
import { readEach, readTimelineChanges, timelineVersion, type ReadChangesOptions, type TimelineChanges } from './server-reads.ts'
import { crashPoint } from './crash-points.ts'
import type { EngineDeps } from './deps.ts'
import { withRun, type ChangesAhead, type RunFrame, type SyncHandOff } from './run.ts'

export { newRunId } from './run.ts'
import { otherTimelineWrites } from '../core/other-timelines.ts'
import { readOtherTimelines } from './other-timelines.ts'
import { protectedRowsWarnings } from './protected-rows.ts'
import { approvalsOnLayout, exportApprovals, recordApprovalTabs } from './approvals.ts'
import { applyBaseChanges, applyWrittenChanges, recordAllowedTags, type TargetState } from '../state/target-state.ts'

export type ExportDeps = EngineDeps

export interface ExportOptions {
  dryRun?: boolean
  /** Ignore cursors: re-read the whole window and reconcile by Key. */
  full?: boolean
  /** How often the look-back window is re-read in full. @default 20 hours */
  lookBackEveryMs?: number
}

export interface TimelineSummary {
  timelineKey: string
  owner: string
  mode: 'full' | 'incremental'
  activitiesRead: number
  lookBack: boolean
  /** The timeline list showed no change since the last read: no incremental read was sent (a look-back still reads). */
  unchanged: boolean
}

export interface ExportSummary {
  target: string
  runId: string
  dryRun: boolean
  /** `incomplete`: some rows changed while the run wrote and were left for the next run (exit 1, run again). */
  result: 'success' | 'partial' | 'incomplete'
  spreadsheet: string
  /** The local days the export covers, in the target's zone. */
  window: WindowView
  timelines: TimelineSummary[]
  counts: RunCounts
  allowedTags: 'unchanged' | 'rewritten' | 'unavailable'
  layoutChanged: boolean
  sheetsRequests: { reads: number; writes: number }
  warnings: string[]
  /** Decisions that need a person (conflicts, invalid rows), for the summary. */
  attention: { rowNumber: number | undefined; key: string | undefined; reason: string }[]
}

/** `handOff` (sync): the import half's read, planned on instead of a read of its own, and its Sync log row. */
export async function runExport(
  target: TargetConfig,
  deps: ExportDeps,
  options: ExportOptions = {},
  handOff?: SyncHandOff,
): Promise<ExportSummary> {
  return withRun(
    target,
    deps,
    { command: 'export', dryRun: Boolean(options.dryRun), startOverOnOtherServer: Boolean(options.full), deferBases: true },
    (frame) => exportInFrame(target, deps, options, frame, handOff),
  )
}

async function exportInFrame(
  target: TargetConfig,
  deps: ExportDeps,
  options: ExportOptions,
  frame: RunFrame,
  handOff: SyncHandOff | undefined,
): Promise<ExportSummary> {
  const { runId, startedAt, state } = frame
  let full = Boolean(options.full) || frame.fresh
  if (frame.fresh) deps.reporter.info('No state for this target yet: reading the whole window and reconciling by Key.')

  const window = exportWindow(target, startedAt)
  const warnings: string[] = []

  // Timelines and users: a sync whose import wrote nothing listed them a moment ago, when it read the changes.
  const tagsTimelines = (handOff?.snapshot && handOff.changesAhead?.tagsTimelines) || (await deps.client.tagsTimelines())
  const timelines = exportedTimelines(tagsTimelines, target)
  for (const user of target.users) {
    if (!tagsTimelines.some((t) => t.ownerUsername.toLowerCase() === user.toLowerCase())) {
      warnings.push(`${user} has no Tags timeline visible to the signed-in account; nothing exported for them.`)
    }
  }
  const { scope, edits } = scopeOfTarget(target)
  const users = knownUsers(tagsTimelines, scope)

  // Layout, only when it is new or changed (it costs a read and a write). A tab it had to make holds nothing yet.
  const specs = tabSpecs(target)
  // The Summary lists the people exported and the clients / projects of the allowed tags, so it is laid out again
  // (rewritten) when either changes, and only then (decisions/0007-summary-tab.md).
  // The tab, the dropdown it feeds and the Summary show only the lines that apply to the target's people.
  const allServerAllowed = await readServerAllowedTags(deps, warnings)
  const serverAllowed = allServerAllowed && viewOf(allServerAllowed, scope)
  const layoutSpecs = [
    ...specs,
    summaryTab({
      activities: target.tabs.activities,
      people: timelines.map((t) => t.ownerUsername),
      tags: allowedCombinations(serverAllowed),
      // The weeks the export window reaches into.
      weeks: Math.ceil(target.window.days / 7) + 1,
      ...(target.approvals ? { approvals: target.approvals.tab } : {}),
    }),
  ]
  const layoutHash = fnv1a64Base64url(JSON.stringify({ specs: layoutSpecs, timeZone: target.timeZone }))
  let layoutChanged = false
  // The server first, the sheet last: every position planned on is read as late as possible, so
  // a manager's sorting during a long server read cannot shift it (decisions/0003-rows-that-move.md).
  const readServer = (inFull: boolean) =>
    readExportChanges(deps, timelines, state, window, { full: inFull, now: startedAt, lookBackEveryMs: options.lookBackEveryMs })
  const layingOut =
    state.layoutHash !== layoutHash && !options.dryRun
      ? deps.spreadsheet.ensureLayout(layoutSpecs, { timeZone: target.timeZone })
      : undefined
  // A run that reads the whole window anyway (a first export, --full) reads it while the layout is applied: a tab
  // the layout makes can only make the read whole, and it is. The layout's round trips then cost no time of their own.
  const readAlongside = layingOut && full ? readServer(true) : undefined
  let createdTabs: string[] = []
  if (layingOut) {
    readAlongside?.catch(() => undefined)
    const report = await layingOut.catch(async (error: unknown) => {
      // No request of this run outlives it.
      await readAlongside?.catch(() => undefined)
      throw error
    })
    layoutChanged = report.changed
    createdTabs = report.createdTabs
    if (createdTabs.includes(target.tabs.activities)) full = true
  }
  const sayCreated = () => {
    if (createdTabs.length) deps.reporter.info(`Created tabs: ${createdTabs.join(', ')}`)
  }
  // Said after a read alongside, so what a run prints does not depend on which of the two ended first.
  if (!readAlongside) sayCreated()

  // A sync read them before its one sheet read; they hold while nothing since could have changed them.
  const ahead = handOff?.snapshot && !full && !frame.setAside ? handOff.changesAhead : undefined
  let changes = readAlongside
    ? await readAlongside
    : ahead && aheadHolds(ahead, timelines, state, window)
      ? ahead.changes
      : await readServer(full)
  if (readAlongside) sayCreated()
  const otherEntries =
    target.otherTimelines.length > 0
      ? await readOtherTimelines(deps.client, await deps.client.listTimelines(), target.otherTimelines, target.users, window)
      : undefined

  // The import half of a sync that wrote nothing read the sheet already: rows are found again when written.
  const shared = handOff?.snapshot
  let snapshot =
    shared && !layoutChanged && !full && specs.every((spec) => shared.tabs[spec.title] !== undefined)
      ? shared
      : await deps.spreadsheet.read(
          specs.map((s) => s.title),
          sheetReadOptions(changes, target, full || Boolean(frame.setAside)),
        )
  const missingTabs = specs.filter((spec) => !snapshot.tabs[spec.title]?.exists).map((spec) => spec.title)
  if (missingTabs.length > 0 && !options.dryRun && !layoutChanged) {
    // A tab someone deleted or renamed since the layout was last applied: make it again.
    const report = await deps.spreadsheet.ensureLayout(layoutSpecs, { timeZone: target.timeZone })
    layoutChanged = report.changed
    if (missingTabs.includes(target.tabs.activities)) {
      warnings.push(
        `The ${target.tabs.activities} tab was missing; it was made again and filled from the server (rows are matched by Key).`,
      )
      if (!full) changes = await readServer(true)
    }
    snapshot = await deps.spreadsheet.read(specs.map((s) => s.title))
  }
  let activitiesData = requireTab(snapshot, target.tabs.activities, Boolean(options.dryRun))
  const layout = activitiesLayout(activitiesData, specs[0]!)
  // A run that read only the header plans no row, so it needs no row base: their file (megabytes at 100k
  // rows) is read only by a run that reads rows.
  if (!activitiesData.headerOnly || frame.setAside) await frame.loadBases()

  // Rows that show an older version than the state knows (a workbook restored from its .bak): their
  // timelines are read in full, so the rows are refreshed from the server rather than sent back.
  const stale = staleTimelines(activitiesData, layout, state.base)
  if (stale.size > 0 && activitiesData.partial) {
    // A timeline read in full is planned over all its rows: this time the whole tab is needed.
    snapshot = await deps.spreadsheet.read(specs.map((s) => s.title))
    activitiesData = requireTab(snapshot, target.tabs.activities, Boolean(options.dryRun))
  }
  if (stale.size > 0) {
    warnings.push(
      `Some rows show an older version than the last sync (was the sheet restored from a copy?); they were refreshed from the server.`,
    )
    changes = await readEach(changes, async (change) =>
      change.mode === 'full' || !stale.has(change.timeline.timelineKey)
        ? change
        : readTimelineChanges(deps.client, change.timeline, state.timelines[change.timeline.timelineKey], window, {
            full: true,
            now: startedAt,
            lookBackEveryMs: options.lookBackEveryMs,
            // As the list showed it before this run's first read (kept in that read's cursor): a version an answer
            // showed may be newer than what was read.
            listedVersion: change.cursor.listedVersion,
          }),
    )
  }

  for (const change of changes) {
    if (change.mode === 'full' && change.linkRefused !== undefined) {
      warnings.push(
        `The server no longer accepts the incremental read of ${change.timeline.ownerUsername}'s timeline (${change.linkRefused}), most likely because it trimmed its change tracking; the whole window was read instead.`,
      )
    }
  }

  // Plan per timeline over the rows it affects, then one write.
  const today = localDateOf(target.timeZone, Math.floor(startedAt.getTime() / 1000))
  // Grouped by timeline once: scanning every row and base key for each timeline cost O(timelines × rows).
  const sheetIndex = indexRowsByKey(activitiesData, layout)
  // Bases by timeline serve only a timeline with something to plan: a quiet night skips the 100,000-key walk.
  const somethingToPlan = changes.some((c) => c.mode === 'full' || c.activities.length > 0 || c.deletedIds.length > 0 || c.lookBack)
  const baseKeys = somethingToPlan || frame.setAside ? baseKeysByTimeline(state.base.keys()) : new Map<string, Set<string>>()
  const decisions: Decision[] = []
  const planContext: PlanContext = {
    base: state.base,
    users,
    timeZone: target.timeZone,
    dayStart: window.dayStart,
    activitiesData,
    layout,
    sheetIndex,
    baseKeys,
    window: window.window,
    deletedRows: target.deletedRows,
  }
  for (const change of changes) {
    // A loop, not push(...): one timeline can hold more decisions than a call has room for arguments.
    for (const d of planTimeline(change, planContext)) decisions.push(d)
  }
  if (frame.setAside) {
    // Moved to another server: the old server's activities are not on this one, so their rows are planned,
    // against the old state's bases, as deleted on the server (removed, or kept where a manager edited them).
    const read = new Set(changes.map((c) => c.timeline.timelineKey))
    const userIndex = layout.index[ACTIVITY_COLUMN.user]
    const oldUsers: KnownUser[] = []
    for (const [timelineKey, rows] of sheetIndex) {
      const first = rows.values().next().value?.[0]?.cells[userIndex ?? -1]
      if (!read.has(timelineKey) && typeof first === 'string')
        oldUsers.push({ username: first, displayName: undefined, tagsTimelineKey: timelineKey })
    }
    const old: PlanContext = {
      ...planContext,
      users: oldUsers,
      base: frame.setAside.base,
      baseKeys: baseKeysByTimeline(frame.setAside.base.keys()),
    }
    for (const timelineKey of sheetIndex.keys()) {
      if (read.has(timelineKey)) continue
      const deletedIds = [...(sheetIndex.get(timelineKey)?.keys() ?? [])].map((key) => Number(key.slice(timelineKey.length + 1)))
      const gone: TimelineDelta = {
        mode: 'incremental',
        timeline: { timelineKey, ownerUsername: '' },
        activities: [],
        deletedIds,
        lookBack: undefined,
      }
      for (const d of planTimeline(gone, old)) decisions.push(d)
    }
  }
  // Approved activities the server changed: kept in the record, said on their rows (decisions/0026).
  const approvals = await exportApprovals(target, frame.location.folder, changes, decisions)
  const writes = activityWrites(approvals?.decisions ?? decisions, {
    tab: activitiesData,
    layout,
    timeZone: target.timeZone,
    dayStart: window.dayStart,
    today,
  })
  const timelineSummaries = changes.map(timelineSummary)
  const nothingRead = emptyReadExplanation({
    window: windowView(window),
    visible: tagsTimelines,
    users: target.users,
    read: timelineSummaries,
    activitiesRead: timelineSummaries.reduce((n, t) => n + t.activitiesRead, 0),
  })
  if (nothingRead) warnings.push(nothingRead)

  const tabWrites: TabWrite[] = [{ ...writes.write, keyColumn: layout.index[ACTIVITY_COLUMN.key] }]
  const allowed = allowedTagsWrite(
    serverAllowed,
    { scope, edits },
    target.tabs.allowedTags,
    snapshot,
    state.allowedTagsFingerprint,
    warnings,
  )
  if (allowed.write) tabWrites.push(allowed.write)
  if (otherEntries) for (const w of otherTimelineWrites(otherEntries, window, snapshot)) tabWrites.push(w)
  // The Approvals tab's cells and the Approved tab's rows the import planned on its read: in this write when this
  // run plans on that read too; otherwise the next import plans them again.
  const handedWrites = handOff?.writes ?? []
  if (snapshot === handOff?.snapshot) tabWrites.push(...handedWrites)
  // An Approvals tab without rows (just laid out) gets them in this write, not a sync later.
  const context = { target, snapshot, layout, tagsTimelines, users, today, window }
  const firstApprovals = await approvalsOnLayout(context, frame.location.folder, activitiesData, writes.write.appends)
  if (firstApprovals) tabWrites.push(firstApprovals)

  const counts: RunCounts = {
    created: writes.counts.appended,
    updated: writes.counts.updated,
    deleted: writes.counts.removed + writes.counts.marked,
    conflicts: decisions.filter((d) => d.kind === 'conflict').length,
    invalid: decisions.filter((d) => d.kind === 'invalid').length,
    waiting: decisions.filter((d) => d.kind === 'noop' && d.sheet !== 'unchanged' && d.rowNumber !== undefined).length,
  }
  let result: ExportSummary['result'] = counts.conflicts + counts.invalid > 0 ? 'partial' : 'success'
  // Every export row says what it read, so the Sync log alone tells a quiet night from a broken one.
  const unchangedCount = timelineSummaries.filter((t) => t.unchanged).length
  const read = `Read ${plural(
    timelineSummaries.reduce((n, t) => n + t.activitiesRead, 0),
    'activity',
    'activities',
  )} from ${plural(
    timelineSummaries.length,
    'timeline',
    'timelines',
  )} (${timelineSummaries.filter((t) => t.mode === 'full').length} in full${
    unchangedCount > 0 ? `; ${unchangedCount} unchanged since the last run` : ''
  }).`
  const message = [
    read,
    ...warnings,
    counts.waiting ? `${counts.waiting} edited rows wait for the next import.` : '',
    handOff?.logNote ?? '',
  ]
    .filter(Boolean)
    .join(' ')
  const logTab = snapshot.tabs[target.tabs.syncLog]
  const changedNothing = !tabWrites.some((w) => !isEmptyWrite(w)) && (handOff?.logRows ?? []).length === 0
  if ((logTab?.exists || !options.dryRun) && !(handOff?.logOnlyChanges && changedNothing && !handOff.logNote)) {
    tabWrites.push({
      tab: target.tabs.syncLog,
      appends: [
        ...(handOff?.logRows ?? []),
        syncLogRow({ when: startedAt, timeZone: target.timeZone, runId, command: 'export', result, counts, message }),
      ],
    })
  }

  const meaningful = tabWrites.filter((w) => !isEmptyWrite(w))
  let digests = new Map<string, number | null>()
  if (!options.dryRun && meaningful.length > 0) {
    crashPoint('export:before-sheet-write')
    await approvals?.save()
    if (approvals?.changed) crashPoint('export:after-approvals-save')
    const writing = deps.spreadsheet.write(meaningful, snapshot)
    // While the service takes the write in, this process would mostly wait: it digests the rows written meanwhile.
    writing.catch(() => undefined)
    digests = await digestsOf(writes.toDigest, writtenDigester(layout, { timeZone: target.timeZone, dayStart: window.dayStart, users }))
    const report = await writing
    crashPoint('export:after-sheet-write')
    await frame.keepLock()
    const skipped = report.skipped.filter((row) => row.tab === target.tabs.activities)
    if (skipped.length > 0) {
      // Rows a person changed while this run wrote: nothing landed there, so their base stays as it was
      // and the next run decides them again on what they hold then.
      for (const key of keysOfRows(decisions, new Set(skipped.map((row) => row.row)))) {
        writes.base.delete(key)
        digests.delete(key)
      }
      result = 'incomplete'
      const changed = skipped.filter((row) => row.reason !== 'protected')
      if (changed.length > 0)
        warnings.push(
          `${changed.length} ${changed.length === 1 ? 'row was' : 'rows were'} changed in the sheet while this run was writing (row ${changed
            .map((row) => row.row)
            .slice(0, 10)
            .join(
              ', ',
            )}${changed.length > 10 ? ', …' : ''} as read); ${changed.length === 1 ? 'it was' : 'they were'} left as ${changed.length === 1 ? 'it is' : 'they are'}. Run again: the next run takes ${changed.length === 1 ? 'it' : 'them'} up.`,
        )
      warnings.push(...protectedRowsWarnings(skipped))
    }
  }

  // Only now that the sheet holds the changes do the cursors move.
  if (!options.dryRun) {
    for (const change of changes) state.timelines[change.timeline.timelineKey] = change.cursor
    applyBaseChanges(state, writes.base)
    // A row removed takes its digest along: the digests are kept one per base.
    applyWrittenChanges(state, writtenContext(target.timeZone, users, window.dayStart), digests)
    state.layoutHash = layoutHash
    recordApprovalTabs(target, snapshot, state)
    if (allowed.fingerprints) recordAllowedTags(state, allowed.fingerprints)
    await frame.save(result, summaryLine(counts))
    crashPoint('export:after-state-save')
  }

  return {
    target: target.name,
    runId,
    dryRun: Boolean(options.dryRun),
    result,
    spreadsheet: deps.spreadsheet.describe(),
    window: windowView(window),
    timelines: timelineSummaries,
    counts,
    allowedTags: allowed.outcome,
    layoutChanged,
    sheetsRequests: frame.sheetsRequests(),
    warnings,
    attention: decisions
      .filter((d) => d.kind === 'conflict' || d.kind === 'invalid')
      .map((d) => ({ rowNumber: 'rowNumber' in d ? d.rowNumber : undefined, key: d.key, reason: d.reason })),
  }
}

/** Each row's digest (null: not kept), a slice at a time, so that the write under way is sent and answered meanwhile. */
async function digestsOf(rows: readonly WrittenRow[], digest: (row: WrittenRow) => number | null): Promise<Map<string, number | null>> {
  const digests = new Map<string, number | null>()
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % DIGEST_SLICE === 0) await new Promise((resolve) => setImmediate(resolve))
    digests.set(rows[i]!.key, digest(rows[i]!))
  }
  return digests
}

const DIGEST_SLICE = 2_000

/** What changed on the server for each timeline since its cursor in `state`. */
async function readExportChanges(
  deps: ExportDeps,
  timelines: readonly TimelineInfo[],
  state: TargetState,
  window: ExportWindow,
  options: Omit<ReadChangesOptions, 'listedVersion'>,
): Promise<TimelineChanges[]> {
  let read = 0
  deps.reporter.progress('Reading timelines', 0, timelines.length)
  const out = await readEach(timelines, async (timeline) => {
    // `timelines` as listed before this read: their versions say whether anything changed since the last one.
    const changes = await readTimelineChanges(deps.client, timeline, state.timelines[timeline.timelineKey], window, {
      ...options,
      listedVersion: timelineVersion(timeline),
    })
    deps.reporter.progress('Reading timelines', ++read, timelines.length)
    return changes
  })
  deps.reporter.endProgress()
  return out
}

/**
 * Sync: the export half's server changes, read in the import half's frame before it reads the sheet, so that one
 * read also confirms the rows the export will write (Google: through their anchors) and serves both halves
 * (decisions/0008). Read as the export would read them: its timelines, cursors and window, incrementally (a fresh
 * state is read in full by the export itself). Returns the read options for the import's sheet read.
 */
export async function readChangesAhead(
  target: TargetConfig,
  deps: ExportDeps,
  frame: RunFrame,
  handOff: SyncHandOff,
): Promise<ReadOptions> {
  if (frame.fresh || frame.setAside) return {}
  const window = exportWindow(target, frame.startedAt)
  const tagsTimelines = await deps.client.tagsTimelines()
  const timelines = exportedTimelines(tagsTimelines, target)
  const cursors = cursorsText(frame.state, timelines)
  let changes: TimelineChanges[]
  try {
    changes = await readExportChanges(deps, timelines, frame.state, window, { full: false, now: frame.startedAt })
  } catch {
    // The export's read, not the import's: the import goes on as before, and the export reads again (and fails
    // there, if it still does, as it did before the read moved ahead).
    return {}
  }
  handOff.changesAhead = { tagsTimelines, changes, window: window.window, cursors }
  // The import plans on the whole tab: only the rows to confirm are taken from the export's read options.
  const { rowsToWrite } = sheetReadOptions(changes, target, false)
  return rowsToWrite ? { rowsToWrite: { tab: rowsToWrite.tab, keys: rowsToWrite.keys } } : {}
}

/** Whether changes read ahead are still what the export would read now: same timelines, cursors and window. */
function aheadHolds(ahead: ChangesAhead, timelines: readonly TimelineInfo[], state: TargetState, window: ExportWindow): boolean {
  return (
    ahead.window.from === window.window.from &&
    ahead.window.to === window.window.to &&
    ahead.changes.length === timelines.length &&
    ahead.changes.every((c, i) => c.timeline.timelineKey === timelines[i]!.timelineKey) &&
    ahead.cursors === cursorsText(state, timelines)
  )
}

/** The cursors of `timelines`, as text that compares equal exactly when they are the same. */
function cursorsText(state: TargetState, timelines: readonly TimelineInfo[]): string {
  return JSON.stringify(
    timelines.map((t) => {
      const cursor = state.timelines[t.timelineKey]
      return cursor ? Object.entries(cursor).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null
    }),
  )
}

/** Every combination the server allows, for anyone. */
function allowedCombinations(allowed: AllowedTags | undefined): string[] {
  return allowed ? [...allowed.everyone, ...allowed.groups.flatMap((g) => g.combinations)] : []
}

function timelineSummary(c: TimelineChanges): TimelineSummary {
  return {
    timelineKey: c.timeline.timelineKey,
    owner: c.timeline.ownerUsername,
    mode: c.mode,
    activitiesRead: c.activities.length + (c.mode === 'incremental' ? (c.lookBack?.activities.length ?? 0) : 0),
    lookBack: c.mode === 'full' || Boolean(c.lookBack),
    unchanged: c.mode === 'incremental' && c.unchanged === true,
  }
}

/**
 * What the plan needs of the Activities tab: nothing but its header when the server reported nothing new
 * (no row can change), else the whole tab, with the rows of the changed activities confirmed in passing
 * (Google: through their row anchors in the same request), so the write need not read them back.
 */
function sheetReadOptions(changes: readonly TimelineChanges[], target: TargetConfig, whole: boolean): ReadOptions {
  if (whole || changes.some((c) => c.mode === 'full')) return {}
  const keys: string[] = []
  for (const c of changes) {
    if (c.mode !== 'incremental') continue
    const timelineKey = c.timeline.timelineKey
    for (const a of c.activities) keys.push(activityKey(timelineKey, a.entityId))
    for (const id of c.deletedIds) keys.push(activityKey(timelineKey, id))
    for (const a of c.lookBack?.activities ?? []) keys.push(activityKey(timelineKey, a.entityId))
  }
  const quiet = changes.every((c) => c.mode === 'incremental' && c.lookBack === undefined)
  if (keys.length === 0 && quiet) return { headerOnly: [target.tabs.activities] }
  // Without a look-back, the plan parses only the rows of these keys; of the others it needs the Key (which
  // rows exist) and the Base (staleTimelines). A look-back also needs the dates of every row.
  const everyRow = quiet ? { key: ACTIVITY_COLUMN.key, others: [ACTIVITY_COLUMN.base] } : undefined
  return { rowsToWrite: { tab: target.tabs.activities, keys, ...(everyRow ? { everyRow } : {}) } }
}

async function readServerAllowedTags(deps: ExportDeps, warnings: string[]): Promise<AllowedTags | undefined> {
  try {
    return await deps.client.readAllowedTags({ all: true })
  } catch (error) {
    if (error instanceof TimelineSheetsError && error.code === 'TS_FORBIDDEN') {
      warnings.push(
        "The signed-in account may not read everyone's allowed tags (needs administrator or content editor); the Allowed tags tab was left as it is.",
      )
      return undefined
    }
    throw error
  }
}
