/**
 * In-memory state of the reference Timeline server: users, tokens, timelines
 * with their entity model (activity → groupList → group), change log and
 * allowed tag combinations (`allowed-tags.ts`). The handler is a thin HTTP layer over it; tests
 * and tools call it directly to act as "another writer" or to inspect state.
 */
import { randomBytes } from 'node:crypto'
import { vendorIdentifiers, type VendorIdentifiers } from '../../src/timeline/vendor.ts'
import { allowedTagsPart } from './allowed-tags.ts'
import { parseStart, utcStamp } from './time.ts'

export { expandTagLines, normaliseAppliesTo, type AllowedTagsGroupInit, type AllowedTagsState } from './allowed-tags.ts'

export type Role = 'administrator' | 'contentEditor' | 'contentReader' | 'user'

/** Kinds of timelines the server holds; only `Tags` accepts writes through the API. */
export type TimelineKind = 'Tags' | 'ComputerUsage' | 'Applications'

export interface UserInit {
  /** E-mail style (`alice@example.com`) or directory style (`EXAMPLE\\alice`). */
  username: string
  password: string
  displayName?: string
  /** @default 'user' */
  role?: Role
  /** Team names, without braces. */
  teams?: string[]
}

export interface UserRecord {
  username: string
  password: string
  displayName: string
  role: Role
  teams: string[]
}

export interface TimelineStoreOptions {
  /** Vendor token for media type, rels and schema names. @default 'manictime' */
  vendor?: string
  /** IANA zone for range bounds sent without an offset. @default 'UTC' */
  serverTimeZone?: string
  /**
   * List deletions on incremental reads, as the only official sample answer does (v2): `deletedActivityIds`
   * (strings) beside `deletedGroupIds`, `deletedGroupListIds` and `deletedFolderIds` (always empty: this server
   * deletes no group, groupList or folder). False stands for a server that reports none. @default true
   */
  reportDeletions?: boolean
  /** Where allowed tags come from; POST tagcombinationlist needs 'service'. @default 'service' */
  tagSource?: 'service' | 'other'
  /**
   * Refuse activities reads over a range longer than `maxDays` with `status`
   * (400 `Validation` by default; 413, 500 and 504 as a proxy or a struggling
   * server would answer). The real service publishes no maximum; this stands
   * for one that has one. @default no limit
   */
  rangeLimit?: RangeLimit
  /**
   * How an `updatedactivities` link older than the timeline's change tracking
   * (`trimChangeTracking`) is refused: 400 `Validation` (default, as other bad
   * parameters are), 410 `ChangesTrimmed`, or 500 as an unhandled failure. The
   * real service's answer is not documented. @default 400
   */
  trimmedLinkStatus?: TrimmedLinkStatus
  /** Seed of the PRNG behind change ids, keys and colours. @default 1 */
  seed?: number
  /** Clock for `lastUpdate`. @default Date.now */
  now?: () => number
}

/** How a server with a maximum read range answers a longer one. */
export interface RangeLimit {
  maxDays: number
  /** @default 400 */
  status?: 400 | 413 | 500 | 504
}

export type TrimmedLinkStatus = 400 | 410 | 500

/** Error a store operation raises; the handler turns it into a JSON error response. */
export class TimelineStoreError extends Error {
  readonly errorCode: string
  readonly status: number

  constructor(status: number, errorCode: string, message: string) {
    super(message)
    this.name = 'TimelineStoreError'
    this.status = status
    this.errorCode = errorCode
  }
}

export interface GroupRecord {
  id: number
  key: string
  name: string
  color: string
}

export interface GroupListRecord {
  id: number
  groupIds: number[]
}

export interface ActivityRecord {
  id: number
  /** Tags timelines: the groupList; other timelines: undefined. */
  groupListId: number | undefined
  /** Group-based timelines: the group; Tags timelines: undefined. */
  groupId: number | undefined
  notes: string | undefined
  start: string
  startMs: number
  duration: number
  isActive: boolean
  /** Sequence of the change that created or last updated it. */
  changedSeq: number
}

export interface ChangeRecord {
  seq: number
  changeId: string
  kind: 'created' | 'updated' | 'deleted'
  entityId: number
}

export interface TimelineRecord {
  key: string
  publishKey: string
  owner: string
  kind: TimelineKind
  environmentId: string
  deviceName: string
  nextEntityId: number
  seq: number
  changeId: string
  lastUpdateMs: number
  groups: Map<number, GroupRecord>
  groupsByKey: Map<string, number>
  groupLists: Map<number, GroupListRecord>
  groupListsByIds: Map<string, number>
  activities: Map<number, ActivityRecord>
  /** Activities by start; rebuilt lazily after writes. */
  sorted: ActivityRecord[]
  sortedDirty: boolean
  /** Longest duration ever stored, in ms: bounds the overlap search. */
  maxDurationMs: number
  changes: ChangeRecord[]
  deletions: Array<{ seq: number; id: number; startMs: number; endMs: number }>
  /** Changes after this sequence are tracked: an incremental read from an earlier one cannot be answered. */
  trackedAfterSeq: number
  /** The `updatedactivities` links given out, as `timestamp from-ms to-ms`: only these are answered. */
  issuedLinks: Set<string>
}

/** What a create or update stores. Tags are split on `,` and trimmed when given as a name. */
export interface ActivityWrite {
  tags: string[] | string
  notes?: string | undefined
  /** ISO 8601 date-time with an offset. */
  start: string
  /** Seconds, integer ≥ 0. */
  duration: number
  isActive?: boolean
}

export interface WriteOptions {
  /** When given (not null/undefined), must equal the timeline's lastChangeId. */
  expectedLastChangeId?: string | null
}

export const MAX_TAGS = 10
export const MAX_TAG_LENGTH = 200

/** Seeded PRNG (mulberry32): same seed, same sequence. Returns [0, 1). */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Splits a `name` into tags: on `,`, trimmed. Empty entries are kept so validation can name them. */
export function splitTags(name: string): string[] {
  return name.split(',').map((tag) => tag.trim())
}

export type TimelineStore = ReturnType<typeof createTimelineStore>

/** Creates an empty store. Add users, timelines and activities with its methods or `seedStore`. */
export function createTimelineStore(options: TimelineStoreOptions = {}) {
  const vendor: VendorIdentifiers = vendorIdentifiers(options.vendor ?? 'manictime')
  const serverTimeZone = options.serverTimeZone ?? 'UTC'
  const settings = {
    reportDeletions: options.reportDeletions ?? true,
    tagSource: options.tagSource ?? ('service' as 'service' | 'other'),
    rangeLimit: options.rangeLimit as RangeLimit | undefined,
    trimmedLinkStatus: options.trimmedLinkStatus ?? (400 as TrimmedLinkStatus),
  }
  const random = createRandom(options.seed ?? 1)
  const now = options.now ?? Date.now
  const users = new Map<string, UserRecord>()
  const tokens = new Map<string, string>()
  const timelines = new Map<string, TimelineRecord>()

  const seededGuid = (): string => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('')
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[Math.floor(random() * 4)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
  }
  const randomPart = (): number => Math.floor(random() * 2 ** 31)

  function user(username: string): UserRecord | undefined {
    return users.get(username.toLowerCase())
  }

  function requireTimeline(key: string): TimelineRecord {
    const timeline = timelines.get(key.toLowerCase())
    if (!timeline) throw new TimelineStoreError(404, 'NotFound', `Timeline '${key}' was not found.`)
    return timeline
  }

  function requireActivity(timeline: TimelineRecord, entityId: number): ActivityRecord {
    const activity = timeline.activities.get(entityId)
    if (!activity) {
      throw new TimelineStoreError(404, 'NotFound', `Activity ${entityId} was not found on timeline '${timeline.key}'.`)
    }
    return activity
  }

  function checkExpected(timeline: TimelineRecord, write: WriteOptions): void {
    const expected = write.expectedLastChangeId
    if (expected === undefined || expected === null) return
    const current = lastChangeIdOf(timeline)
    if (current === undefined) {
      throw new TimelineStoreError(409, 'Concurrency/InvalidTimestamp', 'Invalid last change. Should be null.')
    }
    if (expected !== current) {
      throw new TimelineStoreError(
        409,
        'Concurrency/InvalidTimestamp',
        `Invalid last change. Should be '${current}', but is '${expected}'.`,
      )
    }
  }

  function commit(timeline: TimelineRecord, kind: ChangeRecord['kind'], entityId: number): number {
    timeline.seq += 1
    timeline.changeId = `${timeline.seq},${randomPart()}`
    timeline.lastUpdateMs = now()
    timeline.changes.push({ seq: timeline.seq, changeId: timeline.changeId, kind, entityId })
    return timeline.seq
  }

  function validTags(write: ActivityWrite): string[] {
    const tags = typeof write.tags === 'string' ? splitTags(write.tags) : write.tags.map((tag) => tag.trim())
    if (tags.length === 0 || (tags.length === 1 && tags[0] === '')) {
      throw new TimelineStoreError(400, 'Validation', 'name must hold at least one tag.')
    }
    if (tags.length > MAX_TAGS) {
      throw new TimelineStoreError(400, 'Validation', `name holds ${tags.length} tags; at most ${MAX_TAGS} are allowed.`)
    }
    tags.forEach((tag, index) => {
      if (tag === '') throw new TimelineStoreError(400, 'Validation', `Tag ${index + 1} of name is empty.`)
      if (tag.length > MAX_TAG_LENGTH) {
        throw new TimelineStoreError(
          400,
          'Validation',
          `Tag length cannot exceed ${MAX_TAG_LENGTH} characters (tag ${index + 1} has ${tag.length}).`,
        )
      }
    })
    return tags
  }

  function validInterval(write: ActivityWrite): { start: string; startMs: number; duration: number } {
    const parsed = typeof write.start === 'string' ? parseStart(write.start) : undefined
    if (!parsed) {
      throw new TimelineStoreError(
        400,
        'Validation',
        `timeInterval.start must be an ISO 8601 date-time with an offset, got ${JSON.stringify(write.start)}.`,
      )
    }
    if (!Number.isInteger(write.duration) || write.duration < 0) {
      throw new TimelineStoreError(
        400,
        'Validation',
        `timeInterval.duration must be an integer number of seconds >= 0, got ${JSON.stringify(write.duration)}.`,
      )
    }
    return { start: parsed.text, startMs: parsed.ms, duration: write.duration }
  }

  function groupFor(timeline: TimelineRecord, tag: string): number {
    const lookup = tag.toLowerCase()
    const existing = timeline.groupsByKey.get(lookup)
    if (existing !== undefined) return existing
    const id = timeline.nextEntityId++
    timeline.groups.set(id, { id, key: tag, name: tag, color: colorOf(lookup) })
    timeline.groupsByKey.set(lookup, id)
    return id
  }

  function groupListFor(timeline: TimelineRecord, groupIds: number[]): number {
    const lookup = groupIds.join(',')
    const existing = timeline.groupListsByIds.get(lookup)
    if (existing !== undefined) return existing
    const id = timeline.nextEntityId++
    timeline.groupLists.set(id, { id, groupIds: [...groupIds] })
    timeline.groupListsByIds.set(lookup, id)
    return id
  }

  function place(timeline: TimelineRecord, activity: ActivityRecord, tags: string[]): void {
    if (timeline.kind === 'Tags') {
      activity.groupListId = groupListFor(
        timeline,
        tags.map((tag) => groupFor(timeline, tag)),
      )
      activity.groupId = undefined
    } else {
      activity.groupId = groupFor(timeline, tags.join(', '))
      activity.groupListId = undefined
    }
    timeline.maxDurationMs = Math.max(timeline.maxDurationMs, activity.duration * 1000)
    timeline.sortedDirty = true
  }

  function sortedActivities(timeline: TimelineRecord): ActivityRecord[] {
    if (timeline.sortedDirty) {
      timeline.sorted = [...timeline.activities.values()].sort((a, b) => a.startMs - b.startMs || a.id - b.id)
      timeline.sortedDirty = false
    }
    return timeline.sorted
  }

  function lastChangeIdOf(timeline: TimelineRecord): string | undefined {
    return timeline.seq === 0 ? undefined : timeline.changeId
  }

  const store = {
    vendor,
    serverTimeZone,
    /** Mutable at runtime: deletion reporting, tag source, range limit, trimmed-link answer. */
    settings,

    // ── users and tokens ────────────────────────────────────────────────
    /** Adds a user; usernames are unique case-insensitively. */
    addUser(init: UserInit): UserRecord {
      if (users.has(init.username.toLowerCase())) throw new TypeError(`User ${init.username} exists already`)
      const record: UserRecord = {
        username: init.username,
        password: init.password,
        displayName: init.displayName ?? init.username.replace(/@.*$/, '').replace(/^.*\\/, ''),
        role: init.role ?? 'user',
        teams: init.teams ?? [],
      }
      users.set(init.username.toLowerCase(), record)
      return record
    },
    user,
    users(): UserRecord[] {
      return [...users.values()]
    },
    /** The user when the password matches, else undefined. */
    verifyPassword(username: string, password: string): UserRecord | undefined {
      const record = user(username)
      return record && record.password === password ? record : undefined
    },
    /** A new bearer token (32 hex) for the user; tokens never expire. */
    issueToken(username: string): string {
      const record = user(username)
      if (!record) throw new TypeError(`No user ${username}`)
      const token = randomBytes(16).toString('hex')
      tokens.set(token, record.username)
      return token
    },
    /** The user a token belongs to, or undefined when unknown or revoked. */
    userForToken(token: string): UserRecord | undefined {
      const username = tokens.get(token)
      return username === undefined ? undefined : user(username)
    },
    /** Revokes every token of a user ("logs the user out from all devices"). Returns how many. */
    revokeTokens(username: string): number {
      let count = 0
      for (const [token, owner] of tokens) {
        if (owner.toLowerCase() === username.toLowerCase()) {
          tokens.delete(token)
          count++
        }
      }
      return count
    },
    /** Sets a new password and revokes the user's tokens, as the real server does. */
    resetPassword(username: string, password: string): void {
      const record = user(username)
      if (!record) throw new TypeError(`No user ${username}`)
      record.password = password
      store.revokeTokens(username)
    },

    // ── timelines ───────────────────────────────────────────────────────
    /** Creates an empty timeline (no changes yet, so no lastChangeId). */
    createTimeline(init: { owner: string; kind?: TimelineKind; key?: string; deviceName?: string }): TimelineRecord {
      const owner = user(init.owner)
      if (!owner) throw new TypeError(`No user ${init.owner}`)
      const key = (init.key ?? seededGuid()).toLowerCase()
      if (timelines.has(key)) throw new TypeError(`Timeline ${key} exists already`)
      const timeline: TimelineRecord = {
        key,
        publishKey: seededGuid(),
        owner: owner.username,
        kind: init.kind ?? 'Tags',
        environmentId: seededGuid(),
        deviceName: init.deviceName ?? `${owner.displayName.toUpperCase()}-PC`,
        nextEntityId: 1,
        seq: 0,
        changeId: `0,${randomPart()}`,
        lastUpdateMs: now(),
        groups: new Map(),
        groupsByKey: new Map(),
        groupLists: new Map(),
        groupListsByIds: new Map(),
        activities: new Map(),
        sorted: [],
        sortedDirty: false,
        maxDurationMs: 0,
        changes: [],
        deletions: [],
        trackedAfterSeq: 0,
        issuedLinks: new Set(),
      }
      timelines.set(key, timeline)
      return timeline
    },
    timelines(): TimelineRecord[] {
      return [...timelines.values()]
    },
    /** The timeline, or undefined. Keys compare case-insensitively. */
    timeline(key: string): TimelineRecord | undefined {
      return timelines.get(key.toLowerCase())
    },
    /** The user's first timeline of a kind. */
    timelineOf(username: string, kind: TimelineKind = 'Tags'): TimelineRecord | undefined {
      return [...timelines.values()].find((t) => t.kind === kind && t.owner.toLowerCase() === username.toLowerCase())
    },
    schemaName(timeline: TimelineRecord): string {
      return vendor.schema(timeline.kind)
    },
    baseSchemaName(timeline: TimelineRecord): string {
      return vendor.schema(timeline.kind === 'Tags' ? 'Generic/GroupList' : 'Generic/Group')
    },
    /** `"<seq>,<rand>"` of the last change, undefined before the first. */
    lastChangeId(key: string): string | undefined {
      return lastChangeIdOf(requireTimeline(key))
    },
    /** `"<seq>,<rand>"`; equals lastChangeId once the timeline has changes. */
    timestamp(key: string): string {
      return requireTimeline(key).changeId
    },
    lastUpdate(key: string): string {
      return utcStamp(requireTimeline(key).lastUpdateMs)
    },

    // ── activities ──────────────────────────────────────────────────────
    /** Creates an activity; one change. Validation and concurrency errors change nothing. */
    createActivity(key: string, write: ActivityWrite, options: WriteOptions = {}): ActivityRecord {
      const timeline = requireTimeline(key)
      const tags = validTags(write)
      const interval = validInterval(write)
      checkExpected(timeline, options)
      const activity: ActivityRecord = {
        id: 0,
        groupListId: undefined,
        groupId: undefined,
        notes: write.notes === '' ? undefined : write.notes,
        ...interval,
        isActive: write.isActive ?? true,
        changedSeq: 0,
      }
      // Referenced groups and groupList get their ids first, so every reference points backwards.
      place(timeline, activity, tags)
      activity.id = timeline.nextEntityId++
      timeline.activities.set(activity.id, activity)
      activity.changedSeq = commit(timeline, 'created', activity.id)
      return activity
    },
    /** Replaces an activity's values (tags, notes, interval); one change. */
    updateActivity(key: string, entityId: number, write: ActivityWrite, options: WriteOptions = {}): ActivityRecord {
      const timeline = requireTimeline(key)
      const tags = validTags(write)
      const interval = validInterval(write)
      checkExpected(timeline, options)
      const activity = requireActivity(timeline, entityId)
      activity.notes = write.notes === '' ? undefined : write.notes
      activity.start = interval.start
      activity.startMs = interval.startMs
      activity.duration = interval.duration
      if (write.isActive !== undefined) activity.isActive = write.isActive
      place(timeline, activity, tags)
      activity.changedSeq = commit(timeline, 'updated', activity.id)
      return activity
    },
    /** Deletes an activity; one change. Its groups and groupList stay for reuse. */
    deleteActivity(key: string, entityId: number, options: WriteOptions = {}): void {
      const timeline = requireTimeline(key)
      checkExpected(timeline, options)
      const activity = requireActivity(timeline, entityId)
      timeline.activities.delete(entityId)
      timeline.sortedDirty = true
      const seq = commit(timeline, 'deleted', entityId)
      timeline.deletions.push({
        seq,
        id: entityId,
        startMs: activity.startMs,
        endMs: activity.startMs + activity.duration * 1000,
      })
    },
    /** One activity, or undefined. */
    activity(key: string, entityId: number): ActivityRecord | undefined {
      return requireTimeline(key).activities.get(entityId)
    },
    /** All activities of a timeline by start. */
    activities(key: string): ActivityRecord[] {
      return [...sortedActivities(requireTimeline(key))]
    },
    /** The activity's tags, resolved through its groupList (or group). */
    tagsOf(key: string, activity: ActivityRecord): string[] {
      const timeline = requireTimeline(key)
      if (activity.groupId !== undefined) return [timeline.groups.get(activity.groupId)?.name ?? '']
      const list = activity.groupListId === undefined ? undefined : timeline.groupLists.get(activity.groupListId)
      return (list?.groupIds ?? []).map((id) => timeline.groups.get(id)?.name ?? '')
    },
    /**
     * Activities overlapping `[fromMs, toMs)`; a zero-length activity counts
     * when it starts inside. Binary search on the start index keeps reads fast.
     */
    overlapping(key: string, fromMs: number, toMs: number): ActivityRecord[] {
      const timeline = requireTimeline(key)
      const sorted = sortedActivities(timeline)
      let low = 0
      let high = sorted.length
      const earliest = fromMs - timeline.maxDurationMs
      while (low < high) {
        const mid = (low + high) >>> 1
        if (sorted[mid]!.startMs < earliest) low = mid + 1
        else high = mid
      }
      const out: ActivityRecord[] = []
      for (let i = low; i < sorted.length; i++) {
        const activity = sorted[i]!
        if (activity.startMs >= toMs) break
        const endMs = activity.startMs + activity.duration * 1000
        if (endMs > fromMs || (activity.duration === 0 && activity.startMs >= fromMs)) out.push(activity)
      }
      return out
    },
    /** Ids of activities deleted after `afterSeq` whose interval overlapped `[fromMs, toMs)`. */
    deletedSince(key: string, afterSeq: number, fromMs: number, toMs: number): number[] {
      return requireTimeline(key)
        .deletions.filter((d) => d.seq > afterSeq && d.startMs < toMs && (d.endMs > fromMs || d.startMs >= fromMs))
        .map((d) => d.id)
    },
    /**
     * Forgets what was deleted until now, as a server that trims its change
     * tracking does: an `updatedactivities` link from before the latest change
     * is refused from then on (`trimmedLinkStatus`); a read of the range without
     * one, and the fresh link it gives, work as before.
     */
    trimChangeTracking(key: string): void {
      const timeline = requireTimeline(key)
      timeline.trackedAfterSeq = timeline.seq
      timeline.deletions = timeline.deletions.filter((d) => d.seq > timeline.seq)
    },
    /** The change log of a timeline, oldest first. */
    changes(key: string): ChangeRecord[] {
      return [...requireTimeline(key).changes]
    },

    ...allowedTagsPart((username) => user(username)?.teams ?? []),
  }
  return store
}

function colorOf(text: string): string {
  let hash = 2166136261
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619)
  return ((hash >>> 0) & 0xffffff).toString(16).toUpperCase().padStart(6, '0')
}
