/**
 * Deterministic test data for the reference Timeline server: users with a
 * Tags, a ComputerUsage and an Applications timeline, working days of tagged
 * time with a Client/Project/Task tree and labels, notes that tempt a
 * spreadsheet (formulas, leading zeros, several lines), overlaps, activities
 * across midnight and across DST changes, and allowed tag combinations for
 * everyone, one user and one team. Same options, same data.
 */
import { tzOffset } from '@date-fns/tz'
import { createRandom, type Role, type TimelineStore, type UserRecord } from './store.ts'
import { zonedInstant } from './time.ts'

export interface SeedOptions {
  /** Team members to create (staff accounts come on top). @default 5 */
  users?: number
  /** Days of data per user, from `startDate`. @default 14 */
  days?: number
  /** First day, `YYYY-MM-DD`. @default '2026-03-23' (its second week holds the Berlin DST change) */
  startDate?: string
  /** PRNG seed. @default 42 */
  seed?: number
  /** Zones given to users in turn. @default ['Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Kolkata'] */
  timeZones?: string[]
  /** `EXAMPLE\alice` instead of `alice@example.com`. @default false */
  directoryUsers?: boolean
  /** Create ComputerUsage and Applications timelines too. @default true */
  otherTimelines?: boolean
  /** Add the administrator, transfer (content editor) and reader accounts. @default true */
  staff?: boolean
  /** Set allowed tag combinations. @default true */
  allowedTags?: boolean
}

export interface SeededUser {
  username: string
  password: string
  displayName: string
  role: Role
  teams: string[]
  timeZone: string | undefined
  tagsTimelineKey: string | undefined
}

export interface SeedResult {
  users: SeededUser[]
  /** The content editor a transfer service signs in as. */
  transfer: SeededUser | undefined
  admin: SeededUser | undefined
  reader: SeededUser | undefined
  activityCount: number
}

const FIRST_NAMES = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'karl',
  'lena',
  'mallory',
  'nina',
  'oscar',
  'peggy',
  'quinn',
  'rupert',
  'sybil',
  'trent',
]
const TEAMS = ['Design', 'Engineering', 'Support']

/** Client → project → tasks. */
const TAG_TREE: Record<string, Record<string, string[]>> = {
  'Acme Corp': { Website: ['Design', 'Build', 'Review'], 'Mobile App': ['Planning', 'Build', 'Testing'] },
  Globex: { Migration: ['Analysis', 'Data import', 'Cut-over'] },
  Initech: { Support: ['Tickets', 'On-call'] },
  Internal: { Admin: ['Email', 'Timesheets'], Training: ['Course', 'Reading'], Meetings: ['Standup', 'Planning'] },
}

const NOTES = [
  'Call with the client about scope',
  'Fixed login bug\nDeployed to staging\nWaiting for review',
  '=IMPORTDATA(x)',
  '0042',
  '+49 30 1234567',
  '1/2',
  'TRUE',
  '-15',
  'Ticket #1234: "printer on fire"',
  'Ünïcödé — naïve café ☕',
  'Line one\r\nLine two',
  '  leading and trailing spaces  ',
]

const APPS = ['Outlook', 'Chrome', 'Excel', 'Visual Studio Code', 'Teams', 'Slack', 'Word', 'Figma']

/** Staff accounts and their passwords. */
export const STAFF = {
  admin: { local: 'admin', password: 'admin-password', role: 'administrator', displayName: 'Admin' },
  transfer: { local: 'transfer', password: 'transfer-password', role: 'contentEditor', displayName: 'Transfer Service' },
  reader: { local: 'reader', password: 'reader-password', role: 'contentReader', displayName: 'Auditor' },
} as const

/** Fills a store with users, timelines, activities and allowed tags. */
export function seedStore(store: TimelineStore, options: SeedOptions = {}): SeedResult {
  const userCount = options.users ?? 5
  const days = options.days ?? 14
  const startDate = options.startDate ?? '2026-03-23'
  const zones = options.timeZones ?? ['Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Kolkata']
  const random = createRandom(options.seed ?? 42)
  const directory = options.directoryUsers ?? false
  if (!/^\d{4}-\d{2}-\d{2}$/.test(startDate)) {
    throw new TypeError(`Expected \`startDate\` to be YYYY-MM-DD, got ${JSON.stringify(startDate)}`)
  }
  for (const [name, value] of [
    ['users', userCount],
    ['days', days],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) throw new TypeError(`Expected \`${name}\` to be an integer >= 0, got \`${value}\``)
  }
  if (zones.length === 0) throw new TypeError('Expected `timeZones` to hold at least one zone')
  const usernameOf = (local: string) => (directory ? `EXAMPLE\\${local}` : `${local}@example.com`)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!

  const result: SeedResult = { users: [], transfer: undefined, admin: undefined, reader: undefined, activityCount: 0 }
  const describe = (record: UserRecord, timeZone: string | undefined, tagsTimelineKey: string | undefined): SeededUser => ({
    username: record.username,
    password: record.password,
    displayName: record.displayName,
    role: record.role,
    teams: record.teams,
    timeZone,
    tagsTimelineKey,
  })

  if (options.staff ?? true) {
    for (const [slot, staff] of Object.entries(STAFF) as Array<[keyof typeof STAFF, (typeof STAFF)[keyof typeof STAFF]]>) {
      const record = store.addUser({
        username: usernameOf(staff.local),
        password: staff.password,
        displayName: staff.displayName,
        role: staff.role,
      })
      result[slot] = describe(record, undefined, undefined)
    }
  }

  const [year, month, day] = startDate.split('-').map(Number) as [number, number, number]
  for (let u = 0; u < userCount; u++) {
    const base = FIRST_NAMES[u % FIRST_NAMES.length]!
    const local = u < FIRST_NAMES.length ? base : `${base}${Math.floor(u / FIRST_NAMES.length) + 1}`
    const timeZone = zones[u % zones.length]!
    const record = store.addUser({
      username: usernameOf(local),
      password: `${local}-password`,
      displayName: local.charAt(0).toUpperCase() + local.slice(1),
      role: 'user',
      teams: [TEAMS[u % TEAMS.length]!],
    })
    const tags = store.createTimeline({ owner: record.username, kind: 'Tags' })
    const usage = (options.otherTimelines ?? true) ? store.createTimeline({ owner: record.username, kind: 'ComputerUsage' }) : undefined
    const apps = (options.otherTimelines ?? true) ? store.createTimeline({ owner: record.username, kind: 'Applications' }) : undefined
    result.users.push(describe(record, timeZone, tags.key))

    const add = (key: string, name: string, startMs: number, seconds: number, notes?: string, isActive?: boolean) => {
      store.createActivity(key, { tags: name, start: isoIn(startMs, timeZone), duration: seconds, notes, isActive })
      result.activityCount++
    }

    for (let d = 0; d < days; d++) {
      const date = new Date(Date.UTC(year, month - 1, day + d))
      const [y, m, dd] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()]
      const weekend = date.getUTCDay() === 0 || date.getUTCDay() === 6
      const midnight = zonedInstant(y, m, dd, 0, 0, timeZone)
      const nextMidnight = zonedInstant(date.getUTCFullYear(), m, dd + 1, 0, 0, timeZone)
      const dstDay = tzOffset(timeZone, new Date(midnight)) !== tzOffset(timeZone, new Date(nextMidnight - 1))
      if (dstDay) {
        // Night work across the clock change: wall time and duration disagree on purpose.
        add(
          tags.key,
          'Initech, Support, On-call, :billable',
          zonedInstant(y, m, dd, 1, 30, timeZone),
          2 * 3600,
          'Night shift across the clock change',
        )
      }
      if (weekend && random() < 0.8) continue

      let cursor = zonedInstant(y, m, dd, 8, Math.floor(random() * 6) * 15, timeZone)
      const dayEnd = zonedInstant(y, m, dd, 17, Math.floor(random() * 4) * 15, timeZone)
      while (cursor < dayEnd) {
        const client = pick(Object.keys(TAG_TREE))
        const project = pick(Object.keys(TAG_TREE[client]!))
        const task = pick(TAG_TREE[client]![project]!)
        const labels = client === 'Internal' ? (random() < 0.1 ? [':overtime'] : []) : [':billable']
        const minutes = 15 * (1 + Math.floor(random() * 8))
        const notes = random() < 0.4 ? pick(NOTES) : undefined
        add(tags.key, [client, project, task, ...labels].join(', '), cursor, minutes * 60, notes)
        const overlap = random() < 0.05
        cursor += (minutes - (overlap ? 10 : 0) + (random() < 0.3 ? 5 : 0)) * 60_000
      }
      if (random() < 0.08) {
        // Late work that runs past midnight.
        add(tags.key, 'Acme Corp, Mobile App, Build, :billable', zonedInstant(y, m, dd, 23, 15, timeZone), 5400, 'Release night')
      }
      if (usage) {
        let at = zonedInstant(y, m, dd, 7, 45, timeZone)
        let active = true
        while (at < dayEnd + 1800_000) {
          const minutes = active ? 45 + Math.floor(random() * 90) : 5 + Math.floor(random() * 25)
          add(usage.key, active ? 'Active' : 'Away', at, minutes * 60, undefined, active)
          at += minutes * 60_000
          active = !active
        }
      }
      if (apps) {
        let at = zonedInstant(y, m, dd, 8, 0, timeZone)
        while (at < dayEnd) {
          const minutes = 15 + Math.floor(random() * 60)
          add(apps.key, pick(APPS), at, minutes * 60)
          at += minutes * 60_000
        }
      }
    }
  }

  if (options.allowedTags ?? true) {
    const everyone: string[] = []
    for (const [client, projects] of Object.entries(TAG_TREE)) {
      for (const [project, tasks] of Object.entries(projects)) {
        for (const task of tasks) everyone.push(`${client}, ${project}, ${task}`)
      }
    }
    const firstUser = result.users[0]
    store.setAllowedTags({
      everyone,
      groups: [
        ...(firstUser ? [{ appliesTo: [`[${firstUser.username}]`], combinations: ['Secret Client, Due diligence'] }] : []),
        { appliesTo: [`{${TEAMS[0]}}`], combinations: ['Acme Corp, Website, Design, :billable', 'Internal, Design review,.'] },
      ],
    })
  }
  return result
}

// tzOffset is cached per zone by @date-fns/tz; faster than a TZDate per activity.
function isoIn(ms: number, timeZone: string): string {
  const offset = tzOffset(timeZone, new Date(ms))
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19)
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}
