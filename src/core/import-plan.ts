/** What an import plans over: the rows that ask for something, the rows it leaves to the export, and the lines the planner sees. */
import { ACTIVITY_COLUMN as C, type HeaderLayout } from './columns.ts'
import { notesCellText } from './notes-cell.ts'
import type { BaseFingerprints } from './plan.ts'
import { judgeRow, unchangedSinceWritten } from './row-judge.ts'
import { startEpochOf, type RowReading } from './row-read.ts'
import { duplicateKeyProblem, type SheetLine } from './sheet-lines.ts'
import type { SheetActivity } from './row-outcome.ts'
import type { KnownUser, RowContext, ServerActivity } from './row-context.ts'
import { cellText } from './cells.ts'
import type { TimeWindow } from './windows.ts'
import { activityDay, MIDNIGHT, type DayStart } from './day-start.ts'
import { parseOffsetInstant } from './instant.ts'
import { serialToLocalDate, type LocalDate } from './serial.ts'
import type { TabData } from './sheet.ts'
import type { SheetReadings } from './sheet-readings.ts'

interface Candidates {
  /** Timelines that rows ask something of. */
  timelines: Set<string>
  /** Per timeline, the local days of the rows that ask something (to read the server around them). */
  dates: Map<string, Set<string>>
  /** Per timeline, the keys of edited or ticked rows: their activities must be found by the reads. */
  keys: Map<string, Set<string>>
  /** Keys the state does not hold whose row carries a Base cell (the tool wrote them), for a run without state. */
  baseCellKeys: Set<string>
  /**
   * What this scan judged of each row (`verdicts[i]` is sheet row `i + 2`): 2 for a valid row of an existing
   * activity that holds what both its Base cell and the state's base record (`inStepWithBase`, told from the
   * reading by `unchangedSinceWritten`, or from the cells as written), 1 for any other valid row of an existing
   * activity, 0 for any other row (a Key several rows hold included). Judged without the server's activities,
   * such a row's timeline and start are its reading's own, so a flag is all the planner needs: keeping 100k
   * judged rows until then made every garbage collection of the scan copy them.
   */
  verdicts: Uint8Array
}

export function findCandidates(
  tab: TabData,
  readings: SheetReadings,
  rowsOfKey: ReadonlyMap<string, number[]>,
  layout: HeaderLayout,
  base: BaseFingerprints,
  users: KnownUser[],
  timeZone: string,
  sheetKeys: Set<string>,
  dayStart: DayStart = MIDNIGHT,
): Candidates {
  // The Keys of the sheet and of the state, asked of without copying either into one set.
  const ctx: RowContext = { timeZone, dayStart, users, server: new Map(), baseKeys: { has: (k) => sheetKeys.has(k) || base.has(k) } }
  const dayOf = (start: string): LocalDate => activityDay(start, timeZone, dayStart)
  const found: Candidates = {
    timelines: new Set(),
    dates: new Map(),
    keys: new Map(),
    baseCellKeys: new Set(),
    verdicts: new Uint8Array(tab.rows.length),
  }
  const { verdicts, baseCellKeys } = found
  const shared = sharedKeys(rowsOfKey)
  const baseIndex = layout.index[C.base]!
  const keyIndex = layout.index[C.key]!
  const rows = tab.rows
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i]!
    const keyCell = cells[keyIndex]
    const keyText = typeof keyCell === 'string' ? keyCell.trim() : ''
    // Only what the state lacks: a set of every Key of a 100k sheet cost more than the rest of this loop's bookkeeping.
    if (keyText && typeof cells[baseIndex] === 'string' && cells[baseIndex] && !base.has(keyText)) baseCellKeys.add(keyText)
    if (shared.size > 0 && shared.has(cellText(keyCell).trim())) {
      // A Key on several rows asks for the manager, even when nothing else of that user changed: plan it (as invalid).
      const reading = readings.at(i)
      markRow(found, reading.key?.timelineKey, dateOf(reading), reading.key?.text)
      continue
    }
    // Most rows of a big sheet: nobody edited them, told from their cells alone, or from their reading.
    if (readings.asWritten(i) || unchangedSinceWritten(readings.at(i), base)) {
      verdicts[i] = 2
      continue
    }
    const reading = readings.at(i)
    const parsed = judgeRow(reading, ctx)
    if (parsed.ok && parsed.row?.kind === 'existing') verdicts[i] = inStepWithBase(parsed.row, reading, base) ? 2 : 1
    if (!parsed.ok) {
      // Read the server around it too: some problems (text that looks like a formula) are only
      // problems when the server's current value says the manager typed it.
      markRow(found, reading.key?.timelineKey, dateOf(reading), reading.key?.text)
      continue
    }
    const row = parsed.row
    if (!row || row.kind === 'discarded') continue
    if (row.kind === 'new') markRow(found, row.values.timelineKey, dayOf(row.values.input.start))
    else if (row.kind === 'delete') markRow(found, row.timelineKey, dateOf(reading), row.key)
    else if (row.values.fingerprint !== (base.get(row.key) ?? row.baseCell) || row.notices?.length)
      markRow(found, row.values.timelineKey, dayOf(row.values.input.start), row.key)
  }
  return found
}

/**
 * A row nobody edited since the tool wrote it, as far as the cells can say: its fingerprint (read from the cells
 * alone) is its Base cell's and the state's base, and it has no tool-written cell to put back. If the server's
 * activity has that fingerprint too, the planner can only call it in step (`planLines`).
 */
function inStepWithBase(row: Extract<SheetActivity, { kind: 'existing' }>, reading: RowReading, base: BaseFingerprints): boolean {
  const fp = row.values.fingerprint
  return row.notices === undefined && fp === reading.fields?.fingerprint && fp === row.baseCell && fp === base.get(row.key)
}

/**
 * Whether a reading's cells say exactly what the server's activity holds: the same owner, instant, length, tags
 * in the same order and notes. Then the two fingerprints are of the same values, so they agree, and comparing
 * the values costs no hashing (a 100k import asks this of nearly every row). Stricter than comparing
 * fingerprints: a start written with another offset, or tags in another order, answer no, and such a row is
 * judged again as any other.
 */
function showsActivity(reading: RowReading, s: ServerActivity): boolean {
  const f = reading.fields!
  const times = f.sheetTimes
  const a = s.activity
  if (!times || times.duration !== a.duration || f.user?.username !== s.user) return false
  if (times.start !== a.start && times.epochSeconds !== parseOffsetInstant(a.start).epochSeconds) return false
  if ((cellText(f.notesCell) || undefined) !== (notesCellText(a.notes) || undefined)) return false
  const tags = f.combined
  if (!tags || tags.length !== a.tags.length) return false
  for (let i = 0; i < tags.length; i++) if (tags[i] !== a.tags[i]) return false
  return true
}

/** Notes that a row asks something of its timeline: around its day, and of its activity when it has a Key. */
function markRow(found: Candidates, timelineKey: string | undefined, day: LocalDate | undefined, key?: string): void {
  if (!timelineKey) return
  found.timelines.add(timelineKey)
  if (day) addTo(found.dates, timelineKey, day)
  if (key) addTo(found.keys, timelineKey, key)
}

function addTo<T>(map: Map<string, Set<T>>, at: string, value: T): void {
  const set = map.get(at)
  if (set) set.add(value)
  else map.set(at, new Set([value]))
}

/** A ticked or refused row is not parsed further; its Date cell still names the day to look for the activity in. */
function dateOf(reading: RowReading): LocalDate | undefined {
  return reading.dateSerial === undefined ? undefined : serialToLocalDate(reading.dateSerial)
}

/** The Keys several rows hold, with their rows (nearly always none: then no row needs looking up). */
function sharedKeys(rowsOfKey: ReadonlyMap<string, number[]>): Map<string, number[]> {
  const shared = new Map<string, number[]>()
  for (const [key, rows] of rowsOfKey) if (rows.length > 1) shared.set(key, rows)
  return shared
}

/**
 * The rows an import leaves to the export, and their activities by timeline: valid rows nobody edited since the
 * tool wrote them (`verdicts` 2) of timelines not read in full. Such a row's sheet side is unchanged whatever the
 * server did, and for an unchanged sheet side the planner's table decides a no-op, an export update or an export
 * removal: nothing an import carries out. So the row, its base and its activity are left out of the plan
 * together, as the rows of a timeline nobody edited always were; an import's plan is then the size of its edits,
 * not of the sheet. Not in a timeline read in full (`--delete-missing`, an interrupted run, an activity that moved
 * weeks): there a row left out would read as removed from the sheet. Not when the allowed tags are an error: then
 * judging the row against them can refuse it.
 */
export function settledRows(
  readings: SheetReadings,
  verdicts: Uint8Array,
  timelines: { affected: ReadonlySet<string>; full: ReadonlySet<string> },
  tags: Pick<RowContext, 'allowedTags' | 'allowedTagsSeverity'>,
): { rows: Uint8Array; activities: Map<string, Set<number>> } {
  const rows = new Uint8Array(verdicts.length)
  const activities = new Map<string, Set<number>>()
  if (tagsCanRefuse(tags)) return { rows, activities }
  for (let i = 0; i < verdicts.length; i++) {
    if (verdicts[i] !== 2) continue
    const key = readings.keyOf(i)!
    // A timeline nobody edited is not planned at all: nothing of it to leave out.
    if (!timelines.affected.has(key.timelineKey) || timelines.full.has(key.timelineKey)) continue
    rows[i] = 1
    let ids = activities.get(key.timelineKey)
    if (!ids) activities.set(key.timelineKey, (ids = new Set()))
    ids.add(key.entityId)
  }
  return { rows, activities }
}

/** Whether judging a row against the allowed tags can refuse it. */
function tagsCanRefuse(tags: Pick<RowContext, 'allowedTags' | 'allowedTagsSeverity'>): boolean {
  return tags.allowedTags !== undefined && tags.allowedTagsSeverity === 'error'
}

/**
 * Rows the planner sees: every row of an affected timeline that the reads cover, and every new or invalid row;
 * not the `settled` ones (`settledRows`).
 */
export function planLines(
  tab: TabData,
  readings: SheetReadings,
  rowsOfKey: ReadonlyMap<string, number[]>,
  layout: HeaderLayout,
  ctx: RowContext,
  affected: Set<string>,
  rangesByTimeline: Map<string, TimeWindow[]>,
  firstVerdicts?: Uint8Array,
  settled?: Uint8Array,
): SheetLine[] {
  const lines: SheetLine[] = []
  // Only when judging a row against the allowed tags can refuse it may a valid row of a week not read become an
  // invalid line.
  const refusesTags = tagsCanRefuse(ctx)
  const keyIndex = layout.index[C.key]!
  const spans = new Map<string, { from: number; to: number }[]>()
  const spansOf = (timelineKey: string) => {
    let found = spans.get(timelineKey)
    if (!found) {
      found = (rangesByTimeline.get(timelineKey) ?? []).map((r) => ({
        from: parseOffsetInstant(r.from).epochSeconds,
        to: parseOffsetInstant(r.to).epochSeconds,
      }))
      spans.set(timelineKey, found)
    }
    return found
  }
  const outsideReads = (timelineKey: string, reading: RowReading, start: string) => {
    const t = startEpochOf(reading, start)
    for (const r of spansOf(timelineKey)) if (t >= r.from && t < r.to) return false
    return true
  }
  const shared = sharedKeys(rowsOfKey)
  const rows = tab.rows
  for (let i = 0; i < rows.length; i++) {
    const line = planLine(i)
    if (line) lines.push(line)
  }
  return lines

  function planLine(i: number): SheetLine | undefined {
    const rowNumber = i + 2
    const sharedBy = shared.size > 0 ? shared.get(cellText(rows[i]![keyIndex]).trim()) : undefined
    if (sharedBy) {
      // The same Key on several rows: every one of them is for the manager to sort out, wherever it sits, whatever it holds.
      const parsed = judgeRow(readings.at(i), ctx)
      const earlier = parsed.ok ? [] : parsed.problems
      return { kind: 'invalid', rowNumber, key: cellText(rows[i]![keyIndex]).trim(), problems: [duplicateKeyProblem(sharedBy), ...earlier] }
    }
    const timelineKey = readings.keyOf(i)?.timelineKey
    if (timelineKey && !affected.has(timelineKey)) return undefined
    if (settled?.[i]) return undefined
    const reading = readings.at(i)
    // Shortcuts for rows the candidate scan found valid, most rows of a big sheet, so that such a row is not
    // judged in full a second time. Judged without the server's activities, such a row's Key, timeline and start
    // are its reading's.
    if (!refusesTags && firstVerdicts !== undefined && firstVerdicts[i]! >= 1) {
      const key = reading.key!
      // In step with its Base cell, the state's base and now the server's activity: judged again against that
      // activity it would read the same (the activity shows what the cells show), and the planner could only call
      // it in step.
      if (firstVerdicts[i] === 2) {
        const s = ctx.server.get(key.text)
        if (s && showsActivity(reading, s)) return { kind: 'in-step', rowNumber, key: key.text }
      }
      // Its activity not found by the reads, outside the weeks read: judged again it is the same row (without a
      // server activity only the allowed tags could add a problem) and is left out below.
      if (
        // The weeks first: a comparison of numbers, where the Keys are two lookups in sets of a sheet's size.
        outsideReads(key.timelineKey, reading, reading.fields!.sheetTimes!.start) &&
        !ctx.server.has(key.text) &&
        ctx.baseKeys.has(key.text)
      )
        return undefined
    }
    const parsed = judgeRow(reading, ctx)
    if (!parsed.ok) return { kind: 'invalid', rowNumber, key: parsed.key, problems: parsed.problems }
    const row = parsed.row
    if (!row) return undefined
    if (row.kind === 'new' && !affected.has(row.values.timelineKey)) return undefined
    // An activity the reads did not cover is unknown, not deleted: leave its row out.
    if (row.kind === 'existing' && !ctx.server.has(row.key) && outsideReads(row.values.timelineKey, reading, row.values.input.start))
      return undefined
    return { kind: 'row', rowNumber, row }
  }
}
