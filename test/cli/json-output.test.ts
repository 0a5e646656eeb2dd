/**
 * `--json` a script can rely on. stdout holds exactly one JSON object and nothing else: `{ "runs": [...],
 * "exitCode" }` with one run per target, or `{ "error": { code, message, hint }, "exitCode" }` when the command
 * failed; the exit code is the one the process ends with. Logs go to stderr.
 */
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { CLI, runCli, tempFolder, writeConfig, type CliRun } from '../e2e/cli.ts'
import { startProcess } from '../e2e/cli-process.ts'

const timeZone = 'Europe/Berlin'
const NOW = '2026-11-10T11:00:00Z'

let server: ReferenceServer
let folder: string
let env: Record<string, string>
let auth: Record<string, unknown>

beforeAll(async () => {
  server = await startReferenceServer({
    data: { users: 2, days: 10, startDate: '2026-11-01', timeZones: [timeZone], otherTimelines: false },
  })
  folder = await tempFolder('json')
  auth = { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username }
  env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
})

afterAll(async () => {
  await server?.close()
})

const target = (name: string) => ({ name, spreadsheet: { kind: 'workbook', path: `${name}.xlsx` }, timeZone, window: { days: 14 } })

async function config(name: string, targets: unknown[]): Promise<string> {
  const dir = path.join(folder, name)
  await mkdir(dir)
  return writeConfig(dir, { timeline: { auth }, stateDir: 'state', targets })
}

/** stdout parsed as one JSON value; throws when it holds anything else. */
function stdoutJson(run: CliRun): Record<string, unknown> {
  const value = JSON.parse(run.stdout) as unknown
  expect(value).toBeTypeOf('object')
  expect(Array.isArray(value)).toBe(false)
  return value as Record<string, unknown>
}

describe('--json', () => {
  it('one target: { runs: [that run], exitCode: 0 }, logs on stderr', async () => {
    const file = await config('one', [target('team')])
    const run = await runCli(['export', '--config', file, '--now', NOW, '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    const out = stdoutJson(run)
    expect(Object.keys(out).sort()).toEqual(['exitCode', 'runs'])
    expect(out.exitCode).toBe(0)
    const runs = out.runs as { target: string; result: string; counts: { created: number } }[]
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ target: 'team', result: 'success' })
    expect(runs[0]!.counts.created).toBeGreaterThan(0)
    expect(run.stderr).toContain('Exporting team')
  }, 120_000)

  it('two targets: still one object, one run per target in the order of the config', async () => {
    const file = await config('two', [target('team-a'), target('team-b')])
    const run = await runCli(['export', '--config', file, '--now', NOW, '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    const out = stdoutJson(run)
    expect((out.runs as { target: string }[]).map((r) => r.target)).toEqual(['team-a', 'team-b'])
    expect(out.exitCode).toBe(0)
  }, 120_000)

  it('a run that fails: { error: { code, message, hint }, exitCode } on stdout, the same exit code, the message on stderr too', async () => {
    const file = await config('failed', [target('team')])
    const run = await runCli(['export', '--config', file, '--now', NOW, '--json'], { TIMELINE_PASSWORD: 'not-the-password' })
    expect(run.code).toBe(6)
    const out = stdoutJson(run)
    expect(Object.keys(out).sort()).toEqual(['error', 'exitCode'])
    expect(out.exitCode).toBe(run.code)
    const error = out.error as { code: string; message: string; hint?: string }
    expect(error.code).toBe('TS_AUTH_FAILED')
    expect(error.message).toContain('Wrong username or password')
    expect(error.hint).toEqual(expect.any(String))
    expect(run.stdout).not.toContain('not-the-password')
    expect(run.stderr).toContain(`error: ${error.message}`)
  }, 120_000)

  it('a config error: the error object names the field, exit code 2', async () => {
    const dir = path.join(folder, 'bad')
    await mkdir(dir)
    const file = await writeConfig(dir, { timeline: { auth }, targets: [{ ...target('team'), timeZone: 'Nowhere/City' }] })
    const run = await runCli(['export', '--config', file, '--json'], env)
    expect(run.code).toBe(2)
    const out = stdoutJson(run)
    expect(out.exitCode).toBe(2)
    expect(out.error).toMatchObject({ code: 'TS_CONFIG_INVALID', message: expect.stringContaining('timeZone') })
  }, 120_000)

  it('a mistake on the command line: a JSON error too, exit code 2', async () => {
    const run = await runCli(['export', '--json', '--dry-rnu'])
    expect(run.code).toBe(2)
    const out = stdoutJson(run)
    expect(out).toEqual({
      error: { code: 'TS_USAGE', message: expect.stringContaining("unknown option '--dry-rnu'"), hint: 'Run with --help for usage.' },
      exitCode: 2,
    })
  }, 120_000)

  it('without --json a failure writes nothing on stdout', async () => {
    const run = await runCli(['export', '--dry-rnu'])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
  }, 120_000)

  it('login that cannot run (a password config): { error, exitCode: 2 } like every command', async () => {
    const file = await config('login', [target('team')])
    const run = await runCli(['login', '--config', file, '--json'], env)
    expect(run.code).toBe(2)
    expect(stdoutJson(run)).toEqual({
      error: { code: 'TS_USAGE', message: expect.stringContaining('login is for cloud sign-in'), hint: expect.any(String) },
      exitCode: 2,
    })
  }, 120_000)
})

describe('sync on a schedule with --json', () => {
  /** Runs `sync --cron` until `lines` JSON lines are on stdout, then stops it as a service manager would. */
  async function scheduled(args: string[], runEnv: Record<string, string>, lines: number) {
    const child = startProcess(CLI, ['sync', ...args, '--cron', '* * * * * *', '--json', '--quiet'], {
      ...runEnv,
      TZ: 'America/Los_Angeles',
    })
    try {
      await child.waitFor('stdout', new RegExp(`(?:[^\\n]*\\n){${lines}}`), 120_000)
    } finally {
      await child.stop()
    }
    const run = await child.exited
    return {
      run,
      out: run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    }
  }

  it("one line per run: { runs, exitCode, schedule } in the target's zone, whatever the host's", async () => {
    const file = await config('scheduled', [target('team')])
    const { out } = await scheduled(['--config', file], env, 2)
    expect(out.length).toBeGreaterThanOrEqual(2)
    for (const line of out) {
      expect(Object.keys(line).sort()).toEqual(['exitCode', 'runs', 'schedule'])
      expect(line.exitCode).toBe(0)
      // A sync run is its import and its export, each naming the target.
      expect((line.runs as { imported: { target: string } }[]).map((r) => r.imported.target)).toEqual(['team'])
      expect(line.schedule).toEqual({ pattern: '* * * * * *', timeZone, nextRun: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) })
    }
  }, 180_000)

  it('a run that fails: { error, exitCode, schedule } on its line, and the schedule goes on', async () => {
    const file = await config('scheduled-failing', [target('team')])
    const { out } = await scheduled(['--config', file], { TIMELINE_PASSWORD: 'not-the-password' }, 2)
    for (const line of out) {
      expect(Object.keys(line).sort()).toEqual(['error', 'exitCode', 'schedule'])
      expect(line).toMatchObject({ error: { code: 'TS_AUTH_FAILED' }, exitCode: 6, schedule: { timeZone } })
    }
  }, 180_000)
})
