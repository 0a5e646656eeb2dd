/**
 * The workbook case: the same export into a local .xlsx at about
 * 100,000 rows — a first export, an incremental run after 1 % changed, one
 * after nothing changed. Whole processes, one run each: peak RSS and wall
 * time, and the file's size.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startHost } from '../lib/host-client.ts'
import { measure } from '../lib/measure.ts'
import { goals, load, secs, table } from '../lib/report.ts'
import { runTool, summaryOf, writeToolConfig } from '../lib/tool-cli.ts'

export interface WorkbookOptions {
  label: string
  users: number
  days: number
  startDate: string
  windowDays: number
  t0: number
  changeShare: number
}

const HOUR = 3_600_000

export async function workbook(options: WorkbookOptions): Promise<void> {
  const loadStart = load()
  const host = startHost()
  const dir = await mkdtemp(path.join(tmpdir(), 'ts-bench-workbook-'))
  try {
    const timeline = await host.startTimeline({ users: options.users, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets()
    const file = path.join(dir, 'bench.xlsx')
    const config = await writeToolConfig({
      dir,
      timelineUrl: timeline.url,
      username: timeline.username,
      password: timeline.password,
      rootUrl: sheets.rootUrl,
      token: sheets.token,
      windowDays: options.windowDays,
      targets: [{ name: 'bench', spreadsheet: { kind: 'workbook', path: file } }],
    })
    const rows: (string | number)[][] = []
    const measured: { phase: string; wallMs: number; rss: number; ok: boolean }[] = []
    const runs: [string, number, boolean][] = [
      ['first export', options.t0, false],
      ['incremental, 1% changed', options.t0 + HOUR, true],
      ['incremental, nothing new', options.t0 + 2 * HOUR, false],
    ]
    for (const [phase, at, change] of runs) {
      const changed = change
        ? await host.call<{ updated: number; created: number; deleted: number }>('mutate', { share: options.changeShare, seed: 400 })
        : undefined
      const sample = await measure(host, 'timeline-sheets', () => runTool(config, ['export'], new Date(at)), {
        part: 'workbook',
        size: options.label,
        phase,
      })
      const counts = summaryOf(sample.run)[0]?.['counts'] as { created: number; updated: number; deleted: number } | undefined
      const size = await stat(file)
        .then((s) => s.size)
        .catch(() => undefined)
      rows.push([
        phase,
        changed ? `${changed.updated}/${changed.created}/${changed.deleted}` : '-',
        sample.ok ? 'ok' : `FAILED (exit ${sample.code ?? sample.run.signal}, see below)`,
        secs(sample.wallMs),
        sample.peakRssMiB ?? '?',
        sample.cpuMs === undefined ? '?' : secs(sample.cpuMs),
        `${sample.timelineRequests} (${sample.timelineActivityReads} activity reads)`,
        counts ? `${counts.created}/${counts.updated}/${counts.deleted}` : '-',
        size === undefined ? '-' : (size / 1_048_576).toFixed(1),
      ])
      measured.push({ phase, wallMs: sample.wallMs, rss: sample.peakRssMiB ?? Number.NaN, ok: sample.ok })
      if (!sample.ok) break
    }
    const first = measured[0]
    goals.push({
      goal: `workbook ${options.label}: peak RSS ≤ 500 MB and export ≤ 5 s`,
      measured: measured
        .map((m) => `${m.phase} ${m.ok ? `${secs(m.wallMs)} s, ${Math.round((m.rss * 1_048_576) / 1e6)} MB` : 'FAILED'}`)
        .join('; '),
      met:
        first !== undefined &&
        measured.length === runs.length &&
        measured.every((m) => m.ok && m.wallMs <= 5000 && m.rss * 1_048_576 <= 500e6),
    })
    table(
      `workbook: ${options.label} (${timeline.activities.toLocaleString('en')} activities, ${timeline.timelines} timelines) into a local .xlsx, one run each`,
      ['run', 'changed on server u/c/d', 'outcome', 'wall s', 'peak RSS MiB', 'CPU s', 'Timeline requests', 'rows c/u/d', 'file MiB'],
      rows,
    )
    console.log(`\n(load average ${loadStart} → ${load()})`)
  } finally {
    await host.close()
    await rm(dir, { recursive: true, force: true })
  }
}
