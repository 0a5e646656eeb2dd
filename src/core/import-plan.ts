/** What an import reads and plans over: the rows that ask for something, the weeks around them, the lines the planner sees, and what an interrupted run already created. */
import { ACTIVITY_COLUMN as C, type HeaderLayout } from './columns.ts'
import { fingerprintOf } from './fingerprint.ts'
import { type BaseFingerprints, type Decision } from './plan.ts'
import {
  activityKey,
  duplicateKeyProblem,
  judgeRow,
  readRow,
  type KnownUser,
  type ParsedRow,
  type ReadContext,
  type RowContext,
  type RowReading,
  type ServerActivity,
  type SheetLine,
} from './rows.ts'
import { cellText } from './cells.ts'
import { addDays, chunkWindows, localDateOf, parseOffsetInstant, serialToLocalDate, type TimeWindow } from './time.ts'
import type { TabData } from './sheet.ts'

interface Candidates {
  /** Timelines that rows ask something of. */
  timelines: Set<string>
  /** Per timeline, the local days of the rows that ask something (to read the server around them). */
  dates: Map<string, Set<string>>
  /** Per timeline, the keys of edited or ticked rows: their activities must be found by the reads. */
  keys: Map<string, Set<string>>
  /** Keys whose row carries a Base cell (the tool wrote them), for a run without state. */
  baseCellKeys: Set<string>
  /** What this scan judged of each row (`verdicts[i]` is sheet row `i + 2`; undefined: a Key several rows hold). */
  verdicts: (ParsedRow | undefined)[]
}

/**
 * Every data row of the tab read once (`readings[i]` is sheet row `i + 2`): the candidate scan and the
 * planner judge these readings, and never read a row's cells again.
 */
export function readRows(tab: TabData, layout: HeaderLayout, ctx: ReadContext): RowReading[] {
  return tab.rows.map((cells) => readRow(cells, layout, ctx))
}

export function findCandidates(
  tab: TabData,
  readings: readonly RowReading[],
  rowsOfKey: ReadonlyMap<string, number[]>,
  layout: HeaderLayout,
  base: BaseFingerprints,
  users: KnownUser[],
  timeZone: string,
  sheetKeys: Set<string>,
): Candidates {
  const ctx: RowContext = { timeZone, users, server: new Map(), baseKeys: new Set([...sheetKeys, ...base.keys()]) }
  const timelines = new Set<string>()
  const dates = new Map<string, Set<string>>()
  const keys = new Map<string, Set<string>>()
  const baseCellKeys = new Set<string>()
  const verdicts: (ParsedRow | undefined)[] = []
  const add = <T>(map: Map<string, Set<T>>, at: string, value: T) => {
    const set = map.get(at)
    if (set) set.add(value)
    else map.set(at, new Set([value]))
  }
  const baseIndex = layout.index[C.base]!
  const keyIndex = layout.index[C.key]!
  tab.rows.forEach((cells, i) => {
    const reading = readings[i]!
    const keyText = typeof cells[keyIndex] === 'string' ? (cells[keyIndex] as string).trim() : ''
    if (keyText && typeof cells[baseIndex] === 'string' && cells[baseIndex]) baseCellKeys.add(keyText)
    const mark = (timelineKey: string | undefined, start: string | undefined, key?: string) => {
      if (!timelineKey) return
      timelines.add(timelineKey)
      if (start) add(dates, timelineKey, localDateOf(timeZone, parseOffsetInstant(start).epochSeconds))
      if (key) add(keys, timelineKey, key)
    }
    // A ticked or refused row is not parsed further; its Date cell still says where to look for the activity.
    const dateStart = () => (reading.dateSerial === undefined ? undefined : `${serialToLocalDate(reading.dateSerial)}T12:00:00Z`)
    const shared = rowsOfKey.get(cellText(cells[keyIndex]).trim())
    if (shared && shared.length > 1) {
      // A Key on several rows asks for the manager, even when nothing else of that user changed: plan it (as invalid).
      mark(reading.key?.timelineKey, dateStart(), reading.key?.text)
      return
    }
    const parsed = judgeRow(reading, ctx)
    verdicts[i] = parsed
    if (!parsed.ok) {
      // Read the server around it too: some problems (text that looks like a formula) are only
      // problems when the server's current value says the manager typed it.
      mark(reading.key?.timelineKey, dateStart(), reading.key?.text)
      return
    }
    const row = parsed.row
    if (!row || row.kind === 'discarded') return
    if (row.kind === 'new') mark(row.values.timelineKey, row.values.input.start)
    else if (row.kind === 'delete') mark(row.timelineKey, dateStart(), row.key)
    else if (row.values.fingerprint !== (base.get(row.key) ?? row.baseCell) || row.notices?.length)
      mark(row.values.timelineKey, row.values.input.start, row.key)
  })
  return { timelines, dates, keys, baseCellKeys, verdicts }
}

/** Sheet row numbers of every non-empty Key text (trimmed), in sheet order. */
export function rowsByKeyText(tab: TabData, layout: HeaderLayout): Map<string, number[]> {
  const keyIndex = layout.index[C.key]!
  const rows = new Map<string, number[]>()
  tab.rows.forEach((cells, i) => {
    const key = cellText(cells[keyIndex]).trim()
    if (key === '') return
    const at = rows.get(key)
    if (at) at.push(i + 2)
    else rows.set(key, [i + 2])
  })
  return rows
}

/**
 * What to read of one timeline: the window's weekly chunks that hold an edited
 * day (all of them when `full`), plus the week around each edited day outside
 * the window. Reads then follow the edits, not the size of the window.
 */
export function readRanges(timeZone: string, fromDate: string, days: number, dates: Set<string>, full: boolean): TimeWindow[] {
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
export function restOfWindow(timeZone: string, fromDate: string, days: number, ranges: TimeWindow[]): TimeWindow[] {
  return chunkWindows(timeZone, fromDate, days, 7).filter((c) => !ranges.some((r) => r.from === c.from && r.to === c.to))
}

export function within(date: string, window: TimeWindow, timeZone: string): boolean {
  const noon = Date.parse(`${date}T12:00:00Z`) / 1000
  const local = localDateOf(timeZone, noon)
  return startsWithin(`${local}T12:00:00Z`, window)
}

export function startsWithin(start: string, window: TimeWindow): boolean {
  const t = parseOffsetInstant(start).epochSeconds
  return t >= parseOffsetInstant(window.from).epochSeconds && t < parseOffsetInstant(window.to).epochSeconds
}

/** Rows the planner sees: every row of an affected timeline that the reads cover, and every new or invalid row. */
export function planLines(
  tab: TabData,
  readings: readonly RowReading[],
  rowsOfKey: ReadonlyMap<string, number[]>,
  layout: HeaderLayout,
  ctx: RowContext,
  affected: Set<string>,
  rangesByTimeline: Map<string, TimeWindow[]>,
  firstVerdicts?: readonly (ParsedRow | undefined)[],
): SheetLine[] {
  const lines: SheetLine[] = []
  // Whether judging a row against the allowed tags can refuse it: only then may a valid row of a week not read
  // become an invalid line.
  const tagsCanRefuse = ctx.allowedTags !== undefined && ctx.allowedTagsSeverity === 'error'
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
  const outsideReads = (timelineKey: string, start: string) => {
    const t = parseOffsetInstant(start).epochSeconds
    return !spansOf(timelineKey).some((r) => t >= r.from && t < r.to)
  }
  tab.rows.forEach((cells, i) => {
    const reading = readings[i]!
    const timelineKey = reading.key?.timelineKey
    const rowNumber = i + 2
    const shared = rowsOfKey.get(cellText(cells[keyIndex]).trim())
    if (shared && shared.length > 1) {
      // The same Key on several rows: every one of them is for the manager to sort out, wherever it sits, whatever it holds.
      const parsed = judgeRow(reading, ctx)
      const earlier = parsed.ok ? [] : parsed.problems
      lines.push({ kind: 'invalid', rowNumber, key: cellText(cells[keyIndex]).trim(), problems: [duplicateKeyProblem(shared), ...earlier] })
      return
    }
    if (timelineKey && !affected.has(timelineKey)) return
    // A row the candidate scan found valid, whose activity the reads did not find, outside the weeks read: judged
    // again it is the same row (without a server activity only the allowed tags could add a problem) and is left
    // out below. Most rows of a big sheet are such rows; judging each one twice was a fifth of an import's time.
    const first = firstVerdicts?.[i]
    if (
      !tagsCanRefuse &&
      first?.ok &&
      first.row?.kind === 'existing' &&
      !ctx.server.has(first.row.key) &&
      ctx.baseKeys.has(first.row.key) &&
      outsideReads(first.row.values.timelineKey, first.row.values.input.start)
    )
      return
    const parsed = judgeRow(reading, ctx)
    if (!parsed.ok) {
      lines.push({ kind: 'invalid', rowNumber, key: parsed.key, problems: parsed.problems })
      return
    }
    const row = parsed.row
    if (!row) return
    if (row.kind === 'new' && !affected.has(row.values.timelineKey)) return
    // An activity the reads did not cover is unknown, not deleted: leave its row out.
    if (row.kind === 'existing' && !ctx.server.has(row.key) && outsideReads(row.values.timelineKey, row.values.input.start)) return
    lines.push({ kind: 'row', rowNumber, row })
  })
  return lines
}

/** import-post decisions whose activity an interrupted run already created: row fingerprint → the created activity. */
/** A create an interrupted run recorded in its journal: what it sent, and the answer if one came. */
export interface InterruptedPost {
  intent: { timelineKey?: string | undefined; fingerprint?: string | undefined; pending?: string | undefined }
  outcome?: { type: string; entityId?: number | undefined } | undefined
}

export function adoptInterrupted(
  decisions: Decision[],
  interrupted: readonly { writes: readonly (InterruptedPost & { intent: { op: string } })[] }[],
  server: Map<string, ServerActivity>,
  sheetKeys: Set<string>,
): Map<number, ServerActivity> {
  const adoptions = new Map<number, ServerActivity>()
  const claimed = new Set<string>()
  const posts = interrupted.flatMap((run) => run.writes.filter((w) => w.intent.op === 'post'))
  for (const d of decisions) {
    if (d.kind !== 'import-post') continue
    for (const w of posts) {
      // A marked row is the row of the POST with its mark, whatever was typed into it since; an unmarked
      // one (written by an older version) is recognised by its values.
      if (w.intent.timelineKey !== d.timelineKey) continue
      if (
        d.pending !== undefined ? w.intent.pending !== d.pending : w.intent.pending !== undefined || w.intent.fingerprint !== d.fingerprint
      )
        continue
      const posted = w.intent.fingerprint ?? d.fingerprint
      let found: ServerActivity | undefined
      if (w.outcome?.type === 'done' && w.outcome.entityId !== undefined) {
        found = server.get(activityKey(d.timelineKey, w.outcome.entityId))
      } else if (w.outcome === undefined) {
        // The answer never came: the POST may have landed. Look for it.
        for (const [key, s] of server) {
          if (!sheetKeys.has(key) && !claimed.has(key) && fingerprintOf(s) === posted) {
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
