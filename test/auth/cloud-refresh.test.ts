import { chmod, writeFile } from 'node:fs/promises'
import path from 'node:path'
import * as client from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import { cloudSignIn } from '../../src/timeline/auth/cloud.ts'
import { readTokenFile } from '../../src/state/cloud-token-file.ts'
import { startTestCloud, type TestCloud } from './cloud-setup.ts'

const TTL = 2

let cloud: TestCloud
beforeAll(async () => {
  cloud = await startTestCloud({ accessTokenTtl: TTL })
})
afterAll(async () => {
  await cloud?.close()
})

const refreshRequests = () => cloud.op.tokenRequests.filter((request) => request.body.grant_type === 'refresh_token')
const later = (ms: number) => () => Date.now() + ms
const home = (entry: string) => new Request(entry, { headers: { accept: 'application/vnd.manictime.v3+json' } })

async function rejection(promise: Promise<unknown>): Promise<TimelineSheetsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TimelineSheetsError)
  return error as TimelineSheetsError
}

describe('cloud token refresh', () => {
  it('uses the access token from the login without a token request while it is valid', async () => {
    // A provider of its own whose tokens last an hour: with the shared one's 2 s, a busy machine could let the
    // token expire between the login and the call, and the test would see a refresh it does not check for.
    const lasting = await startTestCloud({ accessTokenTtl: 3_600 })
    try {
      const options = await lasting.login('post', 'valid.json')
      const refreshes = () => lasting.op.tokenRequests.filter((request) => request.body.grant_type === 'refresh_token').length
      const signIn = cloudSignIn({ ...options, refreshMarginSeconds: 0 })
      const response = await signIn.send(home(await signIn.entryUrl()))
      expect(response.status).toBe(200)
      expect(refreshes()).toBe(0)
    } finally {
      await lasting.close()
    }
  })

  it('refreshes an expired access token before the call, with client_secret_post form fields', async () => {
    const options = await cloud.login('post', 'expired.json')
    const stored = await readTokenFile(options.tokenFile)
    await new Promise((resolve) => setTimeout(resolve, TTL * 1000 + 200))
    const before = refreshRequests().length
    const signIn = cloudSignIn({ ...options, refreshMarginSeconds: 0 })
    const response = await signIn.send(home(await signIn.entryUrl()))
    expect(response.status).toBe(200)
    const sent = refreshRequests().slice(before)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.body).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: stored!.refreshToken,
      client_id: options.clientId,
      client_secret: options.clientSecret,
    })
    expect(sent[0]!.authorization).toBeUndefined()
  })

  it('refreshes within the margin before expiry', async () => {
    const options = await cloud.login('basic', 'margin.json')
    const before = refreshRequests().length
    const signIn = cloudSignIn({ ...options, refreshMarginSeconds: TTL + 5 })
    await signIn.accessToken()
    const sent = refreshRequests().slice(before)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.authorization).toMatch(/^Basic /)
    expect(sent[0]!.body.client_secret).toBeUndefined()
  })

  it('signs in again once after a 401 and repeats the request', async () => {
    const options = await cloud.login('post', 'after-401.json')
    await new Promise((resolve) => setTimeout(resolve, TTL * 1000 + 200))
    // A client clock that lags: the token looks valid here, the API says it has expired.
    const signIn = cloudSignIn({ ...options, refreshMarginSeconds: 0, now: later(-60_000) })
    const before = refreshRequests().length
    const response = await signIn.send(home(`${cloud.api.url}acct-1/api`))
    expect(response.status).toBe(200)
    expect(refreshRequests().length).toBe(before + 1)
  })

  it('persists the rotated refresh token; the old one is then refused (reuse detection)', async () => {
    const options = await cloud.login('post', 'rotate.json')
    const first = (await readTokenFile(options.tokenFile))!.refreshToken
    const signIn = cloudSignIn({ ...options, now: later(3_600_000) })
    await signIn.accessToken()
    const second = (await readTokenFile(options.tokenFile))!.refreshToken
    expect(second).not.toBe(first)

    const config = await client.discovery(new URL(options.authority), options.clientId, options.clientSecret, undefined, {
      execute: [client.allowInsecureRequests],
    })
    const reuse = await client.refreshTokenGrant(config, first).catch((error: unknown) => error)
    expect(reuse).toBeInstanceOf(client.ResponseBodyError)
    expect((reuse as client.ResponseBodyError).error).toBe('invalid_grant')
    expect(cloud.op.grantErrors).toContain('refresh token already used')

    // Reuse revoked the whole grant: the newest refresh token is dead too, and the user must log in.
    const error = await rejection(cloudSignIn({ ...options, now: later(7_200_000) }).accessToken())
    expect(error.code).toBe('TS_AUTH_REQUIRED')
    expect(error.hint).toContain('timeline-sheets login')
    const text = `${error.message} ${error.hint}`
    for (const secret of [first, second, options.clientSecret]) expect(text).not.toContain(secret)
  })

  it('makes one token request for two concurrent refreshes in one process', async () => {
    const options = await cloud.login('post', 'single-flight.json')
    const signIn = cloudSignIn({ ...options, now: later(3_600_000) })
    const before = refreshRequests().length
    const [a, b] = await Promise.all([signIn.accessToken(), signIn.accessToken()])
    expect(a).toBe(b)
    expect(refreshRequests().length).toBe(before + 1)
  })

  it('makes one token request when two sign-ins share the token file (the lock file)', async () => {
    const options = await cloud.login('post', 'two-processes.json')
    const one = cloudSignIn({ ...options, now: later(3_600_000), refreshMarginSeconds: 0 })
    const two = cloudSignIn({ ...options, now: later(3_600_000), refreshMarginSeconds: 0 })
    const before = refreshRequests().length
    // Expired for both by their clocks; the second must find the first's fresh token under the lock.
    const [a, b] = await Promise.all([one.accessToken(), two.accessToken()])
    expect(refreshRequests().length).toBe(before + 1)
    expect(a).toBe(b)
    const again = await cloudSignIn({ ...options, refreshMarginSeconds: 0 }).send(home(`${cloud.api.url}acct-1/api`))
    expect(again.status).toBe(200)
  })

  it('answers TS_AUTH_REQUIRED with the login hint when there is no token file', async () => {
    const options = cloud.clientOptions('post', 'missing.json')
    const error = await rejection(cloudSignIn(options).accessToken())
    expect(error.code).toBe('TS_AUTH_REQUIRED')
    expect(error.hint).toContain('`timeline-sheets login`')
  })

  it('answers TS_AUTH_REQUIRED when the token file belongs to another client', async () => {
    const options = await cloud.login('post', 'other-client.json')
    const error = await rejection(cloudSignIn({ ...options, clientId: 'cli-basic' }).accessToken())
    expect(error.code).toBe('TS_AUTH_REQUIRED')
    expect(error.message).toContain('another login server or client')
  })

  it('answers TS_AUTH_REQUIRED for an unknown refresh token (invalid_grant) without the token in the message', async () => {
    const options = await cloud.login('post', 'garbage.json')
    const stored = (await readTokenFile(options.tokenFile))!
    const bogus = 'not-a-refresh-token-but-secret-looking'
    await writeFile(options.tokenFile, JSON.stringify({ ...stored, refreshToken: bogus, accessToken: undefined }), { mode: 0o600 })
    await chmod(options.tokenFile, 0o600)
    const error = await rejection(cloudSignIn(options).accessToken())
    expect(error.code).toBe('TS_AUTH_REQUIRED')
    expect(error.message).toContain('invalid_grant')
    expect(error.hint).toContain('timeline-sheets login')
    expect(`${error.message} ${error.hint}`).not.toContain(bogus)
  })

  it('refuses a token file that others can read', async () => {
    const options = await cloud.login('post', 'unsafe.json')
    await chmod(options.tokenFile, 0o644)
    const error = await rejection(cloudSignIn(options).accessToken())
    expect(error.code).toBe('TS_STATE')
    expect(error.message).toContain('mode 644')
    expect(error.hint).toContain(`chmod 600 ${options.tokenFile}`)
  })

  it('answers TS_AUTH_FAILED for a wrong client secret, without the secret in the message', async () => {
    const options = await cloud.login('post', 'bad-secret.json')
    const wrong = 'wrong-client-secret-value'
    const error = await rejection(cloudSignIn({ ...options, clientSecret: wrong, now: later(3_600_000) }).accessToken())
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('invalid_client')
    expect(`${error.message} ${error.hint}`).not.toContain(wrong)
    expect(`${error.message} ${error.hint}`).not.toContain(options.clientSecret)
  })

  it('never sends the access token to another origin', async () => {
    const options = await cloud.login('post', 'origin.json')
    const signIn = cloudSignIn(options)
    const error = await rejection(signIn.send(new Request('http://127.0.0.2:9/api')))
    expect(error.code).toBe('TS_UNSAFE_TOKEN_LINK')
  })

  it('lists the access token, the refresh token and the client secret as secrets', async () => {
    const options = await cloud.login('post', 'secrets.json')
    const signIn = cloudSignIn(options)
    const token = await signIn.accessToken()
    const stored = (await readTokenFile(options.tokenFile))!
    expect(signIn.secrets()).toEqual(expect.arrayContaining([token, stored.refreshToken, options.clientSecret]))
  })
})

describe('cloud sign-in configuration', () => {
  const base = {
    apiUrl: 'https://api.example.com',
    clientId: 'id',
    clientSecret: 'secret',
    tokenFile: path.join('/tmp', 'never-written.json'),
  }

  it('refuses plain http for a host that is not loopback, even with the opt-in', () => {
    expect(() => cloudSignIn({ ...base, authority: 'http://login.example.com', allowInsecureLoopback: true })).toThrow(
      expect.objectContaining({ code: 'TS_CONFIG_INVALID' }),
    )
  })

  it('refuses plain http on loopback without the named opt-in', () => {
    expect(() => cloudSignIn({ ...base, authority: 'http://127.0.0.1:1234' })).toThrow(
      expect.objectContaining({ code: 'TS_CONFIG_INVALID', hint: expect.stringContaining('allowInsecureLoopback') }),
    )
  })

  it('refuses an authority that is not a URL', () => {
    expect(() => cloudSignIn({ ...base, authority: 'login' })).toThrow(expect.objectContaining({ code: 'TS_CONFIG_INVALID' }))
  })
})
