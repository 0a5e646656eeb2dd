/**
 * Issue 8 items 2 and 8: the config's `timeouts` section, and no URL in the
 * config may carry a user name or password (it would reach logs, messages
 * and every proxy on the way).
 */
import { describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load.ts'
import { toCliFailure } from '../../src/cli/errors.ts'
import { TimelineSheetsError } from '../../src/errors.ts'

const target = { name: 'team-a', spreadsheet: { kind: 'workbook', path: 'team-a.xlsx' }, timeZone: 'Europe/Berlin' }
const password = { mode: 'password', baseUrl: 'https://timeline.example.com', username: 'transfer@example.com' }
const cloud = { mode: 'cloud', clientId: 'timeline-sheets' }

function refusal(json: unknown): TimelineSheetsError {
  try {
    parseConfig(JSON.stringify(json), '/cfg/timeline-sheets.json')
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineSheetsError)
    return error as TimelineSheetsError
  }
  throw new Error('expected the config to be refused')
}

describe('issue 8 item 8: no credentials in URLs', () => {
  it.each([
    [
      'password baseUrl',
      { timeline: { auth: { ...password, baseUrl: 'http://user:secret-pw@timeline.example.com/' } } },
      'timeline.auth.baseUrl',
      'passwordEnv',
    ],
    [
      'a user name alone',
      { timeline: { auth: { ...password, baseUrl: 'https://transfer@timeline.example.com' } } },
      'timeline.auth.baseUrl',
      'passwordEnv',
    ],
    [
      'ntlm baseUrl',
      { timeline: { auth: { mode: 'ntlm', baseUrl: 'https://EXAMPLE%5Cbob:secret-pw@timeline.example.com', username: 'EXAMPLE\\bob' } } },
      'timeline.auth.baseUrl',
      'passwordEnv',
    ],
    [
      'cloud apiUrl',
      { timeline: { auth: { ...cloud, apiUrl: 'https://client:secret-pw@api.example.com' } } },
      'timeline.auth.apiUrl',
      'clientSecretEnv',
    ],
    [
      'cloud authority',
      { timeline: { auth: { ...cloud, authority: 'https://client:secret-pw@login.example.com' } } },
      'timeline.auth.authority',
      'clientSecretEnv',
    ],
    [
      'cloud callbackUrl',
      { timeline: { auth: { ...cloud, callbackUrl: 'http://me:secret-pw@127.0.0.1:4040' } } },
      'timeline.auth.callbackUrl',
      'clientSecretEnv',
    ],
    [
      'google rootUrl',
      { timeline: { auth: password }, google: { auth: { mode: 'adc' }, rootUrl: 'https://key:secret-pw@sheets.example.com/' } },
      'google.rootUrl',
      'google.auth',
    ],
  ])('refuses user info in the %s (exit 2, naming the field, never the secret)', (_name, config, field, instead) => {
    const error = refusal({ ...config, targets: [target] })
    expect(error.code).toBe('TS_CONFIG_INVALID')
    expect(error.message).toContain(`${field}: must not contain a user name or password`)
    expect(error.message).toContain(instead)
    expect(error.message).not.toContain('secret-pw')
    expect(toCliFailure(error).exitCode).toBe(2)
  })

  it('a value that is not a URL at all is reported as such, once (the user-info check must not crash on it)', () => {
    const error = refusal({ timeline: { auth: { ...password, baseUrl: 'not a url' } }, targets: [target] })
    expect(error.code).toBe('TS_CONFIG_INVALID')
    expect(error.message).toContain('timeline.auth.baseUrl: must be an http(s) URL')
    expect(error.message).not.toContain('user name')
  })

  it('accepts URLs without user info, and an @ in the path or query', () => {
    const { config } = parseConfig(
      JSON.stringify({ timeline: { auth: { ...password, baseUrl: 'https://timeline.example.com/teams/@ops?x=a@b' } }, targets: [target] }),
      '/cfg/x.json',
    )
    expect(config.timeline.auth.mode === 'password' && config.timeline.auth.baseUrl).toBe('https://timeline.example.com/teams/@ops?x=a@b')
  })
})

describe('issue 8 item 2: timeouts', () => {
  it('defaults to 10 s connect, 30 s first byte, 30 s idle body, 2 min per request, 200 s a Sheets write, 2 min of repeats a run, and no run deadline', () => {
    const { config } = parseConfig(JSON.stringify({ timeline: { auth: password }, targets: [target] }), '/cfg/x.json')
    expect(config.timeouts).toEqual({
      connectMs: 10_000,
      firstByteMs: 30_000,
      idleBodyMs: 30_000,
      totalMs: 120_000,
      googleWriteMs: 200_000,
      retryBudgetMs: 120_000,
    })
  })

  it('takes every limit and the run deadline from the file', () => {
    const timeouts = {
      connectMs: 1_000,
      firstByteMs: 2_000,
      idleBodyMs: 3_000,
      totalMs: 4_000,
      googleWriteMs: 5_000,
      retryBudgetMs: 6_000,
      runMs: 3_600_000,
    }
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
