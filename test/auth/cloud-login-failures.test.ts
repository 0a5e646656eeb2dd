import { access } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import { runCloudLogin } from '../../src/timeline/auth/login.ts'
import { scriptedBrowser } from '../support/browser.ts'
import { startTestCloud, type TestCloud } from './cloud-setup.ts'

let cloud: TestCloud
beforeAll(async () => {
  cloud = await startTestCloud()
})
afterAll(async () => {
  await cloud?.close()
})

async function rejection(promise: Promise<unknown>): Promise<TimelineSheetsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TimelineSheetsError)
  return error as TimelineSheetsError
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  )

describe('cloud login failures', () => {
  it('refuses a callback whose state differs, answers "Login error" and writes nothing', async () => {
    const options = cloud.clientOptions('post', 'wrong-state.json')
    const browser = scriptedBrowser({
      tamperCallback: (url) => {
        url.searchParams.set('state', 'forged-state')
        return url
      },
    })
    const before = cloud.op.tokenRequests.length
    const error = await rejection(runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open }))
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('state')
    expect(await browser.finished).toMatchObject({ status: 400, body: 'Login error' })
    expect(cloud.op.tokenRequests.length).toBe(before)
    expect(await exists(options.tokenFile)).toBe(false)
  })

  it('refuses a callback without a code (an error from the login server)', async () => {
    const options = cloud.clientOptions('post', 'denied.json')
    const browser = scriptedBrowser({
      tamperCallback: (url) => {
        const denied = new URL(url.origin + url.pathname)
        denied.searchParams.set('error', 'access_denied')
        denied.searchParams.set('state', url.searchParams.get('state')!)
        denied.searchParams.set('iss', url.searchParams.get('iss')!)
        return denied
      },
    })
    const error = await rejection(runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open }))
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('access_denied')
    expect((await browser.finished).status).toBe(400)
    expect(await exists(options.tokenFile)).toBe(false)
  })

  it('reports a wrong client secret at the code exchange as TS_AUTH_FAILED without the secret', async () => {
    const wrong = 'definitely-wrong-secret'
    const options = { ...cloud.clientOptions('post', 'bad-secret.json'), clientSecret: wrong }
    const browser = scriptedBrowser()
    const error = await rejection(runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: browser.open }))
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('invalid_client')
    expect(`${error.message} ${error.hint}`).not.toContain(wrong)
  })

  it('gives up with TS_ABORTED when no callback arrives in time', async () => {
    const options = cloud.clientOptions('post', 'timeout.json')
    const error = await rejection(
      runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', timeoutMs: 200, openBrowser: async () => undefined }),
    )
    expect(error.code).toBe('TS_ABORTED')
  })

  it('fails when the browser cannot be opened', async () => {
    const options = cloud.clientOptions('post', 'no-browser.json')
    const error = await rejection(
      runCloudLogin({
        ...options,
        callbackUrl: 'http://127.0.0.1:0',
        openBrowser: async () => {
          throw new Error('xdg-open not found')
        },
      }),
    )
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('browser')
  })

  it('refuses a callback URL that is not loopback http', async () => {
    const options = cloud.clientOptions('post', 'bad-callback.json')
    for (const callbackUrl of ['https://127.0.0.1:4040', 'http://example.com:4040', 'not a url']) {
      const error = await rejection(runCloudLogin({ ...options, callbackUrl, openBrowser: async () => undefined }))
      expect(error.code).toBe('TS_CONFIG_INVALID')
    }
  })

  it('says so when the callback port is taken', async () => {
    const busy = http.createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    try {
      const port = (busy.address() as AddressInfo).port
      const options = cloud.clientOptions('post', 'busy.json')
      const error = await rejection(
        runCloudLogin({ ...options, callbackUrl: `http://127.0.0.1:${port}`, openBrowser: async () => undefined }),
      )
      expect(error.code).toBe('TS_AUTH_FAILED')
      expect(error.message).toContain('EADDRINUSE')
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()))
    }
  })

  it('answers 404 to other paths on the callback listener and still completes the login', async () => {
    const options = cloud.clientOptions('post', 'other-path.json')
    let probe: number | undefined
    const browser = scriptedBrowser()
    const result = await runCloudLogin({
      ...options,
      callbackUrl: 'http://127.0.0.1:0/callback',
      openBrowser: async (url) => {
        const redirect = new URL(new URL(url).searchParams.get('redirect_uri')!)
        probe = (await fetch(new URL('/favicon.ico', redirect))).status
        await browser.open(url)
      },
    })
    expect(probe).toBe(404)
    expect(result.subject).toBe('alice@example.com')
  })

  it.each(['http://127.0.0.1:0/other', 'http://127.0.0.1:0/'])(
    'is refused by the login server when %j is not the registered callback, and says which redirect_uri to register',
    async (callbackUrl) => {
      const options = cloud.clientOptions('post', 'unregistered-callback.json')
      const browser = scriptedBrowser()
      const before = cloud.op.tokenRequests.length
      // A real browser is handed the address and shows the login server's error page to the person.
      const openBrowser = async (url: string) => void browser.open(url).catch(() => undefined)
      const error = await rejection(runCloudLogin({ ...options, callbackUrl, timeoutMs: 500, openBrowser }))
      const page = await browser.finished.then(
        () => '',
        (caught: unknown) => String(caught),
      )
      expect(page).toContain('invalid_redirect_uri')
      const sent = new URL(browser.visited[0]!).searchParams.get('redirect_uri')!
      expect(error.code).toBe('TS_ABORTED')
      expect(error.message).toContain(sent)
      expect(error.hint).toContain(`register ${sent} for the client exactly as written`)
      expect(cloud.op.tokenRequests.length).toBe(before)
      expect(await exists(options.tokenFile)).toBe(false)
    },
  )

  it('fails discovery with a clear error when the authority does not answer', async () => {
    const options = { ...cloud.clientOptions('post', 'down.json'), authority: 'http://127.0.0.1:9' }
    const error = await rejection(runCloudLogin({ ...options, callbackUrl: 'http://127.0.0.1:0', openBrowser: async () => undefined }))
    expect(error.code).toBe('TS_NETWORK')
    expect(error.message).toContain('discovery')
  })
})
