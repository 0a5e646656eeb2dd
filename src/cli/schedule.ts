/**
 * When `sync --every` / `--cron` runs: the pattern and the zone it is read in. A nightly job belongs to the
 * people whose sheet it fills, so the zone is the target's (`timeZone` in the config), or the one `--zone`
 * names; never the host's, which on a server is often UTC. Croner reads the pattern in that zone: a time the
 * clocks skip runs at the first moment after the gap, a time they repeat runs once.
 */
import { Cron } from 'croner'
import { isValidTimeZone } from '../config/load.ts'
import type { TargetConfig } from '../config/schema.ts'
import { TimelineSheetsError } from '../errors.ts'

export interface Schedule {
  /** A cron pattern (5 fields, or 6 with seconds). */
  pattern: string
  /** IANA zone the pattern's hours are read in. */
  timeZone: string
}

/** The schedule of `sync --every/--cron [--zone]` for these targets. */
export function scheduleOf(options: { every?: string; cron?: string; zone?: string }, targets: readonly TargetConfig[]): Schedule {
  const pattern = options.cron ?? everyToCron(options.every!)
  if (options.zone !== undefined) {
    if (!isValidTimeZone(options.zone))
      throw new TimelineSheetsError('TS_USAGE', `--zone ${options.zone} is not an IANA time zone.`, {
        hint: 'For example Europe/Berlin, America/New_York or UTC.',
      })
    return { pattern, timeZone: options.zone }
  }
  const zones = [...new Set(targets.map((t) => t.timeZone))]
  if (zones.length !== 1)
    throw new TimelineSheetsError('TS_USAGE', `The targets are in different time zones (${zones.join(', ')}), so the schedule has none.`, {
      hint: 'Name the zone the schedule runs in with --zone, or schedule one target at a time with --target.',
    })
  return { pattern, timeZone: zones[0]! }
}

/** A paused croner job for the schedule; `run` is called on each tick. */
export function cronJob(schedule: Schedule, run?: () => Promise<void>): Cron {
  try {
    // protect: a run that takes longer than the interval is not started twice.
    return new Cron(schedule.pattern, { paused: true, protect: true, timezone: schedule.timeZone }, run)
  } catch (error) {
    throw new TimelineSheetsError(
      'TS_USAGE',
      `The schedule "${schedule.pattern}" is not a valid cron expression: ${(error as Error).message}`,
      { hint: 'Examples: --every 1h, --every 30m, --cron "0 2 * * *" (every night at 02:00).' },
    )
  }
}

/** The next `count` run times after `after` (an injected clock: tests, and the log line that says when). */
export function nextRuns(schedule: Schedule, after: Date, count: number): Date[] {
  return cronJob(schedule).nextRuns(count, after)
}

/** `30s`, `30m`, `2h`, `1d` as a cron expression; `1d` is 02:00 in the schedule's zone. */
export function everyToCron(every: string): string {
  const m = /^(\d+)\s*(s|m|min|h|d)$/i.exec(every.trim())
  if (!m)
    throw new TimelineSheetsError('TS_USAGE', `--every ${every} is not understood.`, { hint: 'Use minutes, hours or days: 30m, 2h, 1d.' })
  const n = Number(m[1])
  const unit = m[2]!.toLowerCase()
  if (n < 1) throw new TimelineSheetsError('TS_USAGE', `--every needs at least 1 ${unit}.`)
  if (unit === 's') {
    if (n >= 60 || 60 % n !== 0)
      throw new TimelineSheetsError(
        'TS_USAGE',
        `--every ${every}: seconds must divide a minute (1, 2, 5, 10, 15, 20, 30); use minutes for more.`,
      )
    // Croner's six fields: seconds first.
    return `*/${n} * * * * *`
  }
  if (unit === 'm' || unit === 'min') {
    if (n >= 60 || 60 % n !== 0)
      throw new TimelineSheetsError(
        'TS_USAGE',
        `--every ${every}: minutes must divide an hour (1, 2, 5, 10, 15, 20, 30); use hours for more.`,
      )
    return `*/${n} * * * *`
  }
  if (unit === 'h') {
    if (n >= 24 || 24 % n !== 0)
      throw new TimelineSheetsError(
        'TS_USAGE',
        `--every ${every}: hours must divide a day (1, 2, 3, 4, 6, 8, 12); use --cron for other schedules.`,
      )
    return `0 */${n} * * *`
  }
  if (n !== 1) throw new TimelineSheetsError('TS_USAGE', `--every ${every}: use --cron for schedules longer than a day.`)
  return '0 2 * * *'
}
