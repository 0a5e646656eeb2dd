/**
 * The routes of the reference Timeline server's home and timelines: the home
 * document with its links, the timeline list and one timeline, the 501 answers
 * of the endpoints this server leaves out, and who may see and edit a
 * timeline. The timeline JSON lives here because the activity routes answer
 * with it too.
 */
import type { RouteContext } from './router.ts'
import { errorResponse, json } from './responses.ts'
import { TimelineStoreError, type TimelineRecord, type TimelineStore, type UserRecord } from './store.ts'

export function home({ store, apiUrl }: RouteContext): Response {
  const rel = store.vendor.rel
  return json(store, {
    links: [
      { rel: 'self', href: `${apiUrl}/` },
      { rel: rel('timelines'), href: `${apiUrl}/timelines` },
      { rel: rel('environments'), href: `${apiUrl}/environments` },
      { rel: rel('screenshots'), href: `${apiUrl}/screenshots` },
      { rel: rel('clientState'), href: `${apiUrl}/clientState` },
      { rel: rel('tagcombinationlist'), href: `${apiUrl}/tagcombinationlist` },
      { rel: rel('clientsettings'), href: `${apiUrl}/clientSettings` },
    ],
  })
}

/** Administrators, content editors and content readers see every timeline; users their own. */
export function canSee(user: UserRecord, timeline: TimelineRecord): boolean {
  return user.role !== 'user' || sameUser(user.username, timeline.owner)
}

/**
 * Only a content editor writes activities through the API, as ManicTime documents the tagging API: "It allows one
 * user to change tags of all other users… This user needs to have Content editor permission." Nothing public says
 * an administrator without that permission, or a timeline's owner, may write through it, so they are refused
 * (decisions/0022-team-boundaries.md): a tool that works here needs no more than what the vendor names.
 */
export function canEdit(user: UserRecord, _timeline: TimelineRecord): boolean {
  return user.role === 'contentEditor'
}

function sameUser(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}

export function listTimelines({ store, url, apiUrl, user }: RouteContext): Response {
  const filter = url.searchParams.get('timelineKey')?.toLowerCase()
  const timelines = store.timelines().filter((timeline) => canSee(user, timeline) && (filter === undefined || timeline.key === filter))
  return json(store, { timelines: timelines.map((timeline) => timelineJson(store, timeline, apiUrl)) })
}

export function oneTimeline({ store, params, apiUrl, user }: RouteContext): Response {
  const timeline = visibleTimeline(store, params['timelineKey']!, user)
  return json(store, timelineJson(store, timeline, apiUrl))
}

/** The timeline `key` names, or a 404 or 403 thrown as a store error. */
export function visibleTimeline(store: TimelineStore, key: string, user: UserRecord): TimelineRecord {
  const timeline = store.timeline(key)
  if (!timeline) throw new TimelineStoreError(404, 'NotFound', `Timeline '${key}' was not found.`)
  if (!canSee(user, timeline)) {
    throw new TimelineStoreError(403, 'Forbidden', `User '${user.username}' may not read timeline '${key}'.`)
  }
  return timeline
}

export function timelineJson(store: TimelineStore, timeline: TimelineRecord, apiUrl: string): Record<string, unknown> {
  const owner = store.user(timeline.owner)
  const self = `${apiUrl}/timelines/${timeline.key}`
  const rel = store.vendor.rel
  const environment = { environmentId: timeline.environmentId, deviceName: timeline.deviceName }
  const lastChangeId = store.lastChangeId(timeline.key)
  return {
    timelineKey: timeline.key,
    publishKey: timeline.publishKey,
    owner: { username: timeline.owner, displayName: owner?.displayName ?? timeline.owner },
    schema: {
      name: store.schemaName(timeline),
      version: '1.0.0.0',
      baseSchema: { name: store.baseSchemaName(timeline), version: '1.0.0.0' },
    },
    homeEnvironment: environment,
    deviceDisplayName: timeline.deviceName,
    lastUpdate: { updatedUtcTime: store.lastUpdate(timeline.key), environment },
    ...(lastChangeId === undefined ? {} : { lastChangeId }),
    updateProtocol: 'Changes',
    timestamp: store.timestamp(timeline.key),
    links: [
      { rel: 'self', href: self },
      { rel: rel('getchanges'), href: `${self}/changes` },
      { rel: rel('activities'), href: `${self}/activities` },
      { rel: rel('addchanges'), href: `${self}/changes` },
      { rel: rel('editactivities'), href: `${self}/activities` },
    ],
  }
}

// ── endpoints this server leaves out ────────────────────────────────────

export function changesNotImplemented({ store }: RouteContext): Response {
  return errorResponse(store, 501, 'NotImplemented', 'The changes endpoints are not implemented by this server.')
}

const UNIMPLEMENTED_RESOURCES = new Set(['environments', 'screenshots', 'clientstate', 'clientsettings'])

/** Whether `/api/{resource}` is one the home links to but this server does not serve. */
export function isUnimplementedResource(resource: string): boolean {
  return UNIMPLEMENTED_RESOURCES.has(resource.toLowerCase())
}

export function resourceNotImplemented({ store, params }: RouteContext): Response {
  return errorResponse(store, 501, 'NotImplemented', `/api/${params['resource']} is not implemented by this server.`)
}
