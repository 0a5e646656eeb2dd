/**
 * The reference Timeline server as one Web handler: home, timelines,
 * activities (read, incremental read, create, update, delete), allowed tag
 * combinations. Mount it in msw or on loopback (counterparts/mount.ts).
 * Behaviour follows spec/timeline-api.md plus the "Decisions for the gaps"
 * table of reference/timeline-service.md. A request passes faults, then
 * sign-in, then the route table (`timelineRoutes`, after any `routes` a caller
 * puts in front of it); the routes themselves live in routes-*.ts.
 */
import type { WebHandler } from '../mount.ts'
import { createPasswordAuthenticator, type AuthContext, type Authenticator } from './authenticator.ts'
import type { FaultInjector } from './faults.ts'
import { errorResponse } from './responses.ts'
import { createRouter, type Route } from './router.ts'
import { createActivity, deleteActivity, isEntityId, readActivities, updateActivity } from './routes-activities.ts'
import { readTagList, writeTagList } from './routes-tags.ts'
import {
  changesNotImplemented,
  home,
  isUnimplementedResource,
  listTimelines,
  oneTimeline,
  resourceNotImplemented,
} from './routes-timelines.ts'
import { TimelineStoreError, type TimelineStore } from './store.ts'

export type { Route, RouteContext, RouteHandler } from './router.ts'
export { lowerKeys } from './request-bodies.ts'
export { canEdit, canSee } from './routes-timelines.ts'

export interface TimelineHandlerOptions {
  /** Who is calling. @default the on-premise password flow (`createPasswordAuthenticator()`) */
  authenticator?: Authenticator
  /** Injected faults, changeable at runtime. */
  faults?: FaultInjector
  /**
   * Path the server lives under, with slashes at both ends, e.g. `/acct-1/`
   * for a cloud `serverUrl`. The API is then at `{basePath}api`. @default '/'
   */
  basePath?: string
  /**
   * Routes tried before `timelineRoutes`, in order, once the caller has signed
   * in: a test answers one kind of request its own way and leaves every other
   * to the reference behaviour. @default none
   */
  routes?: readonly Route[]
}

const activity = { entityId: isEntityId }

/** The reference server's routes, in the order they are tried. */
export const timelineRoutes: readonly Route[] = [
  { method: 'GET', path: '/', handle: home },
  { method: 'GET', path: '/api', handle: home },
  { method: 'GET', path: '/api/timelines', handle: listTimelines },
  { method: 'GET', path: '/api/timelines/:timelineKey', handle: oneTimeline },
  { method: '*', path: '/api/timelines/:timelineKey/changes', handle: changesNotImplemented },
  { method: 'GET', path: '/api/timelines/:timelineKey/activities', handle: readActivities },
  { method: 'POST', path: '/api/timelines/:timelineKey/activities', handle: createActivity },
  { method: 'PUT', path: '/api/timelines/:timelineKey/activities/:entityId', where: activity, handle: updateActivity },
  { method: 'DELETE', path: '/api/timelines/:timelineKey/activities/:entityId', where: activity, handle: deleteActivity },
  { method: 'GET', path: '/api/tagcombinationlist', handle: readTagList },
  { method: 'POST', path: '/api/tagcombinationlist', handle: writeTagList },
  { method: '*', path: '/api/:resource', where: { resource: isUnimplementedResource }, handle: resourceNotImplemented },
]

/** Creates the handler over a store. */
export function createTimelineHandler(store: TimelineStore, options: TimelineHandlerOptions = {}): WebHandler {
  const authenticator = options.authenticator ?? createPasswordAuthenticator()
  const basePath = options.basePath ?? '/'
  if (!basePath.startsWith('/') || !basePath.endsWith('/')) {
    throw new TypeError(`Expected \`basePath\` to start and end with "/", got ${JSON.stringify(basePath)}`)
  }
  const faults = options.faults
  const route = createRouter([...(options.routes ?? []), ...timelineRoutes])

  return async (request: Request): Promise<Response> => {
    if (faults) {
      const decision = await faults.before(request, store)
      if (decision.kind === 'drop') return Response.error()
      if (decision.kind === 'respond') return decision.response
    }
    const url = new URL(request.url)
    const context: AuthContext = { apiUrl: `${url.origin}${basePath}api`, store }
    try {
      const own = await authenticator.handle?.(request, context)
      if (own) return own
      const auth = await authenticator.authenticate(request, context)
      if (!auth.ok) return auth.response
      const user = store.user(auth.username)
      if (!user) return errorResponse(store, 401, 'Unauthorized', `User '${auth.username}' is not known to the server.`)
      return await route({ request, url, store, apiUrl: context.apiUrl, user }, basePath)
    } catch (error) {
      if (error instanceof TimelineStoreError) return errorResponse(store, error.status, error.errorCode, error.message)
      throw error
    }
  }
}
