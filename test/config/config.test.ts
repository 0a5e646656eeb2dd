import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
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
