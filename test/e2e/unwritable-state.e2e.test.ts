/**
 * A state folder the tool may not write is no bug: the run stops with the
 * path, the permission that is missing and who lacks it, and exit code 2:
 * running again changes nothing until someone fixes the setup.
 *
 * A real EACCES needs a user the folder refuses: as root (which may write
 * anywhere) the CLI runs as `nobody`; otherwise as the test's own user.
 */
import { spawn } from 'node:child_process'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliRun } from './cli.ts'
import { CLI } from './cli.ts'
import { startWorkbookTarget, type WorkbookTarget } from './workbook-target.ts'

const NOBODY = 65534
const asRoot = process.getuid?.() === 0

function runAsOtherUser(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

let world: WorkbookTarget
let stateDir: string

beforeAll(async () => {
  world = await startWorkbookTarget(
    'unwritable-state',
    { users: 1, days: 3, startDate: '2026-11-06', timeZones: ['UTC'] },
    { timeZone: 'UTC', window: { days: 3, lookBackDays: 1 } },
  )
  stateDir = path.join(world.folder, 'state')
  await mkdir(stateDir)
  // The workbook's folder stays writable for the other user; only the state folder refuses.
  await chmod(world.folder, 0o777)
  await chmod(world.configFile, 0o644)
  await chmod(stateDir, 0o555)
})

afterAll(async () => {
  await world?.server.close()
})

describe('an unwritable state folder', () => {
  it.each([['export'], ['sync'], ['import', '--yes']])(
    '%s: names the path and the missing permission, exit 2, no "bug"',
    async (...args) => {
      const run = await runAsOtherUser([...args, '--config', world.configFile, '--now', '2026-11-10T11:00:00Z'], world.env)
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain(`error: Cannot write the lock file ${path.join(stateDir, 'team', 'lock')}: permission denied (EACCES)`)
      expect(run.stderr).toContain(`may not create or change files in the folder ${stateDir}`)
      expect(run.stderr).toMatch(/hint: Give \S+ write permission on the folder .* or set "stateDir" in the config/)
      expect(run.stderr).not.toMatch(/bug/i)
    },
  )

  it('a state folder path that runs through a file: ENOTDIR, exit 2', async () => {
    const blocker = path.join(world.folder, 'not-a-folder')
    await writeFile(blocker, 'x')
    await chmod(blocker, 0o666)
    const config = path.join(world.folder, 'through-a-file.json')
    const { readFile } = await import('node:fs/promises')
    const json = JSON.parse(await readFile(world.configFile, 'utf8')) as Record<string, unknown>
    await writeFile(config, JSON.stringify({ ...json, stateDir: 'not-a-folder/state' }))
    await chmod(config, 0o644)
    const run = await runAsOtherUser(['export', '--config', config, '--now', '2026-11-10T11:00:00Z'], world.env)
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toMatch(/a part of the path .*not-a-folder.* is a file, not a folder \(ENOTDIR\)/)
    expect(run.stderr).not.toMatch(/bug/i)
  })
})
