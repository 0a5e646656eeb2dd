/**
 * A hostile server's answers through the real CLI. A
 * 401 for ever, malformed JSON, absurd values and a 50 MB body each end with
 * a clear message and a non-zero exit, never "This is a bug"; no credential
 * is printed, whatever the server sends.
 */
import { describe, expect, it } from 'vitest'
import { errorLine, inWorld, printed, TEST_BUDGET_MS } from './world.ts'

type Json = Record<string, unknown>

/** Changes the first activity of an activities answer. */
function firstActivity(change: (values: Json, entity: Json) => void) {
  return (json: unknown) => {
    const entities = (json as { entities: Json[] }).entities
    const activity = entities.find((e) => e['entityType'] === 'activity')!
    change(activity['values'] as Json, activity)
    return json
  }
}

const activitiesRead = (r: { method: string; path: string }) => r.method === 'GET' && /\/activities\?/.test(r.path)

describe.concurrent('hostile answers end cleanly', () => {
  it(
    'a 401 for every call, however often the tool signs in: a clear refusal, exit 6 (refused, do not retry), a bounded number of sign-ins',
    () =>
      inWorld('401-loop', async (world) => {
        const { proxy } = world
        proxy.setRule((r) =>
          r.headers.authorization
            ? {
                kind: 'answer',
                status: 401,
                headers: { 'www-authenticate': 'Bearer' },
                body: JSON.stringify({ links: [{ rel: 'manictime/token', href: '/api/token' }] }),
              }
            : undefined,
        )
        const run = await world.run(['export'])
        expect(run.code).toBe(6)
        expect(errorLine(run)).toMatch(/answered 401 after signing in/)
        expect(proxy.seen.filter((r) => r.path === '/api/token').length).toBeLessThanOrEqual(2)
        expect(printed(run)).not.toContain(world.password)
      }),
    TEST_BUDGET_MS,
  )

  it(
    'malformed JSON in a 200: the URL and what came instead, exit 1',
    () =>
      inWorld('malformed', async (world) => {
        world.proxy.setRule((r) =>
          r.method === 'GET' && r.path === '/api/timelines'
            ? { kind: 'answer', status: 200, body: '{"timelines": [{"timelineKey": ' }
            : undefined,
        )
        const run = await world.run(['export'])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toContain(`Unexpected response from ${world.proxy.origin}/api/timelines: (body) expected JSON`)
      }),
    TEST_BUDGET_MS,
  )

  it.each([
    ['a negative duration', firstActivity((v) => void ((v['timeInterval'] as Json)['duration'] = -3600)), /timeInterval\.duration/],
    [
      'a start in the year 9999',
      firstActivity((v) => void ((v['timeInterval'] as Json)['start'] = '9999-12-31T23:00:00+01:00')),
      /timeInterval\.start/,
    ],
    [
      'a start on the 45th of the 13th month',
      firstActivity((v) => void ((v['timeInterval'] as Json)['start'] = '2026-13-45T10:00:00+01:00')),
      /timeInterval\.start/,
    ],
    [
      'a duration of a thousand years',
      firstActivity((v) => void ((v['timeInterval'] as Json)['duration'] = 1000 * 366 * 86_400)),
      /timeInterval\.duration/,
    ],
    ['an entity id beyond 2^53', firstActivity((_v, e) => void (e['entityId'] = 2 ** 60)), /entityId/],
    ['a duration of 1e300', firstActivity((v) => void ((v['timeInterval'] as Json)['duration'] = 1e300)), /timeInterval\.duration/],
  ])(
    'an activity with %s: refused at the boundary, naming the field, exit 1',
    (_name, edit, field) =>
      inWorld('absurd', async (world) => {
        world.proxy.setRule((r) => (activitiesRead(r) ? { kind: 'rewrite', edit } : undefined))
        const run = await world.run(['export'])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toMatch(/Unexpected response from http:\/\/127\.0\.0\.1:\d+\/api\/timelines\/.*\/activities/)
        expect(errorLine(run)).toMatch(field)
        expect(run.stderr).not.toMatch(/This is a bug/)
      }),
    TEST_BUDGET_MS,
  )

  it(
    'a 50 MB answer of the wrong shape: read within the limits, refused with a short message',
    () =>
      inWorld('50mb', async (world) => {
        const body = `{"padding":"${'x'.repeat(50 * 1024 * 1024)}","timelines":"many"}`
        world.proxy.setRule((r) => (r.method === 'GET' && r.path === '/api/timelines' ? { kind: 'answer', status: 200, body } : undefined))
        const run = await world.run(['export'])
        expect(run.code).toBe(1)
        expect(errorLine(run)).toMatch(/\/api\/timelines: timelines expected array, got string$/)
        expect(run.stderr.length).toBeLessThan(10_000)
      }),
    TEST_BUDGET_MS,
  )
})

describe.concurrent('no URL with a user name or password is ever printed', () => {
  it(
    'a baseUrl with user info is refused (exit 2) naming the field; the secret is never printed, --verbose or not',
    () =>
      inWorld('userinfo-config', async (world) => {
        const url = new URL(world.proxy.url)
        url.username = 'transfer'
        url.password = 'url-secret-42'
        const config = {
          timeline: { auth: { mode: 'password', baseUrl: url.toString(), username: 'transfer' } },
          stateDir: 'state',
          targets: [{ name: 't', spreadsheet: { kind: 'workbook', path: 't.xlsx' }, timeZone: 'UTC' }],
        }
        const { writeConfig } = await import('../e2e/cli.ts')
        await writeConfig(world.folder, config)
        for (const args of [['export'], ['--verbose', 'export'], ['--verbose', '--json', 'import', '--dry-run']]) {
          const run = await world.run(args)
          expect(run.code).toBe(2)
          expect(run.stderr).toContain('timeline.auth.baseUrl: must not contain a user name or password')
          expect(printed(run)).not.toContain('url-secret-42')
        }
        expect(world.proxy.seen).toEqual([])
      }),
    TEST_BUDGET_MS,
  )

  it(
    'links with user info sent by the server: never printed, not in --verbose logs, not in the error',
    () =>
      inWorld('userinfo-links', async (world) => {
        const { proxy } = world
        proxy.setRule((r) =>
          r.method === 'GET' && r.path === '/api'
            ? {
                kind: 'rewrite',
                edit: (json) => {
                  for (const link of (json as { links: { href: string }[] }).links) {
                    const href = new URL(link.href)
                    href.username = 'admin'
                    href.password = 'link-secret-42'
                    link.href = href.toString()
                  }
                  return json
                },
              }
            : undefined,
        )
        const run = await world.run(['--verbose', 'export'])
        expect(run.code).not.toBe(0)
        expect(run.code).not.toBeNull()
        expect(printed(run)).not.toContain('link-secret-42')
        expect(run.stderr).toMatch(/debug|timeline request/)
      }),
    TEST_BUDGET_MS,
  )
})
