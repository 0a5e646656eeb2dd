/**
 * `import` for one target: read the sheet, validate every row, compare base /
 * sheet / server with the pure planner, run the guards, and only then write —
 * each server write journaled before it is sent, `expectedLastChangeId`
 * threaded per timeline, a concurrency rejection re-decided against a fresh
 * read. The sheet is updated last, finding rows by Key (or, for new rows, by
 * their content), never by the position they had when the plan was made.
 */
import { allowedTagsFingerprint, rowsToAllowedTags } from '../core/allowed-tags-sheet.ts'
import { ACTIVITY_COLUMN, ALLOWED_TAGS_COLUMN, validateHeader, type HeaderLayout, type HeaderProblem } from '../core/columns.ts'
import { withServerVersion } from '../core/describe.ts'
import { runGuards, type GuardFailure, type GuardOptions } from '../core/guards.ts'
import { fingerprintOf, planSync, type Decision } from '../core/plan.ts'
import { activityKey, activityToCells, cellUpdatesFor, parseActivityKey, parseRow, type KnownUser, type RowContext, type ServerActivity, type SheetLine } from '../core/rows.ts'
import { readDateCell } from '../core/cells.ts'
import { chunkWindows, localDateOf, parseOffsetInstant, serialToLocalDate, type TimeWindow } from '../core/time.ts'
import { ConcurrencyError, TimelineSheetsError } from '../errors.ts'
import type { CellUpdate, CellValue, Snapshot, Spreadsheet, TabData, TabWrite } from '../sheets/port.ts'
import { closeJournal, openJournal, unfinishedJournals, type Journal, type JournalRun } from '../state/journal.ts'
import { acquireLock, type Lock } from '../state/lock.ts'
import { loadState, saveState, stateLocation, type TargetState } from '../state/target-state.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { Activity, ActivityInput, AllowedTags, TimelineInfo } from '../timeline/model.ts'
import type { TargetConfig } from '../config/schema.ts'
import type { Reporter } from '../cli/reporter.ts'
import { crashPoint } from './crash-points.ts'
import { requestMeter, type EngineDeps } from './deps.ts'
import { exportWindow, newRunId, tabSpecs } from './export.ts'
import { addDays } from './server-reads.ts'
import { isEmptyWrite, withoutStamp } from './sheet-writes.ts'
import { syncLogRow, type RunCounts } from './sync-log.ts'

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

export interface PlannedWrite {
  kind: 'create' | 'update' | 'delete' | 'delete-missing'
  user: string
  rowNumber: number | undefined
  key: string | undefined
  what: string
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

export interface ImportSummary {
  target: string
  runId: string
  dryRun: boolean
  applied: boolean
  result: 'success' | 'partial' | 'refused'
  plan: ImportPlanView
  counts: RunCounts & { failed: number; recovered: number }
  /** What became of the allowed tags after applying (the plan only says what was intended). */
  tags: { outcome: ImportPlanView['tags']; message: string | undefined }
  spreadsheet: string
  sheetsRequests: { reads: number; writes: number }
}

type ServerWrite = Extract<Decision, { kind: 'import-put' | 'import-post' | 'import-delete' | 'import-delete-missing' }>

interface WriteOutcome {
  decision: ServerWrite
  status: 'done' | 'conflict' | 'failed' | 'adopted'
  /** The activity as the server now holds it (post, put, adopted). */
  activity?: Activity
  user?: string
  message?: string
}

const C = ACTIVITY_COLUMN

export async function runImport(target: TargetConfig, deps: ImportDeps, options: ImportOptions = {}): Promise<ImportSummary> {
  const now = deps.now ?? (() => new Date())
  const startedAt = now()
  const sheetsRequests = requestMeter(deps.spreadsheet)
  const runId = deps.runId ?? newRunId(startedAt)
  const location = stateLocation(deps.stateDir, target.name)
  const lock: Lock | undefined = options.dryRun || deps.lockHeld ? undefined : await acquireLock(location.lockFile, { command: 'import' })
  try {
    const { state, fresh: neverRun } = await loadState(location, target.name)
    if (state.backendHints) deps.spreadsheet.importHints?.(state.backendHints)
    const interrupted = await unfinishedJournals(location.journalFolder)
    if (interrupted.length) deps.reporter.info(`Finishing ${interrupted.length} interrupted run(s) first: ${interrupted.map((r) => r.runId).join(', ')}`)

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
      sheetsRequests: sheetsRequests(),
    })
    const specs = tabSpecs(target)
    const snapshot = await deps.spreadsheet.read([target.tabs.activities, target.tabs.allowedTags, target.tabs.syncLog])
    const tab = snapshot.tabs[target.tabs.activities]
    if (!tab?.exists) {
      if (neverRun && interrupted.length === 0) {
        // A target never exported has nothing to import yet (the first nightly sync): the export creates the sheet.
        deps.reporter.info(`Nothing to import yet: the spreadsheet has no "${target.tabs.activities}" tab; the export creates it.`)
        return emptySummary()
      }
      throw new TimelineSheetsError('TS_SHEET_LAYOUT', `The spreadsheet has no "${target.tabs.activities}" tab, though earlier runs wrote one.`, {
        hint: 'A tab was deleted or renamed. Rename it back, or run export --full to make it again (rows are matched by Key).',
      })
    }
    const header = validateHeader(tab.header, specs[0]!)
    const headerProblems: HeaderProblem[] = header.ok ? [] : header.problems
    if (!header.ok) {
      const guards = runGuards({ decisions: [], counts: {} as never }, { headerProblems, sheetRowCount: tab.rows.length, baseCount: Object.keys(state.base).length }, options)
      if (guards.length) throw guardError(guards)
      throw new TimelineSheetsError('TS_SHEET_LAYOUT', 'The Activities header is damaged.')
    }
    const layout = header.layout

    // Timelines and users.
    const tagsTimelines = await deps.client.tagsTimelines()
    const timelineByKey = new Map(tagsTimelines.map((t) => [t.timelineKey, t]))
    const users: KnownUser[] = tagsTimelines.map((t) => ({ username: t.ownerUsername, displayName: t.ownerDisplayName, tagsTimelineKey: t.timelineKey }))
    let allowed: AllowedTags | undefined
    try {
      allowed = await deps.client.readAllowedTags({ all: true })
    } catch (error) {
      if (!(error instanceof TimelineSheetsError && error.code === 'TS_FORBIDDEN')) throw error
    }

    // Pass 1: which rows ask for something (edited, ticked, new, invalid)?
    const sheetKeys = new Set<string>()
    for (const row of tab.rows) {
      const k = row[layout.index[C.key]!]
      if (typeof k === 'string' && k.trim()) sheetKeys.add(k.trim())
    }
    const candidates = findCandidates(tab, layout, state, users, target.timeZone, sheetKeys)
    const affected = new Set<string>()
    for (const c of candidates.timelines) affected.add(c)
    const missingKeys = Object.keys(state.base).filter((k) => !sheetKeys.has(k))
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
    for (const key of affected) {
      const timeline = timelineByKey.get(key)
      if (!timeline) continue
      const ranges = readRanges(target.timeZone, window.fromDate, window.days, candidates.dates.get(key) ?? new Set(), fullTimelines.has(key))
      const found = await readRanged(deps.client, timeline, ranges)
      for (const a of found) server.set(activityKey(key, a.entityId), { activity: a, user: timeline.ownerUsername })
      const lost = [...(candidates.keys.get(key) ?? [])].some((k) => !server.has(k))
      if (lost && !fullTimelines.has(key)) {
        // An edited row whose activity was not in the weeks read: it moved from another week. Read the rest,
        // keeping the first read's lastChangeId, so a change made meanwhile is still caught on write.
        const first = deps.client.lastChangeId(key)
        const rest = restOfWindow(target.timeZone, window.fromDate, window.days, ranges)
        for (const a of await readRanged(deps.client, timeline, rest)) server.set(activityKey(key, a.entityId), { activity: a, user: timeline.ownerUsername })
        deps.client.setLastChangeId(key, first)
        ranges.push(...rest)
        fullTimelines.add(key)
      }
      rangesByTimeline.set(key, ranges)
    }

    // Pass 2: the whole picture for the affected timelines.
    const baseKeys = new Set<string>(Object.keys(state.base))
    for (const k of candidates.baseCellKeys) baseKeys.add(k)
    const ctx: RowContext = {
      timeZone: target.timeZone,
      users,
      server,
      baseKeys,
      allowedTags: allowed,
      allowedTagsSeverity: options.strictTags ? 'error' : 'warning',
    }
    const lines = planLines(tab, layout, ctx, affected, rangesByTimeline)
    // Base only for what this run can judge: rows it plans, activities it read, and whole timelines read in full.
    const judged = new Set<string>(server.keys())
    for (const line of lines) if (line.kind === 'row' && 'key' in line.row) judged.add(line.row.key)
    const base = new Map<string, string>()
    for (const [k, fp] of Object.entries(state.base)) {
      const timelineKey = k.split('/')[0]!
      if (affected.has(timelineKey) && (judged.has(k) || fullTimelines.has(timelineKey))) base.set(k, fp)
    }
    const planned = planSync(base, lines, server, { deletedOnServer: target.deletedRows, deleteMissing: options.deleteMissing })
    // A conflict the manager can act on: the Status shows what the server has now.
    const plan = {
      ...planned,
      decisions: planned.decisions.map((d) => (d.kind === 'conflict' ? { ...d, reason: withServerVersion(d.reason, server.get(d.key)?.activity, target.timeZone) } : d)),
    }

    // Adopt what an interrupted run already created instead of creating it again.
    const adoptions = adoptInterrupted(plan.decisions, interrupted, server, sheetKeys)

    const guards = runGuards(plan, { headerProblems, sheetRowCount: tab.rows.filter((r) => r.length > 0).length, baseCount: Object.keys(state.base).length }, options)
    const tags = planAllowedTags(snapshot, target, state, Boolean(options.overwriteTags))
    const view = planView(target.name, plan.decisions, adoptions, missingKeys, tags, guards, server)

    if (options.dryRun) {
      if (options.planTab) await writePlanTab(deps.spreadsheet, view)
      const needsPerson = view.conflicts.length + view.invalid.length > 0 || tags.kind === 'refused' || tags.kind === 'invalid'
      return summary({ applied: false, result: guards.length ? 'refused' : needsPerson ? 'partial' : 'success', counts: emptyCounts() })
    }
    if (guards.length) throw guardError(guards)
    if (deps.confirm && (view.writes.length > 0 || view.tags === 'send') && !(await deps.confirm(view))) {
      return summary({ applied: false, result: 'success', counts: emptyCounts() })
    }

    // Server writes, journaled.
    const journal = await openJournal(location.journalFolder, runId, 'import', now)
    crashPoint('import:after-journal-open')
    const writes = plan.decisions.filter((d): d is ServerWrite => d.kind === 'import-put' || d.kind === 'import-post' || d.kind === 'import-delete' || d.kind === 'import-delete-missing')
    const outcomes = await applyServerWrites(writes, adoptions, {
      client: deps.client,
      journal,
      server,
      base: state.base,
      timelineByKey,
      rangesByTimeline,
      timeZone: target.timeZone,
      concurrency: deps.concurrency ?? 4,
      reporter: deps.reporter,
    })

    // Allowed tags: one POST, only when the tab changed and the server did not.
    let tagsOutcome = tags
    if (tags.kind === 'send') {
      tagsOutcome = await sendAllowedTags(deps.client, tags, state, journal)
    }

    // The sheet, found again by Key and content on a fresh read.
    crashPoint('import:before-sheet-write')
    const fresh = await deps.spreadsheet.read([target.tabs.activities, target.tabs.syncLog])
    const today = localDateOf(target.timeZone, Math.floor(startedAt.getTime() / 1000))
    const sheetWrite = sheetWriteBack(fresh.tabs[target.tabs.activities]!, layout, outcomes, plan.decisions, target, today, state, server)
    const counts = countOutcomes(outcomes, plan.decisions, adoptions.size)
    const result: ImportSummary['result'] = counts.conflicts + counts.invalid + counts.failed > 0 || tagsOutcome.kind === 'refused' ? 'partial' : 'success'
    const message = [tagsOutcome.message, view.missing.length ? `${view.missing.length} rows are missing from the sheet (kept on the server).` : ''].filter(Boolean).join(' ')
    const tabWrites: TabWrite[] = [sheetWrite.write]
    tabWrites.push({ tab: target.tabs.syncLog, appends: [syncLogRow({ when: startedAt, timeZone: target.timeZone, runId, command: 'import', result, counts, message })] })
    await deps.spreadsheet.write(tabWrites.filter((w) => !isEmptyWrite(w)), fresh)
    crashPoint('import:after-sheet-write')

    for (const [key, fp] of sheetWrite.base) {
      if (fp === null) delete state.base[key]
      else state.base[key] = fp
    }
    state.runs.push({ runId, command: 'import', startedAt: startedAt.toISOString(), finishedAt: now().toISOString(), result, summary: `created ${counts.created}, updated ${counts.updated}, deleted ${counts.deleted}, conflicts ${counts.conflicts}, invalid ${counts.invalid}` })
    state.backendHints = deps.spreadsheet.exportHints?.() ?? state.backendHints
    await saveState(location, state)
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
        sheetsRequests: sheetsRequests(),
      }
    }
  } finally {
    await lock?.release()
  }
}

// ---------------------------------------------------------------- planning

interface Candidates {
  /** Timelines that rows ask something of. */
  timelines: Set<string>
  /** Per timeline, the local days of the rows that ask something (to read the server around them). */
  dates: Map<string, Set<string>>
  /** Per timeline, the keys of edited or ticked rows: their activities must be found by the reads. */
  keys: Map<string, Set<string>>
  /** Keys whose row carries a Base cell (the tool wrote them), for a run without state. */
  baseCellKeys: Set<string>
}

function findCandidates(tab: TabData, layout: HeaderLayout, state: TargetState, users: KnownUser[], timeZone: string, sheetKeys: Set<string>): Candidates {
  const ctx: RowContext = { timeZone, users, server: new Map(), baseKeys: new Set([...sheetKeys, ...Object.keys(state.base)]) }
  const timelines = new Set<string>()
  const dates = new Map<string, Set<string>>()
  const keys = new Map<string, Set<string>>()
  const baseCellKeys = new Set<string>()
  const add = <T>(map: Map<string, Set<T>>, at: string, value: T) => {
    const set = map.get(at)
    if (set) set.add(value)
    else map.set(at, new Set([value]))
  }
  const baseIndex = layout.index[C.base]!
  const keyIndex = layout.index[C.key]!
  for (const cells of tab.rows) {
    const keyText = typeof cells[keyIndex] === 'string' ? (cells[keyIndex] as string).trim() : ''
    if (keyText && typeof cells[baseIndex] === 'string' && cells[baseIndex]) baseCellKeys.add(keyText)
    const parsed = parseRow(cells, layout, ctx)
    const mark = (timelineKey: string | undefined, start: string | undefined, key?: string) => {
      if (!timelineKey) return
      timelines.add(timelineKey)
      if (start) add(dates, timelineKey, localDateOf(timeZone, parseOffsetInstant(start).epochSeconds))
      if (key) add(keys, timelineKey, key)
    }
    if (!parsed.ok) {
      // Read the server around it too: some problems (text that looks like a formula) are only
      // problems when the server's current value says the manager typed it.
      const parsedKey = parseActivityKey(keyText)
      mark(parsedKey?.timelineKey, dateCellStart(cells[layout.index[C.date]!]), parsedKey ? keyText : undefined)
      continue
    }
    const row = parsed.row
    if (!row || row.kind === 'discarded') continue
    if (row.kind === 'new') mark(row.values.timelineKey, row.values.input.start)
    else if (row.kind === 'delete') mark(row.timelineKey, dateCellStart(cells[layout.index[C.date]!]), row.key)
    else if (row.values.fingerprint !== (state.base[row.key] ?? row.baseCell)) mark(row.values.timelineKey, row.values.input.start, row.key)
  }
  return { timelines, dates, keys, baseCellKeys }
}

/** A ticked row is not parsed further; its Date cell still says where to look for the activity. */
function dateCellStart(value: CellValue | undefined): string | undefined {
  const read = readDateCell(value, 'mdy')
  return read.ok ? `${serialToLocalDate(read.value)}T12:00:00Z` : undefined
}

/**
 * What to read of one timeline: the window's weekly chunks that hold an edited
 * day (all of them when `full`), plus the week around each edited day outside
 * the window. Reads then follow the edits, not the size of the window.
 */
function readRanges(timeZone: string, fromDate: string, days: number, dates: Set<string>, full: boolean): TimeWindow[] {
  const window = chunkWindows(timeZone, fromDate, days, 7)
  const chunks = full ? window : window.filter((c) => [...dates].some((d) => within(d, c, timeZone)))
  const lastDate = addDays(fromDate, days)
  const extra = [...dates].filter((d) => d < fromDate || d >= lastDate).sort()
  for (const d of extra) {
    if (!chunks.some((c) => within(d, c, timeZone))) chunks.push(...chunkWindows(timeZone, addDays(d, -3), 7, 7))
  }
  return chunks
}

/** The window's chunks a read of `ranges` left out. */
function restOfWindow(timeZone: string, fromDate: string, days: number, ranges: TimeWindow[]): TimeWindow[] {
  return chunkWindows(timeZone, fromDate, days, 7).filter((c) => !ranges.some((r) => r.from === c.from && r.to === c.to))
}

function within(date: string, window: TimeWindow, timeZone: string): boolean {
  const noon = Date.parse(`${date}T12:00:00Z`) / 1000
  const local = localDateOf(timeZone, noon)
  return startsWithin(`${local}T12:00:00Z`, window)
}

async function readRanged(client: TimelineClient, timeline: TimelineInfo, ranges: TimeWindow[]): Promise<Activity[]> {
  const byId = new Map<number, Activity>()
  const firstChange = { value: undefined as string | undefined, set: false }
  for (const range of ranges) {
    const read = await client.readActivities(timeline, range)
    if (!firstChange.set) {
      firstChange.value = read.timeline.lastChangeId
      firstChange.set = true
    }
    for (const a of read.activities) byId.set(a.entityId, a)
  }
  // Writes must prove they saw the state of the FIRST read: a change between chunks is then caught as a concurrency rejection.
  client.setLastChangeId(timeline.timelineKey, firstChange.value)
  return [...byId.values()]
}

function startsWithin(start: string, window: TimeWindow): boolean {
  const t = parseOffsetInstant(start).epochSeconds
  return t >= parseOffsetInstant(window.from).epochSeconds && t < parseOffsetInstant(window.to).epochSeconds
}

/** Rows the planner sees: every row of an affected timeline that the reads cover, and every new or invalid row. */
function planLines(tab: TabData, layout: HeaderLayout, ctx: RowContext, affected: Set<string>, rangesByTimeline: Map<string, TimeWindow[]>): SheetLine[] {
  const lines: SheetLine[] = []
  const keyIndex = layout.index[C.key]!
  const rowsByKey = new Map<string, number[]>()
  tab.rows.forEach((cells, i) => {
    const keyText = typeof cells[keyIndex] === 'string' ? (cells[keyIndex] as string).trim() : ''
    const timelineKey = keyText ? parseActivityKey(keyText)?.timelineKey : undefined
    if (keyText && timelineKey && !affected.has(timelineKey)) return
    const rowNumber = i + 2
    const parsed = parseRow(cells, layout, ctx)
    if (!parsed.ok) {
      lines.push({ kind: 'invalid', rowNumber, key: parsed.key, problems: parsed.problems })
      return
    }
    const row = parsed.row
    if (!row) return
    if (row.kind === 'new' && !affected.has(row.values.timelineKey)) return
    // An activity the reads did not cover is unknown, not deleted: leave its row out.
    if (row.kind === 'existing' && !ctx.server.has(row.key) && !(rangesByTimeline.get(row.values.timelineKey) ?? []).some((r) => startsWithin(row.values.input.start, r))) return
    lines.push({ kind: 'row', rowNumber, row })
    if (row.kind === 'existing' || row.kind === 'delete') rowsByKey.set(row.key, [...(rowsByKey.get(row.key) ?? []), rowNumber])
  })
  // The same Key twice: both rows are for the manager to sort out.
  return lines.map((line) => {
    if (line.kind !== 'row' || (line.row.kind !== 'existing' && line.row.kind !== 'delete')) return line
    const at = rowsByKey.get(line.row.key) ?? []
    if (at.length < 2) return line
    return {
      kind: 'invalid',
      rowNumber: line.rowNumber,
      key: line.row.key,
      problems: [{ code: 'duplicate-key', severity: 'error', column: C.key, message: `Key: this activity is in rows ${at.join(', ')}; keep one row and delete the other copies (a copied row is not a new activity: clear its Key and Base)` }],
    }
  })
}

/** import-post decisions whose activity an interrupted run already created: row fingerprint → the created activity. */
function adoptInterrupted(decisions: Decision[], interrupted: JournalRun[], server: Map<string, ServerActivity>, sheetKeys: Set<string>): Map<number, ServerActivity> {
  const adoptions = new Map<number, ServerActivity>()
  const claimed = new Set<string>()
  const posts = interrupted.flatMap((run) => run.writes.filter((w) => w.intent.op === 'post'))
  for (const d of decisions) {
    if (d.kind !== 'import-post') continue
    for (const w of posts) {
      if (w.intent.fingerprint !== d.fingerprint || w.intent.timelineKey !== d.timelineKey) continue
      let found: ServerActivity | undefined
      if (w.outcome?.type === 'done' && w.outcome.entityId !== undefined) {
        found = server.get(activityKey(d.timelineKey, w.outcome.entityId))
      } else if (w.outcome === undefined) {
        // The answer never came: the POST may have landed. Look for it.
        for (const [key, s] of server) {
          if (!sheetKeys.has(key) && !claimed.has(key) && fingerprintOf(s) === d.fingerprint) {
            found = s
            break
          }
        }
      }
      if (!found) continue
      const key = activityKey(found.activity.timelineKey, found.activity.entityId)
      if (claimed.has(key) || sheetKeys.has(key)) continue
      claimed.add(key)
      adoptions.set(d.rowNumber, found)
      break
    }
  }
  return adoptions
}

// ---------------------------------------------------------------- allowed tags

type TagsPlan =
  | { kind: 'unchanged'; message?: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'send'; allowed: AllowedTags; fingerprint: string; overwrite: boolean; message?: string }

function refusalWays(tab: string): string {
  return `To take the server's list instead, delete the rows of the ${tab} tab (keep its header) and run export, then make your edits again; to send your list anyway, replacing what is on the server, run import with --overwrite-tags.`
}

function planAllowedTags(snapshot: Snapshot, target: TargetConfig, state: TargetState, overwrite: boolean): TagsPlan {
  const tab = snapshot.tabs[target.tabs.allowedTags]
  if (!tab?.exists) return { kind: 'unchanged' }
  const appliesTo = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.appliesTo)
  const tags = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.tags)
  if (appliesTo < 0 || tags < 0) return { kind: 'invalid', message: `The ${tab.title} tab's header is damaged; its rows were not read.` }
  const read = rowsToAllowedTags(tab.rows, appliesTo, tags)
  if (!read.ok) return { kind: 'invalid', message: `The ${tab.title} tab was not sent: ${read.problems.map((p) => p.message).join('; ')}` }
  const fingerprint = allowedTagsFingerprint(read.allowed)
  if (fingerprint === state.allowedTagsFingerprint) return { kind: 'unchanged' }
  if (state.allowedTagsFingerprint === undefined) {
    if (!overwrite) {
      return { kind: 'refused', message: `The ${tab.title} tab differs from the server, and this tool has no record of what it last exported, so it cannot tell your edits from changes on the server; nothing was sent. ${refusalWays(tab.title)}` }
    }
  }
  return { kind: 'send', allowed: read.allowed, fingerprint, overwrite }
}

async function sendAllowedTags(client: TimelineClient, plan: Extract<TagsPlan, { kind: 'send' }>, state: TargetState, journal: Journal): Promise<TagsPlan> {
  // The server replaces the whole list: re-read it and refuse a lost update.
  const current = allowedTagsFingerprint(await client.readAllowedTags({ all: true }))
  if (current === plan.fingerprint) {
    // The server holds this list already (a run killed after sending it): nothing to send, nothing refused.
    state.allowedTagsFingerprint = plan.fingerprint
    return { ...plan, message: 'Allowed tags sent to the server.' }
  }
  if (current !== state.allowedTagsFingerprint && !plan.overwrite) {
    return { kind: 'refused', message: `The allowed tags were changed on the server since the last export, so your edits to the allowed tags were not sent (they would overwrite that change). ${refusalWays('Allowed tags')}` }
  }
  const id = await journal.intend({ op: 'tags', tagsBefore: current, tagsAfter: plan.fingerprint })
  crashPoint('import:before-tags-post')
  await client.writeAllowedTags(plan.allowed)
  crashPoint('import:after-tags-post')
  await journal.done(id, {})
  crashPoint('import:after-tags-recorded')
  state.allowedTagsFingerprint = plan.fingerprint
  return { ...plan, message: 'Allowed tags sent to the server.' }
}

// ---------------------------------------------------------------- applying

interface ApplyContext {
  timeZone: string
  client: TimelineClient
  journal: Journal
  server: Map<string, ServerActivity>
  base: Record<string, string>
  timelineByKey: Map<string, TimelineInfo>
  rangesByTimeline: Map<string, TimeWindow[]>
  concurrency: number
  reporter: Reporter
}

async function applyServerWrites(writes: ServerWrite[], adoptions: Map<number, ServerActivity>, ctx: ApplyContext): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = []
  const byTimeline = new Map<string, ServerWrite[]>()
  for (const w of writes) {
    if (w.kind === 'import-post' && adoptions.has(w.rowNumber)) {
      const s = adoptions.get(w.rowNumber)!
      outcomes.push({ decision: w, status: 'adopted', activity: s.activity, user: s.user })
      continue
    }
    byTimeline.set(w.timelineKey, [...(byTimeline.get(w.timelineKey) ?? []), w])
  }
  const queue = [...byTimeline.entries()]
  let done = 0
  const total = writes.length
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [timelineKey, list] = next
      for (const outcome of await applyTimeline(timelineKey, list, ctx)) {
        outcomes.push(outcome)
        ctx.reporter.progress('Writing to the server', ++done, total)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(ctx.concurrency, queue.length)) }, worker))
  ctx.reporter.endProgress()
  return outcomes
}

const MAX_REDECIDE_ROUNDS = 3

async function applyTimeline(timelineKey: string, writes: ServerWrite[], ctx: ApplyContext): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = []
  const timeline = ctx.timelineByKey.get(timelineKey)
  let pending = [...writes]
  for (let round = 0; pending.length > 0; round++) {
    const retry: ServerWrite[] = []
    for (const [i, w] of pending.entries()) {
      try {
        outcomes.push(await applyOne(w, timeline, ctx))
      } catch (error) {
        if (!(error instanceof ConcurrencyError) || round >= MAX_REDECIDE_ROUNDS || !timeline) {
          outcomes.push(failure(w, error))
          continue
        }
        // Another writer changed this timeline: re-read, then re-decide what is left.
        ctx.reporter.info(`The timeline of ${timeline.ownerUsername} changed while importing; re-reading it.`)
        const fresh = new Map<string, ServerActivity>()
        for (const a of await readRanged(ctx.client, timeline, ctx.rangesByTimeline.get(timelineKey) ?? [])) fresh.set(activityKey(timelineKey, a.entityId), { activity: a, user: timeline.ownerUsername })
        for (const rest of pending.slice(i)) {
          if (rest.kind === 'import-post') {
            retry.push(rest)
            continue
          }
          const before = ctx.server.get(rest.key)
          const now = fresh.get(rest.key)
          const untouched = before && now && fingerprintOf(before) === fingerprintOf(now)
          if (untouched || (!before && !now)) retry.push(rest)
          else
            outcomes.push({
              decision: rest,
              status: 'conflict',
              message: withServerVersion('Changed on the server while this import ran, so your edit was not saved and is kept here.', now?.activity, ctx.timeZone),
            })
        }
        for (const [k, v] of fresh) ctx.server.set(k, v)
        break
      }
    }
    pending = retry
  }
  return outcomes
}

async function applyOne(w: ServerWrite, timeline: TimelineInfo | undefined, ctx: ApplyContext): Promise<WriteOutcome> {
  const ref = timeline ?? w.timelineKey
  const before = 'key' in w ? ctx.server.get(w.key) : undefined
  switch (w.kind) {
    case 'import-post': {
      const id = await ctx.journal.intend({ op: 'post', timelineKey: w.timelineKey, user: w.user, fingerprint: w.fingerprint, input: plain(w.input) })
      crashPoint('import:before-post')
      const result = await ctx.client.createActivity(ref, w.input)
      crashPoint('import:after-post')
      const activity = result.activity!
      const fp = fingerprintOf({ activity, user: w.user })
      await ctx.journal.done(id, { entityId: activity.entityId, fingerprint: fp, after: toInput(activity) })
      crashPoint('import:after-post-recorded')
      return { decision: w, status: 'done', activity, user: w.user }
    }
    case 'import-put': {
      const id = await ctx.journal.intend({
        op: 'put', timelineKey: w.timelineKey, entityId: w.entityId, user: w.user, fingerprint: w.fingerprint, input: plain(w.input),
        ...(before ? { before: toInput(before.activity), beforeFingerprint: fingerprintOf(before) } : {}),
      })
      crashPoint('import:before-put')
      const result = await ctx.client.updateActivity(ref, w.entityId, w.input)
      crashPoint('import:after-put')
      const activity = result.activity!
      await ctx.journal.done(id, { entityId: activity.entityId, fingerprint: fingerprintOf({ activity, user: w.user }), after: toInput(activity) })
      crashPoint('import:after-put-recorded')
      return { decision: w, status: 'done', activity, user: w.user }
    }
    case 'import-delete':
    case 'import-delete-missing': {
      const id = await ctx.journal.intend({
        op: 'delete', timelineKey: w.timelineKey, entityId: w.entityId, user: before?.user,
        ...(before ? { before: toInput(before.activity), beforeFingerprint: fingerprintOf(before) } : {}),
      })
      crashPoint('import:before-delete')
      try {
        await ctx.client.deleteActivity(ref, w.entityId)
      } catch (error) {
        // Already gone (a repeat after a lost answer): the wish is fulfilled.
        if (!(error instanceof TimelineSheetsError && error.code === 'TS_NOT_FOUND')) throw error
      }
      crashPoint('import:after-delete')
      await ctx.journal.done(id, { entityId: w.entityId })
      crashPoint('import:after-delete-recorded')
      return { decision: w, status: 'done' }
    }
  }
}

function failure(w: ServerWrite, error: unknown): WriteOutcome {
  const message = error instanceof TimelineSheetsError ? `${error.message}${error.hint ? ` ${error.hint}` : ''}` : String(error)
  return { decision: w, status: 'failed', message: `Not saved: ${message}` }
}

function plain(input: ActivityInput): ActivityInput {
  return { tags: [...input.tags], notes: input.notes, start: input.start, duration: input.duration }
}

function toInput(a: Activity): ActivityInput {
  return plain({ tags: a.tags, notes: a.notes, start: a.start, duration: a.duration })
}

// ---------------------------------------------------------------- the sheet

function sheetWriteBack(
  tab: TabData,
  layout: HeaderLayout,
  outcomes: WriteOutcome[],
  decisions: Decision[],
  target: TargetConfig,
  today: string,
  state: TargetState,
  server: Map<string, ServerActivity>,
): { write: TabWrite; base: Map<string, string | null> } {
  const updates: CellUpdate[] = []
  const deleteRows: number[] = []
  const base = new Map<string, string | null>()
  const keyIndex = layout.index[C.key]!
  const statusIndex = layout.index[C.status]!
  const rowOfKey = new Map<string, number>()
  tab.rows.forEach((cells, i) => {
    const k = cells[keyIndex]
    if (typeof k === 'string' && k.trim()) rowOfKey.set(k.trim(), i + 2)
  })
  const stamped = (reason: string) => `${today}: ${reason}`
  const setStatus = (rowNumber: number, reason: string) => {
    const current = tab.rows[rowNumber - 2]?.[statusIndex]
    if (typeof current === 'string' && withoutStamp(current) === reason) return
    updates.push(...cellUpdatesFor(rowNumber, { [C.status]: stamped(reason) }, layout))
  }
  const claimed = new Set<number>()
  const newRowFor = (d: Extract<Decision, { kind: 'import-post' }>): number | undefined => {
    // The row as planned, if it is still there unchanged; else the first keyless row with the same values.
    const ctx: RowContext = { timeZone: target.timeZone, users: [], server: new Map(), baseKeys: new Set() }
    const matches = (rowNumber: number) => {
      const cells = tab.rows[rowNumber - 2]
      if (!cells || claimed.has(rowNumber)) return false
      const k = cells[keyIndex]
      if (typeof k === 'string' && k.trim()) return false
      const parsed = parseRow(cells, layout, { ...ctx, users: [{ username: d.user, tagsTimelineKey: d.timelineKey }] })
      return parsed.ok && parsed.row?.kind === 'new' && parsed.row.values.fingerprint === d.fingerprint
    }
    if (matches(d.rowNumber)) return d.rowNumber
    for (let r = 2; r < tab.rows.length + 2; r++) if (matches(r)) return r
    return undefined
  }

  for (const o of outcomes) {
    const d = o.decision
    if (o.status === 'done' || o.status === 'adopted') {
      if (d.kind === 'import-post' || d.kind === 'import-put') {
        const rowNumber = d.kind === 'import-post' ? newRowFor(d) : rowOfKey.get(d.key)
        const activity = o.activity!
        const key = activityKey(activity.timelineKey, activity.entityId)
        const cells = activityToCells(activity, o.user ?? d.user, target.timeZone, stamped(d.kind === 'import-post' ? 'Created on the server.' : 'Saved to the server.'))
        base.set(key, cells[C.base] as string)
        if (rowNumber !== undefined) {
          claimed.add(rowNumber)
          updates.push(...cellUpdatesFor(rowNumber, cells, layout))
        }
      } else {
        base.set(d.key, null)
        const rowNumber = rowOfKey.get(d.key)
        if (rowNumber !== undefined) {
          if (target.deletedRows === 'mark') setStatus(rowNumber, 'Deleted on the server.')
          else deleteRows.push(rowNumber)
        }
      }
    } else {
      const rowNumber = d.kind === 'import-post' ? newRowFor(d) : 'key' in d ? rowOfKey.get(d.key) : undefined
      if (rowNumber !== undefined) setStatus(rowNumber, o.message ?? 'Not saved.')
    }
  }
  for (const d of decisions) {
    if (d.kind === 'conflict' || d.kind === 'invalid') {
      const rowNumber = d.key !== undefined && d.kind === 'conflict' ? rowOfKey.get(d.key) : locateInvalid(d, tab, rowOfKey)
      const warnings = d.warnings.length ? ` (${d.warnings.map((w) => w.message).join('; ')})` : ''
      if (rowNumber !== undefined) setStatus(rowNumber, `${d.reason}${warnings}`)
    } else if (d.kind === 'forget') {
      base.set(d.key, null)
    } else if (d.kind === 'noop' && d.sheet === 'added' && d.rowNumber !== undefined) {
      // A new row with Delete ticked: say why nothing happened, rather than nothing.
      setStatus(d.rowNumber, `${d.reason} Delete the row when you no longer need it.`)
    } else if (d.kind === 'refresh-base') {
      const rowNumber = rowOfKey.get(d.key)
      const s = server.get(d.key)
      if (rowNumber !== undefined) {
        // An edit the server already holds (a run killed before its write-back): write the row
        // as the server has it, so the cells the tool owns (Duration) follow the edit too.
        if (d.sheet === 'changed' && s && fingerprintOf(s) === d.fingerprint) updates.push(...cellUpdatesFor(rowNumber, activityToCells(s.activity, s.user, target.timeZone, stamped(d.reason)), layout))
        else if (tab.rows[rowNumber - 2]?.[layout.index[C.base]!] !== d.fingerprint) updates.push(...cellUpdatesFor(rowNumber, { [C.base]: d.fingerprint }, layout))
      }
      base.set(d.key, d.fingerprint)
    } else if (d.kind === 'export-remove' && d.sheet === 'deleted') {
      // Delete ticked and the activity is gone (a run killed after its DELETE): the wish is fulfilled.
      base.set(d.key, null)
      const rowNumber = rowOfKey.get(d.key)
      if (rowNumber !== undefined) {
        if (target.deletedRows === 'mark') setStatus(rowNumber, 'Deleted on the server.')
        else deleteRows.push(rowNumber)
      }
    }
  }
  void state
  return { write: { tab: tab.title, updates, deleteRows }, base }
}

function locateInvalid(d: Extract<Decision, { kind: 'invalid' | 'conflict' }>, tab: TabData, rowOfKey: Map<string, number>): number | undefined {
  if (d.key !== undefined && rowOfKey.has(d.key)) return rowOfKey.get(d.key)
  // Keyless: still where it was if nothing moved (a Status is only a message; a wrong guess costs nothing lasting).
  return d.rowNumber !== undefined && d.rowNumber - 2 < tab.rows.length ? d.rowNumber : undefined
}

// ---------------------------------------------------------------- reporting

function planView(
  target: string,
  decisions: Decision[],
  adoptions: Map<number, ServerActivity>,
  missingKeys: string[],
  tags: TagsPlan,
  guards: GuardFailure[],
  server: Map<string, ServerActivity>,
): ImportPlanView {
  const writes: PlannedWrite[] = []
  const serverSide = (key: string) => {
    const s = server.get(key)
    return s ? { user: s.user, what: describe(s.activity) } : { user: '', what: `activity ${key}` }
  }
  for (const d of decisions) {
    if (d.kind === 'import-post') {
      writes.push({ kind: 'create', user: d.user, rowNumber: d.rowNumber, key: undefined, what: adoptions.has(d.rowNumber) ? `${describe(d.input)} (already created by an interrupted run: only its Key is written back)` : describe(d.input) })
    } else if (d.kind === 'import-put') {
      writes.push({ kind: 'update', user: d.user, rowNumber: d.rowNumber, key: d.key, what: describe(d.input) })
    } else if (d.kind === 'import-delete') {
      const s = serverSide(d.key)
      writes.push({ kind: 'delete', user: s.user, rowNumber: d.rowNumber, key: d.key, what: `${s.what} (Delete ticked)` })
    } else if (d.kind === 'import-delete-missing') {
      const s = serverSide(d.key)
      writes.push({ kind: 'delete-missing', user: s.user, rowNumber: undefined, key: d.key, what: `${s.what} (its row was removed from the sheet)` })
    }
  }
  const decided = new Set(decisions.flatMap((d) => ('key' in d && d.key !== undefined ? [d.key] : [])))
  return {
    target,
    writes,
    conflicts: decisions.filter((d) => d.kind === 'conflict').map((d) => ({ rowNumber: 'rowNumber' in d ? d.rowNumber : undefined, key: d.key, reason: d.reason })),
    invalid: decisions.filter((d) => d.kind === 'invalid').map((d) => ({ rowNumber: 'rowNumber' in d ? d.rowNumber : undefined, reason: d.reason })),
    missing: [...new Set([...decisions.filter((d) => d.kind === 'report-missing').map((d) => d.key!), ...missingKeys.filter((k) => !decided.has(k))])],
    tags: tags.kind,
    tagsMessage: 'message' in tags ? tags.message : undefined,
    guards,
  }
}

function describe(input: ActivityInput): string {
  const hours = Math.floor(input.duration / 3600)
  const minutes = Math.round((input.duration % 3600) / 60)
  return `${input.start.replace('T', ' ').slice(0, 16)} ${hours}:${String(minutes).padStart(2, '0')} ${input.tags.join(', ')}`
}

async function writePlanTab(spreadsheet: Spreadsheet, view: ImportPlanView): Promise<void> {
  const title = 'Plan'
  await spreadsheet.ensureLayout(
    [{ title, readOnly: true, columns: [{ name: 'Action', kind: 'text' }, { name: 'User', kind: 'text' }, { name: 'Row', kind: 'number' }, { name: 'What', kind: 'text', width: 480 }] }],
    { timeZone: 'UTC' },
  )
  const snapshot = await spreadsheet.read([title])
  const tab = snapshot.tabs[title]!
  const rows: CellValue[][] = [
    ...view.writes.map((w) => [w.kind, w.user, w.rowNumber ?? null, w.what]),
    ...view.conflicts.map((c) => ['conflict', '', c.rowNumber ?? null, c.reason]),
    ...view.invalid.map((c) => ['invalid', '', c.rowNumber ?? null, c.reason]),
    ...(view.tagsMessage ? [['allowed tags', '', null, view.tagsMessage]] : []),
  ]
  const { rewriteTab } = await import('./sheet-writes.ts')
  const write = rewriteTab(tab, rows, 4)
  if (!isEmptyWrite(write)) await spreadsheet.write([write], snapshot)
}

function countOutcomes(outcomes: WriteOutcome[], decisions: Decision[], recovered: number): ImportSummary['counts'] {
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

function emptyView(target: string): ImportPlanView {
  return { target, writes: [], conflicts: [], invalid: [], missing: [], tags: 'unchanged', tagsMessage: undefined, guards: [] }
}

function emptyCounts(): ImportSummary['counts'] {
  return { created: 0, updated: 0, deleted: 0, conflicts: 0, invalid: 0, waiting: 0, failed: 0, recovered: 0 }
}

function guardError(guards: GuardFailure[]): TimelineSheetsError {
  return new TimelineSheetsError('TS_GUARD', guards.length === 1 ? guards[0]!.message : guards.map((g) => `- ${g.message}`).join('\n'), {
    hint: 'Look at the sheet first: a filter, a deleted block of rows or a changed time zone are the usual causes. Each message names the flag to use when the plan really is what you want.',
  })
}
