/**
 * One activity ↔ one Activities row. Writing: `activityToRow` / `activityToCells`.
 * Reading: `parseRow` checks every import rule and says, in a manager's words,
 * which column is wrong, what is wrong and what would be right; `parseSheet`
 * adds the rules that need the whole tab (a Key twice).
 *
 * Decisions:
 * - Values a row did not change are taken from the server activity as they
 *   are (start string with its offset, duration, tag order, notes), so a row
 *   read back unchanged is bit-for-bit what the server holds.
 * - Text that starts with `=` (the port's form of a formula) in Tags, Labels or
 *   Notes is accepted as text only when it is what the tool wrote: it equals
 *   the server's current value, or the whole row still matches its Base.
 *   Anywhere else a formula is refused. A spreadsheet error value (`#N/A`,
 *   `#REF!`, …) follows the same rule: the server's own notes may read `#N/A`.
 * - A value the tool cannot represent (a day outside 1900-03-01…9999-12-31, an
 *   End past 9999-12-31 23:59, a local time the clocks skip) makes the row
 *   invalid and says what would be right; it never reaches a conversion that
 *   could fail later in the run.
 * - Duration is the tool's: garbage typed over it (text, a negative number, an
 *   error value) is no reason to refuse the row, but it is not ignored either —
 *   the row carries a notice with the value to put back (`cellsToRestore`).
 * - Delete ticked on a row with a Key deletes its activity only when the row's
 *   other cells could be written as they are, empty cells and the allowed tags
 *   aside: a formula, an error value or a day the tool cannot take is never a
 *   reason for an activity to disappear (`judgeDeletion`). Delete ticked on a
 *   new row discards it.
 * - A row whose cells are all empty (Status, Duration, Base and extra columns
 *   aside) is ignored. A row with a Key but nothing else is refused: a cleared
 *   row is not a deletion.
 *
 * Longer than most files because every import rule of a row stands here in order, next to the words a manager
 * reads, so a rule and its message never drift apart.
 */
import type { CellValue } from './sheet.ts'
import type { Activity, ActivityInput } from './activity.ts'
import { ACTIVITY_COLUMN, type HeaderLayout } from './columns.ts'
import { cellText, excerpt, isEmptyCell, isErrorValue, isFormula, readCheckboxCell, readDateCell } from './cells.ts'
import { fingerprintAt } from './fingerprint.ts'
import { notesShortened, readNotesCell } from './notes-cell.ts'
import { parseOffsetInstant } from './instant.ts'
import { SECONDS_PER_DAY } from './serial.ts'
import { isPendingMark, parseActivityKey } from './activity-key.ts'
import type { KnownUser, ReadContext, RowContext } from './row-context.ts'
import {
  invalid,
  NO_PROBLEMS,
  problem,
  type ParsedRow,
  type RowNotice,
  type RowProblem,
  type RowProblemCode,
  type RowValues,
  type SheetActivity,
} from './row-outcome.ts'
import { userCellOf, usersIndex, type UserCell } from './row-users.ts'
import { judgeTags, tagCellsOf, type TagCells } from './row-tags.ts'
import { allEmpty, CLEARED_SLOTS, columnsOf, S, VALUE_SLOTS } from './row-slots.ts'
import { readTimeCells, resolveTimes, sameInterval, type ResolvedTimes, type TypedTimes } from './row-times.ts'

const C = ACTIVITY_COLUMN

/** Parses and validates one Activities row (cells as read, in the header's order). */
export function parseRow(cells: readonly CellValue[], layout: HeaderLayout, ctx: RowContext): ParsedRow {
  return judgeRow(readRow(cells, layout, ctx), ctx)
}

/**
 * A row's cells read once, with every check that does not depend on the server's activities; `judgeRow`
 * adds the ones that do. An import reads each row once and judges it twice: without the server (which rows
 * ask for something), then with the activities it read.
 */
export interface RowReading {
  /** The outcome decided before the Key is looked up (a blank row, a Key the tool never wrote). */
  settled?: ParsedRow
  key?: { text: string; timelineKey: string; entityId: number }
  /** The outcome decided once the Key is known (a ticked row, a cleared one). */
  keyed?: ParsedRow
  /** The Date cell's day serial whatever else the row holds: where to look for a ticked or refused row's activity. */
  dateSerial: number | undefined
  fields?: RowFields
  /** Delete ticked on a row with a Key and cells to judge (`judgeDeletion`). */
  ticked?: true
}

interface RowFields {
  /** Delete and Base problems, in the order they are found. */
  early: readonly RowProblem[]
  baseText: string | undefined
  pending: string | undefined
  user: (KnownUser & { tagsTimelineKey: string }) | undefined
  userProblems: readonly RowProblem[]
  times: TypedTimes | undefined
  timeProblems: readonly RowProblem[]
  /**
   * The times as the cells alone say them (no server start to keep), and the problems they have: two fields, not a
   * `ResolvedTimes` of their own, one object fewer kept per row until the plan is made.
   */
  sheetTimes: ResolvedTimes['times']
  sheetTimeProblems: readonly RowProblem[]
  durationCell: CellValue | undefined
  tagsCell: CellValue | undefined
  labelsCell: CellValue | undefined
  /** Tags and labels combined, undefined when they break a rule (`tagProblems` says which). Frozen: rows share it. */
  combined: readonly string[] | undefined
  tagProblems: readonly RowProblem[]
  notesCell: CellValue | undefined
  /** The fingerprint of the cells alone, when the row has a user, times and tags. */
  fingerprint: string | undefined
}

/** Reads one row's cells (in the header's order) once; see `RowReading`. */
export function readRow(cells: readonly CellValue[], layout: HeaderLayout, ctx: ReadContext, memo?: ReadMemo): RowReading {
  const columns = columnsOf(layout, memo)
  const get = (slot: number): CellValue | undefined => {
    const i = columns[slot]!
    return i < 0 ? undefined : cells[i]
  }
  const order = ctx.slashDateOrder ?? 'mdy'
  const dateRead = readDateCell(get(S.date), order)
  const dateSerial = dateRead.ok ? dateRead.value : undefined
  const deleteCell = get(S.delete)
  const deleteRead = readCheckboxCell(isFormula(deleteCell) || isErrorValue(deleteCell) ? 'not a tick' : deleteCell)
  const ticked = deleteRead.ok && deleteRead.value
  if (allEmpty(cells, columns, VALUE_SLOTS) && !ticked) {
    return { dateSerial, settled: deleteRead.ok ? { ok: true, row: null } : invalid(undefined, [checkboxProblem(get(S.delete))]) }
  }

  const early: RowProblem[] = []
  if (!deleteRead.ok) early.push(checkboxProblem(get(S.delete)))

  const keyCell = cellText(get(S.key)).trim()
  // A new row the import marked before creating its activity is still a new row; the mark finds it again.
  const pending = keyCell.startsWith('pending:') && isPendingMark(keyCell) ? keyCell : undefined
  const keyText = pending ? '' : keyCell
  const baseText = cellText(get(S.base)).trim() || undefined
  let key: { text: string; timelineKey: string; entityId: number } | undefined
  if (keyText !== '') {
    if (isErrorValue(keyText)) {
      return {
        dateSerial,
        settled: invalid(keyText, [
          problem(
            'error-value',
            C.key,
            `holds the spreadsheet error ${keyText} instead of the key the tool wrote; undo the change to the hidden Key column, or clear Key and Base to add this row as a new activity`,
          ),
        ]),
      }
    }
    const parsed = parseActivityKey(keyText)
    if (!parsed) {
      return {
        dateSerial,
        settled: invalid(keyText, [
          problem('bad-key', C.key, `"${excerpt(keyText)}" is not a key this tool wrote; undo the edit to the hidden Key column`),
        ]),
      }
    }
    // The timeline's Key as the users list holds it, not a copy per row: every later look-up of a row's timeline
    // (the affected timelines, the server's activities) finds its hash made, and a 100k-row read keeps 100k
    // fewer strings.
    const timelineKey = usersIndex(ctx.users).byTimeline.get(parsed.timelineKey)?.tagsTimelineKey ?? parsed.timelineKey
    key = { text: keyText, timelineKey, entityId: parsed.entityId }
  }
  if (baseText !== undefined && isErrorValue(baseText)) {
    early.push(
      problem(
        'error-value',
        C.base,
        `holds the spreadsheet error ${baseText} instead of the fingerprint the tool wrote; undo the change to the hidden Base column, or clear Key and Base to add this row as a new activity`,
      ),
    )
  }

  // A ticked row that holds nothing else is a deletion as it is; any other is read on, as any row, and judged
  // for its deletion (`judgeDeletion`).
  if (ticked && key && (early.length > 0 || allEmpty(cells, columns, CLEARED_SLOTS)))
    return { dateSerial, key, keyed: early.length > 0 ? invalid(key.text, early) : deletionOf(key, baseText) }
  if (ticked && !key)
    return { dateSerial, keyed: early.length > 0 ? invalid(undefined, early) : { ok: true, row: { kind: 'discarded', warnings: [] } } }

  if (key && allEmpty(cells, columns, CLEARED_SLOTS)) {
    const cleared = problem(
      'row-cleared',
      undefined,
      'This row was emptied but still belongs to an activity; to remove the activity tick Delete, otherwise undo the clearing',
    )
    return { dateSerial, key, keyed: invalid(key.text, [cleared]) }
  }

  const { user, problems: userProblems } = userCellOf(get(S.user), key, ctx.users, memo)
  const timeProblems: RowProblem[] = []
  const times = readTimeCells(get, order, dateRead, timeProblems)
  const sheetResolved = times ? resolveTimes(times, undefined, ctx) : undefined
  const sheetTimes = sheetResolved?.times
  const tagsCell = get(S.tags)
  const labelsCell = get(S.labels)
  const { combined, problems: tagProblems } = tagCellsOf(cellText(tagsCell), cellText(labelsCell), memo)
  const notesCell = get(S.notes)
  const sheetNotes = cellText(notesCell)
  const fingerprint =
    user && sheetTimes && combined
      ? fingerprintAt(user.username, sheetTimes.epochSeconds, sheetTimes.duration, combined, sheetNotes === '' ? undefined : sheetNotes)
      : undefined
  // A row's readings live until the plan is made: most rows have no problems, and share one empty list.
  const fields: RowFields = {
    early: early.length ? early : NO_PROBLEMS,
    baseText,
    pending,
    user,
    userProblems,
    times,
    timeProblems: timeProblems.length ? timeProblems : NO_PROBLEMS,
    sheetTimes,
    sheetTimeProblems: sheetResolved ? sheetResolved.problems : NO_PROBLEMS,
    durationCell: get(S.duration),
    tagsCell,
    labelsCell,
    combined,
    tagProblems,
    notesCell,
    fingerprint,
  }
  if (!key) return { dateSerial, fields }
  return ticked ? { dateSerial, key, fields, ticked: true } : { dateSerial, key, fields }
}

/**
 * The instant `start` names, taken from the reading when it is the start the row's cells alone say (as every
 * row judged without its server activity holds), parsed otherwise.
 */
export function startEpochOf(reading: RowReading, start: string): number {
  const times = reading.fields?.sheetTimes
  return times !== undefined && times.start === start ? times.epochSeconds : parseOffsetInstant(start).epochSeconds
}

/** The row a reading makes against `ctx`'s server activities, Keys and allowed tags: what `parseRow` returns. */
export function judgeRow(reading: RowReading, ctx: RowContext): ParsedRow {
  if (reading.settled) return reading.settled
  const key = reading.key
  if (key && !ctx.server.has(key.text) && !ctx.baseKeys.has(key.text)) {
    return invalid(key.text, [
      problem(
        'unknown-key',
        C.key,
        `activity ${excerpt(key.text)} does not exist (pasted from another sheet?); clear Key and Base to add this row as a new activity`,
      ),
    ])
  }
  if (reading.keyed) return reading.keyed
  return reading.ticked ? judgeDeletion(reading, key!, ctx) : judgeCells(reading, key, ctx)
}

/** The codes that say a cell is empty, or that its tags are not among the allowed ones: no reason to keep an activity. */
const NO_REASON_TO_KEEP: ReadonlySet<RowProblemCode> = new Set(['missing-value', 'no-tags', 'tags-not-allowed'])

/**
 * A ticked row of an activity, judged as any row of it: deleted only when its cells make a valid row, empty cells
 * and the allowed tags aside. A corrupted row (a formula, an error value, a day or time the tool cannot take,
 * another user) is never the reason an activity disappears: it is refused as an edit would be, and its Status
 * says what to fix first. An emptied cell is no corruption: emptying a row and ticking Delete is how the tool
 * itself says to remove an activity.
 */
function judgeDeletion(reading: RowReading, key: NonNullable<RowReading['key']>, ctx: RowContext): ParsedRow {
  const judged = judgeCells(reading, key, ctx)
  const blocking = judged.ok ? [] : judged.problems.filter((p) => p.severity === 'error' && !NO_REASON_TO_KEEP.has(p.code))
  const [first, ...rest] = blocking
  if (!first) return deletionOf(key, reading.fields?.baseText)
  const cell = first.column === undefined ? 'the row' : 'this cell'
  return invalid(key.text, [
    { ...first, message: `Delete ticked, but nothing was deleted: fix or empty ${cell} first — ${first.message}` },
    ...rest,
  ])
}

function deletionOf(key: NonNullable<RowReading['key']>, baseCell: string | undefined): ParsedRow {
  return { ok: true, row: { kind: 'delete', key: key.text, entityId: key.entityId, timelineKey: key.timelineKey, baseCell, warnings: [] } }
}

/** A row's cells judged against `ctx`: the row they make, or their problems. */
function judgeCells(reading: RowReading, key: RowReading['key'], ctx: RowContext): ParsedRow {
  const f = reading.fields!
  const original = key ? ctx.server.get(key.text)?.activity : undefined
  // Most rows have none of these problems: a fresh empty list without spreading three empty ones.
  const problems =
    f.early.length + f.userProblems.length + f.timeProblems.length === 0 ? [] : [...f.early, ...f.userProblems, ...f.timeProblems]
  const user = f.user
  const resolved = f.times && original ? resolveTimes(f.times, original, ctx) : undefined
  const timeProblems = resolved ? resolved.problems : f.sheetTimeProblems
  if (timeProblems.length > 0) problems.push(...timeProblems)
  const times = resolved ? resolved.times : f.sheetTimes
  const tags = judgeTags(f, original, user, ctx, problems)
  const notes = readNotes(f.notesCell, original, problems)

  // Formula- or error-looking text in free-text columns is what the tool wrote if the row still matches its Base.
  // Most rows have no problem at all: nothing to sort.
  const suspects =
    problems.length === 0
      ? NO_PROBLEMS
      : problems.filter(
          (p) =>
            (p.code === 'formula' || p.code === 'error-value') && (p.column === C.tags || p.column === C.labels || p.column === C.notes),
        )
  const hard = problems.length === 0 ? NO_PROBLEMS : problems.filter((p) => p.severity === 'error' && !suspects.includes(p))
  if (hard.length > 0 || !user || !times || !tags) return invalid(key?.text, problems)

  const input: ActivityInput = { tags: tags.tags, notes, start: times.start, duration: times.duration }
  // Notes and tags the server's form kept read the same to the fingerprint; only another instant changes it, or
  // notes the cell shows shortened (the fingerprint is of the whole notes).
  const fp =
    f.fingerprint !== undefined && sameInterval(times, f.sheetTimes) && !notesShortened(original?.notes)
      ? f.fingerprint
      : fingerprintAt(user.username, times.epochSeconds, input.duration, input.tags, input.notes)
  const baseText = f.baseText
  // Only a row with its Key is one the tool wrote: a keyless copy that still matches some Base is a new activity typed with a formula.
  if (suspects.length > 0 && (!key || fp !== baseText)) return invalid(key?.text, problems)
  // No problems: the (fresh, otherwise unused) empty list is the warnings, not a copy of it.
  const warnings = problems.length === 0 ? problems : problems.filter((p) => p.severity === 'warning')
  if (tags.allowedProblem) {
    if (tags.allowedProblem.severity === 'error') return invalid(key?.text, [...problems, tags.allowedProblem])
    warnings.push(tags.allowedProblem)
  }
  const values: RowValues = { user: user.username, timelineKey: key?.timelineKey ?? user.tagsTimelineKey, input, fingerprint: fp }
  const notices = durationNotices(f.durationCell, times.duration, key !== undefined)
  // Optional parts added only when there are some (not spread from an empty object on every row), in the same order.
  if (key) {
    const row: SheetActivity = { kind: 'existing', key: key.text, entityId: key.entityId, baseCell: baseText, values, warnings }
    if (notices) row.notices = notices
    return { ok: true, row }
  }
  const row: SheetActivity = { kind: 'new', values, warnings }
  if (notices) row.notices = notices
  if (f.pending) row.pending = f.pending
  return { ok: true, row }
}

/**
 * Whether `judgeRow`, without the server's activities, would find a valid row of an existing activity with no
 * cell to put back whose fingerprint is its Base cell's and `base`'s (the state's): a row nobody edited since the
 * tool wrote it. Told from the reading alone, without building the row, for the rows without a problem of any
 * kind (a cleared row has no fields, a ticked one asks for a deletion). A property test holds every yes to `judgeRow`'s.
 */
export function unchangedSinceWritten(reading: RowReading, base: Pick<ReadonlyMap<string, string>, 'get'>): boolean {
  const f = reading.fields
  const fp = f?.fingerprint
  if (f === undefined || reading.key === undefined || fp === undefined || fp !== f.baseText || fp !== base.get(reading.key.text))
    return false
  // A ticked row asks for a deletion, however unedited its other cells.
  if (reading.ticked) return false
  if (f.early.length + f.userProblems.length + f.timeProblems.length + f.sheetTimeProblems.length + f.tagProblems.length > 0) return false
  return f.sheetTimes !== undefined && durationNotices(f.durationCell, f.sheetTimes.duration, true) === undefined
}

/**
 * What one read of a tab remembers between its rows (`readRows`): a sheet repeats a few hundred Tags and Labels
 * texts, each read once. It lives as long as that read, so it never outgrows one tab.
 */
export interface ReadMemo {
  /** Tags text → Labels text → what they say (frozen: every row with the same two texts shares it). */
  tags: Map<string, Map<string, TagCells>>
  /** The layout's column indexes by slot, for the layout last read. */
  columns?: { layout: HeaderLayout; index: Int32Array }
  /** The Key's timeline (`''`: no Key) → User text → what the User cell says, as `tags`. */
  users: Map<string, Map<string, UserCell>>
}

export function newReadMemo(): ReadMemo {
  return { tags: new Map(), users: new Map() }
}

function checkboxProblem(value: CellValue | undefined): RowProblem {
  if (isFormula(value)) return problem('formula', C.delete, `holds a formula (${excerpt(value)}); tick or untick the box instead`)
  if (isErrorValue(value))
    return problem(
      'error-value',
      C.delete,
      `holds the spreadsheet error ${cellText(value).trim()}; tick the box to delete, leave it empty to keep`,
    )
  return problem(
    'bad-checkbox',
    C.delete,
    `"${excerpt(cellText(value))}" is not a tick; tick the box (or type TRUE or x) to delete, leave it empty to keep`,
  )
}

/**
 * Duration is the tool's (End − Start, or a formula someone put there): a
 * cell that cannot be a duration — text, an error value, a negative number, a
 * tick — is put back. A new row's empty Duration is normal; an existing row's
 * is restored too.
 */
function durationNotices(value: CellValue | undefined, seconds: number, existing: boolean): RowNotice[] | undefined {
  if (isEmptyCell(value)) {
    if (!existing) return undefined
  } else if (isFormula(value) || (typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
    return undefined
  }
  const typed = isEmptyCell(value) ? 'it was empty' : `it held "${excerpt(cellText(value))}"`
  return [
    {
      code: 'tool-cell-restored',
      column: C.duration,
      value: seconds / SECONDS_PER_DAY,
      message: `Duration is calculated by the tool; it was restored (${typed})`,
    },
  ]
}

function readNotes(value: CellValue | undefined, original: Activity | undefined, out: RowProblem[]): string | undefined {
  const read = readNotesCell(value, original?.notes, original !== undefined)
  if (read.problem) out.push(problem(read.problem.code, C.notes, read.problem.message))
  return read.notes
}
