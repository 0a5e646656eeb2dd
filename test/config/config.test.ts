/**
 * What the config file may say, and how it refuses the rest, naming each field: defaults and paths, secrets,
 * zones and targets, workbook protection, the `timeouts` section, and URLs without a user name or password (one
 * would reach logs, messages and every proxy on the way).
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { toCliFailure } from '../../src/cli/errors.ts'
import { loadConfig, parseConfig, secretFromEnv } from '../../src/config/load.ts'
import { TimelineSheetsError } from '../../src/errors.ts'

const minimal = {
  timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:8080', username: 'transfer@example.com' } },
  targets: [{ name: 'team-a', spreadsheet: { kind: 'workbook', path: 'team-a.xlsx' }, timeZone: 'Europe/Berlin' }],
}

function problemsOf(json: unknown): string {
  try {
    parseConfig(JSON.stringify(json), '/cfg/timeline-sheets.json')
  } catch (error) {
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_CONFIG_INVALID')
    return (error as Error).message
  }
  throw new Error('expected the config to be refused')
}

describe('config', () => {
  it('fills defaults and resolves paths against the config folder', () => {
    const { config, resolvePath } = parseConfig(JSON.stringify(minimal), '/cfg/timeline-sheets.json')
    expect(config.vendor).toBe('manictime')
    expect(config.stateDir).toBe('.timeline-sheets')
    expect(config.timeline.pace).toEqual({ concurrency: 4, requestsPerInterval: 300, intervalMs: 60_000 })
    const target = config.targets[0]!
    expect(target.window).toEqual({ days: 35, lookBackDays: 7 })
    expect(target.tabs).toEqual({ activities: 'Activities', allowedTags: 'Allowed tags', syncLog: 'Sync log' })
    expect(target.deletedRows).toBe('remove')
    expect(config.timeline.auth.mode === 'password' && config.timeline.auth.passwordEnv).toBe('TIMELINE_PASSWORD')
    expect(resolvePath(target.spreadsheet.kind === 'workbook' ? target.spreadsheet.path : '')).toBe('/cfg/team-a.xlsx')
  })

  it('names the path of every bad field at once', () => {
    const message = problemsOf({
      ...minimal,
      timeline: { auth: { mode: 'password', baseUrl: 'ftp://x', username: '' } },
      targets: [{ name: 'bad name', spreadsheet: { kind: 'workbook', path: 'x.xlsx' }, timeZone: 'UTC' }],
    })
    expect(message).toContain('timeline.auth.baseUrl')
    expect(message).toContain('timeline.auth.username')
    expect(message).toContain('targets[0].name')
    expect(message).toMatch(/has 3 problems/)
  })

  it('counts days from midnight unless a target names the hour ManicTime starts its days at, in whole minutes below 24:00', () => {
    expect(parseConfig(JSON.stringify(minimal), '/cfg/timeline-sheets.json').config.targets[0]!.dayStartsAt).toBe('00:00')
    const shifted = { ...minimal, targets: [{ ...minimal.targets[0], dayStartsAt: '04:00' }] }
    expect(parseConfig(JSON.stringify(shifted), '/cfg/timeline-sheets.json').config.targets[0]!.dayStartsAt).toBe('04:00')
    for (const bad of ['24:00', '4:00', '04:00:30', '04:60', '4 am', '']) {
      expect(problemsOf({ ...minimal, targets: [{ ...minimal.targets[0], dayStartsAt: bad }] })).toContain('targets[0].dayStartsAt')
    }
  })

  it('refuses a password written into the file', () => {
    const message = problemsOf({ ...minimal, timeline: { auth: { ...minimal.timeline.auth, password: 'hunter2' } } })
    expect(message).toContain('password')
    expect(message).not.toContain('hunter2')
  })

  it('refuses an unknown time zone, duplicate target names and a Google target without Google sign-in', () => {
    expect(problemsOf({ ...minimal, targets: [{ ...minimal.targets[0], timeZone: 'Mars/Olympus' }] })).toContain('targets[0].timeZone')
    expect(problemsOf({ ...minimal, targets: [minimal.targets[0], minimal.targets[0]] })).toContain('targets[1].name')
    expect(
      problemsOf({ ...minimal, targets: [{ ...minimal.targets[0], spreadsheet: { kind: 'google', spreadsheetId: '1abcdefghijklmnop' } }] }),
    ).toContain('needs a "google" section')
  })

  it('refuses two target names that differ only in case: Windows and macOS would give them one state folder', () => {
    const message = problemsOf({ ...minimal, targets: [minimal.targets[0], { ...minimal.targets[0], name: 'Team-A' }] })
    expect(message).toContain('targets[1].name: "Team-A" is used by another target (case aside)')
  })

  it.each(['con', 'NUL', 'Aux', 'com1', 'LPT9'])(
    'refuses the target name %s, a device on Windows where its state folder would be',
    (name) => {
      expect(problemsOf({ ...minimal, targets: [{ ...minimal.targets[0], name }] })).toContain(
        `targets[0].name: "${name}" is a device name on Windows`,
      )
    },
  )

  it('refuses two tabs of one target with one title, case aside, naming the field to change', () => {
    const withTabs = (extra: object) => ({ ...minimal, targets: [{ ...minimal.targets[0], ...extra }] })
    expect(problemsOf(withTabs({ tabs: { syncLog: 'activities' } }))).toContain(
      'targets[0].tabs.syncLog: "activities" is also the title of tabs.activities',
    )
    expect(problemsOf(withTabs({ tabs: { allowedTags: 'Summary' } }))).toContain(
      'targets[0].tabs.allowedTags: "Summary" is also the title of the Summary tab',
    )
    expect(problemsOf(withTabs({ approvals: {}, tabs: { syncLog: 'approved' } }))).toContain(
      'targets[0].tabs.syncLog: "approved" is also the title of the Approved tab',
    )
    // Without approvals there is no Approved tab to clash with.
    expect(() => parseConfig(JSON.stringify(withTabs({ tabs: { syncLog: 'Approved' } })), '/cfg/c.json')).not.toThrow()
    expect(problemsOf(withTabs({ tabs: { activities: 'ComputerUsage' }, otherTimelines: ['ComputerUsage'] }))).toContain(
      'targets[0].otherTimelines[0]: "ComputerUsage" is also the title of tabs.activities',
    )
    // Titles of different targets live in different spreadsheets.
    const second = { ...minimal.targets[0], name: 'team-b', tabs: { activities: 'Sync log' } }
    expect(() => parseConfig(JSON.stringify({ ...minimal, targets: [minimal.targets[0], second] }), '/cfg/c.json')).toThrow(
      /tabs.activities/,
    )
    expect(() =>
      parseConfig(
        JSON.stringify({ ...minimal, targets: [minimal.targets[0], { ...second, tabs: { activities: 'Time' } }] }),
        '/cfg/c.json',
      ),
    ).not.toThrow()
  })

  it('says where invalid JSON is', () => {
    expect(() => parseConfig('{"targets": [}', '/cfg/x.json')).toThrow(/\/cfg\/x.json is not valid JSON/)
  })

  it('reports a missing file with a hint', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'ts-config-'))
    await expect(loadConfig(path.join(folder, 'nope.json'))).rejects.toMatchObject({ code: 'TS_CONFIG_NOT_FOUND' })
    await writeFile(path.join(folder, 'ok.json'), JSON.stringify(minimal))
    await expect(loadConfig(path.join(folder, 'ok.json'))).resolves.toMatchObject({ file: path.join(folder, 'ok.json') })
  })

  it('reads secrets from the environment and names only the variable when missing', () => {
    expect(secretFromEnv('TS_TEST_SECRET', 'the password', { TS_TEST_SECRET: 's3cret' })).toBe('s3cret')
    expect(() => secretFromEnv('TS_TEST_SECRET', 'the password', {})).toThrow(/TS_TEST_SECRET is not set/)
  })
})

describe('workbook protection', () => {
  it('is on unless the target switches it off', () => {
    const on = parseConfig(JSON.stringify(minimal), '/cfg/x.json').config.targets[0]!.spreadsheet
    expect(on).toEqual({ kind: 'workbook', path: 'team-a.xlsx', protect: true })
    const off = parseConfig(
      JSON.stringify({
        ...minimal,
        targets: [{ ...minimal.targets[0], spreadsheet: { kind: 'workbook', path: 'x.xlsx', protect: false } }],
      }),
      '/cfg/x.json',
    ).config.targets[0]!.spreadsheet
    expect(off).toMatchObject({ protect: false })
  })
})

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

describe('no credentials in URLs', () => {
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

describe('timeouts', () => {
  it('defaults to 10 s connect, 30 s first byte, 30 s idle body, 2 min per request, 200 s a Sheets write, 2 min of repeats a run, 0.5 s before the first repeat, and no run deadline', () => {
    const { config } = parseConfig(JSON.stringify({ timeline: { auth: password }, targets: [target] }), '/cfg/x.json')
    expect(config.timeouts).toEqual({
      connectMs: 10_000,
      firstByteMs: 30_000,
      idleBodyMs: 30_000,
      totalMs: 120_000,
      googleWriteMs: 200_000,
      retryBudgetMs: 120_000,
      retryDelayMs: 500,
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
      retryDelayMs: 7,
      runMs: 3_600_000,
    }
    const { config } = parseConfig(JSON.stringify({ timeline: { auth: password }, timeouts, targets: [target] }), '/cfg/x.json')
    expect(config.timeouts).toEqual(timeouts)
  })

  it('refuses zero, negative, fractional, unknown and absurdly long limits, naming each', () => {
    const error = refusal({
      timeline: { auth: password },
      timeouts: { connectMs: 0, firstByteMs: -5, idleBodyMs: 1.5, totalMs: 10 ** 12, retryDelayMs: 0, firstByte: 30 },
      targets: [target],
    })
    for (const field of [
      'timeouts.connectMs',
      'timeouts.firstByteMs',
      'timeouts.idleBodyMs',
      'timeouts.totalMs',
      'timeouts.retryDelayMs',
      'timeouts',
    ]) {
      expect(error.message).toContain(`${field}:`)
    }
    expect(error.message).toMatch(/firstByte/)
  })
})
