/**
 * What an export decides, given what the server reported and the sheet as read: the read window and the
 * tabs of a target, the rows a timeline's changes touch and what to do with each, the Allowed tags tab.
 * Pure: the engine reads, calls these, and writes (src/engine/export.ts).
 *
 * Longer than most files because it has one reason to change, what an export decides; each function is one of its
 * steps.
 */
import type { Activity, ActivityInput, AllowedTags } from './activity.ts'
import { activityChanges, withChanges } from './changes.ts'
import { allowedTagsFingerprint, allowedTagsToRows, rowsToAllowedTags } from './allowed-tags-sheet.ts'
import { viewFingerprints, type TagsScope, type ViewFingerprints } from './scoped-allowed-tags.ts'
import { isEmptyCell } from './cells.ts'
import {
  ACTIVITY_COLUMN,
  ALLOWED_TAGS_COLUMN,
  activitiesTab,
  allowedTagsTab,
  syncLogTab,
  timelineTab,
  validateHeader,
  type HeaderLayout,
} from './columns.ts'
import { withServerVersion } from './describe.ts'
import { startsWithin } from './read-ranges.ts'
import { fingerprintOf } from './fingerprint.ts'
import { planExport, type BaseFingerprints, type Decision } from './plan.ts'
import { parseRow } from './row-judge.ts'
import type { SheetLine } from './sheet-lines.ts'
import type { KnownUser, RowContext, ServerActivity } from './row-context.ts'
import { activityKey, parseActivityKey } from './activity-key.ts'
import type { CellValue, Snapshot, TabData, TabSpec, TabWrite } from './sheet.ts'
import { isEmptyWrite, rewriteTab } from './sheet-writes.ts'
import { windowForDays, type TimeWindow } from './windows.ts'
import { dayOfInstant, parseDayStart, type DayStart } from './day-start.ts'
import { parseOffsetInstant } from './instant.ts'
import { addDays, localDateToSerial, type LocalDate } from './serial.ts'
import { TimelineSheetsError } from '../errors.ts'
import { approvalsTab } from './approvals-tab.ts'
import { approvedTab } from './approved-tab.ts'
import type { PeriodKind } from './periods.ts'

/** The part of a target's config the decisions depend on (the config's target is one). */
export interface TargetShape {
  timeZone: string
  /** The hour its days start at, `04:00` (ManicTime's day start shift); midnight when absent. */
  dayStartsAt?: string
  window: { days: number; lookBackDays: number }
  deletedRows: 'remove' | 'mark'
  tabs: { activities: string; allowedTags: string; syncLog: string }
  otherTimelines: readonly string[]
  approvals?: { period: PeriodKind; tab: string } | undefined
}

/** The days an export covers, in the target's zone. */
export interface ExportWindow {
  timeZone: string
  /** The hour each day starts at (day-start.ts): the window's days, the look-back and the Date column follow it. */
  dayStart: DayStart
  /** First local day of the window. */
  fromDate: LocalDate
  days: number
  /** `[from, to)` with explicit offsets. */
  window: TimeWindow
  lookBackDays: number
}

/** What the server reported for one Tags timeline: everything in the window, or what changed since the cursor. */
export type TimelineDelta =
  | { mode: 'full'; timeline: { timelineKey: string; ownerUsername: string }; activities: Activity[] }
  | {
      mode: 'incremental'
      timeline: { timelineKey: string; ownerUsername: string }
      activities: Activity[]
      deletedIds: number[]
      lookBack: { window: TimeWindow; activities: Activity[] } | undefined
    }

export function exportWindow(target: TargetShape, now: Date): ExportWindow {
  const dayStart = parseDayStart(target.dayStartsAt)
  const today = dayOfInstant(target.timeZone, Math.floor(now.getTime() / 1000), dayStart)
  const fromDate = addDays(today, 1 - target.window.days)
  return {
    timeZone: target.timeZone,
    dayStart,
    fromDate,
    days: target.window.days,
    window: windowForDays(target.timeZone, fromDate, target.window.days, dayStart),
    lookBackDays: target.window.lookBackDays,
  }
}

/** The Tags timelines the target exports: its users', or everyone's when it names none. */
export function exportedTimelines<T extends { ownerUsername: string }>(
  tagsTimelines: readonly T[],
  target: { users: readonly string[] },
): T[] {
  const wanted = new Set(target.users.map((u) => u.toLowerCase()))
  return wanted.size === 0 ? [...tagsTimelines] : tagsTimelines.filter((t) => wanted.has(t.ownerUsername.toLowerCase()))
}

/** The tabs of a target, titles from the config. */
export function tabSpecs(target: TargetShape): TabSpec[] {
  const activities = activitiesTab(target.tabs.activities)
  activities.columns = activities.columns.map((c) => (c.dropdown ? { ...c, dropdown: { ...c.dropdown, tab: target.tabs.allowedTags } } : c))
  return [
    activities,
    { ...allowedTagsTab(), title: target.tabs.allowedTags },
    { ...syncLogTab(), title: target.tabs.syncLog },
    ...target.otherTimelines.map((name) => timelineTab(name)),
    ...(target.approvals ? [approvalsTab(target.approvals.tab), approvedTab()] : []),
  ]
}

export function requireTab(snapshot: Snapshot, title: string, dryRun: boolean): TabData {
  const tab = snapshot.tabs[title]
  if (tab?.exists) return tab
  if (dryRun) return { title, exists: false, header: [], rows: [], gridRowCount: 0 }
  throw new TimelineSheetsError('TS_SHEET_LAYOUT', `The spreadsheet has no tab "${title}" even after setting up the layout.`, {
    hint: 'Check that the account may edit the spreadsheet, then run export --full.',
  })
}

export function activitiesLayout(tab: TabData, spec: TabSpec): HeaderLayout {
  if (!tab.exists) {
    return { index: Object.fromEntries(spec.columns.map((c, i) => [c.name, i])), width: spec.columns.length, extra: [] }
  }
  const check = validateHeader(tab.header, spec)
  if (!check.ok) {
    throw new TimelineSheetsError(
      'TS_GUARD',
      `The ${tab.title} tab's header is damaged: ${check.problems.map((p) => p.message).join('; ')}.`,
      {
        hint: 'Restore the header row (the names are listed above). Nothing was written.',
      },
    )
  }
  return check.layout
}

export interface RowRef {
  rowNumber: number
  cells: readonly CellValue[]
}

/** Rows by timeline key, then by Key; rows whose Key is not `timelineKey/entityId` are left out. */
export function indexRowsByKey(tab: TabData, layout: HeaderLayout): Map<string, Map<string, RowRef[]>> {
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
export function staleTimelines(tab: TabData, layout: HeaderLayout, base: BaseFingerprints): Set<string> {
  const out = new Set<string>()
  const keyIndex = layout.index[ACTIVITY_COLUMN.key]
  const baseIndex = layout.index[ACTIVITY_COLUMN.base]
  if (keyIndex === undefined || baseIndex === undefined) return out
  for (const cells of tab.rows) {
    const key = cells[keyIndex]
    const baseCell = cells[baseIndex]
    if (typeof key !== 'string' || typeof baseCell !== 'string' || baseCell === '') continue
    const known = base.get(key.trim())
    if (known === undefined || known === baseCell) continue
    const timelineKey = parseActivityKey(key)?.timelineKey
    if (timelineKey !== undefined) out.add(timelineKey)
  }
  return out
}

/** State base keys by the text before their first `/` (a timeline key has none). */
export function baseKeysByTimeline(keys: Iterable<string>): Map<string, Set<string>> {
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

export interface PlanContext {
  /** The state's base fingerprints by Key. */
  base: BaseFingerprints
  users: KnownUser[]
  timeZone: string
  /** The hour the target's days start at (day-start.ts); midnight when absent. */
  dayStart?: DayStart
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
export function planTimeline(change: TimelineDelta, ctx: PlanContext): Decision[] {
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
    timeZone: ctx.timeZone,
    dayStart: ctx.dayStart,
    users: ctx.users,
    server,
    baseKeys,
  }
  const lines: SheetLine[] = []
  const lineKeys = new Set<string>()
  // Serial days the fully read ranges cover, one day of slack each side for zones and midnight.
  const dateIndex = ctx.layout.index[ACTIVITY_COLUMN.date]
  const daySpans = ranges.map((r) => [serialDayOf(r.from, ctx) - 1, serialDayOf(r.to, ctx) + 1] as const)
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
            problems: [
              {
                code: 'duplicate-key',
                severity: 'error',
                column: 'Key',
                message: `Key: this activity is in rows ${refs.map((r) => r.rowNumber).join(', ')}; keep one row and delete the other copies`,
              },
            ],
          }
        }
      }
    }
  }

  const base = new Map<string, string>()
  for (const key of [...lineKeys, ...server.keys(), ...affected]) {
    const fp = ctx.base.get(key)
    if (fp !== undefined) base.set(key, fp)
  }
  // A key missing from the whole sheet whose activity the server still has: re-shown (planner: report-missing).
  const plan = planExport(base, lines, server, { deletedOnServer: ctx.deletedRows })
  const inRow = new Map<number, ActivityInput>()
  for (const line of lines) if (line.kind === 'row' && line.row.kind === 'existing') inRow.set(line.rowNumber, line.row.values.input)
  return plan.decisions.map((d) => {
    if (d.kind === 'report-missing') return reappend(d, server)
    // A conflict the manager can act on: the Status shows what the server has now.
    if (d.kind === 'conflict') return { ...d, reason: withServerVersion(d.reason, server.get(d.key)?.activity, ctx.timeZone, ctx.dayStart) }
    // A row rewritten with the server's version says what changed in it.
    const before = d.kind === 'export-update' ? inRow.get(d.rowNumber) : undefined
    if (d.kind === 'export-update' && before)
      return { ...d, reason: withChanges(d.reason, activityChanges(before, d.activity, ctx.timeZone, ctx.dayStart)) }
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
    word: 'Done',
    reason:
      'This row had been removed from the sheet, but the activity still exists on the server, so it is shown again. Tick Delete to delete it.',
    sheet: 'missing',
    server: d.server,
    warnings: [],
  }
}

function serialDayOf(iso: string, ctx: Pick<PlanContext, 'timeZone' | 'dayStart'>): number {
  return localDateToSerial(dayOfInstant(ctx.timeZone, parseOffsetInstant(iso).epochSeconds, ctx.dayStart ?? 0))
}

/**
 * What an export does to the Allowed tags tab: rewrite it to `view` (the lines of the server's list that apply to
 * the target's people), unless a manager edited it (it differs from `lastWritten`, what the tool last wrote),
 * whose edits are never overwritten. A Status left by a refused import is cleared once the lines are in step.
 */
export function allowedTagsWrite(
  view: AllowedTags | undefined,
  tagsScope: TagsScope,
  tabTitle: string,
  snapshot: Snapshot,
  lastWritten: string | undefined,
  warnings: string[],
): { write: TabWrite | undefined; outcome: 'unchanged' | 'rewritten' | 'unavailable'; fingerprints?: ViewFingerprints } {
  if (view === undefined) return { write: undefined, outcome: 'unavailable' }
  const tab = snapshot.tabs[tabTitle]
  const data: TabData = tab?.exists ? tab : { title: tabTitle, exists: false, header: [], rows: [], gridRowCount: 0 }
  const header = data.header
  const appliesTo = header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.appliesTo)
  const tags = header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.tags)
  const status = header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.status)
  const fingerprints = viewFingerprints(view, tagsScope)
  if (data.rows.length > 0 && appliesTo >= 0 && tags >= 0) {
    const inSheet = rowsToAllowedTags(data.rows, appliesTo, tags)
    const sheetFingerprint = inSheet.ok ? allowedTagsFingerprint(inSheet.allowed) : undefined
    const statusLeft = status >= 0 && data.rows.some((row) => !isEmptyCell(row[status]))
    if (sheetFingerprint === fingerprints.whole && !statusLeft) return { write: undefined, outcome: 'unchanged', fingerprints }
    // A tab that differs from what the tool last wrote holds a manager's edits: never overwrite them.
    if (sheetFingerprint !== fingerprints.whole && sheetFingerprint !== lastWritten) {
      warnings.push(
        `The ${data.title} tab was edited and the edits are not imported yet; it was left as it is (run import or sync to send them).`,
      )
      return { write: undefined, outcome: 'unchanged' }
    }
  }
  const width = Math.max(3, header.length)
  const desired = allowedTagsToRows(view).map((row) => {
    const out: CellValue[] = Array.from({ length: width }, () => null)
    out[appliesTo >= 0 ? appliesTo : 0] = row[0] ?? null
    out[tags >= 0 ? tags : 1] = row[1] ?? null
    return out
  })
  const write = rewriteTab(data, desired, width)
  return isEmptyWrite(write) ? { write: undefined, outcome: 'unchanged', fingerprints } : { write, outcome: 'rewritten', fingerprints }
}

/** Keys of the decisions about the given basis rows. */
export function keysOfRows(decisions: readonly Decision[], rows: ReadonlySet<number>): string[] {
  const keys: string[] = []
  for (const d of decisions) {
    if ('rowNumber' in d && d.rowNumber !== undefined && rows.has(d.rowNumber) && 'key' in d && d.key !== undefined) keys.push(d.key)
  }
  return keys
}
