import { describe, expect, test } from 'vitest'
import { ResponseShapeError } from '../../src/errors.ts'
import { processActivitiesResponse, processWriteResponse } from '../../src/timeline/client.ts'
import {
  CloudProfileSchema,
  HomeSchema,
  OnPremTokenSchema,
  parseBody,
  TagCombinationListSchema,
  TimelinesListSchema,
  TokenLinkBodySchema,
} from '../../src/timeline/schemas.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { activityEntities, BASE, KEY, timelineBody } from './fixtures.ts'

const vendor = vendorIdentifiers('manictime')
const URL_ = `${BASE}/api/timelines/${KEY}/activities?fromTime=a&toTime=b`

function shapeError(run: () => unknown): ResponseShapeError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseShapeError)
    return error as ResponseShapeError
  }
  throw new Error('expected a ResponseShapeError')
}

describe('processActivitiesResponse', () => {
  test('resolves tags through groupList and groups, keeps offsets and unknown fields', () => {
    const body = {
      ...timelineBody(),
      links: [
        ...timelineBody().links,
        { rel: 'manictime/updatedactivities', href: `/api/timelines/${KEY}/activities?updatedAfterTimestamp=7,123` },
      ],
      futureField: { anything: true },
      entities: [
        ...activityEntities(10, ['Client', 'Project', ':billable'], { notes: 'line 1\nline 2' }),
        { entityType: 'folder', entityId: 99, values: { key: 'whatever', extra: [1] } },
      ],
    }
    const read = processActivitiesResponse(URL_, vendor, body)
    expect(read.timeline).toMatchObject({ timelineKey: KEY, ownerUsername: 'alice@example.com', lastChangeId: '7,123' })
    expect(read.activities).toEqual([
      {
        timelineKey: KEY,
        entityId: 10,
        tags: ['Client', 'Project', ':billable'],
        notes: 'line 1\nline 2',
        start: '2026-03-29T01:30:00+01:00',
        duration: 3600,
        isActive: true,
      },
    ])
    expect(read.updatedActivitiesUrl).toBe(`${BASE}/api/timelines/${KEY}/activities?updatedAfterTimestamp=7,123`)
    expect(read.deletedActivityIds).toBeUndefined()
  })

  test('group names win over the activity name; name split on commas is the fallback', () => {
    const entities = activityEntities(1, ['Renamed Client', 'P'])
    ;(entities[0]!.values as Record<string, unknown>)['name'] = 'Old Client, P'
    const withGroups = processActivitiesResponse(URL_, vendor, { ...timelineBody(), entities })
    expect(withGroups.activities[0]!.tags).toEqual(['Renamed Client', 'P'])

    const onlyActivity = processActivitiesResponse(URL_, vendor, {
      ...timelineBody(),
      entities: [{ ...entities[0], values: { ...entities[0]!.values, name: ' A ,B,, C ' } }],
    })
    expect(onlyActivity.activities[0]!.tags).toEqual(['A', 'B', 'C'])
  })

  test('Group-based timelines resolve the single groupId', () => {
    const read = processActivitiesResponse(URL_, vendor, {
      ...timelineBody({ schema: 'ManicTime/ComputerUsage' }),
      entities: [
        {
          entityType: 'activity',
          entityId: 3,
          values: { groupId: 4, isActive: false, timeInterval: { start: '2026-01-01T08:00:00Z', duration: 5 } },
        },
        { entityType: 'group', entityId: 4, values: { key: 'ManicTime/Away', name: 'Away' } },
      ],
    })
    expect(read.activities[0]).toMatchObject({ tags: ['Away'], isActive: false, notes: undefined })
  })

  test('deletedActivityIds as strings or numbers become numbers', () => {
    const read = processActivitiesResponse(URL_, vendor, { ...timelineBody(), entities: [], deletedActivityIds: ['6586', 12] })
    expect(read.deletedActivityIds).toEqual([6586, 12])
  })

  test("the deletion lists of the vendor's sample answer are read, group, groupList and folder ids too; empty ones are left out", () => {
    const sample = {
      ...timelineBody(),
      entities: [],
      deletedActivityIds: ['6586'],
      deletedGroupIds: [],
      deletedGroupListIds: [],
      deletedFolderIds: [],
    }
    const read = processActivitiesResponse(URL_, vendor, sample)
    expect(read).toMatchObject({ deletedActivityIds: [6586] })
    expect(read).not.toHaveProperty('deletedGroupIds')
    const lists = { deletedGroupIds: ['4'], deletedGroupListIds: [5], deletedFolderIds: ['6588'] }
    expect(processActivitiesResponse(URL_, vendor, { ...sample, ...lists })).toMatchObject({
      deletedGroupIds: [4],
      deletedGroupListIds: [5],
      deletedFolderIds: [6588],
    })
  })

  test('an absent or null lastChangeId is undefined', () => {
    const read = processActivitiesResponse(URL_, vendor, { ...timelineBody({ lastChangeId: null }), entities: [] })
    expect(read.timeline.lastChangeId).toBeUndefined()
  })

  test.each([
    ['entities missing', { ...timelineBody() }, 'entities', 'expected array, missing'],
    [
      'start without offset',
      { ...timelineBody(), entities: activityEntities(1, ['A'], { timeInterval: { start: '2026-01-01T10:00:00', duration: 1 } }) },
      'entities[0].values.timeInterval.start',
      'expected an ISO 8601 date-time with an offset, got "2026-01-01T10:00:00"',
    ],
    [
      'duration as text',
      { ...timelineBody(), entities: activityEntities(1, ['A'], { timeInterval: { start: '2026-01-01T10:00:00Z', duration: '60' } }) },
      'entities[0].values.timeInterval.duration',
      'expected number, got string',
    ],
    [
      'groupIds not an array',
      { ...timelineBody(), entities: [{ entityType: 'groupList', entityId: 2, values: { groupIds: 5 } }] },
      'entities[0].values.groupIds',
      'expected array, got number',
    ],
    ['entityId as text', { ...timelineBody(), entities: [{ entityType: 'x', entityId: 'a' }] }, 'entities[0].entityId', 'expected number'],
    ['owner null', { ...timelineBody(), owner: null, entities: [] }, 'owner', 'expected object, got null'],
    ['bad deleted id', { ...timelineBody(), entities: [], deletedActivityIds: ['x'] }, 'deletedActivityIds[0]', 'an integer id'],
    ['bad deleted group id', { ...timelineBody(), entities: [], deletedGroupIds: ['Active'] }, 'deletedGroupIds[0]', 'an integer id'],
    ['bad deleted groupList id', { ...timelineBody(), entities: [], deletedGroupListIds: [1.5] }, 'deletedGroupListIds[0]', 'got 1.5'],
    ['deleted folders not a list', { ...timelineBody(), entities: [], deletedFolderIds: '6588' }, 'deletedFolderIds', 'expected array'],
    ['not an object', 'hello', '(body)', 'expected object'],
  ])('%s names the field and the URL', (_name, body, field, problem) => {
    const error = shapeError(() => processActivitiesResponse(URL_, vendor, body))
    expect(error.code).toBe('TS_RESPONSE_INVALID')
    expect(error.field).toBe(field)
    expect(error.message).toContain(URL_.split('?')[0])
    expect(error.message).toContain(field)
    expect(error.message).toContain(problem)
  })
})

describe('processWriteResponse', () => {
  test('create: the one activity in the answer; delete: none', () => {
    const created = processWriteResponse(`${BASE}/api/x`, {
      ...timelineBody({ lastChangeId: '8,1' }),
      entities: activityEntities(20, ['A']),
    })
    expect(created.activity?.entityId).toBe(20)
    expect(created.timeline.lastChangeId).toBe('8,1')
    const deleted = processWriteResponse(`${BASE}/api/x`, { ...timelineBody({ lastChangeId: '9,1' }), entities: [] }, 20)
    expect(deleted.activity).toBeUndefined()
  })

  test('update picks the activity by id', () => {
    const body = { ...timelineBody(), entities: [...activityEntities(30, ['B']), ...activityEntities(40, ['C'])] }
    expect(processWriteResponse(`${BASE}/x`, body, 40).activity?.tags).toEqual(['C'])
  })

  test('missing entities is a shape error', () => {
    expect(shapeError(() => processWriteResponse(`${BASE}/x`, timelineBody())).field).toBe('entities')
  })
})

describe('other bodies', () => {
  test('timelines list', () => {
    expect(parseBody(TimelinesListSchema, { timelines: [timelineBody()] }, 'u').timelines).toHaveLength(1)
    expect(shapeError(() => parseBody(TimelinesListSchema, { timelines: [{ ...timelineBody(), timelineKey: 3 }] }, 'u')).field).toBe(
      'timelines[0].timelineKey',
    )
  })

  test('tag combination list, token link body, on-prem token', () => {
    expect(parseBody(TagCombinationListSchema, { tagCombinations: ['a, b'], links: [] }, 'u').tagCombinations).toEqual(['a, b'])
    expect(shapeError(() => parseBody(TagCombinationListSchema, { tagCombinations: [1] }, 'u')).field).toBe('tagCombinations[0]')
    expect(parseBody(TokenLinkBodySchema, { links: [{ rel: 'manictime/token', href: 'http://x/api/token' }] }, 'u').links).toHaveLength(1)
    expect(shapeError(() => parseBody(TokenLinkBodySchema, {}, 'u')).field).toBe('links')
    expect(parseBody(OnPremTokenSchema, { token: 'a4cee5d8b9b54eefa529e1f288d41f31' }, 'u').token).toHaveLength(32)
    expect(shapeError(() => parseBody(OnPremTokenSchema, { token: '' }, 'u')).field).toBe('token')
  })

  test('cloud profile links use url; serverUrl must end with a slash', () => {
    const profile = parseBody(
      CloudProfileSchema,
      { serverUrl: 'http://127.0.0.1:1/acct-1/', license: 'x', links: [{ rel: 'self', url: 'http://a/v1/profile' }] },
      'u',
    )
    expect(profile.links?.[0]?.url).toBe('http://a/v1/profile')
    const error = shapeError(() => parseBody(CloudProfileSchema, { serverUrl: 'http://127.0.0.1:1/acct-1' }, 'http://api/v1/profile'))
    expect(error.field).toBe('serverUrl')
    expect(error.message).toContain('ending with a slash')
  })

  test('secret query values never reach the message', () => {
    const error = shapeError(() => parseBody(OnPremTokenSchema, {}, 'http://x/api/token?access_token=supersecret'))
    expect(error.message).not.toContain('supersecret')
  })
})

describe('links with a user name or password', () => {
  test('are refused without being repeated in the message', () => {
    const body = { links: [{ rel: 'manictime/timelines', href: 'http://admin:hunter2@timeline.test/api/timelines' }] }
    let message = ''
    try {
      parseBody(HomeSchema, body, `${BASE}/api`)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe(
      `Unexpected response from ${BASE}/api: links[0].href must not hold a user name or password (the link is not shown)`,
    )
  })
})
