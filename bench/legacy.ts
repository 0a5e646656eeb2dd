/**
 * The module-level benchmarks, kept for their detail: each scenario
 * drives the tool's modules in a process of its own (so peak RSS is per
 * scenario), counterparts in another (bench/lib/host.ts). Started by
 * bench/run.ts for `BENCH_ONLY=modules-backends|modules-export|modules-import`, which sets
 * `BENCH_LEGACY=backends|export|import`. `BENCH_QUICK=1` runs small sizes;
 * `BENCH_JSON=file` also writes every result; `BENCH_NODE_ARGS` is passed to
 * each scenario process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BackendsOptions } from './backends.ts'
import type { ExportRunOptions } from './export-run.ts'
import { MARKER } from './lib/emit.ts'
import { startHost, type HostStats } from './lib/host-client.ts'
import type { ManagerEditsDone } from './lib/manager-edits.ts'
import type { ImportPlanOptions } from './import-plan.ts'
import type { ImportRunOptions } from './import-run.ts'

const QUICK = process.env['BENCH_QUICK'] === '1'
const ONLY = process.env['BENCH_LEGACY']
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean)
const BACKEND_ROWS = QUICK ? 5_000 : 100_000
/** 90 days of seeded data give about 585 Tags activities per user: 17 users ≈ 10k, 171 ≈ 100k. */
const SIZES = QUICK
  ? [
      { label: 'small', users: 2 },
      { label: 'large', users: 6 },
    ]
  : [
      { label: '10k', users: 17 },
      { label: '100k', users: 171 },
    ]
const DAYS = 90
const START_DATE = '2026-01-05'
const WINDOW_DAYS = 92
/** The day after the data ends; later runs are offsets from it. */
const T0 = Date.parse('2026-04-05T06:00:00Z')
const HOUR = 3_600_000
const IMPORT_EDITS = QUICK ? 100 : 1_000

const loadAtStart = loadavg()[0]!
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))
const all: Record<string, unknown>[] = []

/** Runs `node bench/<file> '<json>'` and gives its result lines and its wall time as seen from here. */
async function scenario<T>(file: string, options: unknown): Promise<T & { processMs: number }> {
  const started = performance.now()
  const child = spawn(process.execPath, [...NODE_ARGS, here(file), JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  const lines = out.split('\n').filter((l) => l.startsWith(MARKER))
  if (code !== 0 || lines.length !== 1) throw new Error(`${file} exited with ${code}; output:\n${out}`)
  const result = JSON.parse(lines[0]!.slice(MARKER.length)) as T
  return { ...result, processMs: Math.round(performance.now() - started) }
}

function table(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`
  console.log(`\n${title}\n`)
  console.log(line(header))
  console.log(`|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`)
  for (const r of cells.slice(1)) console.log(line(r))
}

const secs = (ms: number) => (ms / 1000).toFixed(2)
const rw = (c: { reads: number; writes: number }) => `${c.reads + c.writes} (${c.reads} r / ${c.writes} w)`
const byMethod = (stats: HostStats) =>
  Object.entries(stats.sheets?.byMethod ?? {})
    .map(([m, n]) => `${m} ${n}`)
    .join(', ')
const timelineSummary = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')

// ── Backends: each backend writes and re-reads 100,000 rows ─────────────────
interface BackendResult {
  backend: string
  rows: number
  layout: { ms: number; requests: { reads: number; writes: number } }
  basisRead: { requests: { reads: number; writes: number } }
  write: { ms: number; requests: { reads: number; writes: number } }
  reread: { ms: number; requests: { reads: number; writes: number } }
  fileBytes?: number
  peakRssMiB: number
  processMs: number
}
const backendRows: (string | number)[][] = []
if (ONLY === undefined || ONLY === 'backends') {
  const host = startHost()
  const fake = await host.startSheets()
  const spreadsheetId = await host.call<string>('createSpreadsheet', { title: 'backends' })
  await host.call('resetStats')
  const google = await scenario<BackendResult>('./backends.ts', {
    kind: 'google',
    rows: BACKEND_ROWS,
    rootUrl: fake.rootUrl,
    token: fake.token,
    spreadsheetId,
  } satisfies BackendsOptions)
  const stats = await host.stats()
  const hostUsage = await host.call<{ peakRssMiB: number }>('usage')
  await host.close()
  all.push({ scenario: 'backend', ...google, fake: stats.sheets, fakePeakRssMiB: hostUsage.peakRssMiB })
  const workbook = await scenario<BackendResult>('./backends.ts', { kind: 'workbook', rows: BACKEND_ROWS } satisfies BackendsOptions)
  all.push({ scenario: 'backend', ...workbook })
  for (const r of [google, workbook]) {
    const total = [r.layout, r.basisRead, r.write, r.reread].reduce(
      (n, s) => ({ reads: n.reads + s.requests.reads, writes: n.writes + s.requests.writes }),
      { reads: 0, writes: 0 },
    )
    backendRows.push([
      r.backend,
      r.rows,
      rw(r.write.requests),
      secs(r.write.ms),
      rw(r.reread.requests),
      secs(r.reread.ms),
      rw(total),
      r === google
        ? `${stats.sheets!.total} (${byMethod(stats)}; 429s ${stats.sheets!.quotaRejections})`
        : `file ${(r.fileBytes! / 1_048_576).toFixed(1)} MiB`,
      r.peakRssMiB,
      r === google ? hostUsage.peakRssMiB : '-',
    ])
  }
}

// ── Export: full and incremental exports at two sheet sizes ──────────────
interface ExportResult {
  label: string
  wallMs: number
  peakRssMiB: number
  sheetsRequests: { reads: number; writes: number }
  timelineRequests: Record<string, number>
  counts: { created: number; updated: number; deleted: number; conflicts: number; invalid: number; waiting: number }
  result: string
  timelines: number
  modes: string[]
  lookBack: boolean
  activitiesRead: number
  warnings: string[]
  processMs: number
}
const exportRows: (string | number)[][] = []
const checks: string[] = []

for (const size of ONLY === undefined || ONLY === 'export' ? SIZES : []) {
  const host = startHost()
  const timeline = await host.startTimeline({ users: size.users, days: DAYS, startDate: START_DATE })
  const fake = await host.startSheets()
  const spreadsheetId = await host.call<string>('createSpreadsheet', { title: `export ${size.label}` })
  const stateDir = await mkdtemp(path.join(tmpdir(), 'ts-bench-state-'))
  const base = {
    timelineUrl: timeline.url,
    username: timeline.username,
    password: timeline.password,
    rootUrl: fake.rootUrl,
    token: fake.token,
    spreadsheetId,
    stateDir,
    windowDays: WINDOW_DAYS,
  }
  const phases: { label: string; at: number; mutate?: number; full?: boolean }[] = [
    { label: 'full (first run, empty sheet)', at: T0 },
    { label: 'incremental, 1% changed, look-back not due', at: T0 + HOUR, mutate: 1 },
    { label: 'incremental, 1% changed, look-back due', at: T0 + 21 * HOUR, mutate: 2 },
    { label: 'full again (--full), nothing changed', at: T0 + 22 * HOUR, full: true },
  ]
  try {
    for (const phase of phases) {
      const mutated = phase.mutate
        ? await host.call<{ updated: number; created: number; deleted: number }>('mutate', { share: 0.01, seed: phase.mutate })
        : undefined
      const rows = await host.call<number>('activityRows', { spreadsheetId })
      await host.call('resetStats')
      const run = await scenario<ExportResult>('./export-run.ts', {
        ...base,
        label: phase.label,
        now: new Date(phase.at).toISOString(),
        full: phase.full,
      } satisfies ExportRunOptions)
      const stats = await host.stats()
      all.push({
        scenario: 'export',
        size: size.label,
        activities: timeline.activities,
        sheetRowsBefore: rows,
        mutated,
        ...run,
        fake: stats.sheets,
        timelineAtServer: stats.timeline,
      })
      const c = run.counts
      const timelineTotal = Object.values(stats.timeline).reduce((a, b) => a + b, 0)
      exportRows.push([
        `${size.label}: ${phase.label}`,
        rows,
        mutated ? `${mutated.updated}/${mutated.created}/${mutated.deleted}` : '-',
        `${c.created}/${c.updated}/${c.deleted}`,
        secs(run.wallMs),
        run.peakRssMiB,
        `${stats.sheets!.total} (${stats.sheets!.reads} r / ${stats.sheets!.writes} w)`,
        byMethod(stats),
        `${timelineTotal} (${timelineSummary(stats.timeline)})`,
      ])
      if (c.conflicts + c.invalid > 0 || run.warnings.length)
        checks.push(`${size.label} ${phase.label}: conflicts ${c.conflicts}, invalid ${c.invalid}, warnings ${run.warnings.join(' | ')}`)
      if (rw(run.sheetsRequests) !== `${stats.sheets!.total} (${stats.sheets!.reads} r / ${stats.sheets!.writes} w)`) {
        checks.push(
          `${size.label} ${phase.label}: requestCounts() ${rw(run.sheetsRequests)} differs from the fake's ${stats.sheets!.total}`,
        )
      }
      if (phase.mutate) {
        const incremental = stats.timeline['activities (incremental)'] ?? 0
        const range = stats.timeline['activities (range)'] ?? 0
        const due = phase.at - T0 >= 20 * HOUR
        checks.push(
          `${size.label} ${phase.label}: Sheets ${stats.sheets!.total} (target ≤ 3) ${stats.sheets!.total <= 3 ? 'met' : 'MISSED'}; ` +
            `incremental reads ${incremental} for ${timeline.timelines} timelines ${incremental === timeline.timelines ? 'met' : 'MISSED'}; ` +
            `range reads ${range}` +
            (due
              ? ` (look-back re-read, ${(range / timeline.timelines).toFixed(1)} per timeline)`
              : range === 0
                ? ''
                : ' (not expected: MISSED)'),
        )
      }
    }
    const usage = await host.call<{ peakRssMiB: number }>('usage')
    all.push({
      scenario: 'counterparts',
      size: size.label,
      activities: timeline.activities,
      timelines: timeline.timelines,
      peakRssMiB: usage.peakRssMiB,
    })
    checks.push(
      `${size.label}: ${timeline.timelines} timelines, ${timeline.activities} Tags activities seeded; counterparts process peak RSS ${usage.peakRssMiB} MiB`,
    )
  } finally {
    await host.close()
    await rm(stateDir, { recursive: true, force: true })
  }
}

// ── Import: 1,000 manager edits imported from a 10k / 100k-row sheet ─────
interface ImportPlanResult {
  rows: number
  serverActivities: number
  baseKeys: number
  timelines: number
  loadMs: number
  rounds: { parseMs: number; planMs: number }[]
  decisions: Record<string, number>
  heapBeforeMiB: number
  heapAfterFirstRoundMiB: number
  heapRetainedMiB: number
  peakRssBeforeMiB: number
  peakRssMiB: number
  processMs: number
}
interface ImportRunResult {
  label: string
  wallMs: number
  peakRssMiB: number
  sheetsRequests: { reads: number; writes: number }
  timelineRequests: Record<string, number>
  timelineReads: number
  timelineWrites: number
  planned: Record<string, number>
  conflicts: number
  invalid: number
  invalidSample: unknown[]
  counts: { created: number; updated: number; deleted: number; conflicts: number; invalid: number; failed: number }
  result: string
  applied: boolean
  processMs: number
}
const planRows: (string | number)[][] = []
const importRows: (string | number)[][] = []
for (const size of ONLY === undefined || ONLY === 'import' ? SIZES : []) {
  const host = startHost()
  const timeline = await host.startTimeline({ users: size.users, days: DAYS, startDate: START_DATE })
  const fake = await host.startSheets()
  const spreadsheetId = await host.call<string>('createSpreadsheet', { title: `import ${size.label}` })
  const stateDir = await mkdtemp(path.join(tmpdir(), 'ts-bench-state-'))
  const base = {
    timelineUrl: timeline.url,
    username: timeline.username,
    password: timeline.password,
    rootUrl: fake.rootUrl,
    token: fake.token,
    spreadsheetId,
    stateDir,
    windowDays: WINDOW_DAYS,
  }
  try {
    await scenario('./export-run.ts', {
      ...base,
      label: 'import setup: full export',
      now: new Date(T0).toISOString(),
    } satisfies ExportRunOptions)
    const edits = await host.call<ManagerEditsDone>('managerEdits', { spreadsheetId, edits: IMPORT_EDITS, seed: 5 })
    const rows = await host.call<number>('activityRows', { spreadsheetId })
    const editText = `${edits.notes}/${edits.tags}/${edits.times}/${edits.creates}/${edits.deletes}`
    // The export's window: the 92 days up to T0's date.
    const fromDate = new Date(T0 - (WINDOW_DAYS - 1) * 24 * HOUR).toISOString().slice(0, 10)
    const plan = await scenario<ImportPlanResult>('./import-plan.ts', { ...base, fromDate, days: WINDOW_DAYS } satisfies ImportPlanOptions)
    all.push({ scenario: 'import-plan', size: size.label, edits, ...plan })
    const first = plan.rounds[0]!
    const warm = plan.rounds
      .slice(1)
      .reduce((best, r) => (r.parseMs + r.planMs < best.parseMs + best.planMs ? r : best), plan.rounds[plan.rounds.length - 1]!)
    planRows.push([
      size.label,
      plan.rows,
      plan.serverActivities,
      editText,
      `${first.parseMs} + ${first.planMs}`,
      `${warm.parseMs} + ${warm.planMs}`,
      (((first.parseMs + first.planMs) / plan.rows) * 1000).toFixed(1),
      `${plan.heapBeforeMiB} → ${plan.heapAfterFirstRoundMiB} (${plan.heapRetainedMiB} after GC)`,
      `${plan.peakRssBeforeMiB} → ${plan.peakRssMiB}`,
      Object.entries(plan.decisions)
        .map(([k, n]) => `${k} ${n}`)
        .join(', '),
    ])
    for (const dryRun of [true, false]) {
      const label = dryRun ? 'dry run' : 'applied'
      await host.call('resetStats')
      const run = await scenario<ImportRunResult>('./import-run.ts', {
        ...base,
        label,
        now: new Date(T0 + HOUR).toISOString(),
        dryRun,
      } satisfies ImportRunOptions)
      const stats = await host.stats()
      all.push({
        scenario: 'import',
        size: size.label,
        sheetRowsBefore: rows,
        edits,
        ...run,
        fake: stats.sheets,
        timelineAtServer: stats.timeline,
      })
      const atServer = Object.values(stats.timeline).reduce((a, b) => a + b, 0)
      const serverWrites = Object.entries(stats.timeline).reduce((n, [k, c]) => n + (/ (PUT|POST|DELETE)$/.test(k) ? c : 0), 0)
      const c = run.counts
      importRows.push([
        `${size.label}: ${label}`,
        rows,
        Object.entries(run.planned)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ') || '-',
        dryRun ? '-' : `${c.created}/${c.updated}/${c.deleted}/${c.conflicts}/${c.invalid}/${c.failed}`,
        secs(run.wallMs),
        run.peakRssMiB,
        `${stats.sheets!.total} (${stats.sheets!.reads} r / ${stats.sheets!.writes} w)`,
        byMethod(stats),
        `${atServer} (${atServer - serverWrites} r / ${serverWrites} w)`,
        timelineSummary(stats.timeline),
      ])
      if (rw(run.sheetsRequests) !== `${stats.sheets!.total} (${stats.sheets!.reads} r / ${stats.sheets!.writes} w)`) {
        checks.push(
          `import ${size.label} ${label}: requestCounts() ${rw(run.sheetsRequests)} differs from the fake's ${stats.sheets!.total}`,
        )
      }
      if (run.timelineReads + run.timelineWrites !== atServer)
        checks.push(
          `import ${size.label} ${label}: the client counted ${run.timelineReads + run.timelineWrites} Timeline requests, the server ${atServer}`,
        )
      if (run.conflicts + run.invalid > 0)
        checks.push(
          `import ${size.label} ${label}: conflicts ${run.conflicts}, invalid ${run.invalid} ${JSON.stringify(run.invalidSample)}`,
        )
      if (!dryRun) {
        const expected = edits.notes + edits.tags + edits.times + edits.creates + edits.deletes
        checks.push(
          `import ${size.label}: ${IMPORT_EDITS} edits → ${c.created + c.updated + c.deleted} server writes (${serverWrites} at the server) ${c.created + c.updated + c.deleted === expected && serverWrites === expected ? 'met' : 'MISSED'}; result ${run.result}`,
        )
      }
    }
    const usage = await host.call<{ peakRssMiB: number }>('usage')
    checks.push(
      `import ${size.label}: ${timeline.timelines} timelines, ${rows} sheet rows after the edits; counterparts process peak RSS ${usage.peakRssMiB} MiB`,
    )
  } finally {
    await host.close()
    await rm(stateDir, { recursive: true, force: true })
  }
}

// ── Report ────────────────────────────────────────────────────────────────
if (backendRows.length)
  table(
    `Backends (modules-backends) — write and re-read ${BACKEND_ROWS.toLocaleString('en')} rows per backend (requests from requestCounts(); workbook: loads/saves)`,
    [
      'backend',
      'rows',
      'write requests',
      'write s',
      're-read requests',
      're-read s',
      'all requests incl. layout + basis read',
      "fake's own count",
      'peak RSS MiB',
      'fake RSS MiB',
    ],
    backendRows,
  )
if (exportRows.length)
  table(
    'Export (modules-export) — against the reference server and the Sheets fake over loopback (one process per run)',
    [
      'run',
      'sheet rows before',
      'changed on server u/c/d',
      'sheet c/u/d',
      'wall s',
      'peak RSS MiB',
      'Sheets requests (fake)',
      'Sheets by method',
      'Timeline requests (server)',
    ],
    exportRows,
  )
if (planRows.length)
  table(
    `Import (modules-import) (a) — pure planning: parseSheet + planSync over every row, all server activities in the window and the state's base (one process per size)`,
    [
      'size',
      'sheet rows',
      'server activities',
      'edits n/t/time/new/del',
      'cold ms parse + plan',
      'warm ms',
      'µs / row (cold)',
      'heap MiB before → after (retained)',
      'peak RSS MiB before → after',
      'decisions',
    ],
    planRows,
  )
if (importRows.length)
  table(
    `Import (modules-import) (b) — runImport after ${IMPORT_EDITS.toLocaleString('en')} manager edits, Google backend over the Sheets fake (one process per run)`,
    [
      'run',
      'sheet rows',
      'planned writes',
      'c/u/d/conflicts/invalid/failed',
      'wall s',
      'peak RSS MiB',
      'Sheets requests (fake)',
      'Sheets by method',
      'Timeline requests (server)',
      'Timeline by kind',
    ],
    importRows,
  )
console.log('\nChecks\n')
for (const line of checks) console.log(`- ${line}`)
console.log(
  `\nMachine: ${cpus().length} cores; 1-minute load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end (wall times stretch under load; request counts do not).`,
)
if (process.env['BENCH_JSON']) await writeFile(process.env['BENCH_JSON'], `${JSON.stringify(all, null, 2)}\n`)
