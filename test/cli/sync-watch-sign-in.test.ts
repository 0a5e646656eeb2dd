/**
 * A watch signs in once: a password sign-in's token serves every interval, and across intervals a cloud
 * access token expires and is refreshed (the refresh token rotating each time, the rotated one kept in the token
 * file), and no interval signs in anew or fails.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { serveOnLoopback } from '../../counterparts/mount.ts'
import { startReferenceServer } from '../../counterparts/timeline/server.ts'
import { runWatchCommand, type WatchClock } from '../../src/cli/commands/sync-watch.ts'
import { readTokenFile } from '../../src/state/cloud-token-file.ts'
import { startTestCloud, type TestCloud } from '../auth/cloud-setup.ts'

const TTL_SECONDS = 1
let cloud: TestCloud

beforeAll(async () => {
  cloud = await startTestCloud({ accessTokenTtl: TTL_SECONDS })
})

afterAll(async () => {
  await cloud?.close()
})

const grants = (type: string) => cloud.op.tokenRequests.filter((request) => request.body.grant_type === type).length

/** Runs `intervals` watch intervals back to back, or `gapMs` apart, with the CLI's output captured. */
async function watchFor(config: string, intervals: number, gapMs = 0): Promise<{ code: number; said: string }> {
  const said: string[] = []
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (said.push(String(chunk)), true))
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
  const clock: WatchClock = {
    describe: () => 'back to back',
    async run(tick) {
      for (let i = 0; i < intervals; i++) {
        if (i > 0 && gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs))
        await tick()
      }
    },
  }
  try {
    const code = await runWatchCommand({ config, json: false, verbose: false, quiet: false }, watchOptions(), clock)
    return { code, said: said.join('') }
  } finally {
    stderr.mockRestore()
    stdout.mockRestore()
  }
}

describe('a watch signs in once', () => {
  it('sends one password sign-in for all its intervals', async () => {
    const server = await startReferenceServer({ data: { users: 1, days: 3, startDate: '2026-11-20', otherTimelines: false } })
    const signIns: string[] = []
    // Counts the token requests on their way to the server.
    const proxy = await serveOnLoopback(async (request) => {
      const url = new URL(request.url)
      if (request.method === 'POST' && /token/i.test(url.pathname)) signIns.push(url.pathname)
      const body = request.method === 'GET' ? undefined : await request.arrayBuffer()
      const answer = await fetch(new URL(url.pathname + url.search, server.url), { method: request.method, headers: request.headers, body })
      // The server's links name its own origin; the client must keep talking to the proxy.
      const text = (await answer.text()).replaceAll(new URL(server.url).origin, url.origin)
      return new Response(text, {
        status: answer.status,
        headers: { 'content-type': answer.headers.get('content-type') ?? 'application/json' },
      })
    })
    try {
      const config = path.join(cloud.dir, 'password-config.json')
      await writeFile(
        config,
        JSON.stringify({
          timeline: { auth: { mode: 'password', baseUrl: proxy.url, username: server.credentials.transfer!.username } },
          stateDir: path.join(cloud.dir, 'password-state'),
          targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'password.xlsx' }, timeZone: 'Europe/Berlin' }],
        }),
      )
      vi.stubEnv('TIMELINE_PASSWORD', server.credentials.transfer!.password)
      const { code, said } = await watchFor(config, 6).finally(() => vi.unstubAllEnvs())
      expect(code).toBe(0)
      expect(said).not.toMatch(/Interval failed/)
      expect(signIns).toHaveLength(1)
    } finally {
      await proxy.close()
      await server.close()
    }
  })
})

describe('a watch across token expiry', () => {
  it(
    'refreshes and rotates the cloud token between intervals without a new sign-in or a failed interval',
    { timeout: 60_000 },
    async () => {
      const options = await cloud.login('post', 'watch.json')
      const firstRefreshToken = (await readTokenFile(options.tokenFile))!.refreshToken
      const config = path.join(cloud.dir, 'watch-config.json')
      await writeFile(
        config,
        JSON.stringify({
          timeline: {
            auth: {
              mode: 'cloud',
              authority: options.authority,
              apiUrl: options.apiUrl,
              clientId: options.clientId,
              clientSecretEnv: 'WATCH_TEST_CLIENT_SECRET',
              tokenFile: options.tokenFile,
            },
          },
          stateDir: path.join(cloud.dir, 'watch-state'),
          targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'watch.xlsx' }, timeZone: 'Europe/Berlin' }],
        }),
      )
      vi.stubEnv('WATCH_TEST_CLIENT_SECRET', options.clientSecret)
      const codeGrants = grants('authorization_code')
      const refreshes = grants('refresh_token')
      const intervals = 4
      // Each interval begins after the last one's access token has expired.
      const { code, said } = await watchFor(config, intervals, (TTL_SECONDS + 0.5) * 1000).finally(() => vi.unstubAllEnvs())
      expect(code).toBe(0)
      expect(said).not.toMatch(/Interval failed/)
      expect(grants('authorization_code')).toBe(codeGrants)
      expect(grants('refresh_token') - refreshes).toBeGreaterThanOrEqual(intervals - 1)
      expect((await readTokenFile(options.tokenFile))!.refreshToken).not.toBe(firstRefreshToken)
      expect(cloud.op.grantErrors).not.toContain('refresh token already used')
    },
  )
})

function watchOptions() {
  return { dryRun: false, deleteMissing: false, force: false, forceLayout: false, strictTags: false, overwriteTags: false }
}
