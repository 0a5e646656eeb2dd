/**
 * Reading a row: its cells taken once, in the header's order, with every check that does not depend on the
 * server's activities — a blank or cleared row, the Delete tick, the Key and Base, the user, the times as the
 * cells alone say them, the tags, and the fingerprint of what the cells say. It stands apart from judging
 * because an import reads each row once and judges the same reading twice (without the server's activities,
 * which rows ask for something, then with them), and a read of a tab keeps one memo across its rows.
 */
import type { CellValue } from './sheet.ts'
import { ACTIVITY_COLUMN, type HeaderLayout } from './columns.ts'
import { cellText, excerpt, isErrorValue, isFormula, readCheckboxCell, readDateCell } from './cells.ts'
import { fingerprintAt } from './fingerprint.ts'
import { parseOffsetInstant } from './instant.ts'
import { isPendingMark, parseActivityKey } from './activity-key.ts'
import type { KnownUser, ReadContext } from './row-context.ts'
import { invalid, NO_PROBLEMS, problem, type ParsedRow, type RowProblem } from './row-outcome.ts'
import { userCellOf, usersIndex, type UserCell } from './row-users.ts'
import { tagCellsOf, type TagCells } from './row-tags.ts'
import { allEmpty, CLEARED_SLOTS, columnsOf, S, VALUE_SLOTS } from './row-slots.ts'
import { readTimeCells, resolveTimes, type ResolvedTimes, type TypedTimes } from './row-times.ts'

const C = ACTIVITY_COLUMN

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
  const deleteCell = get(S.delete)
  const deleteRead = readCheckboxCell(isFormula(deleteCell) || isErrorValue(deleteCell) ? 'not a tick' : deleteCell)
  const ticked = deleteRead.ok && deleteRead.value
  // A blank row (one a removal emptied, decisions/0030) has no date to read.
  if (allEmpty(cells, columns, VALUE_SLOTS) && !ticked) {
    return {
      dateSerial: undefined,
      settled: deleteRead.ok ? { ok: true, row: null } : invalid(undefined, [checkboxProblem(get(S.delete))]),
    }
  }
  const order = ctx.slashDateOrder ?? 'mdy'
  const dateRead = readDateCell(get(S.date), order)
  const dateSerial = dateRead.ok ? dateRead.value : undefined

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

  const { user, problems: userProblems } = userCellOf(get(S.user), key, ctx.users, memo, ctx.teamOnly ?? false)
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

export function deletionOf(key: NonNullable<RowReading['key']>, baseCell: string | undefined): ParsedRow {
  return { ok: true, row: { kind: 'delete', key: key.text, entityId: key.entityId, timelineKey: key.timelineKey, baseCell, warnings: [] } }
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
