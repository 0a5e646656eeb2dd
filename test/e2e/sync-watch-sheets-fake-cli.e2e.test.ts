/**
 * End to end: `sync --watch` against the Sheets fake started by its own command line (`npm run sheets-fake`), as a
 * person trying the mode would start it, with the static token it prints and with the service-account key file
 * it writes. Each sign-in reaches Drive's files.get: the watch syncs, then finds nothing changed.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { startProcess, type RunningProcess } from './cli-process.ts'
import { runCli, tempFolder, writeConfig } from './cli.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const timeZone = 'Europe/Berlin'
let server: ReferenceServer
let fake: RunningProcess
let folder: string
let rootUrl: string
let spreadsheetId: string
let staticToken: string
let keyFile: string

beforeAll(async () => {
  const start = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)
  server = await startReferenceServer({ data: { users: 2, days: 7, startDate: start, timeZones: [timeZone], otherTimelines: false } })
  folder = await tempFolder('watch-sheets-fake-cli')
  keyFile = path.join(folder, 'fake-sa.json')
  fake = startProcess(path.join(root, 'counterparts/sheets/cli.ts'), [
    '--scope',
    'spreadsheets',
    '--scope',
    'drive.metadata.readonly',
    '--key-file',
    keyFile,
  ])
  const printed = (await fake.waitFor('stdout', /rootUrl:\s+(\S+)[^]*static token:\s+(\S+)[^]*spreadsheetId:\s+(\S+)/)).slice(1)
  ;[rootUrl, staticToken, spreadsheetId] = printed as [string, string, string]
})

afterAll(async () => {
  await fake?.stop()
  await server?.close()
})

/** Three watch intervals back to back with this Google sign-in, on one target that both configs share. */
async function watch(auth: Record<string, unknown>, env: Record<string, string> = {}) {
  const config = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    google: { auth, rootUrl, watch: true },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, timeZone, window: { days: 7, lookBackDays: 2 } }],
  })
  const run = await runCli(['--config', config, '--json', 'sync', '--watch', '--intervals', '3'], {
    TIMELINE_PASSWORD: server.credentials.transfer!.password,
    ...env,
  })
  const lines = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { watch?: unknown; idle?: { requests: { spreadsheet: number } }; error?: unknown })
  return { run, lines }
}

describe('sync --watch against `npm run sheets-fake`', () => {
  it('works with the static token the command line prints, started with the Drive scope', async () => {
    const { run, lines } = await watch({ mode: 'static-token' }, { GOOGLE_ACCESS_TOKEN: staticToken })
    expect(run.stderr).not.toMatch(/TS_FORBIDDEN|lacks the read-only Drive metadata scope|Interval failed/)
    expect(run.code).toBe(0)
    expect(lines.filter((line) => line.watch).length).toBeGreaterThanOrEqual(1)
    expect(lines.filter((line) => line.idle)).toContainEqual(
      expect.objectContaining({ idle: expect.objectContaining({ requests: expect.objectContaining({ spreadsheet: 1 }) }) }),
    )
  })

  it('works with the service-account key file the command line writes (JWT-bearer sign-in at the fake)', async () => {
    const { run, lines } = await watch({ mode: 'service-account', keyFile })
    expect(run.stderr).not.toMatch(/TS_FORBIDDEN|TS_AUTH|Interval failed/)
    expect(run.code).toBe(0)
    // A restarted watch syncs its target once, then checks Drive's version each interval.
    expect(lines.filter((line) => line.watch).length).toBeGreaterThanOrEqual(1)
    expect(lines.some((line) => line.idle)).toBe(true)
  })
})
