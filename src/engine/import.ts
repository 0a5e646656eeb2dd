/**
 * `import` for one target: read the sheet, validate every row, compare base /
 * sheet / server with the pure planner, run the guards, and only then write —
 * each server write journaled before it is sent, `expectedLastChangeId`
 * threaded per timeline, a concurrency rejection re-decided against a fresh
 * read. The sheet is updated last, finding rows by Key (or, for new rows, by
 * their content), never by the position they had when the plan was made.
 *
 * Longer than most files because it wires one whole run in order (sheet read, server reads, plan, guards,
 * writes, write-back); the decisions are in core.
 */
import { ACTIVITY_COLUMN as C, ALLOWED_TAGS_COLUMN, validateHeader, type HeaderLayout, type HeaderProblem } from '../core/columns.ts'
import { withServerVersion } from '../core/describe.ts'
import { asImportCarriesOut, runGuards, type GuardOptions } from '../core/guards.ts'
import { countKinds, planSync } from '../core/plan.ts'
import type { RowContext, ServerActivity } from '../core/row-context.ts'
import { knownUsers, scopeOfTarget } from '../core/target-scope.ts'
import { withinTarget } from './target-wall.ts'
import { activityKey, parseActivityKey, pendingMark } from '../core/activity-key.ts'
import type { TimeWindow } from '../core/windows.ts'
import { localDateOf } from '../core/wall-clock.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { CellUpdate, Snapshot, Spreadsheet, TabData, TabWrite } from '../sheets/port.ts'
import { closeJournal, openJournal, unfinishedJournals } from '../state/journal.ts'
import { applyBaseChanges, applyWrittenChanges } from '../state/target-state.ts'
import type { AllowedTags } from '../timeline/model.ts'
import type { TargetConfig } from '../config/schema.ts'
import { crashPoint } from './crash-points.ts'
import type { EngineDeps } from './deps.ts'
import { withRun, type RunFrame, type SyncHandOff } from './run.ts'
import { exportWindow, tabSpecs } from '../core/export-plan.ts'
import { parseDayStart } from '../core/day-start.ts'
import { windowView, type WindowView } from '../core/window-text.ts'
import { isEmptyWrite } from '../core/sheet-writes.ts'
import { summaryLine, syncLogRow } from '../core/sync-log.ts'
import { findCandidates, planLines, settledRows } from '../core/import-plan.ts'
import { readSheet } from '../core/sheet-readings.ts'
import { writtenContext } from '../core/written-rows.ts'
import { readRanges, restOfWindow } from '../core/read-ranges.ts'
import { adoptInterrupted } from '../core/interrupted-posts.ts'
import { sheetKeysOf } from '../core/sheet-keys.ts'
import { readEach, readRanged } from './server-reads.ts'
import { planAllowedTags, type TagsRowStatus } from '../core/allowed-tags-plan.ts'
import { statusText } from '../core/status.ts'
import { sendAllowedTags } from './import-tags.ts'
import { applyServerWrites } from './import-apply.ts'
import { sheetWriteBack } from '../core/import-write-back.ts'
import {
  countOutcomes,
  emptyCounts,
  emptyView,
  guardError,
  planView,
  type ImportCounts,
  type ImportPlanView,
} from '../core/import-report.ts'
import type { ServerWrite } from '../core/server-writes.ts'
import { writePlanTab } from './plan-tab.ts'
import { protectedRowsWarnings } from './protected-rows.ts'
import { importApprovals } from './approvals.ts'
import { APPROVED_TAB } from '../core/approved-tab.ts'

export type { ImportPlanView, PlannedWrite } from '../core/import-report.ts'

/**
 * Writes the pending mark into the Key cell of every new row about to be created (rows an interrupted run
 * marked keep their mark). Rows a person changed since the plan's read are not marked, and not created
 * this run: the next run plans them on what they hold then.
 */
async function markNewRows(
  spreadsheet: Spreadsheet,
  basis: Snapshot,
  tab: TabData,
  layout: HeaderLayout,
  writes: readonly ServerWrite[],
  adoptions: ReadonlyMap<number, ServerActivity>,
  runId: string,
): Promise<{ marks: Map<number, string>; unmarked: Set<number> }> {
  const marks = new Map<number, string>()
  const keyColumn = layout.index[C.key]!
  const updates: CellUpdate[] = []
  for (const d of writes) {
    if (d.kind !== 'import-post') continue
    if (d.pending !== undefined) {
      marks.set(d.rowNumber, d.pending)
      continue
    }
    if (adoptions.has(d.rowNumber)) continue
    const mark = pendingMark(runId, d.rowNumber)
    marks.set(d.rowNumber, mark)
    updates.push({ row: d.rowNumber, column: keyColumn, values: [mark] })
  }
  const unmarked = new Set<number>()
  if (updates.length === 0) return { marks, unmarked }
  const report = await spreadsheet.write([{ tab: tab.title, keyColumn, updates }], basis)
  for (const skipped of report.skipped) {
    if (skipped.tab !== tab.title) continue
    unmarked.add(skipped.row)
    marks.delete(skipped.row)
  }
  return { marks, unmarked }
}

export interface ImportDeps extends EngineDeps {
  /** Asked before anything is written (a terminal prompt); resolves true to apply. Absent: apply. */
  confirm?: (plan: ImportPlanView) => Promise<boolean>
  /** How many timelines are written to at once. @default 4 */
  concurrency?: number
}

export interface ImportOptions extends GuardOptions {
  dryRun?: boolean
  /** Delete on the server activities whose rows were removed from the sheet. */
  deleteMissing?: boolean
  /** Tags outside the allowed combinations are an error instead of a warning. */
  strictTags?: boolean
  /** Write the plan into a Plan tab (with --dry-run). */
  planTab?: boolean
  /** Send the Allowed tags tab even when the server's list changed since the export (replacing that change). */
  overwriteTags?: boolean
}

export interface ImportSummary {
  target: string
  runId: string
  dryRun: boolean
  applied: boolean
  /** `incomplete`: rows changed while the run wrote back and were left for the next run (exit 1, run again). */
  result: 'success' | 'partial' | 'refused' | 'incomplete'
  plan: ImportPlanView
  counts: ImportCounts
  /** What became of the allowed tags after applying (the plan only says what was intended). */
  tags: { outcome: ImportPlanView['tags']; message: string | undefined }
  spreadsheet: string
  /** The local days the target covers, in its zone: the server is read within them. */
  window: WindowView
  sheetsRequests: { reads: number; writes: number }
}

/** `handOff` (sync): when the import writes nothing, it leaves its read and its Sync log row there for the export. */
export async function runImport(
  target: TargetConfig,
  deps: ImportDeps,
  options: ImportOptions = {},
  handOff?: SyncHandOff,
): Promise<ImportSummary> {
  // The bases are read while the sheet read is under way (importInFrame).
  return withRun(target, deps, { command: 'import', dryRun: Boolean(options.dryRun), deferBases: true }, (frame) =>
    importInFrame({ target, deps, options, frame, handOff }),
  )
}

interface ImportRun {
  target: TargetConfig
  deps: ImportDeps
  options: ImportOptions
  frame: RunFrame
  handOff: SyncHandOff | undefined
}

async function importInFrame({ target, deps: given, options, frame, handOff }: ImportRun): Promise<ImportSummary> {
  const { runId, startedAt, now, location, state, fresh: neverRun } = frame
  // Every write of this run goes through the wall: only the timelines and allowed-tags lines of the target's people.
  const tagsScope = scopeOfTarget(target)
  const { scope } = tagsScope
  const deps: ImportDeps = { ...given, client: withinTarget(given.client, target, scope, tagsScope.edits) }
  const sheetsRequests = () => frame.sheetsRequests()
  const interrupted = await unfinishedJournals(location.journalFolder)
  if (interrupted.length)
    deps.reporter.info(`Finishing ${interrupted.length} interrupted run(s) first: ${interrupted.map((r) => r.runId).join(', ')}`)

  const emptySummary = (): ImportSummary => ({
    target: target.name,
    runId,
    dryRun: Boolean(options.dryRun),
    applied: false,
    result: 'success',
    plan: emptyView(target.name),
    counts: emptyCounts(),
    tags: { outcome: 'unchanged', message: undefined },
    spreadsheet: deps.spreadsheet.describe(),
    window: windowView(exportWindow(target, startedAt)),
    sheetsRequests: sheetsRequests(),
  })
  const specs = tabSpecs(target)
  const writesBefore = deps.spreadsheet.requestCounts().writes
  // While the sheet read is under way (the service takes a while to send a big tab) this process would sit idle:
  // it reads the row bases from disk meanwhile, and a plain import asks the server for its timelines and allowed
  // tags (a sync listed the timelines already, in its read-ahead). Each is awaited at the step that uses it, so a
  // failure surfaces at that step, as if the work had started there.
  const basesRead = settledLater(frame.loadBases())
  const serverLists = handOff
    ? undefined
    : { timelines: settledLater(deps.client.tagsTimelines()), allowed: settledLater(deps.client.readAllowedTags({ all: true })) }
  // A sync reads the export's server changes first, so this read confirms the rows the export then writes. A
  // target's first run (the first nightly sync) most likely finds a new spreadsheet.
  const readAhead = await handOff?.readAhead?.(frame)
  // The Approvals tab only once a layout made it: a Google read naming a missing tab fails whole.
  const approvalsTab = target.approvals && state.approvalsTab === target.approvals.tab ? target.approvals.tab : undefined
  const approvedTab = target.approvals && state.approvedTab === APPROVED_TAB ? APPROVED_TAB : undefined
  const snapshot = await deps.spreadsheet.read(
    [
      ...(handOff
        ? specs.map((s) => s.title).filter((t) => !target.approvals || (t !== target.approvals.tab && t !== APPROVED_TAB))
        : [target.tabs.activities, target.tabs.allowedTags, target.tabs.syncLog]),
      ...(approvalsTab ? [approvalsTab] : []),
      ...(approvedTab ? [approvedTab] : []),
    ],
    neverRun ? { ...readAhead, tabsMayBeMissing: true } : readAhead,
  )
  await basesRead
  const tab = snapshot.tabs[target.tabs.activities]
  if (!tab?.exists) {
    if (neverRun && interrupted.length === 0) {
      // A target never exported has nothing to import yet (the first nightly sync): the export creates the sheet.
      deps.reporter.info(`Nothing to import yet: the spreadsheet has no "${target.tabs.activities}" tab; the export creates it.`)
      return emptySummary()
    }
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `The spreadsheet has no "${target.tabs.activities}" tab, though earlier runs wrote one.`,
      {
        hint: 'A tab was deleted or renamed. Rename it back, or run export --full to make it again (rows are matched by Key).',
      },
    )
  }
  const header = validateHeader(tab.header, specs[0]!)
  const headerProblems: HeaderProblem[] = header.ok ? [] : header.problems
  if (!header.ok) {
    const guards = runGuards(
      { decisions: [], counts: {} as never },
      { headerProblems, sheetRowCount: tab.rows.length, keyedRowCount: 0, baseCount: state.base.size },
      options,
    )
    if (guards.length) throw guardError(guards)
    throw new TimelineSheetsError('TS_SHEET_LAYOUT', 'The Activities header is damaged.')
  }
  const layout = header.layout

  // Timelines and users.
  // A sync listed them a moment ago, when it read the export's changes ahead of this read.
  const tagsTimelines = handOff?.changesAhead?.tagsTimelines ?? (await (serverLists?.timelines ?? deps.client.tagsTimelines()))
  const timelineByKey = new Map(tagsTimelines.map((t) => [t.timelineKey, t]))
  const users = knownUsers(tagsTimelines, scope)
  // Keys of other people's timelines: a row or a base that names one is never planned on (rows say why).
  const outside = new Set(tagsTimelines.filter((t) => !scope.covers(t.ownerUsername)).map((t) => t.timelineKey))
  let allowed: AllowedTags | undefined
  try {
    allowed = await (serverLists?.allowed ?? deps.client.readAllowedTags({ all: true }))
  } catch (error) {
    if (!(error instanceof TimelineSheetsError && error.code === 'TS_FORBIDDEN')) throw error
  }

  // Pass 1: which rows ask for something (edited, ticked, new, invalid)?
  // The sheet's Keys, and the rows of the Keys several rows hold: all the scan and the planner ask of the Keys' rows.
  const { keys: sheetKeys, shared: rowsOfKey } = sheetKeysOf(tab, layout)
  // Each row is read once at most, and a row still as the tool wrote it not at all (decisions/0013); both passes
  // judge that reading.
  const dayStart = parseDayStart(target.dayStartsAt)
  const readContext = { timeZone: target.timeZone, dayStart, users, teamOnly: !scope.whole }
  const readings = readSheet(tab, layout, readContext, state.base, state.written)
  const candidates = findCandidates(tab, readings, rowsOfKey, layout, state.base, users, target.timeZone, sheetKeys, dayStart)
  const affected = new Set<string>()
  for (const c of candidates.timelines) affected.add(c)
  const missingKeys: string[] = []
  for (const k of state.base.keys()) if (!sheetKeys.has(k) && !outside.has(parseActivityKey(k)!.timelineKey)) missingKeys.push(k)
  if (options.deleteMissing) for (const k of missingKeys) affected.add(parseActivityKey(k)!.timelineKey)
  for (const run of interrupted) for (const w of run.writes) if (w.intent.timelineKey) affected.add(w.intent.timelineKey)

  // Server side of the affected timelines: the weeks their edited rows sit on; the whole window where
  // rows went missing (--delete-missing), a run was interrupted, or an edited row's activity was not there.
  const window = exportWindow(target, startedAt)
  const fullTimelines = new Set<string>()
  if (options.deleteMissing) for (const k of missingKeys) fullTimelines.add(parseActivityKey(k)!.timelineKey)
  for (const run of interrupted) for (const w of run.writes) if (w.intent.timelineKey) fullTimelines.add(w.intent.timelineKey)
  const server = new Map<string, ServerActivity>()
  const rangesByTimeline = new Map<string, TimeWindow[]>()
  const affectedTimelines = [...affected].flatMap((key) => timelineByKey.get(key) ?? [])
  // Timelines at once (the client's pace bounds the requests); what they hold is taken in the timelines' order.
  const reads = await readEach(affectedTimelines, async (timeline) => {
    const key = timeline.timelineKey
    const dates = candidates.dates.get(key) ?? new Set<string>()
    const ranges = readRanges(target.timeZone, window.fromDate, window.days, dates, fullTimelines.has(key), dayStart)
    const found = await readRanged(deps.client, timeline, ranges)
    // An edited row's activity the read did not find. By id: a Key string per activity read cost more than the check.
    const foundIds = new Set<number>()
    for (const a of found) foundIds.add(a.entityId)
    const lost = [...(candidates.keys.get(key) ?? [])].some((k) => {
      const id = parseActivityKey(k)?.entityId
      return id === undefined || activityKey(key, id) !== k || !foundIds.has(id)
    })
    if (!lost || fullTimelines.has(key)) return { timeline, found, ranges, whole: false }
    // An edited row whose activity was not in the weeks read: it moved from another week. Read the rest,
    // keeping the first read's lastChangeId, so a change made meanwhile is still caught on write.
    const first = deps.client.lastChangeId(key)
    const rest = restOfWindow(target.timeZone, window.fromDate, window.days, ranges, dayStart)
    found.push(...(await readRanged(deps.client, timeline, rest)))
    deps.client.setLastChangeId(key, first)
    return { timeline, found, ranges: [...ranges, ...rest], whole: true }
  })
  for (const { timeline, whole } of reads) if (whole) fullTimelines.add(timeline.timelineKey)
  const tagRules = {
    allowedTags: allowed,
    allowedTagsSeverity: options.strictTags ? ('error' as const) : ('warning' as const),
    userCanAppend: target.userCanAppendTags ?? true,
  }
  // Rows nobody edited are the export's: left out of the plan with their activities.
  const settled = settledRows(readings, candidates.verdicts, { affected, full: fullTimelines }, tagRules)
  for (const { timeline, found, ranges } of reads) {
    const left = settled.activities.get(timeline.timelineKey)
    for (const a of found)
      if (!left?.has(a.entityId)) server.set(activityKey(timeline.timelineKey, a.entityId), { activity: a, user: timeline.ownerUsername })
    rangesByTimeline.set(timeline.timelineKey, ranges)
  }

  // Pass 2: the whole picture for the affected timelines.
  // The state's Keys and those of rows with a Base cell, asked of without copying them into one set.
  const baseCellKeys = candidates.baseCellKeys
  const ctx: RowContext = {
    timeZone: target.timeZone,
    dayStart,
    users,
    teamOnly: !scope.whole,
    server,
    baseKeys: { has: (k) => state.base.has(k) || baseCellKeys.has(k) },
    ...tagRules,
  }
  const lines = planLines(tab, readings, rowsOfKey, layout, ctx, affected, rangesByTimeline, candidates.verdicts, settled.rows)
  // Base only for what this run can judge: rows it plans, activities it read, and whole timelines read in full.
  // An in-step line's activity was read (that is how it is in step): `server` has its Key already.
  const planned = new Set<string>()
  for (const line of lines) if (line.kind === 'row' && 'key' in line.row) planned.add(line.row.key)
  const base = new Map<string, string>()
  for (const [k, fp] of state.base) {
    // Most of a big sheet's Keys are neither judged nor of a timeline read in full: no timeline to take out of them.
    const judged = server.has(k) || planned.has(k)
    if (!judged && fullTimelines.size === 0) continue
    const slash = k.indexOf('/')
    const timelineKey = slash < 0 ? k : k.slice(0, slash)
    if (affected.has(timelineKey) && (judged || fullTimelines.has(timelineKey))) base.set(k, fp)
  }
  const sync = planSync(base, lines, server, { deletedOnServer: target.deletedRows, deleteMissing: options.deleteMissing })
  // A conflict the manager can act on: the Status shows what the server has now.
  const judged = sync.decisions.map((d) =>
    d.kind === 'conflict' ? { ...d, reason: withServerVersion(d.reason, server.get(d.key)?.activity, target.timeZone, dayStart) } : d,
  )
  // Approvals taken and reopened; writes into an approved period refused (decisions/0026).
  const approvals = await importApprovals({
    target,
    stateFolder: location.folder,
    tabTitle: approvalsTab,
    approvedTitle: approvedTab,
    snapshot,
    activities: tab,
    layout,
    decisions: judged,
    tagsTimelines,
    users,
    runId,
    startedAt,
    today: localDateOf(target.timeZone, Math.floor(startedAt.getTime() / 1000)),
    window,
  })
  const decisions = approvals?.decisions ?? judged
  const plan = { ...sync, decisions, counts: approvals?.refused ? countKinds(decisions) : sync.counts }

  // Adopt what an interrupted run already created instead of creating it again.
  const adoptions = adoptInterrupted(plan.decisions, interrupted, server, sheetKeys)

  const guards = runGuards(
    asImportCarriesOut(plan),
    {
      headerProblems,
      sheetRowCount: tab.rows.filter((r) => r.length > 0).length,
      keyedRowCount: sheetKeys.size,
      baseCount: state.base.size,
    },
    options,
  )
  const tags = planAllowedTags(
    snapshot,
    target.tabs.allowedTags,
    { whole: state.allowedTagsFingerprint, parts: state.allowedTagsParts },
    Boolean(options.overwriteTags),
    tagsScope,
    allowed,
  )
  const view = planView(target.name, plan.decisions, adoptions, missingKeys, tags, guards, server, target.timeZone, dayStart)

  if (options.dryRun) {
    if (options.planTab) await writePlanTab(deps.spreadsheet, view)
    const needsPerson = view.conflicts.length + view.invalid.length > 0 || tags.kind === 'refused' || tags.kind === 'invalid'
    return summary({ applied: false, result: guards.length ? 'refused' : needsPerson ? 'partial' : 'success', counts: emptyCounts() })
  }
  if (guards.length) throw guardError(guards)
  if (deps.confirm && (view.writes.length > 0 || view.tags === 'send') && !(await deps.confirm(view))) {
    return summary({ applied: false, result: 'success', counts: emptyCounts() })
  }

  // New rows are marked before their activities are created: the mark in the Key cell finds each row
  // again afterwards, whatever a person types into it meanwhile, so no activity is created twice.
  const serverWrites = plan.decisions.filter(
    (d): d is ServerWrite =>
      d.kind === 'import-put' || d.kind === 'import-post' || d.kind === 'import-delete' || d.kind === 'import-delete-missing',
  )
  const marking = await markNewRows(deps.spreadsheet, snapshot, tab, layout, serverWrites, adoptions, runId)
  crashPoint('import:after-marks')
  const writes = serverWrites
    .filter((d) => d.kind !== 'import-post' || !marking.unmarked.has(d.rowNumber))
    .map((d) => (d.kind === 'import-post' && marking.marks.has(d.rowNumber) ? { ...d, pending: marking.marks.get(d.rowNumber)! } : d))

  // Server writes, journaled.
  const journal = await openJournal(location.journalFolder, runId, 'import', now)
  crashPoint('import:after-journal-open')
  const outcomes = await applyServerWrites(writes, adoptions, {
    client: deps.client,
    journal,
    server,
    base: state.base,
    timelineByKey,
    rangesByTimeline,
    timeZone: target.timeZone,
    dayStart,
    concurrency: deps.concurrency ?? 4,
    reporter: deps.reporter,
  })

  // Allowed tags: one POST, only when the tab changed and the server did not.
  let tagsOutcome = tags
  if (tags.kind === 'send') {
    tagsOutcome = await sendAllowedTags(deps.client, tags, tagsScope, state, journal)
  }

  // The sheet, read afresh: each planned row is found again there, and the write finds it once more when it lands.
  // Nothing was sent to the server and nothing written to the sheet: the first read still serves (the write
  // finds its rows again all the same).
  crashPoint('import:before-sheet-write')
  await approvals?.save()
  // The record holds the approval and the sheet does not show it yet: the next run must see it as taken.
  if (approvals?.changed) crashPoint('import:after-approvals-save')
  const quiet = writes.length === 0 && adoptions.size === 0 && tags.kind !== 'send' && interrupted.length === 0
  const fresh = quiet ? snapshot : await deps.spreadsheet.read([target.tabs.activities, target.tabs.syncLog])
  const freshTab = fresh.tabs[target.tabs.activities]
  if (!freshTab?.exists) {
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `The "${target.tabs.activities}" tab disappeared while this import ran; the server writes are done and journaled.`,
      {
        hint: 'Restore or rename the tab back, then run export --full: rows are matched by Key and nothing is created twice.',
      },
    )
  }
  const today = localDateOf(target.timeZone, Math.floor(startedAt.getTime() / 1000))
  const sheetWrite = sheetWriteBack(
    tab,
    freshTab,
    layout,
    outcomes,
    plan.decisions,
    { ...target, dayStart },
    today,
    server,
    marking.marks,
    approvals?.rowStatuses,
  )
  const counts = countOutcomes(outcomes, plan.decisions, adoptions.size)
  let result: ImportSummary['result'] =
    counts.conflicts + counts.invalid + counts.failed > 0 || tagsOutcome.kind === 'refused' ? 'partial' : 'success'
  const notes = [
    tagsOutcome.message,
    view.missing.length ? `${view.missing.length} rows are missing from the sheet (kept on the server).` : '',
  ]
  const tabWrites: TabWrite[] = [sheetWrite.write]
  // A refused Allowed tags tab: each row that reaches past the target says so, on the tab as this run read it.
  const tagsStatuses = tags.kind === 'refused' ? tagsStatusWrite(snapshot.tabs[target.tabs.allowedTags], tags.rows, today) : undefined
  if (tagsStatuses) tabWrites.push(tagsStatuses)
  // The Approvals tab's cells and the Approved tab's rows, written on the first read's rows (the fresh read leaves
  // both out). A sync whose import writes nothing else leaves them to the export's write: no request of their own.
  const approvalWrites = [approvals?.write, approvals?.approved].filter((w): w is TabWrite => w !== undefined && !isEmptyWrite(w))
  const approvalsLater = handOff !== undefined && quiet && approvalWrites.length > 0 && tabWrites.every((w) => isEmptyWrite(w))
  if (!approvalsLater) tabWrites.push(...approvalWrites)
  notes.push(...(approvals?.log ?? []))
  const basis =
    tagsStatuses || (approvalWrites.length > 0 && !approvalsLater)
      ? {
          tabs: {
            ...fresh.tabs,
            ...(tagsStatuses ? { [target.tabs.allowedTags]: snapshot.tabs[target.tabs.allowedTags]! } : {}),
            ...(approvalsLater ? {} : Object.fromEntries(approvalWrites.map((w) => [w.tab, snapshot.tabs[w.tab]!]))),
          },
        }
      : fresh
  const report = await deps.spreadsheet.write(
    tabWrites.filter((w) => !isEmptyWrite(w)),
    basis,
  )
  const unfinished = sheetWrite.lost.length + marking.unmarked.size + report.skipped.filter((r) => r.tab === target.tabs.activities).length
  if (unfinished > 0) {
    result = 'incomplete'
    deps.reporter.warn(`Rows changed in the sheet while this import ran were left for the next run`, {
      lost: sheetWrite.lost.join(' '),
      unmarked: [...marking.unmarked].join(' '),
      skipped: report.skipped.map((r) => `${r.row}:${r.reason}`).join(' '),
    })
    // Rows a manager protected against the tool's account are said as such, not as rows changed meanwhile.
    const protectedRows = report.skipped.filter((r) => r.reason === 'protected')
    const changed = unfinished - protectedRows.filter((r) => r.tab === target.tabs.activities).length
    if (changed > 0)
      notes.push(
        `${changed} ${changed === 1 ? 'row was' : 'rows were'} changed in the sheet while this import ran; ${changed === 1 ? 'its' : 'their'} Status was not written. Run again: the next run takes ${changed === 1 ? 'it' : 'them'} up.`,
      )
    for (const warning of protectedRowsWarnings(protectedRows)) {
      deps.reporter.warn(warning)
      notes.push(warning)
    }
  }
  const message = notes.filter(Boolean).join(' ')
  const logRow = syncLogRow({ when: startedAt, timeZone: target.timeZone, runId, command: 'import', result, counts, message })
  if (handOff && quiet && deps.spreadsheet.requestCounts().writes === writesBefore) {
    // A sync's import that wrote nothing: the export half plans on this read and appends this row with its own.
    handOff.snapshot = snapshot
    handOff.logRows = handOff.logOnlyChanges && !approvals?.log.length ? [] : [logRow]
    if (approvalsLater) handOff.writes = approvalWrites
  } else {
    // Its own write, after the one whose outcome it reports: appends need no position, so the same read serves.
    await deps.spreadsheet.write([{ tab: target.tabs.syncLog, appends: [logRow] }], fresh)
  }
  crashPoint('import:after-sheet-write')

  // Rows read in full and found unedited: the next import tells them from their cells. Not those just written back.
  const unedited = readings.uneditedDigests(state.base).filter(([key]) => !sheetWrite.base.has(key))
  applyBaseChanges(state, sheetWrite.base)
  applyWrittenChanges(state, writtenContext(target.timeZone, users, dayStart), unedited)
  await frame.save(result, summaryLine(counts))
  crashPoint('import:after-state-save')
  await journal.end(result)
  crashPoint('import:after-journal-end')
  for (const run of interrupted) await closeJournal(run.file, `finished by ${runId}`, now())
  if (interrupted.length) crashPoint('import:after-close-interrupted')
  return summary({ applied: true, result, counts, tags: { outcome: tagsOutcome.kind, message: tagsOutcome.message } })

  function summary(s: {
    applied: boolean
    result: ImportSummary['result']
    counts: ImportSummary['counts']
    tags?: ImportSummary['tags']
  }): ImportSummary {
    return {
      target: target.name,
      runId,
      dryRun: Boolean(options.dryRun),
      applied: s.applied,
      result: s.result,
      plan: view,
      counts: s.counts,
      tags: s.tags ?? { outcome: view.tags, message: view.tagsMessage },
      spreadsheet: deps.spreadsheet.describe(),
      window: windowView(exportWindow(target, startedAt)),
      sheetsRequests: sheetsRequests(),
    }
  }
}

/** The Status cells of the Allowed tags rows a refusal names, or undefined when there are none or the tab has no Status column. */
function tagsStatusWrite(tab: TabData | undefined, rows: readonly TagsRowStatus[] | undefined, today: string): TabWrite | undefined {
  const column = tab?.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.status) ?? -1
  if (!tab || column < 0 || !rows?.length) return undefined
  return {
    tab: tab.title,
    updates: rows.map((r) => ({ row: r.rowNumber, column, values: [statusText({ word: 'Error', reason: r.reason }, today)] })),
  }
}

/**
 * A promise started ahead of where it is awaited: a rejection before then is not an unhandled one (it is
 * thrown where the promise is awaited), and a run that ends first does not leave it unhandled either.
 */
function settledLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined)
  return promise
}
