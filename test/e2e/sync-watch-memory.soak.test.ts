/**
 * A watch runs for days: its memory must not grow with the intervals it has run. 24,000 idle intervals back to
 * back (a hundred eight-hour working days of two-minute intervals) in a process of their own, against the
 * counterparts on loopback; the heap after the last is within 10 % of after the 12,000th, and the resident set's
 * trend through a sample every 2,000 rises less than 10 % over the same span.
 * The first ten thousand are warm-up (compiled code, the allocator's pools), as for any process that fetches in a
 * loop: a bare `fetch` loop grows as much over them (decisions/0016).
 * A soak test: `npm run soak` runs it alone, and CI runs that after `npm test` (vitest.soak.config.ts).
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { tempFolder, writeConfig } from './cli.ts'

const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), 'watch-memory.run.ts')
let server: ReferenceServer

beforeAll(async () => {
  const start = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)
  server = await startReferenceServer({
    data: { users: 2, days: 7, startDate: start, timeZones: ['Europe/Berlin'], otherTimelines: false },
  })
})

afterAll(async () => {
  await server?.close()
})

/** Every 2,000 intervals from the 12,000th, when the watch is warm, to the last. */
const CHECKPOINTS = [12_000, 14_000, 16_000, 18_000, 20_000, 22_000, 24_000]

/** The least-squares line through `points`. */
function trend(points: [number, number][]): { at(x: number): number } {
  const n = points.length
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n
  const slope = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0) / points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0)
  return { at: (x) => my + slope * (x - mx) }
}

interface Report {
  code: number
  samples: { interval: number; rssMiB: number; heapMiB: number }[]
}

function runWatch(config: string, env: Record<string, string>): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', runner, config, '24000', ...CHECKPOINTS.map(String)], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const line = stderr.split('\n').find((l) => l.startsWith('{"code"'))
      if (code !== 0 || !line) reject(new Error(`watch runner exited ${code}:\n${stderr}`))
      else resolve(JSON.parse(line) as Report)
    })
  })
}

describe('a watch that runs for days', () => {
  it('keeps its memory flat over 24,000 idle intervals over a workbook', { timeout: 300_000 }, async () => {
    const folder = await tempFolder('watch-memory')
    const config = await writeConfig(folder, {
      // The pace would hold back-to-back intervals to its 5 requests a second.
      timeline: {
        auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username },
        pace: { requestsPerInterval: 1_000_000, intervalMs: 1000 },
      },
      stateDir: 'state',
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'Europe/Berlin', window: { days: 7 } }],
    })
    const report = await runWatch(config, { TIMELINE_PASSWORD: server.credentials.transfer!.password })
    expect(report.code).toBe(0)
    const shown = report.samples.map((x) => `${x.interval}: ${x.rssMiB} MiB resident, ${x.heapMiB} MiB heap`).join('; ')
    const warm = report.samples[0]!
    const last = report.samples[report.samples.length - 1]!
    // The heap after a full collection holds only what the watch keeps: the last sample against the first.
    expect(last.heapMiB, shown).toBeLessThanOrEqual(warm.heapMiB * 1.1)
    // The resident set also moves with the allocator's pools and the pages the system lends, one sample at a
    // time; a growth that comes with the intervals shows in the trend through all seven.
    const rise = trend(report.samples.map((x) => [x.interval, x.rssMiB]))
    expect(rise.at(24_000) - rise.at(12_000), shown).toBeLessThanOrEqual(rise.at(12_000) * 0.1)
  })
})
