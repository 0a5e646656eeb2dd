/**
 * The nightly `sync`: `--metrics-file` leaves a textfile node_exporter's collector reads (checked by the format's
 * rules) with the run's figures, also after a failed run; a failing target is told to the webhook once over two
 * failed runs and its recovery once; a webhook that never answers neither holds the run past its timeout nor
 * changes the exit code.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { runSyncCommand } from '../../src/cli/commands/sync.ts'
import { toCliFailure } from '../../src/cli/errors.ts'
import { parseExposition, sampleValue } from '../support/exposition-format.ts'
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts'

const SYNC_OPTIONS = {
  dryRun: false,
  deleteMissing: false,
  force: false,
  forceLayout: false,
  strictTags: false,
  overwriteTags: false,
  yes: true,
}
let server: ReferenceServer

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 1, days: 3, startDate: '2026-11-20', otherTimelines: false } })
})

afterAll(async () => {
  await server?.close()
})

async function setUp(name: string, receiver: Receiver, timeoutMs = 5_000) {
  const folder = await mkdtemp(path.join(tmpdir(), `ts-nightly-${name}-`))
  const config = path.join(folder, 'config.json')
  const writeConfig = (workbook: string) =>
    writeFile(
      config,
      JSON.stringify({
        timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
        stateDir: path.join(folder, 'state'),
        notify: { webhook: { urlEnv: 'TEST_WEBHOOK_URL', timeoutMs } },
        targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: workbook }, timeZone: 'Europe/Berlin' }],
      }),
    )
  const sync = async (extra: Record<string, unknown> = {}) => {
    const err: string[] = []
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true))
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    vi.stubEnv('TIMELINE_PASSWORD', server.credentials.transfer!.password)
    vi.stubEnv('TEST_WEBHOOK_URL', receiver.url)
    try {
      // A failed run throws; the CLI's top level turns it into the exit code, as here.
      const code = await runSyncCommand({ config, json: true, verbose: false, quiet: false }, { ...SYNC_OPTIONS, ...extra }).catch(
        (error: unknown) => toCliFailure(error).exitCode,
      )
      return { code, stderr: err.join('') }
    } finally {
      stderr.mockRestore()
      stdout.mockRestore()
      vi.unstubAllEnvs()
    }
  }
  return { folder, writeConfig, sync }
}

describe('a nightly sync', () => {
  it('with --metrics-file leaves a textfile in the exposition format with the run in it, temp file renamed away', async () => {
    const receiver = await startReceiver('ok')
    try {
      const { folder, writeConfig, sync } = await setUp('file', receiver)
      await writeConfig('team.xlsx')
      const file = path.join(folder, 'textfile', 'timeline_sheets.prom')
      await mkdir(path.dirname(file))
      expect((await sync({ metricsFile: file })).code).toBe(0)
      const families = parseExposition(await readFile(file, 'utf8'))
      expect(sampleValue(families, 'timeline_sheets_runs_total', { target: 'team', outcome: 'synced' })).toBe(1)
      expect(sampleValue(families, 'timeline_sheets_runs_total', { target: 'team', outcome: 'failed' })).toBe(0)
      expect(sampleValue(families, 'timeline_sheets_rows_written_total', { target: 'team' })).toBeGreaterThan(0)
      const success = sampleValue(families, 'timeline_sheets_last_success_timestamp_seconds', { target: 'team' })!
      expect(Math.abs(success - Date.now() / 1000)).toBeLessThan(600)
      // Only the .prom file is left in the collector's folder: no temp file beside it.
      expect(await readdir(path.dirname(file))).toEqual(['timeline_sheets.prom'])

      // A failed run still writes the file, and the last success stays the one before.
      await mkdir(path.join(folder, 'dir.xlsx'))
      await writeConfig('dir.xlsx')
      expect((await sync({ metricsFile: file })).code).toBe(1)
      const after = parseExposition(await readFile(file, 'utf8'))
      expect(sampleValue(after, 'timeline_sheets_runs_total', { target: 'team', outcome: 'failed' })).toBe(1)
      expect(sampleValue(after, 'timeline_sheets_errors_total', { target: 'team', code: 'TS_WORKBOOK' })).toBe(1)
      expect(sampleValue(after, 'timeline_sheets_last_success_timestamp_seconds', { target: 'team' })).toBe(success)
    } finally {
      await receiver.close()
    }
  })

  it('tells the webhook of a failure once over two failed runs, then of the recovery once', async () => {
    const receiver = await startReceiver('ok')
    try {
      const { folder, writeConfig, sync } = await setUp('notify', receiver)
      await writeConfig('team.xlsx')
      expect((await sync()).code).toBe(0)
      expect(receiver.bodies).toHaveLength(0)

      await mkdir(path.join(folder, 'dir.xlsx'))
      await writeConfig('dir.xlsx')
      expect((await sync()).code).toBe(1)
      expect((await sync()).code).toBe(1)
      expect(receiver.bodies).toHaveLength(1)
      const failed = receiver.bodies[0] as { text: string; timelineSheets: Record<string, unknown> }
      expect(failed.timelineSheets).toMatchObject({ event: 'failed', target: 'team', code: 'TS_WORKBOOK', runId: expect.any(String) })
      expect(failed.text).toContain('timeline-sheets doctor --target team')
      expect(JSON.stringify(failed)).not.toContain(server.credentials.transfer!.password)

      await rm(path.join(folder, 'dir.xlsx'), { recursive: true })
      await writeConfig('team.xlsx')
      expect((await sync()).code).toBe(0)
      expect((await sync()).code).toBe(0)
      expect(receiver.bodies).toHaveLength(2)
      expect(receiver.bodies[1]).toMatchObject({ timelineSheets: { event: 'recovered', target: 'team', code: 'TS_WORKBOOK' } })
    } finally {
      await receiver.close()
    }
  })

  it('keeps its exit code and ends when a webhook never answers, and tells the failure again after the next run', async () => {
    const receiver = await startReceiver('hang')
    try {
      const { folder, writeConfig, sync } = await setUp('hang', receiver, 300)
      await mkdir(path.join(folder, 'dir.xlsx'))
      await writeConfig('dir.xlsx')
      const first = await sync()
      expect(first.code).toBe(1)
      expect(first.stderr).toMatch(/Could not tell the webhook \(127\.0\.0\.1:\d+\) that team failed: no answer within 300 ms/)
      expect(first.stderr).not.toContain('SECRET-PART')
      // Not recorded as told, so the next failed run tries again.
      expect((await sync()).code).toBe(1)
      expect(receiver.bodies).toHaveLength(2)
    } finally {
      await receiver.close()
    }
  })
})
