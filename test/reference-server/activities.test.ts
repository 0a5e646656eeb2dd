import { describe, expect, it } from 'vitest'
import { activitiesOf, activityBody, API, body, fixture, USERS, type TimelineJson } from './helpers.ts'

const MEDIA = 'application/vnd.manictime.v3+json; charset=utf-8'
const path = (key: string, rest = '') => `/api/timelines/${key}/activities${rest}`

describe('home and timelines', () => {
  it.each(['/', '/api', '/api/', '/API'])('serves the home at %s with self /api/ and every rel', async (at) => {
    const { call } = fixture()
    const response = await call('GET', at, { as: USERS.alice.username })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(MEDIA)
    const { links } = await body<{ links: Array<{ rel: string; href: string }> }>(response)
    expect(links).toEqual([
      { rel: 'self', href: `${API}/` },
      { rel: 'manictime/timelines', href: `${API}/timelines` },
      { rel: 'manictime/environments', href: `${API}/environments` },
      { rel: 'manictime/screenshots', href: `${API}/screenshots` },
      { rel: 'manictime/clientState', href: `${API}/clientState` },
      { rel: 'manictime/tagcombinationlist', href: `${API}/tagcombinationlist` },
      { rel: 'manictime/clientsettings', href: `${API}/clientSettings` },
    ])
  })

  it('uses the vendor token for media type, rels and schema names', async () => {
    const { call, keys } = fixture({ vendor: 'service' })
    const response = await call('GET', `/api/timelines?timelineKey=${keys.alice}`, { as: USERS.alice.username })
    expect(response.headers.get('content-type')).toBe('application/vnd.service.v3+json; charset=utf-8')
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answer is checked field by field against the spec
    const { timelines } = await body<{ timelines: Array<Record<string, any>> }>(response)
    expect(timelines[0]!['schema']).toEqual({
      name: 'Service/Tags',
      version: '1.0.0.0',
      baseSchema: { name: 'Service/Generic/GroupList', version: '1.0.0.0' },
    })
    expect(timelines[0]!['links'].map((l: { rel: string }) => l.rel)).toEqual([
      'self',
      'service/getchanges',
      'service/activities',
      'service/addchanges',
      'service/editactivities',
    ])
  })

  it('lists a timeline with every field of the spec and no entities', async () => {
    const { call, keys, store } = fixture()
    store.createActivity(keys.alice, { tags: 'A', start: '2026-03-02T09:00:00Z', duration: 1 })
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answer is checked field by field against the spec
    const { timelines } = await body<{ timelines: Array<Record<string, any>> }>(
      await call('GET', `/api/timelines?timelineKey=${keys.alice.toUpperCase()}`, { as: USERS.alice.username }),
    )
    expect(timelines).toHaveLength(1)
    const t = timelines[0]!
    expect(t).toMatchObject({
      timelineKey: keys.alice,
      owner: { username: USERS.alice.username, displayName: 'alice' },
      updateProtocol: 'Changes',
      lastChangeId: store.lastChangeId(keys.alice),
      timestamp: store.timestamp(keys.alice),
      deviceDisplayName: expect.any(String),
      homeEnvironment: { environmentId: expect.any(String), deviceName: expect.any(String) },
    })
    expect(t['publishKey']).toMatch(/^[0-9a-f-]{36}$/)
    expect(t['lastUpdate'].updatedUtcTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+\+00:00$/)
    expect(t['entities']).toBeUndefined()
  })

  it('omits lastChangeId on a timeline without changes', async () => {
    const { call, keys } = fixture()
    const { timelines } = await body<{ timelines: Array<Record<string, unknown>> }>(
      await call('GET', `/api/timelines?timelineKey=${keys.bob}`, { as: USERS.bob.username }),
    )
    expect(timelines[0]).not.toHaveProperty('lastChangeId')
    expect(timelines[0]!['timestamp']).toMatch(/^0,\d+$/)
  })

  it('answers an unknown timelineKey filter with 200 and an empty array', async () => {
    const { call } = fixture()
    const response = await call('GET', '/api/timelines?timelineKey=00000000-0000-0000-0000-000000000000', {
      as: USERS.editor.username,
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ timelines: [] })
  })

  it.each([
    ['admin', 3],
    ['editor', 3],
    ['reader', 3],
    ['alice', 2],
    ['bob', 1],
  ] as const)('shows %s %i timelines', async (who, count) => {
    const { call } = fixture()
    const { timelines } = await body<{ timelines: unknown[] }>(await call('GET', '/api/timelines', { as: USERS[who].username }))
    expect(timelines).toHaveLength(count)
  })

  it('serves one timeline at its self link, 403 to a user who cannot see it, 404 when unknown', async () => {
    const { call, keys } = fixture()
    expect((await call('GET', `/api/timelines/${keys.alice}`, { as: USERS.alice.username })).status).toBe(200)
    const forbidden = await call('GET', `/api/timelines/${keys.alice}`, { as: USERS.bob.username })
    expect(forbidden.status).toBe(403)
    expect(await forbidden.json()).toMatchObject({ errorCode: 'Forbidden' })
    const missing = await call('GET', '/api/timelines/nope', { as: USERS.editor.username })
    expect(missing.status).toBe(404)
  })
})

describe('other routes', () => {
  it('answers unknown paths with 404 NotFound', async () => {
    const { call } = fixture()
    for (const at of ['/api/nothing', '/elsewhere', '/api/timelines/x/y', '/api/timelines/x/activities/abc', '/api/timelines/%E0%A4%A']) {
      const response = await call('GET', at, { as: USERS.editor.username })
      expect(response.status).toBe(404)
      expect(response.headers.get('content-type')).toBe(MEDIA)
      expect(await response.json()).toMatchObject({ errorCode: 'NotFound', message: expect.any(String) })
    }
  })

  it('answers the changes endpoints and the unspecified home links with 501', async () => {
    const { call, keys } = fixture()
    for (const [method, at] of [
      ['GET', `/api/timelines/${keys.alice}/changes`],
      ['POST', `/api/timelines/${keys.alice}/changes`],
      ['GET', '/api/environments'],
      ['GET', '/api/clientSettings'],
    ] as const) {
      const response = await call(method, at, { as: USERS.editor.username })
      expect(response.status).toBe(501)
    }
  })

  it('answers a wrong method with 405 and Allow', async () => {
    const { call, keys } = fixture()
    const response = await call('DELETE', path(keys.alice), { as: USERS.editor.username })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, POST')
    expect((await call('GET', path(keys.alice, '/4'), { as: USERS.editor.username })).headers.get('allow')).toBe('PUT, DELETE')
    expect((await call('POST', '/api', { as: USERS.editor.username })).status).toBe(405)
  })
})

describe('activities read', () => {
  function seeded() {
    const f = fixture()
    const night = f.store.createActivity(f.keys.alice, {
      tags: 'Client, Night, :billable',
      start: '2026-03-28T23:30:00+01:00',
      duration: 3 * 3600,
      notes: '=IMPORTDATA(x)',
    })
    const morning = f.store.createActivity(f.keys.alice, { tags: 'Client, Morning', start: '2026-03-29T09:00:00+02:00', duration: 1800 })
    const next = f.store.createActivity(f.keys.alice, { tags: 'Client, Next', start: '2026-03-30T00:00:00+02:00', duration: 60 })
    return { ...f, night, morning, next }
  }

  it('returns activities overlapping [fromTime, toTime) with their groupLists and groups', async () => {
    const { call, keys, night, morning, store } = seeded()
    const response = await call('GET', path(keys.alice, '?fromTime=2026-03-29T00:00:00%2B01:00&toTime=2026-03-30T00:00:00%2B02:00'), {
      as: USERS.alice.username,
    })
    expect(response.status).toBe(200)
    const timeline = await body(response)
    expect(activitiesOf(timeline).map((a) => a.entityId)).toEqual([night.id, morning.id])
    expect(activitiesOf(timeline)[0]).toEqual({
      entityType: 'activity',
      entityId: night.id,
      values: {
        groupListId: night.groupListId,
        isActive: true,
        name: 'Client, Night, :billable',
        notes: '=IMPORTDATA(x)',
        timeInterval: { start: '2026-03-28T23:30:00+01:00', duration: 10800 },
      },
    })
    expect(activitiesOf(timeline)[1]!.values).not.toHaveProperty('notes')
    const groupLists = timeline.entities!.filter((e) => e.entityType === 'groupList')
    expect(groupLists.map((g) => g.entityId).sort()).toEqual([night.groupListId, morning.groupListId].sort())
    const groups = timeline.entities!.filter((e) => e.entityType === 'group')
    expect(groups.map((g) => g.values['name'])).toEqual(['Client', 'Night', ':billable', 'Morning'])
    expect(groups[0]!.values).toEqual({ color: expect.stringMatching(/^[0-9A-F]{6}$/), key: 'Client', name: 'Client', skipColor: false })
    expect(timeline.lastChangeId).toBe(store.lastChangeId(keys.alice))
  })

  it('reads dates and offset-less date-times in the server time zone', async () => {
    const berlin = fixture({ serverTimeZone: 'Europe/Berlin' })
    const utc = fixture()
    for (const f of [berlin, utc]) f.store.createActivity(f.keys.alice, { tags: 'A', start: '2026-03-28T23:30:00Z', duration: 600 })
    const read = async (f: ReturnType<typeof fixture>, query: string) =>
      activitiesOf(await body(await f.call('GET', path(f.keys.alice, query), { as: USERS.alice.username }))).length
    // 23:30 UTC on the 28th is 00:30 on the 29th in Berlin.
    expect(await read(berlin, '?fromTime=2026-03-29&toTime=2026-03-30')).toBe(1)
    expect(await read(berlin, '?fromTime=2026-03-29T00:00:00&toTime=2026-03-29T00:30:00')).toBe(0)
    expect(await read(berlin, '?fromTime=2026-03-29T00:40:00.5&toTime=2026-03-29T01:00')).toBe(0)
    expect(await read(utc, '?fromTime=2026-03-29&toTime=2026-03-30')).toBe(0)
    expect(await read(utc, '?fromTime=2026-03-28T23:00:00Z&toTime=2026-03-29')).toBe(1)
    expect(await read(utc, '?fromTime=2026-03-29T00:00:00%2B01:00&toTime=2026-03-29T00:00:00%2B0000')).toBe(1)
  })

  it('gives the updatedactivities link with wall-time bounds in the server zone and the timestamp', async () => {
    const { call, keys, store } = seeded()
    const timeline = await body(
      await call('GET', path(keys.alice, '?fromTime=2026-03-29T00:00:00%2B01:00&toTime=2026-03-30'), { as: USERS.alice.username }),
    )
    const link = timeline.links.find((l) => l.rel === 'manictime/updatedactivities')!
    expect(link.href).toBe(
      `${API}/timelines/${keys.alice}/activities?fromTime=2026-03-28T23:00:00&toTime=2026-03-30T00:00:00&updatedAfterTimestamp=${store.timestamp(keys.alice)}`,
    )
  })

  it.each([
    ['a missing toTime', '?fromTime=2026-03-29', /toTime is required/],
    ['a missing fromTime', '?toTime=2026-03-29', /fromTime is required/],
    ['an unencoded +', '?fromTime=2026-03-29T00:00:00+01:00&toTime=2026-03-30', /percent-encode/],
    ['garbage', '?fromTime=yesterday&toTime=2026-03-30', /not an ISO 8601/],
    ['an impossible date', '?fromTime=2026-02-30&toTime=2026-03-30', /not a valid date/],
    ['from after to', '?fromTime=2026-03-30&toTime=2026-03-29', /after toTime/],
    ['a bad updatedAfterTimestamp', '?fromTime=2026-03-29&toTime=2026-03-30&updatedAfterTimestamp=abc', /<seq>,<rand>/],
  ])('refuses %s with 400 Validation', async (_name, query, message) => {
    const { call, keys } = fixture()
    const response = await call('GET', path(keys.alice, query), { as: USERS.alice.username })
    expect(response.status).toBe(400)
    const error = await body<{ errorCode: string; message: string }>(response)
    expect(error.errorCode).toBe('Validation')
    expect(error.message).toMatch(message)
  })

  it('refuses a read of a timeline the user cannot see (403) or that does not exist (404)', async () => {
    const { call, keys } = fixture()
    expect((await call('GET', path(keys.alice, '?fromTime=2026-03-29&toTime=2026-03-30'), { as: USERS.bob.username })).status).toBe(403)
    expect((await call('GET', path('nope', '?fromTime=2026-03-29&toTime=2026-03-30'), { as: USERS.editor.username })).status).toBe(404)
  })

  it('reads group-based timelines with groupId', async () => {
    const { call, keys, store } = fixture()
    store.createActivity(keys.aliceUsage, { tags: 'Away', start: '2026-03-29T09:00:00Z', duration: 60, isActive: false })
    const timeline = await body(
      await call('GET', path(keys.aliceUsage, '?fromTime=2026-03-29&toTime=2026-03-30'), { as: USERS.reader.username }),
    )
    expect(activitiesOf(timeline)[0]!.values).toMatchObject({ groupId: expect.any(Number), isActive: false, name: 'Away' })
    expect(timeline.entities!.map((e) => e.entityType)).toEqual(['activity', 'group'])
  })
})

describe('incremental reads', () => {
  async function scenario(reportDeletions: boolean) {
    const f = fixture({ reportDeletions })
    const keep = f.store.createActivity(f.keys.alice, { tags: 'Keep', start: '2026-03-29T09:00:00Z', duration: 60 })
    const change = f.store.createActivity(f.keys.alice, { tags: 'Change', start: '2026-03-29T10:00:00Z', duration: 60 })
    const drop = f.store.createActivity(f.keys.alice, { tags: 'Drop', start: '2026-03-29T11:00:00Z', duration: 60 })
    const first = await body(
      await f.call('GET', path(f.keys.alice, '?fromTime=2026-03-29&toTime=2026-03-30'), { as: USERS.alice.username }),
    )
    const link = first.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    f.store.updateActivity(f.keys.alice, change.id, { tags: 'Changed, New', start: '2026-03-29T10:00:00Z', duration: 120 })
    f.store.deleteActivity(f.keys.alice, drop.id)
    const added = f.store.createActivity(f.keys.alice, { tags: 'Added', start: '2026-03-29T12:00:00Z', duration: 60 })
    f.store.createActivity(f.keys.alice, { tags: 'Elsewhere', start: '2026-04-02T12:00:00Z', duration: 60 })
    const response = await f.call('GET', link, { as: USERS.alice.username })
    return { ...f, keep, change, drop, added, first, response, incremental: await body(response) }
  }

  it('returns only activities created or changed since the timestamp, with their entities and a fresh link', async () => {
    const { incremental, change, added, store, keys, first } = await scenario(false)
    expect(activitiesOf(incremental).map((a) => a.entityId)).toEqual([change.id, added.id])
    expect(activitiesOf(incremental)[0]!.values['name']).toBe('Changed, New')
    const groupNames = incremental.entities!.filter((e) => e.entityType === 'group').map((g) => g.values['name'])
    expect(groupNames.sort()).toEqual(['Added', 'Changed', 'New'])
    expect(incremental.entities!.filter((e) => e.entityType === 'groupList')).toHaveLength(2)
    const link = incremental.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    expect(link).toContain(`updatedAfterTimestamp=${store.timestamp(keys.alice)}`)
    expect(link).not.toBe(first.links.find((l) => l.rel === 'manictime/updatedactivities')!.href)
  })

  it("lists deletions by default as the vendor's sample answer does: activity ids as strings, beside the group, groupList and folder lists", async () => {
    const f = fixture()
    const drop = f.store.createActivity(f.keys.alice, { tags: 'Drop', start: '2026-03-29T11:00:00Z', duration: 60 })
    const first = await body(
      await f.call('GET', path(f.keys.alice, '?fromTime=2026-03-29&toTime=2026-03-30'), { as: USERS.alice.username }),
    )
    f.store.deleteActivity(f.keys.alice, drop.id)
    const link = first.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    const incremental = (await (await f.call('GET', link, { as: USERS.alice.username })).json()) as Record<string, unknown>
    expect(incremental).toMatchObject({
      deletedActivityIds: [String(drop.id)],
      deletedGroupIds: [],
      deletedGroupListIds: [],
      deletedFolderIds: [],
    })
    expect(Object.keys(incremental).filter((k) => k.startsWith('deleted'))).toEqual([
      'deletedActivityIds',
      'deletedGroupIds',
      'deletedGroupListIds',
      'deletedFolderIds',
    ])
  })

  it('lists no deletions when the server option is off, and none on a read without the timestamp', async () => {
    const { incremental, first } = await scenario(false)
    for (const answer of [incremental, first])
      for (const list of ['deletedActivityIds', 'deletedGroupIds', 'deletedGroupListIds', 'deletedFolderIds'])
        expect(answer).not.toHaveProperty(list)
  })

  it('lists deletions v2-style as strings, and none again on the fresh link', async () => {
    const { incremental, drop, store, keys, call } = await scenario(true)
    expect(incremental.deletedActivityIds).toEqual([String(drop.id)])
    const link = incremental.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    const again = await body(await call('GET', link, { as: USERS.alice.username }))
    expect(activitiesOf(again)).toEqual([])
    expect(again.deletedActivityIds).toEqual([])
    expect(again.lastChangeId).toBe(store.lastChangeId(keys.alice))
  })

  it.each([
    [400, 'Validation'],
    [410, 'ChangesTrimmed'],
    [500, 'InternalError'],
  ] as const)(
    'refuses a link older than its trimmed change tracking with %i %s, and serves a read without the link and its fresh link',
    async (status, errorCode) => {
      const f = await scenario(false)
      f.store.settings.trimmedLinkStatus = status
      const link = f.first.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
      f.store.trimChangeTracking(f.keys.alice)
      const refused = await f.call('GET', link, { as: USERS.alice.username })
      expect(refused.status).toBe(status)
      expect(await refused.json()).toMatchObject({ errorCode, message: expect.any(String) })
      // The same range whole, without the link, is answered; its fresh link is accepted.
      const whole = await body(
        await f.call('GET', path(f.keys.alice, '?fromTime=2026-03-29&toTime=2026-03-30'), { as: USERS.alice.username }),
      )
      expect(activitiesOf(whole).map((a) => a.entityId)).toEqual([f.keep.id, f.change.id, f.added.id])
      const fresh = whole.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
      const after = await f.call('GET', fresh, { as: USERS.alice.username })
      expect(after.status).toBe(200)
      expect(activitiesOf(await body(after))).toEqual([])
    },
  )

  it('refuses with 400 Validation naming the timestamp by default, and keeps serving links from after the trim', async () => {
    const f = await scenario(false)
    const link = f.first.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    const current = f.incremental.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    f.store.trimChangeTracking(f.keys.alice)
    const refused = await f.call('GET', link, { as: USERS.alice.username })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { message: string }).message).toMatch(/^updatedAfterTimestamp '\d+,-?\d+' is older than the changes/)
    // Nothing changed since `current` was given out: the server can still answer it in full.
    expect((await f.call('GET', current, { as: USERS.alice.username })).status).toBe(200)
  })

  it('answers a link as given, also with its bounds spelled as dates; refuses it with another range, as a link it no longer tracks', async () => {
    const f = await scenario(false)
    const link = f.first.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    expect(link).toMatch(/\?fromTime=2026-03-29T00:00:00&toTime=2026-03-30T00:00:00&updatedAfterTimestamp=\d+,-?\d+$/)
    // The guide's own example of the call sends the link's bounds as dates.
    const asDates = link.replace('2026-03-29T00:00:00', '2026-03-29').replace('2026-03-30T00:00:00', '2026-03-30')
    expect((await f.call('GET', asDates, { as: USERS.alice.username })).status).toBe(200)
    for (const changed of [
      link.replace('toTime=2026-03-30T00:00:00', 'toTime=2026-04-03T00:00:00'),
      link.replace('fromTime=2026-03-29T00:00:00', 'fromTime=2026-03-29T12:00:00'),
    ]) {
      const refused = await f.call('GET', changed, { as: USERS.alice.username })
      expect(refused.status).toBe(400)
      expect(await refused.json()).toMatchObject({
        errorCode: 'Validation',
        message: expect.stringMatching(/^updatedAfterTimestamp '[^']+' was given with another fromTime and toTime/),
      })
    }
    // The fresh link of an answer keeps the range of the link that was followed.
    const fresh = f.incremental.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    expect(fresh.split('&updatedAfterTimestamp=')[0]).toBe(link.split('&updatedAfterTimestamp=')[0])
    expect((await f.call('GET', fresh, { as: USERS.alice.username })).status).toBe(200)
  })

  it('can switch deletion reporting at runtime', async () => {
    const f = await scenario(false)
    f.store.settings.reportDeletions = true
    const link = f.first.links.find((l) => l.rel === 'manictime/updatedactivities')!.href
    expect((await body(await f.call('GET', link, { as: USERS.alice.username }))).deletedActivityIds).toEqual([String(f.drop.id)])
  })
})

describe('activity writes', () => {
  it('creates an activity and answers the timeline with the activity, its groupList and groups', async () => {
    const { call, keys, store } = fixture()
    const response = await call('POST', path(keys.alice), {
      as: USERS.editor.username,
      body: activityBody(' Acme ,Website, :billable', '2026-03-29T01:30:00+01:00', 7200, { notes: 'line 1\nline 2' }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(MEDIA)
    const timeline = await body(response)
    expect(timeline.entities!.map((e) => e.entityType)).toEqual(['activity', 'groupList', 'group', 'group', 'group'])
    const [activity] = activitiesOf(timeline)
    expect(activity!.values).toEqual({
      groupListId: timeline.entities![1]!.entityId,
      isActive: true,
      name: 'Acme, Website, :billable',
      notes: 'line 1\nline 2',
      timeInterval: { start: '2026-03-29T01:30:00+01:00', duration: 7200 },
    })
    expect(timeline.lastChangeId).toBe(store.lastChangeId(keys.alice))
    expect(timeline.lastChangeId).toMatch(/^1,\d+$/)
  })

  it('updates, then deletes, with expectedLastChangeId threaded from each response', async () => {
    const { call, keys, store } = fixture()
    const created = await body(
      await call('POST', path(keys.alice), { as: USERS.editor.username, body: activityBody('A', '2026-03-29T09:00:00Z', 60) }),
    )
    const id = activitiesOf(created)[0]!.entityId
    const updated = await call('PUT', path(keys.alice, `/${id}`), {
      as: USERS.editor.username,
      body: activityBody('A, B', '2026-03-29T09:00:00-05:00', 90, { expectedLastChangeId: created.lastChangeId! }),
    })
    expect(updated.status).toBe(200)
    const afterUpdate = await body(updated)
    expect(activitiesOf(afterUpdate)[0]).toMatchObject({
      entityId: id,
      values: { name: 'A, B', timeInterval: { start: '2026-03-29T09:00:00-05:00', duration: 90 } },
    })
    expect(afterUpdate.lastChangeId).toMatch(/^2,/)
    const deleted = await call('DELETE', path(keys.alice, `/${id}`), {
      as: USERS.editor.username,
      body: { expectedLastChangeId: afterUpdate.lastChangeId },
    })
    expect(deleted.status).toBe(200)
    const afterDelete = await body(deleted)
    expect(afterDelete.entities).toEqual([])
    expect(afterDelete.lastChangeId).toMatch(/^3,/)
    expect(store.activity(keys.alice, id)).toBeUndefined()
  })

  it('deletes without a body and without expectedLastChangeId', async () => {
    const { call, keys, store } = fixture()
    const a = store.createActivity(keys.alice, { tags: 'A', start: '2026-03-29T09:00:00Z', duration: 60 })
    expect((await call('DELETE', path(keys.alice, `/${a.id}`), { as: USERS.editor.username })).status).toBe(200)
    expect(store.activities(keys.alice)).toEqual([])
  })

  it('matches request property names case-insensitively', async () => {
    const { call, keys, store } = fixture()
    const response = await call('POST', path(keys.alice), {
      as: USERS.editor.username,
      body: { Values: { NAME: 'A', Notes: 'n', TimeInterval: { Start: '2026-03-29T09:00:00Z', DURATION: 5 } } },
    })
    expect(response.status).toBe(200)
    const stale = await call('POST', path(keys.alice), {
      as: USERS.editor.username,
      body: { ExpectedLastChangeId: '0,0', values: { name: 'B', timeInterval: { start: '2026-03-29T09:00:00Z', duration: 5 } } },
    })
    expect(stale.status).toBe(409)
    expect(store.activities(keys.alice)).toHaveLength(1)
  })

  it('refuses a stale expectedLastChangeId with 409 Concurrency/InvalidTimestamp and changes nothing', async () => {
    const { call, keys, store } = fixture()
    const a = store.createActivity(keys.alice, { tags: 'A', start: '2026-03-29T09:00:00Z', duration: 60 })
    const stale = store.lastChangeId(keys.alice)!
    store.createActivity(keys.alice, { tags: 'Other writer', start: '2026-03-29T10:00:00Z', duration: 60 })
    const current = store.lastChangeId(keys.alice)!
    for (const [method, at, payload] of [
      ['POST', path(keys.alice), activityBody('B', '2026-03-29T11:00:00Z', 60, { expectedLastChangeId: stale })],
      ['PUT', path(keys.alice, `/${a.id}`), activityBody('B', '2026-03-29T11:00:00Z', 60, { expectedLastChangeId: stale })],
      ['DELETE', path(keys.alice, `/${a.id}`), { expectedLastChangeId: stale }],
    ] as const) {
      const response = await call(method, at, { as: USERS.editor.username, body: payload })
      expect(response.status).toBe(409)
      expect(await response.json()).toEqual({
        errorCode: 'Concurrency/InvalidTimestamp',
        message: `Invalid last change. Should be '${current}', but is '${stale}'.`,
      })
    }
    expect(store.lastChangeId(keys.alice)).toBe(current)
    expect(store.activities(keys.alice)).toHaveLength(2)
    expect(store.tagsOf(keys.alice, store.activity(keys.alice, a.id)!)).toEqual(['A'])
  })

  it('writes without a check when expectedLastChangeId is omitted or null', async () => {
    const { call, keys, store } = fixture()
    store.createActivity(keys.alice, { tags: 'A', start: '2026-03-29T09:00:00Z', duration: 60 })
    const body1 = { expectedLastChangeId: null, values: { name: 'B', timeInterval: { start: '2026-03-29T10:00:00Z', duration: 1 } } }
    expect((await call('POST', path(keys.alice), { as: USERS.editor.username, body: body1 })).status).toBe(200)
  })

  it.each([
    // Only the Content editor permission is documented for the tagging API (decisions/0022-team-boundaries.md).
    ['alice on her own timeline', 'alice', 'alice', 403],
    ['the content editor on alice’s', 'editor', 'alice', 200],
    ['the administrator on alice’s', 'admin', 'alice', 403],
    ['the content reader on alice’s', 'reader', 'alice', 403],
    ['bob on alice’s', 'bob', 'alice', 403],
    ['alice on bob’s', 'alice', 'bob', 403],
  ] as const)('lets %s write: %i', async (_name, who, owner, status) => {
    const { call, keys, store } = fixture()
    const existing = store.createActivity(keys[owner], { tags: 'A', start: '2026-03-29T09:00:00Z', duration: 60 })
    const as = USERS[who].username
    const responses = [
      await call('POST', path(keys[owner]), { as, body: activityBody('B', '2026-03-29T10:00:00Z', 60) }),
      await call('PUT', path(keys[owner], `/${existing.id}`), { as, body: activityBody('C', '2026-03-29T10:00:00Z', 60) }),
      await call('DELETE', path(keys[owner], `/${existing.id}`), { as }),
    ]
    expect(responses.map((r) => r.status)).toEqual([status, status, status])
    if (status === 403) {
      expect(await responses[0]!.json()).toMatchObject({ errorCode: 'Forbidden', message: expect.stringContaining('Content editor') })
      expect(store.activities(keys[owner])).toHaveLength(1)
      expect(store.lastChangeId(keys[owner])).toMatch(/^1,/)
    }
  })

  it('refuses writes to a non-Tags timeline with 400 TimelineConstraint/SchemaNotAllowed', async () => {
    const { call, keys, store } = fixture()
    const response = await call('POST', path(keys.aliceUsage), {
      as: USERS.editor.username,
      body: activityBody('A', '2026-03-29T10:00:00Z', 60),
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      errorCode: 'TimelineConstraint/SchemaNotAllowed',
      message: expect.stringContaining('ManicTime/ComputerUsage'),
    })
    expect(store.activities(keys.aliceUsage)).toEqual([])
  })

  it.each([
    ['a bad start', activityBody('A', 'tomorrow', 60), /timeInterval.start/],
    ['a start without offset', activityBody('A', '2026-03-29T10:00:00', 60), /with an offset/],
    ['a negative duration', activityBody('A', '2026-03-29T10:00:00Z', -5), />= 0/],
    ['a duration as text', activityBody('A', '2026-03-29T10:00:00Z', '60' as unknown as number), /timeInterval.duration/],
    ['more than 10 tags', activityBody('1,2,3,4,5,6,7,8,9,10,11', '2026-03-29T10:00:00Z', 60), /at most 10/],
    ['a tag over 200 characters', activityBody('y'.repeat(201), '2026-03-29T10:00:00Z', 60), /200/],
    ['no values', { expectedLastChangeId: '1,1' }, /values/],
    ['a body that is not JSON', '{"values":', /not valid JSON/],
    ['an empty body', '', /empty/],
  ])('refuses %s with 400 Validation and stores nothing', async (_name, payload, message) => {
    const { call, keys, store } = fixture()
    const response = await call('POST', path(keys.alice), { as: USERS.editor.username, body: payload })
    expect(response.status).toBe(400)
    const error = await body<{ errorCode: string; message: string }>(response)
    expect(error.errorCode).toBe('Validation')
    expect(error.message).toMatch(message)
    expect(store.activities(keys.alice)).toEqual([])
    expect(store.lastChangeId(keys.alice)).toBeUndefined()
  })

  it('answers 404 for an unknown timeline or activity', async () => {
    const { call, keys } = fixture()
    const create = await call('POST', path('nope'), { as: USERS.editor.username, body: activityBody('A', '2026-03-29T10:00:00Z', 1) })
    expect(create.status).toBe(404)
    const update = await call('PUT', path(keys.alice, '/999'), {
      as: USERS.editor.username,
      body: activityBody('A', '2026-03-29T10:00:00Z', 1),
    })
    expect(update.status).toBe(404)
    expect(await update.json()).toMatchObject({ errorCode: 'NotFound' })
    expect((await call('DELETE', path(keys.alice, '/999'), { as: USERS.editor.username })).status).toBe(404)
  })

  it('keeps the first spelling of a tag and reuses its group', async () => {
    const { call, keys } = fixture()
    await call('POST', path(keys.alice), { as: USERS.editor.username, body: activityBody('Acme', '2026-03-29T10:00:00Z', 1) })
    const second = await body<TimelineJson>(
      await call('POST', path(keys.alice), { as: USERS.editor.username, body: activityBody('ACME', '2026-03-29T11:00:00Z', 1) }),
    )
    expect(activitiesOf(second)[0]!.values['name']).toBe('Acme')
    expect(second.entities!.find((e) => e.entityType === 'group')!.entityId).toBe(1)
  })
})
