/**
 * A row's Date, Start and End cells: read as typed (formulas, error values and empty cells refused in a
 * manager's words), then resolved to the start and duration they stand for — the server activity's own when
 * they still show it, otherwise through the sheet-times rules — with a local time the clocks skip refused and
 * said as what the clocks did. It stands apart because these are the time rules of one row, with their own
 * hints and words, while sheet-times.ts beneath them knows serials and instants, not cells.
 */
import type { CellValue } from './sheet.ts'
import type { Activity } from './activity.ts'
import { ACTIVITY_COLUMN, type ActivityColumn } from './columns.ts'
import { cellText, excerpt, isEmptyCell, isErrorValue, isFormula, type readDateCell, readTimeCell, type SlashDateOrder } from './cells.ts'
import { activityToSheetTimes, sheetTimesToInterval, typedWallSeconds, type TimeWarning } from './sheet-times.ts'
import { clockJumpAt } from './wall-clock.ts'
import { offsetInstantSeconds } from './instant.ts'
import { fractionToSeconds, SECONDS_PER_DAY } from './serial.ts'
import type { ReadContext } from './row-context.ts'
import { NO_PROBLEMS, problem, type RowProblem } from './row-outcome.ts'
import { S } from './row-slots.ts'

const C = ACTIVITY_COLUMN

const TIME_HINT = 'type it like 13:45, 13:45:10 or 1:45 PM'

function dateHint(order: SlashDateOrder): string {
  return order === 'mdy' ? DATE_HINT_MDY : DATE_HINT_DMY
}

// Only forms every spreadsheet locale reads the same way as we do: a dotted date is day-first here but month-first in a US Google sheet.
const DATE_HINT_MDY = 'type it like 2026-03-02 or 3/2/2026'
const DATE_HINT_DMY = 'type it like 2026-03-02 or 2/3/2026'

export interface TypedTimes {
  date: number
  start: number
  end: number
  durationHint: number | undefined
}

export interface ResolvedTimes {
  problems: readonly RowProblem[]
  /** `epochSeconds`: what `start` parses to. */
  times: { start: string; epochSeconds: number; duration: number } | undefined
}

export function sameInterval(a: NonNullable<ResolvedTimes['times']>, b: ResolvedTimes['times']): boolean {
  if (!b) return false
  if (a === b) return true
  return a.duration === b.duration && (a.start === b.start || a.epochSeconds === b.epochSeconds)
}

/** Date, Start and End as typed (the Date cell already read), or undefined with the problems of the cells that are not. */
export function readTimeCells(
  get: (slot: number) => CellValue | undefined,
  order: SlashDateOrder,
  dateRead: ReturnType<typeof readDateCell>,
  out: RowProblem[],
): TypedTimes | undefined {
  const read = (
    column: ActivityColumn,
    value: CellValue | undefined,
    reader: (v: CellValue | undefined) => { ok: true; value: number } | { ok: false; message: string },
    hint: string,
  ): number | undefined => {
    if (isFormula(value)) {
      out.push(problem('formula', column, `holds a formula (${excerpt(value)}); type the value itself`))
      return undefined
    }
    if (isErrorValue(value)) {
      out.push(problem('error-value', column, `holds the spreadsheet error ${cellText(value).trim()}; ${hint}`))
      return undefined
    }
    if (isEmptyCell(value)) {
      out.push(problem('missing-value', column, `is empty; ${hint}`))
      return undefined
    }
    const r = reader(value)
    if (!r.ok) {
      out.push(problem(column === C.date ? 'unparseable-date' : 'unparseable-time', column, `${r.message} — ${hint}`))
      return undefined
    }
    return r.value
  }
  const date = read(C.date, get(S.date), () => dateRead, dateHint(order))
  const start = read(C.start, get(S.start), readStartCell, TIME_HINT)
  const end = read(C.end, get(S.end), readEndCell, TIME_HINT)
  if (date === undefined || start === undefined || end === undefined) return undefined
  const durationCell = get(S.duration)
  return { date, start, end, durationHint: typeof durationCell === 'number' ? durationCell : undefined }
}

const START_CELL = { allowDays: false }
const END_CELL = { allowDays: true }
const readStartCell = (v: CellValue | undefined) => readTimeCell(v, START_CELL)
const readEndCell = (v: CellValue | undefined) => readTimeCell(v, END_CELL)

/** The start and duration typed times stand for: the server activity's own when they still show it. */
export function resolveTimes(typed: TypedTimes, original: Activity | undefined, ctx: ReadContext): ResolvedTimes {
  const order = ctx.slashDateOrder ?? 'mdy'
  const out: RowProblem[] = []
  const { date, start, end } = typed
  if (original) {
    // Unchanged cells mean the server's own start and duration, offset included.
    const shown = activityToSheetTimes(original.start, original.duration, ctx.timeZone, ctx.dayStart)
    if (shown.date === date && sameSecond(shown.start, start) && sameSecond(shown.end, end)) {
      const epochSeconds = offsetInstantSeconds(original.start)
      return { problems: NO_PROBLEMS, times: { start: original.start, epochSeconds, duration: original.duration } }
    }
  }
  const result = sheetTimesToInterval(typed, ctx.timeZone, original ? { start: original.start } : undefined, ctx.dayStart)
  if (!result.ok && result.problem === 'out-of-range') {
    const column = result.field === 'date' ? C.date : result.field === 'start' ? C.start : C.end
    const hint =
      result.field === 'date'
        ? dateHint(order)
        : result.field === 'start'
          ? TIME_HINT
          : `${TIME_HINT}; an End of 1 or more carries whole days after Date`
    out.push(problem('out-of-range', column, `${result.message} — ${hint}`))
    return { problems: out, times: undefined }
  }
  // A local time the clocks skip is refused, not moved: the manager meant some real time, and only they know which.
  const walls = typedWallSeconds(typed, ctx.dayStart)
  // Not a loop over [column, wall] pairs: every row of a sheet passes here, and the pairs were garbage per row.
  const startSkipped = noteSkippedTime(C.start, walls.start, ctx.timeZone, out)
  const skipped = noteSkippedTime(C.end, walls.end, ctx.timeZone, out) || startSkipped
  if (!result.ok) {
    out.push(problem('end-before-start', C.end, 'is before Start; an End earlier than Start means the next day, so check the times'))
    return { problems: out, times: undefined }
  }
  if (skipped) return { problems: out, times: undefined }
  // End before Start reads as the next day; past half a day that is more likely two swapped times than a night shift.
  if (end < start && result.duration > MAX_OVERNIGHT_SECONDS) {
    out.push(
      problem(
        'end-before-start',
        C.end,
        `is before Start, which would make this a ${Math.round(result.duration / 360) / 10}-hour activity ending the next day; check the times (an activity that really runs past midnight for more than 12 hours is entered as two rows, split at midnight)`,
      ),
    )
    return { problems: out, times: undefined }
  }
  for (const w of result.warnings) out.push(timeWarning(w))
  return {
    problems: out.length ? out : NO_PROBLEMS,
    times: { start: result.start, epochSeconds: offsetInstantSeconds(result.start), duration: result.duration },
  }
}

const MAX_OVERNIGHT_SECONDS = 12 * 3600

/** Adds the problem of a typed wall time the clocks skip; true when there is one. */
function noteSkippedTime(column: typeof C.start | typeof C.end, wall: number, timeZone: string, out: RowProblem[]): boolean {
  const jump = clockJumpAt(timeZone, wall)
  if (!jump) return false
  out.push(
    problem(
      'nonexistent-time',
      column,
      `${clockText(wall)} does not exist on ${jump.date}: the clocks jump from ${jump.from} to ${jump.to} that night; type a time that exists (before ${jump.from} or from ${jump.to} on)`,
    ),
  )
  return true
}

function sameSecond(a: number, b: number): boolean {
  return fractionToSeconds(a) === fractionToSeconds(b)
}

function timeWarning(w: TimeWarning): RowProblem {
  const column = w.field === 'start' ? C.start : C.end
  // A skipped time never gets here (readTimes refuses it first); said as an error all the same, should it ever.
  return w.kind === 'nonexistent-time'
    ? problem('nonexistent-time', column, `${w.typed} does not exist on this day (the clocks go forward); type a time that exists`)
    : problem('ambiguous-time', column, `${w.typed} happens twice on this day (the clocks go back); ${w.usedAs} was used`, 'warning')
}

/** `02:30` (or `02:30:15`) of wall-clock seconds. */
function clockText(wallSeconds: number): string {
  const s = ((wallSeconds % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY
  const hm = `${String(Math.floor(s / 3600)).padStart(2, '0')}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`
  return s % 60 === 0 ? hm : `${hm}:${String(s % 60).padStart(2, '0')}`
}
