/**
 * An activity in the words and local times a manager reads in the sheet, for
 * Status texts that must be acted on ("the server now has …") and for plans.
 */
import type { Activity, ActivityInput } from './activity.ts'
import { tagsToCells } from './tags.ts'
import { activityToSheetTimes } from './sheet-times.ts'
import { addDays, serialToLocalDate } from './serial.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'

export function describeActivity(activity: Activity, timeZone: string, dayStart: DayStart = MIDNIGHT): string {
  const times = activityToSheetTimes(activity.start, activity.duration, timeZone, dayStart)
  const cells = tagsToCells(activity.tags)
  const tags = [cells.tags, cells.labels].filter(Boolean).join(', ')
  const notes = activity.notes ? `; notes "${oneLine(activity.notes)}"` : ''
  return `${serialToLocalDate(times.date)} ${clock(times.start)}–${clock(times.end % 1)}, ${tags || 'no tags'}${notes}`
}

/** A conflict's reason with the server's current version appended, so the manager can compare. */
export function withServerVersion(reason: string, activity: Activity | undefined, timeZone: string, dayStart: DayStart = MIDNIGHT): string {
  return activity ? `${reason} The server now has: ${describeActivity(activity, timeZone, dayStart)}.` : reason
}

function clock(fraction: number): string {
  const minutes = Math.round(fraction * 1440) % 1440
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`
}

function oneLine(text: string): string {
  const flat = text.replace(/\s*\r?\n\s*/g, ' / ')
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat
}

/** `2026-11-09 14:00 1:30 Globex, Migration` */
export function describeInput(input: ActivityInput, dayStart: DayStart = MIDNIGHT): string {
  const hours = Math.floor(input.duration / 3600)
  const minutes = Math.round((input.duration % 3600) / 60)
  return `${startText(input.start, dayStart)} ${hours}:${String(minutes).padStart(2, '0')} ${input.tags.join(', ')}`
}

/** `2026-11-09 01:00` of a start as written, its date the day it belongs to (a row's Date) when days start later than midnight. */
function startText(start: string, dayStart: DayStart): string {
  const date = start.slice(0, 10)
  const time = start.slice(11, 16)
  if (dayStart === MIDNIGHT || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return `${date} ${time}`
  const seconds = Number(start.slice(11, 13)) * 3600 + Number(start.slice(14, 16)) * 60 + (Number(start.slice(17, 19)) || 0)
  return `${seconds < dayStart ? addDays(date, -1) : date} ${time}`
}

/** `1 timeline`, `6 timelines`: a count with its noun, for summaries and the Sync log. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
