/**
 * `npm run bench`: the comparison of timeline-sheets with the scripts
 * people write instead (bench/peers/), and its size and scale cases, in one
 * run. Every measured thing is a whole process — the tool's CLI, a peer
 * script — timed from outside; the counterparts (reference Timeline server,
 * Sheets fake) run in a process of their own and count requests and bytes.
 *
 * `BENCH_QUICK=1` small sizes, one run each: checks the harness.
 * `BENCH_ONLY=a,b` runs those parts: headline, latency, uplink, scale, workbook,
 *   import, startup, state, many, watch, approvals, footnote — and the older, module-level benches
 *   modules-backends, modules-export, modules-import (bench/legacy.ts), which only run when named.
 * `BENCH_REPS=n` runs per figure (default 3). `BENCH_TOOL=/checkout` measures
 *   another checkout's CLI against this one's counterparts and peers; it is
 *   built first and run as installed, or from source with `BENCH_FROM=source`.
 * `BENCH_JSON=file` writes every sample. `BENCH_NODE_ARGS` goes to every
 *   measured process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import { execFileSync, spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { approvals } from './parts/approvals.ts'
import { footnote } from './parts/footnote.ts'
import { headline } from './parts/headline.ts'
import { importCase } from './parts/import.ts'
import { many } from './parts/many.ts'
import { scale } from './parts/scale.ts'
import { startup } from './parts/startup.ts'
import { stateCase } from './parts/state.ts'
import { uplink } from './parts/uplink.ts'
import { watchCase } from './parts/watch.ts'
import { workbook } from './parts/workbook.ts'
import { failures, goals, load, records, table } from './lib/report.ts'
import { buildTool, TOOL_ROOT } from './lib/tool-cli.ts'

const QUICK = process.env['BENCH_QUICK'] === '1'
const REPS = Number(process.env['BENCH_REPS'] ?? (QUICK ? 1 : 3))
const PARTS = [
  'startup',
  'state',
  'headline',
  'latency',
  'uplink',
  'scale',
  'workbook',
  'import',
  'many',
  'watch',
  'approvals',
  'footnote',
] as const
const LEGACY = { 'modules-backends': 'backends', 'modules-export': 'export', 'modules-import': 'import' } as const
const only = process.env['BENCH_ONLY']
  ?.split(',')
  .map((p) => p.trim())
  .filter(Boolean)
for (const part of only ?? []) {
  if (!(PARTS as readonly string[]).includes(part) && !(part in LEGACY))
    throw new Error(`BENCH_ONLY: unknown part ${part}; parts: ${[...PARTS, ...Object.keys(LEGACY)].join(', ')}`)
}
const wanted = (part: string) => (only ? only.includes(part) : (PARTS as readonly string[]).includes(part))

/** 90 days of seeded data give about 585 Tags activities per user. */
const DAYS = 90
const START_DATE = '2026-01-05'
const WINDOW_DAYS = 92
/** The day after the data ends, 06:00 UTC; later runs are hours after it, the same day. */
const T0 = Date.parse('2026-04-05T06:00:00Z')
const data = { days: DAYS, startDate: START_DATE, windowDays: WINDOW_DAYS, t0: T0 }
const ALL_SIZES = QUICK
  ? [{ label: '1k', users: 2 }]
  : [
      { label: '20k', users: 34 },
      { label: '100k', users: 171 },
    ]
// `BENCH_SIZES=100k` runs the headline at that size only (for profiling one case).
const sizesWanted = process.env['BENCH_SIZES']?.split(',')
const SIZES = sizesWanted ? ALL_SIZES.filter((s) => sizesWanted.includes(s.label)) : ALL_SIZES
const LARGE = ALL_SIZES[ALL_SIZES.length - 1]!
const SCALE = QUICK ? { label: '3.5k', users: 6 } : { label: '300k', users: 513 }
const LATENCY_MS = 50
const CHANGE_SHARE = 0.01
const IMPORT_EDITS = QUICK ? 50 : 1_000
const MANY_TARGETS = QUICK ? 3 : 50
/** Ten times Google's per-user 60 a minute: shared and enforced, without making the bench wait for minutes. */
const MANY_PER_MINUTE = Number(process.env['BENCH_MANY_PER_MINUTE'] ?? 600)

function commitOf(root: string): string {
  try {
    const head = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no', '--', 'src'], {
      encoding: 'utf8',
    }).trim()
    return dirty ? `${head} with uncommitted changes in src` : head
  } catch {
    return 'unknown commit'
  }
}

const started = performance.now()
const measured = buildTool()
const loadAtStart = load()
console.log(
  `timeline-sheets bench — tool: ${TOOL_ROOT} at ${commitOf(TOOL_ROOT)}, ${measured}; bench, peers and counterparts: ${commitOf(fileURLToPath(new URL('..', import.meta.url)))}\n` +
    `machine: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; 1-minute load average ${loadAtStart} at start` +
    `${QUICK ? '; BENCH_QUICK: small sizes' : ''}; ${REPS} run${REPS === 1 ? '' : 's'} per headline figure`,
)

/** Runs one part; a part that throws is reported with the others' failures and the bench goes on. */
async function part(name: string, run: () => Promise<void>): Promise<void> {
  try {
    await run()
  } catch (error) {
    failures.push(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    console.log(`\n${name}: FAILED (see Failures at the end)`)
  }
}

if (wanted('startup')) await part('startup', () => startup(QUICK ? 2 : Math.max(5, REPS)))
if (wanted('state')) await part('state', () => stateCase(QUICK ? 10_000 : 100_000, QUICK ? 2 : 5))
for (const size of SIZES) {
  const latency = wanted('latency')
  if (!wanted('headline') && !latency) continue
  await part(`headline ${size.label}`, () =>
    headline({
      ...data,
      label: size.label,
      users: size.users,
      reps: REPS,
      headline: wanted('headline'),
      ...(latency ? { latencyMs: LATENCY_MS } : {}),
      changeShare: CHANGE_SHARE,
    }),
  )
}
if (wanted('uplink')) {
  for (const size of SIZES)
    await part(`uplink ${size.label}`, () =>
      uplink({ ...data, label: size.label, users: size.users, reps: REPS, changeShare: CHANGE_SHARE }),
    )
}
if (wanted('scale')) await part('scale', () => scale({ ...data, ...SCALE, changeShare: CHANGE_SHARE }))
if (wanted('workbook')) await part('workbook', () => workbook({ ...data, ...LARGE, changeShare: CHANGE_SHARE }))
if (wanted('import')) await part('import', () => importCase({ ...data, ...LARGE, edits: IMPORT_EDITS, reps: REPS, latencyMs: LATENCY_MS }))
if (wanted('many'))
  await part('many', () => many({ ...data, targets: MANY_TARGETS, perMinute: MANY_PER_MINUTE, changeShare: CHANGE_SHARE }))
if (wanted('watch')) {
  for (const size of SIZES)
    await part(`watch ${size.label}`, () => watchCase({ ...data, label: size.label, users: size.users, targets: MANY_TARGETS }))
}
if (wanted('approvals')) {
  for (const size of SIZES)
    await part(`approvals ${size.label}`, () =>
      approvals({ ...data, label: size.label, users: size.users, reps: REPS, changeShare: CHANGE_SHARE }),
    )
}
if (wanted('footnote')) await part('footnote', () => footnote({ ...data, rows: QUICK ? 200 : 2_000, users: 4 }))

for (const [part, legacy] of Object.entries(LEGACY)) {
  if (!only?.includes(part)) continue
  const json = process.env['BENCH_JSON']
  const child = spawn(process.execPath, [fileURLToPath(new URL('./legacy.ts', import.meta.url))], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_LEGACY: legacy, ...(json ? { BENCH_JSON: `${json}.${part}.json` } : {}) },
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  if (code !== 0) failures.push(`${part} (bench/legacy.ts): exit ${code}`)
}

if (goals.length) {
  table(
    `Goals${QUICK ? ' (BENCH_QUICK: small sizes, so the size-bound goals are not what they say)' : ''}`,
    ['goal', 'measured', 'met'],
    goals.map((g) => [g.goal, g.measured, g.met === undefined ? '-' : g.met ? 'yes' : 'NO']),
    2,
  )
}
if (failures.length) {
  console.log(`\nFailures (${failures.length})\n`)
  for (const f of failures) console.log(`- ${f.replace(/\n/g, '\n  ')}\n`)
}
console.log(
  `\nDone in ${((performance.now() - started) / 60_000).toFixed(1)} min; 1-minute load average ${loadAtStart} at start, ${load()} at end (wall times stretch under load; request and byte counts do not).`,
)
if (process.env['BENCH_JSON']) await writeFile(process.env['BENCH_JSON'], `${JSON.stringify(records, null, 2)}\n`)
process.exitCode = failures.length ? 1 : 0
