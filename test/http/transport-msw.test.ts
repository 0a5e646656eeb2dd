/**
 * The transport under msw: in-process tests keep working because the
 * transport calls globalThis.fetch at each request (msw patches it), and the
 * limits and the redirect policy hold for mocked answers too.
 */
import { delay, http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { RequestTimeoutError, TimelineSheetsError } from '../../src/errors.ts'
import { createTransport } from '../../src/http/transport.ts'

const msw = setupServer()
beforeAll(() => msw.listen({ onUnhandledFrame: 'error' }))
afterEach(() => msw.resetHandlers())
afterAll(() => msw.close())

// A mocked answer gets limits it never comes near, however busy the machine; only the test of the first-byte
// limit shortens it, against an answer that never comes.
const send = createTransport({ timeouts: { firstByteMs: 30_000, idleBodyMs: 30_000, totalMs: 60_000 } })

describe('transport under msw', () => {
  test('msw answers the request', async () => {
    msw.use(http.get('http://timeline.test/api', () => HttpResponse.json({ links: [] })))
    expect(await (await send(new Request('http://timeline.test/api'))).json()).toEqual({ links: [] })
  })

  test('a mocked answer that never comes ends at the first-byte timeout', async () => {
    msw.use(
      http.get('http://timeline.test/api', async () => {
        await delay('infinite')
        return HttpResponse.json({})
      }),
    )
    const impatient = createTransport({ timeouts: { firstByteMs: 300, idleBodyMs: 30_000, totalMs: 60_000 } })
    const error = await impatient(new Request('http://timeline.test/api')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).limit).toBe('firstByte')
  })

  test('a mocked redirect to another origin is refused and not followed', async () => {
    let reached = false
    msw.use(
      http.get('http://timeline.test/api', () => new HttpResponse(null, { status: 302, headers: { location: 'http://evil.test/api' } })),
      http.get('http://evil.test/api', () => {
        reached = true
        return HttpResponse.json({})
      }),
    )
    const error = await send(new Request('http://timeline.test/api', { headers: { authorization: 'Bearer x' } })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_UNSAFE_REDIRECT')
    expect(reached).toBe(false)
  })
})
