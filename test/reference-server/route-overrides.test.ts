import { expect, it } from 'vitest'
import { activitiesOf, activityBody, body, fixture, USERS } from './helpers.ts'
import { startReferenceServer } from '../../counterparts/timeline/server.ts'

it('answers a request from a route put before the built-in table, after sign-in, and every other request as the reference server does', async () => {
  const { call, keys } = fixture(
    {},
    { routes: [{ method: 'GET', path: '/api/timelines', handle: () => new Response('down', { status: 503 }) }] },
  )
  const as = USERS.editor.username

  const overridden = await call('GET', '/api/timelines', { as })
  expect(overridden.status).toBe(503)
  expect(await overridden.text()).toBe('down')
  expect((await call('GET', '/api/timelines')).status).toBe(401)

  const notAllowed = await call('POST', '/api/timelines', { as, body: {} })
  expect(notAllowed.status).toBe(405)
  expect(notAllowed.headers.get('allow')).toBe('GET')

  const one = await call('GET', `/api/timelines/${keys.alice}`, { as })
  expect(one.status).toBe(200)
  expect((await body(one)).timelineKey).toBe(keys.alice)

  const created = await call('POST', `/api/timelines/${keys.alice}/activities`, {
    as,
    body: activityBody('Acme', '2026-03-02T09:00:00Z', 60),
  })
  expect(created.status).toBe(200)
  const range = await call('GET', `/api/timelines/${keys.alice}/activities?fromTime=2026-03-02T00:00:00Z&toTime=2026-03-03T00:00:00Z`, {
    as,
  })
  expect(activitiesOf(await body(range)).map((a) => a.values['name'])).toEqual(['Acme'])
  expect((await call('GET', '/api/tagcombinationlist', { as })).status).toBe(200)
})

it('takes the same routes when started on loopback, and answers every other request as the reference server does', async () => {
  const server = await startReferenceServer({
    data: { users: 1, days: 1 },
    routes: [{ method: 'GET', path: '/api/timelines', handle: () => new Response('down', { status: 503 }) }],
  })
  try {
    const user = server.credentials.users[0]!
    const token = server.store.issueToken(user.username)
    const auth = { authorization: `Bearer ${token}` }
    const overridden = await fetch(`${server.apiUrl}/timelines`, { headers: auth })
    expect(overridden.status).toBe(503)
    expect(await overridden.text()).toBe('down')
    expect((await fetch(`${server.apiUrl}/timelines`)).status).toBe(401)
  } finally {
    await server.close()
  }
})
