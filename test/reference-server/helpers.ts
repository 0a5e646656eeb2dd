/**
 * Drives the reference Timeline handler with plain `Request`s: a small
 * store with known users and a sign-in helper.
 */
import { createFaultInjector, type FaultInjector } from '../../counterparts/timeline/faults.ts'
import { createTimelineHandler, type TimelineHandlerOptions } from '../../counterparts/timeline/handler.ts'
import { createTimelineStore, type TimelineStore, type TimelineStoreOptions } from '../../counterparts/timeline/store.ts'
import type { WebHandler } from '../../counterparts/mount.ts'

export const BASE = 'http://timeline.test'
export const API = `${BASE}/api`

export interface Fixture {
  store: TimelineStore
  handler: WebHandler
  faults: FaultInjector
  /** Tags timeline keys by owner. */
  keys: { alice: string; bob: string; aliceUsage: string }
  call(method: string, path: string, init?: { as?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>
  token(username: string): Promise<string>
}

export const USERS = {
  admin: { username: 'admin@example.com', password: 'admin-pw', role: 'administrator' as const },
  editor: { username: 'transfer@example.com', password: 'transfer-pw', role: 'contentEditor' as const },
  reader: { username: 'reader@example.com', password: 'reader-pw', role: 'contentReader' as const },
  alice: { username: 'alice@example.com', password: 'alice-pw', role: 'user' as const, teams: ['Design'] },
  bob: { username: 'EXAMPLE\\bob', password: 'bob-pw', role: 'user' as const, teams: ['Support'] },
}

export type UserName = keyof typeof USERS

/** A store with five users (one per role, two plain users), a Tags timeline each for alice and bob. */
export function fixture(storeOptions: TimelineStoreOptions = {}, handlerOptions: Omit<TimelineHandlerOptions, 'faults'> = {}): Fixture {
  const store = createTimelineStore(storeOptions)
  for (const user of Object.values(USERS)) store.addUser(user)
  const keys = {
    alice: store.createTimeline({ owner: USERS.alice.username, key: 'aaaaaaaa-0000-4000-8000-000000000001' }).key,
    bob: store.createTimeline({ owner: USERS.bob.username, key: 'bbbbbbbb-0000-4000-8000-000000000002' }).key,
    aliceUsage: store.createTimeline({
      owner: USERS.alice.username,
      kind: 'ComputerUsage',
      key: 'aaaaaaaa-0000-4000-8000-000000000003',
    }).key,
  }
  const faults = createFaultInjector()
  const handler = createTimelineHandler(store, { ...handlerOptions, faults })
  const tokens = new Map<string, string>()
  // Tokens come from the store, not the token endpoint, so faults and writers only see the calls a test makes.
  const token = async (username: string) => {
    const cached = tokens.get(username)
    if (cached) return cached
    const value = store.issueToken(username)
    tokens.set(username, value)
    return value
  }
  const call: Fixture['call'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { accept: store.vendor.mediaType, ...init.headers }
    if (init.as) headers['authorization'] = `Bearer ${await token(init.as)}`
    const hasBody = init.body !== undefined
    if (hasBody) headers['content-type'] = store.vendor.mediaType
    return handler(
      new Request(path.startsWith('http') ? path : `${BASE}${path}`, {
        method,
        headers,
        body: hasBody ? (typeof init.body === 'string' ? init.body : JSON.stringify(init.body)) : undefined,
      }),
    )
  }
  return { store, handler, faults, keys, call, token }
}

/** An activity write body as the client sends it. */
export function activityBody(
  name: string,
  start: string,
  duration: number,
  extra: { notes?: string; expectedLastChangeId?: string } = {},
): Record<string, unknown> {
  return {
    ...(extra.expectedLastChangeId === undefined ? {} : { expectedLastChangeId: extra.expectedLastChangeId }),
    values: { name, ...(extra.notes === undefined ? {} : { notes: extra.notes }), timeInterval: { start, duration } },
  }
}

export interface EntityJson {
  entityType: string
  entityId: number
  values: Record<string, unknown>
}

export interface TimelineJson {
  timelineKey: string
  lastChangeId?: string
  timestamp: string
  links: Array<{ rel: string; href: string }>
  entities?: EntityJson[]
  deletedActivityIds?: string[]
}

export async function body<T = TimelineJson>(response: Response): Promise<T> {
  return (await response.json()) as T
}

export function activitiesOf(timeline: TimelineJson): EntityJson[] {
  return (timeline.entities ?? []).filter((e) => e.entityType === 'activity')
}
