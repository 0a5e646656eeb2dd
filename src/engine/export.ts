/**
 * `export` for one target: read what changed on the server, plan against the
 * sheet (pure planner), write the fewest cells, and only then advance the
 * cursors. A crash anywhere before the state save repeats the same changes
 * next run, which land on the same rows by Key: nothing is duplicated.
 */
import { allowedTagsFingerprint, allowedTagsToRows, rowsToAllowedTags } from '../core/allowed-tags-sheet.ts'
import { ACTIVITY_COLUMN, ALLOWED_TAGS_COLUMN, activitiesTab, allowedTagsTab, syncLogTab, timelineTab, validateHeader, type HeaderLayout } from '../core/columns.ts'
import { fnv1a64Base64url } from '../core/fingerprint.ts'
import { withServerVersion } from '../core/describe.ts'
import { fingerprintOf, planExport, type Decision } from '../core/plan.ts'
import { activityKey, parseActivityKey, parseRow, type KnownUser, type RowContext, type ServerActivity, type SheetLine } from '../core/rows.ts'
import { addDays, localDateOf, localDateToSerial, parseOffsetInstant, windowForDays, type TimeWindow } from '../core/time.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { CellValue, Snapshot, TabData, TabSpec, TabWrite } from '../sheets/port.ts'
import { acquireLock, type Lock } from '../state/lock.ts'
import { loadState, saveState, stateLocation, type TargetState } from '../state/target-state.ts'
import type { AllowedTags } from '../timeline/model.ts'
import type { TargetConfig } from '../config/schema.ts'
import { activityWrites, isEmptyWrite, rewriteTab } from '../core/sheet-writes.ts'
import { readTimelineChanges, type ExportWindow, type TimelineChanges } from './server-reads.ts'
import { syncLogRow, type RunCounts } from '../core/sync-log.ts'
import { crashPoint } from './crash-points.ts'
import { requestMeter, type EngineDeps } from './deps.ts'
import { otherTimelineWrites, readOtherTimelines } from './other-timelines.ts'

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
}

export interface ExportSummary {
  target: string
  runId: string
  dryRun: boolean
  /** `incomplete`: some rows changed while the run wrote and were left for the next run (exit 1, run again). */
  result: 'success' | 'partial' | 'incomplete'
  spreadsheet: string
  timelines: TimelineSummary[]
  counts: RunCounts
  allowedTags: 'unchanged' | 'rewritten' | 'unavailable'
  layoutChanged: boolean
  sheetsRequests: { reads: number; writes: number }
  warnings: string[]
  /** Decisions that need a person (conflicts, invalid rows), for the summary. */
  attention: { rowNumber: number | undefined; key: string | undefined; reason: string }[]
}

export async function runExport(target: TargetConfig, deps: ExportDeps, options: ExportOptions = {}): Promise<ExportSummary> {
  const now = deps.now ?? (() => new Date())
  const startedAt = now()
  const sheetsRequests = requestMeter(deps.spreadsheet)
  const runId = deps.runId ?? newRunId(startedAt)
  const location = stateLocation(deps.stateDir, target.name)
  const lock: Lock | undefined = options.dryRun || deps.lockHeld ? undefined : await acquireLock(location.lockFile, { command: 'export' })
  try {
    if (lock?.tookOver) deps.reporter.warn(`Took over a stale lock left by pid ${lock.tookOver.pid} (${lock.tookOver.command}).`)
    const loaded = await loadState(location, target.name)
    if (loaded.recoveredFrom) deps.reporter.warn(`State recovered from ${loaded.recoveredFrom} after an interrupted save.`)
    const state = loaded.state
    if (state.backendHints) deps.spreadsheet.importHints?.(state.backendHints)
    let full = Boolean(options.full) || loaded.fresh
    if (loaded.fresh) deps.reporter.info('No state for this target yet: reading the whole window and reconciling by Key.')

    const window = exportWindow(target, startedAt)
    const warnings: string[] = []

    // Timelines and users.
    const tagsTimelines = await deps.client.tagsTimelines()
    const wanted = new Set(target.users.map((u) => u.toLowerCase()))
    const timelines = wanted.size === 0 ? tagsTimelines : tagsTimelines.filter((t) => wanted.has(t.ownerUsername.toLowerCase()))
    for (const user of target.users) {
      if (!tagsTimelines.some((t) => t.ownerUsername.toLowerCase() === user.toLowerCase())) {
        warnings.push(`${user} has no Tags timeline visible to the signed-in account; nothing exported for them.`)
      }
    }
    const users: KnownUser[] = tagsTimelines.map((t) => ({ username: t.ownerUsername, displayName: t.ownerDisplayName, tagsTimelineKey: t.timelineKey }))

    // Layout, only when it is new or changed (it costs a read and a write). A tab it had to make holds nothing yet.
    const specs = tabSpecs(target)
    const layoutHash = fnv1a64Base64url(JSON.stringify({ specs, timeZone: target.timeZone }))
    let layoutChanged = false
    if (state.layoutHash !== layoutHash && !options.dryRun) {
      const report = await deps.spreadsheet.ensureLayout(specs, { timeZone: target.timeZone })
      layoutChanged = report.changed
      if (report.createdTabs.length) deps.reporter.info(`Created tabs: ${report.createdTabs.join(', ')}`)
      if (report.createdTabs.includes(target.tabs.activities)) full = true
    }

    // The server first, the sheet last: every position planned on is read as late as possible, so
    // a manager's sorting during a long server read cannot shift it (decisions/0003-rows-that-move.md).
    const readServer = async (inFull: boolean): Promise<TimelineChanges[]> => {
      const out: TimelineChanges[] = []
      for (const [i, timeline] of timelines.entries()) {
        deps.reporter.progress('Reading timelines', i, timelines.length)
        out.push(
          await readTimelineChanges(deps.client, timeline, state.timelines[timeline.timelineKey], window, {
            full: inFull,
            now: startedAt,
            lookBackEveryMs: options.lookBackEveryMs,
          }),
        )
      }
      deps.reporter.progress('Reading timelines', timelines.length, timelines.length)
      deps.reporter.endProgress()
      return out
    }
    let changes = await readServer(full)
    const serverAllowed = await readServerAllowedTags(deps, warnings)
    const otherEntries = target.otherTimelines.length > 0
      ? await readOtherTimelines(deps.client, await deps.client.listTimelines(), target.otherTimelines, target.users, window)
      : undefined

    let snapshot = await deps.spreadsheet.read(specs.map((s) => s.title))
    const missingTabs = specs.filter((spec) => !snapshot.tabs[spec.title]?.exists).map((spec) => spec.title)
    if (missingTabs.length > 0 && !options.dryRun && !layoutChanged) {
      // A tab someone deleted or renamed since the layout was last applied: make it again.
      const report = await deps.spreadsheet.ensureLayout(specs, { timeZone: target.timeZone })
      layoutChanged = report.changed
      if (missingTabs.includes(target.tabs.activities)) {
        warnings.push(`The ${target.tabs.activities} tab was missing; it was made again and filled from the server (rows are matched by Key).`)
        if (!full) {
          full = true
          changes = await readServer(true)
        }
      }
      snapshot = await deps.spreadsheet.read(specs.map((s) => s.title))
    }
    const activitiesData = requireTab(snapshot, target.tabs.activities, Boolean(options.dryRun))
    const layout = activitiesLayout(activitiesData, specs[0]!)

    // Rows that show an older version than the state knows (a workbook restored from its .bak): their
    // timelines are read in full, so the rows are refreshed from the server rather than sent back.
    const stale = staleTimelines(activitiesData, layout, state)
    if (stale.size > 0) {
      warnings.push(`Some rows show an older version than the last sync (was the sheet restored from a copy?); they were refreshed from the server.`)
      changes = await Promise.all(
        changes.map(async (change) =>
          change.mode === 'full' || !stale.has(change.timeline.timelineKey)
            ? change
            : readTimelineChanges(deps.client, change.timeline, state.timelines[change.timeline.timelineKey], window, { full: true, now: startedAt, lookBackEveryMs: options.lookBackEveryMs }),
        ),
      )
    }

    // Plan per timeline over the rows it affects, then one write.
    const today = localDateOf(target.timeZone, Math.floor(startedAt.getTime() / 1000))
    // Grouped by timeline once: scanning every row and base key for each timeline cost O(timelines × rows).
    const sheetIndex = indexRowsByKey(activitiesData, layout)
    const baseKeys = baseKeysByTimeline(Object.keys(state.base))
    const decisions: Decision[] = []
    for (const change of changes) {
      // A loop, not push(...): one timeline can hold more decisions than a call has room for arguments.
      for (const d of planTimeline(change, { state, users, target, activitiesData, layout, sheetIndex, baseKeys, window: window.window, deletedRows: target.deletedRows })) decisions.push(d)
    }
    const writes = activityWrites(decisions, { tab: activitiesData, layout, timeZone: target.timeZone, today })

    const tabWrites: TabWrite[] = [{ ...writes.write, keyColumn: layout.index[ACTIVITY_COLUMN.key] }]
    const allowed = allowedTagsWrite(serverAllowed, target, snapshot, state, warnings)
    if (allowed.write) tabWrites.push(allowed.write)
    if (otherEntries) for (const w of otherTimelineWrites(otherEntries, window, snapshot).writes) tabWrites.push(w)

    const counts: RunCounts = {
      created: writes.counts.appended,
      updated: writes.counts.updated,
      deleted: writes.counts.removed + writes.counts.marked,
      conflicts: decisions.filter((d) => d.kind === 'conflict').length,
      invalid: decisions.filter((d) => d.kind === 'invalid').length,
      waiting: decisions.filter((d) => d.kind === 'noop' && d.sheet !== 'unchanged' && d.rowNumber !== undefined).length,
    }
    let result: ExportSummary['result'] = counts.conflicts + counts.invalid > 0 ? 'partial' : 'success'
    const message = [...warnings, counts.waiting ? `${counts.waiting} edited rows wait for the next import.` : ''].filter(Boolean).join(' ')
    const logTab = snapshot.tabs[target.tabs.syncLog]
    if (logTab?.exists || !options.dryRun) {
      tabWrites.push({ tab: target.tabs.syncLog, appends: [syncLogRow({ when: startedAt, timeZone: target.timeZone, runId, command: 'export', result, counts, message })] })
    }

    const meaningful = tabWrites.filter((w) => !isEmptyWrite(w))
    if (!options.dryRun && meaningful.length > 0) {
      crashPoint('export:before-sheet-write')
      const report = await deps.spreadsheet.write(meaningful, snapshot)
      crashPoint('export:after-sheet-write')
      await lock?.refresh()
      const skipped = report.skipped.filter((row) => row.tab === target.tabs.activities)
      if (skipped.length > 0) {
        // Rows a person changed while this run wrote: nothing landed there, so their base stays as it was
        // and the next run decides them again on what they hold then.
        for (const key of keysOfRows(decisions, new Set(skipped.map((row) => row.row)))) writes.base.delete(key)
        result = 'incomplete'
        warnings.push(`${skipped.length} ${skipped.length === 1 ? 'row was' : 'rows were'} changed in the sheet while this run was writing (row ${skipped.map((row) => row.row).slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''} as read); ${skipped.length === 1 ? 'it was' : 'they were'} left as ${skipped.length === 1 ? 'it is' : 'they are'}. Run again: the next run takes ${skipped.length === 1 ? 'it' : 'them'} up.`)
      }
    }

    // Only now that the sheet holds the changes do the cursors move.
    if (!options.dryRun) {
      for (const change of changes) state.timelines[change.timeline.timelineKey] = change.cursor
      for (const [key, fp] of writes.base) {
        if (fp === null) delete state.base[key]
        else state.base[key] = fp
      }
      state.layoutHash = layoutHash
      if (allowed.fingerprint) state.allowedTagsFingerprint = allowed.fingerprint
      state.runs.push({ runId, command: 'export', startedAt: startedAt.toISOString(), finishedAt: now().toISOString(), result, summary: summaryLine(counts) })
      state.backendHints = deps.spreadsheet.exportHints?.() ?? state.backendHints
      await saveState(location, state)
      crashPoint('export:after-state-save')
    }

    return {
      target: target.name,
      runId,
      dryRun: Boolean(options.dryRun),
      result,
      spreadsheet: deps.spreadsheet.describe(),
      timelines: changes.map((c) => ({
        timelineKey: c.timeline.timelineKey,
        owner: c.timeline.ownerUsername,
        mode: c.mode,
        activitiesRead: c.activities.length + (c.mode === 'incremental' ? (c.lookBack?.activities.length ?? 0) : 0),
        lookBack: c.mode === 'full' || Boolean(c.lookBack),
      })),
      counts,
      allowedTags: allowed.outcome,
      layoutChanged,
      sheetsRequests: sheetsRequests(),
      warnings,
      attention: decisions
        .filter((d) => d.kind === 'conflict' || d.kind === 'invalid')
        .map((d) => ({ rowNumber: 'rowNumber' in d ? d.rowNumber : undefined, key: d.key, reason: d.reason })),
    }
  } finally {
    await lock?.release()
  }
}

export function exportWindow(target: TargetConfig, now: Date): ExportWindow {
  const today = localDateOf(target.timeZone, Math.floor(now.getTime() / 1000))
  const fromDate = addDays(today, 1 - target.window.days)
  return {
    timeZone: target.timeZone,
    fromDate,
    days: target.window.days,
    window: windowForDays(target.timeZone, fromDate, target.window.days),
    lookBackDays: target.window.lookBackDays,
  }
}

/** The tabs of a target, titles from the config. */
export function tabSpecs(target: TargetConfig): TabSpec[] {
  const activities = activitiesTab(target.tabs.activities)
  activities.columns = activities.columns.map((c) => (c.dropdown ? { ...c, dropdown: { ...c.dropdown, tab: target.tabs.allowedTags } } : c))
  return [
    activities,
    { ...allowedTagsTab(), title: target.tabs.allowedTags },
    { ...syncLogTab(), title: target.tabs.syncLog },
    ...target.otherTimelines.map((name) => timelineTab(name)),
  ]
}

function requireTab(snapshot: Snapshot, title: string, dryRun: boolean): TabData {
  const tab = snapshot.tabs[title]
  if (tab?.exists) return tab
  if (dryRun) return { title, exists: false, header: [], rows: [], gridRowCount: 0 }
  throw new TimelineSheetsError('TS_SHEET_LAYOUT', `The spreadsheet has no tab "${title}" even after setting up the layout.`, {
    hint: 'Check that the account may edit the spreadsheet, then run export --full.',
  })
}

function activitiesLayout(tab: TabData, spec: TabSpec): HeaderLayout {
  if (!tab.exists) {
    return { index: Object.fromEntries(spec.columns.map((c, i) => [c.name, i])), width: spec.columns.length, extra: [] }
  }
  const check = validateHeader(tab.header, spec)
  if (!check.ok) {
    throw new TimelineSheetsError('TS_GUARD', `The ${tab.title} tab's header is damaged: ${check.problems.map((p) => p.message).join('; ')}.`, {
      hint: 'Restore the header row (the names are listed above). Nothing was written.',
    })
  }
  return check.layout
}

interface RowRef {
  rowNumber: number
  cells: readonly CellValue[]
}

/** Rows by timeline key, then by Key; rows whose Key is not `timelineKey/entityId` are left out. */
function indexRowsByKey(tab: TabData, layout: HeaderLayout): Map<string, Map<string, RowRef[]>> {
  const keyIndex = layout.index[ACTIVITY_COLUMN.key]
  const index = new Map<string, Map<string, RowRef[]>>()
  if (keyIndex === undefined) return index
  tab.rows.forEach((cells, i) => {
    const key = cells[keyIndex]
    if (typeof key !== 'string' || key.trim() === '') return
    const trimmed = key.trim()
    const parsedKey = parseActivityKey(trimmed)
    if (!parsedKey) return
    let byKey = index.get(parsedKey.timelineKey)
    if (!byKey) index.set(parsedKey.timelineKey, (byKey = new Map()))
    const refs = byKey.get(trimmed)
    const ref = { rowNumber: i + 2, cells }
    if (refs) refs.push(ref)
    else byKey.set(trimmed, [ref])
  })
  return index
}

/**
 * Timelines with a row that nobody edited (it still matches its own Base cell) but whose Base is not what
 * the state last synced: the row is an older copy, and only a full read can tell what the server has now.
 */
function staleTimelines(tab: TabData, layout: HeaderLayout, state: TargetState): Set<string> {
  const out = new Set<string>()
  const keyIndex = layout.index[ACTIVITY_COLUMN.key]
  const baseIndex = layout.index[ACTIVITY_COLUMN.base]
  if (keyIndex === undefined || baseIndex === undefined) return out
  for (const cells of tab.rows) {
    const key = cells[keyIndex]
    const baseCell = cells[baseIndex]
    if (typeof key !== 'string' || typeof baseCell !== 'string' || baseCell === '') continue
    const known = state.base[key.trim()]
    if (known === undefined || known === baseCell) continue
    const timelineKey = parseActivityKey(key)?.timelineKey
    if (timelineKey !== undefined) out.add(timelineKey)
  }
  return out
}

/** State base keys by the text before their first `/` (a timeline key has none). */
function baseKeysByTimeline(keys: readonly string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const key of keys) {
    const slash = key.indexOf('/')
    if (slash <= 0) continue
    const timelineKey = key.slice(0, slash)
    let set = out.get(timelineKey)
    if (!set) out.set(timelineKey, (set = new Set()))
    set.add(key)
  }
  return out
}

interface PlanContext {
  state: TargetState
  users: KnownUser[]
  target: TargetConfig
  activitiesData: TabData
  layout: HeaderLayout
  sheetIndex: Map<string, Map<string, RowRef[]>>
  baseKeys: Map<string, Set<string>>
  window: TimeWindow
  deletedRows: 'remove' | 'mark'
}

/**
 * Plans one timeline over the keys its changes touch. A full read touches
 * every row of the timeline inside the window; an incremental read only the
 * changed and deleted activities, plus the look-back window when re-read.
 * Rows outside that set are not even parsed, so an incremental run on a
 * large sheet costs little.
 */
function planTimeline(change: TimelineChanges, ctx: PlanContext): Decision[] {
  const timelineKey = change.timeline.timelineKey
  const owner = change.timeline.ownerUsername
  const server = new Map<string, ServerActivity>()
  const affected = new Set<string>()
  /** Rows of this timeline whose start lies in `range` are affected (a missing activity there means deleted). */
  const ranges: TimeWindow[] = []

  if (change.mode === 'full') {
    for (const a of change.activities) server.set(activityKey(timelineKey, a.entityId), { activity: a, user: owner })
    ranges.push(ctx.window)
  } else {
    for (const a of change.activities) server.set(activityKey(timelineKey, a.entityId), { activity: a, user: owner })
    for (const id of change.deletedIds) {
      const key = activityKey(timelineKey, id)
      server.delete(key)
      affected.add(key)
    }
    if (change.lookBack) {
      const fresh = new Set<string>()
      for (const a of change.lookBack.activities) {
        const key = activityKey(timelineKey, a.entityId)
        server.set(key, { activity: a, user: owner })
        fresh.add(key)
      }
      // Changed earlier in this run but absent from the fresher look-back read: deleted in between.
      for (const a of change.activities) {
        const key = activityKey(timelineKey, a.entityId)
        if (!fresh.has(key) && startsWithin(a.start, change.lookBack.window)) server.delete(key)
      }
      ranges.push(change.lookBack.window)
    }
  }
  for (const key of server.keys()) affected.add(key)

  const baseKeys = ctx.baseKeys.get(timelineKey) ?? new Set<string>()
  if (ranges.length > 0) {
    // Known to the state, gone from the sheet, absent from a full read: nothing is left to show (a run killed
    // after removing the row but before saving the state leaves such keys); forget them.
    const rows = ctx.sheetIndex.get(timelineKey)
    for (const key of baseKeys) if (!rows?.has(key) && !server.has(key)) affected.add(key)
  }

  const rowCtx: RowContext = {
    timeZone: ctx.target.timeZone,
    users: ctx.users,
    server,
    baseKeys,
  }
  const lines: SheetLine[] = []
  const lineKeys = new Set<string>()
  // Serial days the fully read ranges cover, one day of slack each side for zones and midnight.
  const dateIndex = ctx.layout.index[ACTIVITY_COLUMN.date]
  const daySpans = ranges.map((r) => [serialDayOf(r.from, ctx.target.timeZone) - 1, serialDayOf(r.to, ctx.target.timeZone) + 1] as const)
  const mayStartInRanges = (cells: readonly CellValue[]): boolean => {
    const date = dateIndex === undefined ? undefined : cells[dateIndex]
    // Only a plain serial can be ruled out cheaply; anything else is parsed.
    if (typeof date !== 'number') return true
    return daySpans.some(([from, to]) => date >= from && date <= to)
  }
  for (const [key, refs] of ctx.sheetIndex.get(timelineKey) ?? []) {
    if (!affected.has(key) && ranges.length === 0) continue
    for (const ref of refs) {
      if (!affected.has(key) && !mayStartInRanges(ref.cells)) continue
      const parsed = parseRow(ref.cells, ctx.layout, rowCtx)
      if (!parsed.ok) {
        if (affected.has(key)) lines.push({ kind: 'invalid', rowNumber: ref.rowNumber, key: parsed.key, problems: parsed.problems })
        continue
      }
      const row = parsed.row
      if (!row || row.kind === 'new' || row.kind === 'discarded') continue
      if (!affected.has(key)) {
        // Only rows inside a fully read range can learn that their activity is gone.
        const start = row.kind === 'existing' ? row.values.input.start : undefined
        if (start === undefined || !ranges.some((r) => startsWithin(start, r))) continue
      }
      lines.push({ kind: 'row', rowNumber: ref.rowNumber, row })
      lineKeys.add(key)
    }
    if (refs.length > 1 && lineKeys.has(key)) {
      // The same Key on several rows: leave them all to the manager.
      for (let i = lines.length - 1; i >= 0; i--) {
        const line = lines[i]!
        if (line.kind === 'row' && 'key' in line.row && line.row.key === key) {
          lines[i] = {
            kind: 'invalid',
            rowNumber: line.rowNumber,
            key,
            problems: [{ code: 'duplicate-key', severity: 'error', column: 'Key', message: `Key: this activity is in rows ${refs.map((r) => r.rowNumber).join(', ')}; keep one row and delete the other copies` }],
          }
        }
      }
    }
  }

  const base = new Map<string, string>()
  for (const key of [...lineKeys, ...server.keys(), ...affected]) {
    const fp = ctx.state.base[key]
    if (fp !== undefined) base.set(key, fp)
  }
  // A key missing from the whole sheet whose activity the server still has: re-shown (planner: report-missing).
  const plan = planExport(base, lines, server, { deletedOnServer: ctx.deletedRows })
  return plan.decisions.map((d) => {
    if (d.kind === 'report-missing') return reappend(d, server)
    // A conflict the manager can act on: the Status shows what the server has now.
    if (d.kind === 'conflict') return { ...d, reason: withServerVersion(d.reason, server.get(d.key)?.activity, ctx.target.timeZone) }
    return d
  })
}

/** A row missing from the sheet whose activity still exists is shown again, saying why. */
function reappend(d: Extract<Decision, { kind: 'report-missing' }>, server: Map<string, ServerActivity>): Decision {
  const s = server.get(d.key)
  if (!s) return d
  return {
    kind: 'export-append',
    key: d.key,
    activity: s.activity,
    user: s.user,
    fingerprint: fingerprintOf(s),
    reason: 'This row had been removed from the sheet, but the activity still exists on the server, so it is shown again. Tick Delete to delete it.',
    sheet: 'missing',
    server: d.server,
    warnings: [],
  }
}

function serialDayOf(iso: string, timeZone: string): number {
  return localDateToSerial(localDateOf(timeZone, parseOffsetInstant(iso).epochSeconds))
}

function startsWithin(start: string, window: TimeWindow): boolean {
  const t = parseOffsetInstant(start).epochSeconds
  return t >= parseOffsetInstant(window.from).epochSeconds && t < parseOffsetInstant(window.to).epochSeconds
}

/** The server's allowed tags, or undefined when the account may not read everyone's (said in `warnings`). */
async function readServerAllowedTags(deps: ExportDeps, warnings: string[]): Promise<AllowedTags | undefined> {
  try {
    return await deps.client.readAllowedTags({ all: true })
  } catch (error) {
    if (error instanceof TimelineSheetsError && error.code === 'TS_FORBIDDEN') {
      warnings.push('The signed-in account may not read everyone\'s allowed tags (needs administrator or content editor); the Allowed tags tab was left as it is.')
      return undefined
    }
    throw error
  }
}

function allowedTagsWrite(
  allowed: AllowedTags | undefined,
  target: TargetConfig,
  snapshot: Snapshot,
  state: TargetState,
  warnings: string[],
): { write: TabWrite | undefined; outcome: ExportSummary['allowedTags']; fingerprint?: string } {
  if (allowed === undefined) return { write: undefined, outcome: 'unavailable' }
  const tab = snapshot.tabs[target.tabs.allowedTags]
  const data: TabData = tab?.exists ? tab : { title: target.tabs.allowedTags, exists: false, header: [], rows: [], gridRowCount: 0 }
  const header = data.header
  const appliesTo = header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.appliesTo)
  const tags = header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.tags)
  const serverFingerprint = allowedTagsFingerprint(allowed)
  if (data.rows.length > 0 && appliesTo >= 0 && tags >= 0) {
    const inSheet = rowsToAllowedTags(data.rows, appliesTo, tags)
    const sheetFingerprint = inSheet.ok ? allowedTagsFingerprint(inSheet.allowed) : undefined
    if (sheetFingerprint === serverFingerprint) return { write: undefined, outcome: 'unchanged', fingerprint: serverFingerprint }
    // A tab that differs from what the tool last wrote holds a manager's edits: never overwrite them.
    if (sheetFingerprint !== state.allowedTagsFingerprint) {
      warnings.push(`The ${data.title} tab was edited and the edits are not imported yet; it was left as it is (run import or sync to send them).`)
      return { write: undefined, outcome: 'unchanged' }
    }
  }
  const width = Math.max(2, header.length)
  const desired = allowedTagsToRows(allowed).map((row) => {
    const out: CellValue[] = Array.from({ length: width }, () => null)
    out[appliesTo >= 0 ? appliesTo : 0] = row[0] ?? null
    out[tags >= 0 ? tags : 1] = row[1] ?? null
    return out
  })
  const write = rewriteTab(data, desired, width)
  return isEmptyWrite(write)
    ? { write: undefined, outcome: 'unchanged', fingerprint: serverFingerprint }
    : { write, outcome: 'rewritten', fingerprint: serverFingerprint }
}

/** Keys of the decisions about the given basis rows. */
function keysOfRows(decisions: readonly Decision[], rows: ReadonlySet<number>): string[] {
  const keys: string[] = []
  for (const d of decisions) {
    if ('rowNumber' in d && d.rowNumber !== undefined && rows.has(d.rowNumber) && 'key' in d && d.key !== undefined) keys.push(d.key)
  }
  return keys
}

function summaryLine(counts: RunCounts): string {
  return `created ${counts.created}, updated ${counts.updated}, deleted ${counts.deleted}, conflicts ${counts.conflicts}, invalid ${counts.invalid}`
}

export function newRunId(at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`
}
