/**
 * The size case: a sheet far beyond the headline's, exported through
 * the Sheets fake (Google's limits: 10 MB bodies, 10 million cells) to
 * completion — a first export, an incremental run after 1 % changed, one
 * after nothing changed. One run each. A crash is reported with the stack it
 * printed: at this size a row-sized array spread into a call overflows the
 * stack, and the stack shows where.
 */
import { toolExporter, windowDates, type Stage } from '../lib/exporters.ts'
import { startHost } from '../lib/host-client.ts'
import { correctnessText, measure, withCheck, type Sample } from '../lib/measure.ts'
import { goals, load, mb, secs, table } from '../lib/report.ts'
import { summaryOf } from '../lib/tool-cli.ts'

export interface ScaleOptions {
  label: string
  users: number
  days: number
  startDate: string
  windowDays: number
  t0: number
  changeShare: number
}

const HOUR = 3_600_000

export async function scale(options: ScaleOptions): Promise<void> {
  const loadStart = load()
  const host = startHost()
  try {
    const timeline = await host.startTimeline({ users: options.users, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets()
    const stage: Stage = {
      host,
      timeline,
      sheets,
      windowDays: options.windowDays,
      ...windowDates(new Date(options.t0), options.windowDays),
    }
    const tool = toolExporter(stage, options.label)
    await tool.fresh()
    const rows: (string | number)[][] = []
    const outcomes: string[] = []
    let complete = true
    const runs: [string, number, boolean][] = [
      ['first export', options.t0, false],
      ['incremental, 1% changed', options.t0 + HOUR, true],
      ['incremental, nothing new', options.t0 + 2 * HOUR, false],
    ]
    for (const [phase, at, change] of runs) {
      const changed = change
        ? await host.call<{ updated: number; created: number; deleted: number }>('mutate', { share: options.changeShare, seed: 300 })
        : undefined
      const sample: Sample = await measure(host, tool.name, () => tool.run(new Date(at)), { part: 'scale', size: options.label, phase })
      withCheck(sample, await host.call('check', { spreadsheetId: tool.spreadsheetId, from: stage.from, to: stage.to }))
      const counts = summaryOf(sample.run)[0]?.['counts'] as { created: number; updated: number; deleted: number } | undefined
      rows.push([
        phase,
        changed ? `${changed.updated}/${changed.created}/${changed.deleted}` : '-',
        sample.ok ? 'ok' : `FAILED (exit ${sample.code ?? sample.run.signal}, see below)`,
        secs(sample.wallMs),
        sample.peakRssMiB ?? '?',
        sample.cpuMs === undefined ? '?' : secs(sample.cpuMs),
        `${sample.sheetsReads + sample.sheetsWrites} (${sample.sheetsReads} r / ${sample.sheetsWrites} w)`,
        `${sample.timelineRequests} (${sample.timelineActivityReads} activity reads)`,
        mb(sample.sheetsBytesRead),
        mb(sample.sheetsBytesSent),
        counts ? `${counts.created}/${counts.updated}/${counts.deleted}` : '-',
        correctnessText(sample.correctness),
      ])
      outcomes.push(`${phase} ${sample.ok ? `${secs(sample.wallMs)} s, ${sample.peakRssMiB} MiB` : 'FAILED'}`)
      complete &&=
        sample.ok &&
        sample.correctness !== undefined &&
        sample.correctness.stale + sample.correctness.missing + sample.correctness.outdated === 0
      if (!sample.ok) break
    }
    goals.push({
      goal: `${options.label} rows: first export and incremental runs complete, tab right`,
      measured: outcomes.join('; '),
      met: complete && outcomes.length === runs.length,
    })
    await tool.dispose()
    const usage = await host.call<{ peakRssMiB: number }>('usage')
    table(
      `size: ${options.label} (${timeline.activities.toLocaleString('en')} activities, ${timeline.timelines} timelines), timeline-sheets through the Sheets fake, one run each`,
      [
        'run',
        'changed on server u/c/d',
        'outcome',
        'wall s',
        'peak RSS MiB',
        'CPU s',
        'Sheets requests',
        'Timeline requests',
        'MB read from Sheets',
        'MB sent to Sheets',
        'rows c/u/d',
        'tab: stale/missing/outdated',
      ],
      rows,
    )
    console.log(`\n(load average ${loadStart} → ${load()}; counterparts process peak RSS ${usage.peakRssMiB} MiB)`)
  } finally {
    await host.close()
  }
}
