/** JSON bodies shaped like the Timeline API's, for tests that do not need the reference server. */
import { vendorIdentifiers, type VendorIdentifiers } from '../../src/timeline/vendor.ts'

export const BASE = 'http://timeline.test'
export const KEY = 'ae35ba85-ed33-462d-8338-3ace1d77ba7b'

export function homeBody(vendor: VendorIdentifiers = vendorIdentifiers()) {
  return {
    links: [
      { rel: 'self', href: `${BASE}/api/` },
      { rel: vendor.rel('timelines'), href: `${BASE}/api/timelines` },
      { rel: vendor.rel('tagcombinationlist'), href: `${BASE}/api/tagcombinationlist` },
    ],
  }
}

export function timelineBody(
  options: { vendor?: VendorIdentifiers; key?: string; owner?: string; schema?: string; lastChangeId?: string | null } = {},
) {
  const vendor = options.vendor ?? vendorIdentifiers()
  const key = options.key ?? KEY
  return {
    timelineKey: key,
    publishKey: '01d4e456-df48-4b7f-a47d-4ff1b8f607cd',
    owner: { username: options.owner ?? 'alice@example.com', displayName: 'Alice' },
    schema: { name: options.schema ?? vendor.schema('Tags'), version: '1.0.0.0' },
    lastChangeId: options.lastChangeId === undefined ? '7,123' : options.lastChangeId,
    updateProtocol: 'Changes',
    timestamp: '7,123',
    links: [
      { rel: 'self', href: `${BASE}/api/timelines/${key}` },
      { rel: vendor.rel('activities'), href: `${BASE}/api/timelines/${key}/activities` },
      { rel: vendor.rel('editactivities'), href: `${BASE}/api/timelines/${key}/activities` },
    ],
  }
}

/** An activity with its groupList and groups; ids from `id` upwards. */
export function activityEntities(id: number, tags: string[], extra: Record<string, unknown> = {}) {
  const groupIds = tags.map((_, i) => id + 2 + i)
  return [
    {
      entityType: 'activity',
      entityId: id,
      values: {
        groupListId: id + 1,
        isActive: true,
        name: tags.join(', '),
        timeInterval: { start: '2026-03-29T01:30:00+01:00', duration: 3600 },
        ...extra,
      },
    },
    { entityType: 'groupList', entityId: id + 1, values: { groupIds } },
    ...tags.map((tag, i) => ({
      entityType: 'group',
      entityId: id + 2 + i,
      values: { color: '58C10C', key: tag, name: tag, skipColor: false },
    })),
  ]
}

export function json(body: unknown, init: ResponseInit = {}, vendor: VendorIdentifiers = vendorIdentifiers()): Response {
  return new Response(JSON.stringify(body), {
    ...init,
    headers: { 'content-type': `${vendor.mediaType}; charset=utf-8`, ...(init.headers as Record<string, string>) },
  })
}
