/**
 * A repeat is said as it happens, one line on stderr: plain on a terminal, `key=value` for a scheduler's log;
 * what failed, the attempt of how many, how long the run waits. A quota's 429 is the pace working (info, quiet
 * under --quiet); any other failure is a warning.
 */
import { Writable } from 'node:stream'
import { describe, expect, test } from 'vitest'
import { RequestTimeoutError } from '../../src/errors.ts'
import type { RetryEvent } from '../../src/http/retry.ts'
import { sayRetry } from '../../src/cli/network.ts'
import { createReporter } from '../../src/cli/reporter.ts'

function stderrOf(tty: boolean, quiet = false) {
  let text = ''
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString()
        done()
      },
    }),
    { isTTY: tty },
  )
  const reporter = createReporter({ json: false, verbose: false, quiet, stderr: stream, now: () => new Date('2026-11-10T11:00:00Z') })
  return { reporter, text: () => text }
}

const timedOut = new RequestTimeoutError({
  limit: 'firstByte',
  method: 'GET',
  url: 'https://timeline.example.com/api/timelines',
  ms: 30_000,
  setting: 'timeouts.firstByteMs',
  service: 'Timeline service',
})
const event: RetryEvent = { attempt: 2, attempts: 6, delayMs: 1_000, reason: 'firstByte timeout', error: timedOut }

describe('a repeat, said as it happens', () => {
  test('on a terminal: one plain warning line', () => {
    const { reporter, text } = stderrOf(true)
    sayRetry(reporter, 'timeline', event, timedOut.message)
    expect(text()).toBe(
      'warning: Timeline service: attempt 2 of 6 failed: GET https://timeline.example.com/api/timelines: no answer within 30 s (first-byte timeout, timeouts.firstByteMs); trying again in 1 s (service: timeline, attempt: 2, waitMs: 1000, reason: firstByte timeout)\n',
    )
  })

  test('for a log: one logfmt line, also under --quiet', () => {
    const { reporter, text } = stderrOf(false, true)
    sayRetry(reporter, 'timeline', event, timedOut.message)
    expect(text()).toBe(
      'time=2026-11-10T11:00:00.000Z level=warn msg="Timeline service: attempt 2 of 6 failed: GET https://timeline.example.com/api/timelines: no answer within 30 s (first-byte timeout, timeouts.firstByteMs); trying again in 1 s" service=timeline attempt=2 waitMs=1000 reason="firstByte timeout"\n',
    )
  })

  test("Google's quota: the pace working, said as info", () => {
    const { reporter, text } = stderrOf(false)
    const quota = { attempt: 1, attempts: 8, delayMs: 61_000, reason: 'Google Sheets quota exceeded (429)', error: new Error('429') }
    sayRetry(reporter, 'google', quota, 'POST https://sheets.googleapis.com/v4/spreadsheets/a:batchUpdate answered 429')
    expect(text()).toBe(
      'time=2026-11-10T11:00:00.000Z level=info msg="Google Sheets asked to slow down, retrying in 1 min (attempt 1 of 8: Google Sheets quota exceeded (429))" service=google attempt=1 waitMs=61000 reason="Google Sheets quota exceeded (429)"\n',
    )
    const quiet = stderrOf(false, true)
    sayRetry(quiet.reporter, 'google', quota, '429')
    expect(quiet.text()).toBe('')
  })
})
