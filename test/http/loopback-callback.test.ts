/**
 * The one loopback receiver both browser sign-ins use (src/http/loopback-callback.ts), over a real socket:
 * what counts as the callback, a wrong state, a second callback, an unanswered one and a port already taken.
 */
import { describe, expect, it } from 'vitest'
import { listenForCallback, type LoopbackCallbackOptions } from '../../src/http/loopback-callback.ts'

const options = (extra: Partial<LoopbackCallbackOptions> = {}): LoopbackCallbackOptions => ({
  url: new URL('http://127.0.0.1:0/callback'),
  state: 'the-state',
  timeoutMs: 60_000,
  errors: {
    listen: (errno) => new Error(`listen ${errno}`),
    wrongState: () => new Error('wrong state'),
    timeout: () => new Error('timeout'),
  },
  pages: { refused: 'refused page', finished: 'finished page', failed: 'failed page' },
  ...extra,
})

const get = async (port: number, pathAndQuery: string) => {
  const response = await fetch(`http://127.0.0.1:${port}${pathAndQuery}`)
  return { status: response.status, body: await response.text() }
}

describe('the loopback callback receiver', () => {
  it('leaves the login waiting for other paths and for the path without code or error, then takes the callback', async () => {
    const receiver = await listenForCallback(options())
    try {
      expect((await get(receiver.port, '/favicon.ico')).status).toBe(404)
      expect((await get(receiver.port, '/callback')).status).toBe(404)
      expect((await get(receiver.port, '/callback?state=the-state')).status).toBe(404)
      const browser = get(receiver.port, '/callback?code=c1&state=the-state')
      const url = await receiver.url
      expect(url.searchParams.get('code')).toBe('c1')
      expect(url.port).toBe(String(receiver.port))
      receiver.answer(200, 'signed in')
      expect(await browser).toEqual({ status: 200, body: 'signed in' })
      expect(await get(receiver.port, '/callback?code=c2&state=the-state')).toEqual({ status: 400, body: 'finished page' })
    } finally {
      await receiver.close()
    }
  })

  it('refuses a callback with another state and ends the login', async () => {
    const receiver = await listenForCallback(options())
    try {
      expect(await get(receiver.port, '/callback?code=c1&state=forged')).toEqual({ status: 400, body: 'refused page' })
      await expect(receiver.url).rejects.toThrow('wrong state')
    } finally {
      await receiver.close()
    }
  })

  it('answers a callback the login never answered with the failed page when it closes', async () => {
    const receiver = await listenForCallback(options())
    const browser = get(receiver.port, '/callback?error=access_denied&state=the-state')
    expect((await receiver.url).searchParams.get('error')).toBe('access_denied')
    await receiver.close()
    expect(await browser).toEqual({ status: 400, body: 'failed page' })
  })

  it("ends the wait with the sign-in's own errors: a port already taken, fail(), and the timeout", async () => {
    const first = await listenForCallback(options())
    try {
      await expect(listenForCallback(options({ url: new URL(`http://127.0.0.1:${first.port}/callback`) }))).rejects.toThrow(
        'listen EADDRINUSE',
      )
    } finally {
      await first.close()
    }
    const failed = await listenForCallback(options())
    failed.fail(new Error('no browser'))
    await expect(failed.url).rejects.toThrow('no browser')
    await failed.close()
    const silent = await listenForCallback(options({ timeoutMs: 1 }))
    await expect(silent.url).rejects.toThrow('timeout')
    await silent.close()
  })
})
