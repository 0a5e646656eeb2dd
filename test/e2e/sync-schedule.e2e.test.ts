/** `sync --cron`: keeps syncing on schedule and stops cleanly after the current run on SIGTERM. */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { CLI, runCli, tempFolder, writeConfig } from './cli.ts'

let server: ReferenceServer
let configFile: string
let env: Record<string, string>

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 1, days: 3, startDate: '2026-11-08', timeZones: ['UTC'], otherTimelines: false } })
  const folder = await tempFolder('schedule')
  configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'UTC', window: { days: 5 } }],
  })
  env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
})

afterAll(async () => {
  await server?.close()
})

describe('sync on a schedule', () => {
  it('runs on every tick and stops after the current run on SIGTERM, exit 0', async () => {
    const child = spawn(process.execPath, [CLI, 'sync', '--config', configFile, '--cron', '* * * * * *'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    let stdout = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    const finishedRuns = new Promise<void>((resolve) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString()
        if ((stderr.match(/Run finished with exit code 0/g) ?? []).length >= 2) resolve()
      })
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    await Promise.race([finishedRuns, exited])
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stderr).toContain('Syncing on schedule')
    expect((stdout.match(/Import team/g) ?? []).length).toBeGreaterThanOrEqual(2)
  })

  it('refuses a schedule it cannot read, exit 2', async () => {
    const run = await runCli(['sync', '--config', configFile, '--cron', 'every night'], env)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('is not a valid cron expression')
    const both = await runCli(['sync', '--config', configFile, '--cron', '0 2 * * *', '--every', '1h'], env)
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('either --every or --cron')
  })
})
