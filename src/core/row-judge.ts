/**
 * Judging a row: a reading of its cells held against the server's activities, the Keys the state knows and the
 * allowed tags, giving the activity the row asks for (existing, new, deleted, discarded) or the problems that
 * refuse it; `parseRow` reads and judges in one step. It stands apart because this is where every import rule
 * of a row meets the server's side — what the tool wrote, what a ticked Delete may remove, which tool cell to put
 * back — and each rule stands next to the words a manager reads, so a rule and its message never drift apart.
 */
import type { CellValue } from './sheet.ts'
import type { Activity, ActivityInput } from './activity.ts'
import { ACTIVITY_COLUMN, type HeaderLayout } from './columns.ts'
import { cellText, excerpt, isEmptyCell, isFormula } from './cells.ts'
import { fingerprintAt } from './fingerprint.ts'
import { notesShortened, readNotesCell } from './notes-cell.ts'
import { SECONDS_PER_DAY } from './serial.ts'
import type { RowContext } from './row-context.ts'
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
import { judgeTags } from './row-tags.ts'
import { resolveTimes, sameInterval } from './row-times.ts'
import { deletionOf, readRow, type RowReading } from './row-read.ts'

/*
 * The import rules of a row, which reading (row-read.ts) and judging keep between them:
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
 */

const C = ACTIVITY_COLUMN

/** Parses and validates one Activities row (cells as read, in the header's order). */
export function parseRow(cells: readonly CellValue[], layout: HeaderLayout, ctx: RowContext): ParsedRow {
  return judgeRow(readRow(cells, layout, ctx), ctx)
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
