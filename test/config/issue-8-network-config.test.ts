/** Issue 8 item 2: the config's `timeouts` section. */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.ts'
import { TimelineSheetsError } from '../../src/errors.ts'

const target = { name: 'team-a', spreadsheet: { kind: 'workbook', path: 'team-a.xlsx' }, timeZone: 'Europe/Berlin' }
const password = { mode: 'password', baseUrl: 'https://timeline.example.com', username: 'transfer@example.com' }

function refusal(json: unknown): TimelineSheetsError {
  try {
    parseConfig(JSON.stringify(json), '/cfg/timeline-sheets.json')
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineSheetsError)
    return error as TimelineSheetsError
  }
  throw new Error('expected the config to be refused')
}

describe('issue 8 item 2: timeouts', () => {
  it('defaults to 10 s connect, 30 s first byte, 30 s idle body, 2 min per request, and no run deadline', () => {
    const { config } = parseConfig(JSON.stringify({ timeline: { auth: password }, targets: [target] }), '/cfg/x.json')
    expect(config.timeouts).toEqual({ connectMs: 10_000, firstByteMs: 30_000, idleBodyMs: 30_000, totalMs: 120_000 })
  })

  it('takes every limit and the run deadline from the file', () => {
    const timeouts = { connectMs: 1_000, firstByteMs: 2_000, idleBodyMs: 3_000, totalMs: 4_000, runMs: 3_600_000 }
    const { config } = parseConfig(JSON.stringify({ timeline: { auth: password }, timeouts, targets: [target] }), '/cfg/x.json')
    expect(config.timeouts).toEqual(timeouts)
  })

  it('refuses zero, negative, fractional, unknown and absurdly long limits, naming each', () => {
    const error = refusal({
      timeline: { auth: password },
      timeouts: { connectMs: 0, firstByteMs: -5, idleBodyMs: 1.5, totalMs: 10 ** 12, firstByte: 30 },
      targets: [target],
    })
    for (const field of ['timeouts.connectMs', 'timeouts.firstByteMs', 'timeouts.idleBodyMs', 'timeouts.totalMs', 'timeouts']) {
      expect(error.message).toContain(`${field}:`)
    }
    expect(error.message).toMatch(/firstByte/)
  })
})
