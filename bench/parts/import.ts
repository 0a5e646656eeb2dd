/**
 * The import case: a full export builds a sheet of about 100,000 rows,
 * a manager's 1,000 edits are typed into the fake (bench/lib/manager-edits.ts:
 * notes, tags, times, new rows, ticked deletes; no request counted), then
 * `import --dry-run` runs as a whole process, `reps` times (a dry run changes
 * nothing, so every run sees the same sheet). With `latencyMs`, the dry runs
 * again with every Timeline answer delayed that long (reported, no goal): the
 * import's reads are one request per edited timeline, and a round trip is what
 * a request costs against a real server.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startHost } from '../lib/host-client.ts'
import type { ManagerEditsDone } from '../lib/manager-edits.ts'
import { measure, type Sample } from '../lib/measure.ts'
import { goals, load, mb, median, secs, spreadCount, spreadSecs, table } from '../lib/report.ts'
import { runTool, summaryOf, writeToolConfig } from '../lib/tool-cli.ts'

export interface ImportOptions {
  label: string
  users: number
  days: number
  startDate: string
  windowDays: number
  t0: number
  edits: number
  reps: number
  /** Delay of every Timeline answer for a second set of dry runs; undefined: none. */
  latencyMs?: number
}

const HOUR = 3_600_000

export async function importCase(options: ImportOptions): Promise<void> {
  const loadStart = load()
  const host = startHost()
  const dir = await mkdtemp(path.join(tmpdir(), 'ts-bench-import-'))
  try {
    const timeline = await host.startTimeline({ users: options.users, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets()
    const spreadsheetId = await host.call<string>('createSpreadsheet', { title: `import ${options.label}` })
    const config = await writeToolConfig({
      dir,
      timelineUrl: timeline.url,
      username: timeline.username,
      password: timeline.password,
      rootUrl: sheets.rootUrl,
      token: sheets.token,
      windowDays: options.windowDays,
      targets: [{ name: 'bench', spreadsheet: { kind: 'google', spreadsheetId } }],
    })
    const context = { part: 'import', size: options.label }
    const setup = await measure(host, 'timeline-sheets', () => runTool(config, ['export'], new Date(options.t0)), {
      ...context,
      phase: 'setup: first export',
    })
    const rows: (string | number)[][] = [describe('setup: first export', [setup])]
    if (setup.ok) {
      const edits = await host.call<ManagerEditsDone>('managerEdits', { spreadsheetId, edits: options.edits, seed: 5 })
      /** `reps` dry runs, one after another (a dry run changes nothing, so each sees the same sheet). */
      const dryRunsAs = async (phase: string): Promise<Sample[]> => {
        const samples: Sample[] = []
        for (let rep = 0; rep < options.reps; rep++) {
          // exit 3 ("rows need a person") is a finished dry run too.
          samples.push(
            await measure(
              host,
              'timeline-sheets',
              () => runTool(config, ['import', '--dry-run'], new Date(options.t0 + HOUR)),
              { ...context, phase, rep },
              [0, 3],
            ),
          )
        }
        return samples
      }
      const dryRuns = await dryRunsAs('import --dry-run')
      const summary = summaryOf(dryRuns[dryRuns.length - 1]!.run)[0]
      const plan = (summary?.['plan'] ?? summary) as { writes?: { kind: string }[]; conflicts?: unknown[]; invalid?: unknown[] } | undefined
      const kinds = (plan?.writes ?? []).reduce<Record<string, number>>((m, w) => ({ ...m, [w.kind]: (m[w.kind] ?? 0) + 1 }), {})
      const planText = plan?.writes
        ? `${
            Object.entries(kinds)
              .map(([k, n]) => `${k} ${n}`)
              .join(', ') || 'nothing'
          }; conflicts ${plan.conflicts?.length ?? '?'}, invalid ${plan.invalid?.length ?? '?'}`
        : '(no plan in the JSON)'
      const wall = median(dryRuns.map((s) => s.wallMs))
      goals.push({
        goal: `import: ${options.edits.toLocaleString('en')} edits on ${options.label}, dry run ≤ 2 s`,
        measured: `${spreadSecs(dryRuns.map((s) => s.wallMs))} s`,
        met: dryRuns.every((s) => s.ok) && wall <= 2000,
      })
      const editsText = `${options.edits.toLocaleString('en')} edits (${edits.notes} notes / ${edits.tags} tags / ${edits.times} times / ${edits.creates} new / ${edits.deletes} deletes)`
      rows.push(describe(`import --dry-run after ${editsText}`, dryRuns, planText))
      if (options.latencyMs !== undefined) {
        await host.call('setLatency', { ms: options.latencyMs })
        const phase = `import --dry-run, Timeline latency ${options.latencyMs} ms`
        const slow = await dryRunsAs(phase)
        await host.call('setLatency', { ms: 0 })
        rows.push(describe(`${phase}, the same edits`, slow))
      }
    }
    table(
      `import: ${options.label} (${timeline.activities.toLocaleString('en')} activities, ${timeline.timelines} timelines), Google target through the fake; median (min–max)`,
      ['run', 'runs', 'wall s', 'peak RSS MiB', 'CPU s', 'Sheets requests', 'Timeline requests', 'MB read from Sheets', 'exit', 'plan'],
      rows,
    )
    console.log(`\n(load average ${loadStart} → ${load()})`)
  } finally {
    await host.close()
    await rm(dir, { recursive: true, force: true })
  }
}

function describe(label: string, samples: Sample[], plan = ''): (string | number)[] {
  return [
    label,
    samples.length,
    spreadSecs(samples.map((s) => s.wallMs)),
    spreadCount(samples.map((s) => Math.round(s.peakRssMiB ?? 0))),
    secs(samples.map((s) => s.cpuMs ?? 0).sort((a, b) => a - b)[samples.length >> 1]!),
    spreadCount(samples.map((s) => s.sheetsReads + s.sheetsWrites)),
    spreadCount(samples.map((s) => s.timelineRequests)),
    mb(samples[samples.length >> 1]!.sheetsBytesRead),
    [...new Set(samples.map((s) => s.code ?? s.run.signal))].join(', '),
    plan,
  ]
}
