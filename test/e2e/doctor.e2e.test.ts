/**
 * `timeline-sheets doctor` as an operator runs it, the CLI as a subprocess against the reference
 * server and a workbook: one line per check and exit 0 when a sync would work; `--json` one object; a reader
 * account exits 6; a held lock 5; an unknown `--target` 2. (That doctor writes nothing is proven in
 * test/engine/doctor.test.ts, where the counterparts count the requests.)
 */
import { hostname } from 'node:os'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, writeConfig } from './cli.ts'
import { startWorkbookTarget, type WorkbookTarget } from './workbook-target.ts'

const NOW = '2026-11-10T11:00:00Z'
let world: WorkbookTarget

beforeAll(async () => {
  world = await startWorkbookTarget(
    'doctor',
    { users: 2, days: 4, startDate: '2026-11-07', timeZones: ['Europe/Berlin'] },
    { timeZone: 'Europe/Berlin', window: { days: 7 } },
  )
}, 60_000)

afterAll(async () => {
  await world?.server.close()
})

interface DoctorJson {
  checks: { name: string; target?: string; status: string; detail: string; fix?: string; code?: string }[]
  exitCode: number
}

describe('timeline-sheets doctor (CLI)', () => {
  it('a setup that works: one line per check, the verdict, exit 0; a later export still works', async () => {
    const run = await runCli(['doctor', '--config', world.configFile, '--now', NOW], world.env)
    expect(run.code, run.stderr).toBe(0)
    const lines = run.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^ok {4}config valid: /)
    expect(lines).toContain(`ok    Timeline sign-in: signed in to ${new URL('/api', world.server.url).href} as transfer@example.com.`)
    expect(lines.some((l) => l.startsWith('ok    team: workbook readable: '))).toBe(true)
    expect(lines.some((l) => l.startsWith('ok    team: lock free: '))).toBe(true)
    expect(lines.at(-1)).toBe('A sync would work.')
    expect(lines.every((l) => /^(ok {2}|warn|FAIL|skip) {2}/.test(l) || l.startsWith('A sync'))).toBe(true)

    const exported = await runCli(['export', '--config', world.configFile, '--now', NOW], world.env)
    expect(exported.code, exported.stderr).toBe(0)
    const again = await runCli(['doctor', '--config', world.configFile, '--now', NOW], world.env)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain('team: state of this server: ')
    expect(again.stdout).toContain('belongs to')
  }, 120_000)

  it('--json: one object { checks, exitCode } on stdout; a reader account: exit 6 and the failing check', async () => {
    const ok = await runCli(['doctor', '--config', world.configFile, '--now', NOW, '--json'], world.env)
    expect(ok.code, ok.stderr).toBe(0)
    const report = JSON.parse(ok.stdout) as DoctorJson
    expect(Object.keys(report).sort()).toEqual(['checks', 'exitCode'])
    expect(report.exitCode).toBe(0)
    expect(report.checks.find((c) => c.name === 'lock free')).toMatchObject({ target: 'team', status: 'pass' })

    const reader = world.server.credentials.reader!
    const folder = path.join(world.folder, 'reader')
    await mkdir(folder)
    const file = await writeConfig(folder, {
      timeline: { auth: { mode: 'password', baseUrl: world.server.url, username: reader.username } },
      stateDir: 'state',
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'Europe/Berlin' }],
    })
    const refused = await runCli(['doctor', '--config', file, '--json'], { TIMELINE_PASSWORD: reader.password })
    expect(refused.code).toBe(6)
    const out = JSON.parse(refused.stdout) as DoctorJson
    expect(out.exitCode).toBe(6)
    expect(out.checks.find((c) => c.name === 'Content editor (getAll)')).toMatchObject({ status: 'fail', code: 'TS_FORBIDDEN' })
  }, 120_000)

  it('a lock held by a live run: exit 5, and the line names the holder; --target of an unknown name: exit 2', async () => {
    const lockFile = path.join(world.folder, 'state', 'team', 'lock')
    await mkdir(path.dirname(lockFile), { recursive: true })
    const expiresAt = new Date(Date.parse(NOW) + 3_600_000).toISOString()
    await writeFile(lockFile, JSON.stringify({ pid: process.pid, host: hostname(), command: 'sync', createdAt: NOW, expiresAt }))
    const held = await runCli(['doctor', '--config', world.configFile, '--now', NOW], world.env)
    expect(held.code).toBe(5)
    expect(held.stdout).toMatch(new RegExp(`^FAIL {2}team: lock free: sync \\(pid ${process.pid} on .*\\. Fix: Wait for it`, 'm'))
    expect(held.stdout.trim().split('\n').at(-1)).toBe('A sync would not work: 1 check failed (exit code 5).')

    const unknown = await runCli(['doctor', '--config', world.configFile, '--target', 'nobody'], world.env)
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toContain('has no target named "nobody"')
  }, 120_000)
})
