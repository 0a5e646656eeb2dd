/**
 * What changes between two versions of an activity, in the sheet's columns and the manager's local time
 * (`Start: 09:00 → 09:30`, `Notes: "a" → "b"`), for plans and Statuses that say what a write does
 * instead of repeating the whole row; and plan lines kept short per person (`… and 12 more`).
 */
import type { ActivityInput } from './activity.ts'
import { tagsToCells } from './tags.ts'
import { activityToSheetTimes } from './sheet-times.ts'
import { serialToLocalDate } from './serial.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'

/** One column of the Activities tab whose value changes. */
export interface FieldChange {
  field: 'Date' | 'Start' | 'End' | 'Duration' | 'Tags' | 'Labels' | 'Notes'
  from: string
  to: string
}

type Fields = Record<FieldChange['field'], string>

/** An activity's values as the sheet shows them in `timeZone` (its Date counted from `dayStart`), as text. */
export function sheetFields(input: ActivityInput, timeZone: string, dayStart: DayStart = MIDNIGHT): Fields {
  const times = activityToSheetTimes(input.start, input.duration, timeZone, dayStart)
  const cells = tagsToCells(input.tags)
  const endDays = Math.floor(times.end)
  return {
    Date: serialToLocalDate(times.date),
    Start: clock(times.start),
    End: endDays > 0 ? `+${endDays}d ${clock(times.end % 1)}` : clock(times.end),
    Duration: hours(input.duration),
    Tags: cells.tags,
    Labels: cells.labels,
    Notes: input.notes ?? '',
  }
}

const ORDER: FieldChange['field'][] = ['Date', 'Start', 'End', 'Tags', 'Labels', 'Notes']

/**
 * The columns that differ from `before` to `after`, in the tab's order. Duration is named only when Start
 * and End do not already say it (an activity that grows by whole days).
 */
export function activityChanges(
  before: ActivityInput,
  after: ActivityInput,
  timeZone: string,
  dayStart: DayStart = MIDNIGHT,
): FieldChange[] {
  const a = sheetFields(before, timeZone, dayStart)
  const b = sheetFields(after, timeZone, dayStart)
  const changes = ORDER.filter((f) => a[f] !== b[f]).map((field) => ({ field, from: a[field], to: b[field] }))
  if (a.Duration !== b.Duration && !changes.some((c) => c.field === 'Start' || c.field === 'End')) {
    changes.push({ field: 'Duration', from: a.Duration, to: b.Duration })
  }
  return changes
}

/** `Start: 09:00 → 09:30; Notes: "a" → "b"`, or `no change` when there is none. */
export function describeChanges(changes: readonly FieldChange[]): string {
  if (changes.length === 0) return 'no change'
  return changes.map((c) => `${c.field}: ${show(c, c.from)} → ${show(c, c.to)}`).join('; ')
}

/** A reason followed by the changes it made: `Saved to the server: Start: 09:00 → 09:30.` (unchanged when there are none). */
export function withChanges(reason: string, changes: readonly FieldChange[]): string {
  return changes.length === 0 ? reason : `${reason.replace(/\.$/, '')}: ${describeChanges(changes)}.`
}

/** When an activity starts, as the sheet shows it: `2026-11-05 09:00`. */
export function whenOf(input: Pick<ActivityInput, 'start' | 'duration'>, timeZone: string, dayStart: DayStart = MIDNIGHT): string {
  const f = sheetFields({ ...input, tags: [], notes: undefined }, timeZone, dayStart)
  return `${f.Date} ${f.Start}`
}

/**
 * Plan lines grouped by person, each group cut to its first `perPerson` lines and a `… and N more` line,
 * so a plan of 300 deletions stays readable (the full list is in `--plan-tab` and `--json`).
 */
export function linesPerPerson(items: readonly { person: string; line: string }[], perPerson: number, indent = '  '): string[] {
  const groups = new Map<string, string[]>()
  for (const item of items) {
    const list = groups.get(item.person)
    if (list) list.push(item.line)
    else groups.set(item.person, [item.line])
  }
  const out: string[] = []
  for (const [person, lines] of groups) {
    out.push(`${indent}${person}:`)
    for (const line of lines.slice(0, perPerson)) out.push(`${indent}  ${line}`)
    if (lines.length > perPerson) out.push(`${indent}  … and ${lines.length - perPerson} more`)
  }
  return out
}

function show(change: FieldChange, value: string): string {
  if (change.field === 'Notes') return `"${oneLine(value)}"`
  return value === '' ? '(empty)' : value
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\r?\n\s*/g, ' / ')
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat
}

function clock(fraction: number): string {
  const minutes = Math.round((fraction % 1) * 1440) % 1440
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

function hours(seconds: number): string {
  const minutes = Math.round(seconds / 60)
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`
}
