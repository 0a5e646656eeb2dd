/** Issue 8 item 8: a link from the server with a user name or password is refused, and not printed. */
import { describe, expect, test } from 'vitest'
import { HomeSchema, parseBody } from '../../src/timeline/schemas.ts'
import { BASE } from './fixtures.ts'

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
