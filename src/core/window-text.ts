/**
 * How a run tells an operator which days it covered, and why an export may have found nothing there: the
 * window (local days in the target's zone) is the first thing to check when a sheet stays empty.
 */
import type { ExportWindow } from './export-plan.ts'
import { addDays, type LocalDate } from './serial.ts'
import { plural } from './describe.ts'
import { dayStartText, MIDNIGHT } from './day-start.ts'

/** The days a run covered, as its summary and `--json` report them. */
export interface WindowView {
  /** First local day, `YYYY-MM-DD`. */
  from: LocalDate
  /** Last local day, included. */
  to: LocalDate
  days: number
  timeZone: string
  /** Days at the end of the window an incremental export re-reads in full. */
  lookBackDays: number
  /** The hour each day starts at, `04:00`; absent for days from midnight. */
  dayStartsAt?: string
}

export function windowView(w: ExportWindow): WindowView {
  const view: WindowView = {
    from: w.fromDate,
    to: addDays(w.fromDate, w.days - 1),
    days: w.days,
    timeZone: w.timeZone,
    lookBackDays: w.lookBackDays,
  }
  if (w.dayStart !== MIDNIGHT) view.dayStartsAt = dayStartText(w.dayStart)
  return view
}

/** `2026-10-07 to 2026-11-10 (35 days, Europe/Berlin)`, or `(35 days from 04:00, Europe/Berlin)`. */
export function windowText(w: WindowView): string {
  const from = w.dayStartsAt === undefined ? '' : ` from ${w.dayStartsAt}`
  return `${w.from} to ${w.to} (${w.days} ${w.days === 1 ? 'day' : 'days'}${from}, ${w.timeZone})`
}

/** A Tags timeline as the export saw it in the server's list, with what the list says about its contents. */
export interface ListedTimeline {
  ownerUsername: string
  /** When the server last took a change for it (`lastUpdate.updatedUtcTime`); absent when the server does not say. */
  lastUpdated?: string | undefined
  /** Absent on a timeline that never had a change: it holds nothing. */
  lastChangeId: string | undefined
}

/**
 * Why an export that read every timeline in full may have found no activity, from what it already knows (the
 * timeline list; no extra request): the target's users, the account's rights, the window. Undefined when the
 * export read something, or read incrementally (nothing new since the last run is the normal case).
 */
export function emptyReadExplanation(input: {
  window: WindowView
  /** Every Tags timeline the signed-in account sees. */
  visible: readonly ListedTimeline[]
  /** The target's `users` (empty: every visible timeline). */
  users: readonly string[]
  /** The timelines read, each in full or not. */
  read: readonly { owner: string; mode: 'full' | 'incremental' }[]
  activitiesRead: number
}): string | undefined {
  const { window, visible, users, read } = input
  if (input.activitiesRead > 0 || read.some((r) => r.mode !== 'full')) return undefined
  const days = windowText(window)
  if (visible.length === 0)
    return (
      `No activity read: the signed-in account sees no Tags timeline on the server. An account sees the timelines it may read; ` +
      `one that is not an administrator or content editor sees only its own, and a user who never tagged has none.`
    )
  if (read.length === 0)
    return (
      `No activity read: none of the target's users (${users.join(', ')}) owns one of the ${visible.length} Tags timelines ` +
      `the signed-in account sees (${ownersText(visible)}). Check "users" in the config, and that the account may read theirs.`
    )
  const readOwners = new Set(read.map((r) => r.owner.toLowerCase()))
  const held = visible.filter((t) => readOwners.has(t.ownerUsername.toLowerCase()))
  const never = held.filter((t) => t.lastChangeId === undefined)
  const dated = held.filter((t) => t.lastChangeId !== undefined && t.lastUpdated !== undefined)
  const facts: string[] = []
  if (never.length) facts.push(`${never.length === held.length ? 'every one' : ownersText(never)} never had a change`)
  if (dated.length) {
    const lastDates = dated.map((t) => `${t.ownerUsername} ${t.lastUpdated!.slice(0, 10)}`)
    facts.push(`last changed: ${lastDates.slice(0, 5).join(', ')}${lastDates.length > 5 ? `, … (${lastDates.length - 5} more)` : ''}`)
  }
  const serverSays = facts.length ? ` The server's list of those timelines says: ${facts.join('; ')}.` : ''
  return (
    `No activity in the window ${days} on the ${plural(read.length, 'Tags timeline')} read (${ownersText(held)}).${serverSays} ` +
    `Check that the window reaches the tagged days ("window.days" in the config, or the clock with --now), ` +
    `that "users" names the people meant, and that the signed-in account may read their activities.`
  )
}

function ownersText(timelines: readonly ListedTimeline[]): string {
  const names = timelines.map((t) => t.ownerUsername)
  return names.length > 5 ? `${names.slice(0, 5).join(', ')}, … (${names.length - 5} more)` : names.join(', ')
}
