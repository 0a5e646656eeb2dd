/**
 * What a watch prints on standard output. With --json every interval prints one line, an idle one too (its
 * target, when it ended and the requests the check made), so a log monitor can tell a quiet watch from a stopped
 * one; as text an idle interval prints nothing, not even an empty line.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { runWatchCommand, type WatchClock } from '../../src/cli/commands/sync-watch.ts'

const WATCH_OPTIONS = { dryRun: false, deleteMissing: false, force: false, forceLayout: false, strictTags: false, overwriteTags: false }
let server: ReferenceServer
let folder: string

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 1, days: 3, startDate: '2026-11-20', otherTimelines: false } })
  folder = await mkdtemp(path.join(tmpdir(), 'ts-watch-lines-'))
})

afterAll(async () => {
  await server?.close()
})

/** Runs `intervals` watch intervals back to back on a workbook target of its own; returns what went to stdout. */
async function watchFor(name: string, json: boolean, intervals: number): Promise<{ code: number; stdout: string }> {
  const config = path.join(folder, `${name}.json`)
  await writeFile(
    config,
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
      stateDir: path.join(folder, `${name}-state`),
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: `${name}.xlsx` }, timeZone: 'Europe/Berlin' }],
    }),
  )
  const out: string[] = []
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true))
  vi.stubEnv('TIMELINE_PASSWORD', server.credentials.transfer!.password)
  const clock: WatchClock = {
    describe: () => 'back to back',
    async run(tick) {
      for (let i = 0; i < intervals; i++) await tick()
    },
  }
  try {
    const code = await runWatchCommand({ config, json, verbose: false, quiet: false }, WATCH_OPTIONS, clock)
    return { code, stdout: out.join('') }
  } finally {
    stderr.mockRestore()
    stdout.mockRestore()
    vi.unstubAllEnvs()
  }
}

describe('a watch prints', () => {
  it('with --json, a line for every interval: the first sync, then each idle check with its time and requests', async () => {
    const { code, stdout } = await watchFor('json', true, 3)
    expect(code).toBe(0)
    const lines = stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(3)
    const [first, ...idle] = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(first).toMatchObject({ watch: { reason: expect.any(String) } })
    for (const line of idle) {
      expect(line).toEqual({ target: 'team', idle: { at: expect.any(String), requests: { spreadsheet: 0, timeline: 1 } } })
      expect(Number.isNaN(Date.parse((line['idle'] as { at: string }).at))).toBe(false)
    }
  })

  it('as text, the first sync only: idle intervals print nothing', async () => {
    const { code, stdout } = await watchFor('text', false, 3)
    expect(code).toBe(0)
    expect(stdout).not.toBe('')
    expect(stdout).not.toMatch(/\n\n|^\n/)
    expect(stdout).not.toMatch(/idle/)
  })
})
