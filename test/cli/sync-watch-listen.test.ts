/**
 * `sync --watch --listen`: /metrics says what the intervals did (a sync, then idle checks; a target that fails
 * each interval), /healthz names the failing target with 503, and the failure is told to the webhook once, not
 * once an interval. Scraped between intervals on a clock the test drives.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { runWatchCommand, type WatchClock } from '../../src/cli/commands/sync-watch.ts'
import { parseExposition, sampleSum, sampleValue, type Family } from '../support/exposition-format.ts'
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts'

const WATCH_OPTIONS = { dryRun: false, deleteMissing: false, force: false, forceLayout: false, strictTags: false, overwriteTags: false }
let server: ReferenceServer
let receiver: Receiver
let folder: string

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 1, days: 3, startDate: '2026-11-20', otherTimelines: false } })
  receiver = await startReceiver('ok')
  folder = await mkdtemp(path.join(tmpdir(), 'ts-watch-listen-'))
})

afterAll(async () => {
  await receiver?.close()
  await server?.close()
})

interface Scrape {
  metrics: Map<string, Family>
  health: { status: number; body: Record<string, unknown> }
  live: number
}

describe('a watch with --listen', () => {
  it('serves metrics that match its intervals, a 503 naming the failing target, and tells the webhook once', async () => {
    const config = path.join(folder, 'watch.json')
    // A folder where the workbook should be: every interval of "broken" fails the same way.
    await mkdir(path.join(folder, 'broken.xlsx'))
    await writeFile(
      config,
      JSON.stringify({
        timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
        stateDir: path.join(folder, 'state'),
        parallelTargets: 1,
        notify: { webhook: { urlEnv: 'TEST_WEBHOOK_URL', timeoutMs: 5_000 } },
        targets: [
          { name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'Europe/Berlin' },
          { name: 'broken', spreadsheet: { kind: 'workbook', path: 'broken.xlsx' }, timeZone: 'Europe/Berlin' },
        ],
      }),
    )
    const err: string[] = []
    const out: string[] = []
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true))
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true))
    vi.stubEnv('TIMELINE_PASSWORD', server.credentials.transfer!.password)
    vi.stubEnv('TEST_WEBHOOK_URL', receiver.url)
    const scrapes: Scrape[] = []
    const scrape = async (): Promise<Scrape> => {
      const url = /Serving (http:\/\/127\.0\.0\.1:\d+)\/healthz/.exec(err.join(''))![1]!
      const metrics = await fetch(`${url}/metrics`)
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
      const health = await fetch(`${url}/healthz`)
      const live = await fetch(`${url}/livez`)
      return {
        metrics: parseExposition(await metrics.text()),
        health: { status: health.status, body: (await health.json()) as Record<string, unknown> },
        live: live.status,
      }
    }
    const clock: WatchClock = {
      describe: () => 'back to back',
      periodMs: 3_600_000,
      async run(tick) {
        for (let i = 0; i < 3; i++) {
          await tick()
          scrapes.push(await scrape())
        }
      },
    }
    let code: number
    try {
      code = await runWatchCommand({ config, json: true, verbose: false, quiet: false }, { ...WATCH_OPTIONS, listen: '127.0.0.1:0' }, clock)
    } finally {
      stderr.mockRestore()
      stdout.mockRestore()
      vi.unstubAllEnvs()
    }
    expect(code).toBe(0)

    // What the intervals said on stdout (--json): team's first sync and the rows it wrote, then idle checks.
    const lines = out
      .join('')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    const synced = lines.find((l) => 'runs' in l) as {
      runs: { exported: { counts: { created: number; updated: number; deleted: number } } }[]
    }
    const c = synced.runs[0]!.exported.counts
    const rowsWritten = c.created + c.updated + c.deleted
    expect(rowsWritten).toBeGreaterThan(0)
    expect(lines.filter((l) => 'idle' in l)).toHaveLength(2)
    expect(lines.filter((l) => 'error' in l)).toHaveLength(3)

    const [first, second, third] = scrapes as [Scrape, Scrape, Scrape]
    const m = third.metrics
    expect(sampleValue(m, 'timeline_sheets_runs_total', { target: 'team', outcome: 'synced' })).toBe(1)
    expect(sampleValue(m, 'timeline_sheets_runs_total', { target: 'team', outcome: 'idle' })).toBe(2)
    expect(sampleValue(m, 'timeline_sheets_runs_total', { target: 'broken', outcome: 'failed' })).toBe(3)
    expect(sampleValue(m, 'timeline_sheets_errors_total', { target: 'broken', code: 'TS_WORKBOOK' })).toBe(3)
    expect(sampleValue(m, 'timeline_sheets_rows_written_total', { target: 'team' })).toBe(rowsWritten)
    expect(sampleValue(m, 'timeline_sheets_rows_imported_total', { target: 'team' })).toBe(0)
    expect(sampleValue(m, 'timeline_sheets_conflict_rows', { target: 'team' })).toBe(0)
    expect(sampleValue(m, 'timeline_sheets_spreadsheet_requests_total', { target: 'team', kind: 'write' })).toBeGreaterThan(0)
    expect(sampleValue(m, 'timeline_sheets_last_success_timestamp_seconds', { target: 'broken' })).toBeUndefined()
    const lastSuccess = sampleValue(m, 'timeline_sheets_last_success_timestamp_seconds', { target: 'team' })!
    expect(lastSuccess).toBeGreaterThan(
      sampleValue(first.metrics, 'timeline_sheets_last_success_timestamp_seconds', { target: 'team' })! - 1,
    )
    expect(Math.abs(lastSuccess - Date.now() / 1000)).toBeLessThan(600)
    // An interval's check asks the Timeline service once (its list) for each target: team's idle check, and
    // broken's, which then fails on its workbook before the sync asks anything more.
    const timelineRequests = (s: Scrape) => sampleSum(s.metrics, 'timeline_sheets_requests_total', { service: 'timeline' })
    expect(timelineRequests(first)).toBeGreaterThan(0)
    expect(timelineRequests(third) - timelineRequests(second)).toBe(2)
    expect(sampleValue(m, 'timeline_sheets_requests_total', { service: 'timeline', method: 'GET', answer: '2xx' })).toBeGreaterThan(0)
    expect(sampleValue(m, 'timeline_sheets_quota_waits_total', { service: 'timeline' })).toBe(0)

    for (const s of scrapes) {
      expect(s.health.status).toBe(503)
      expect(s.live).toBe(200)
      expect(s.health.body).toMatchObject({ healthy: false, late: [], failing: [{ target: 'broken', code: 'TS_WORKBOOK' }] })
    }

    // Three failed intervals, one notice; it names the target and the code, and carries no URL of ours.
    expect(receiver.bodies).toHaveLength(1)
    expect(receiver.bodies[0]).toMatchObject({
      text: expect.stringContaining('broken failed (TS_WORKBOOK)'),
      timelineSheets: { event: 'failed', target: 'broken', code: 'TS_WORKBOOK' },
    })
    expect(JSON.stringify(receiver.bodies[0])).not.toContain('SECRET-PART')
    expect(err.join('')).not.toContain('SECRET-PART')
  })
})
