/**
 * timeline-sheets as people run it: the installed command in a process of its
 * own (`node bin/timeline-sheets.js export --config … --json`, the file npm
 * links as `timeline-sheets`, which loads the built dist/), secrets from the
 * environment, a config file written here. The only entry point of the tool
 * the new benchmarks use, so the bench survives any move inside src, and can
 * run another checkout's CLI (`BENCH_TOOL=/path/to/checkout`) against the
 * same counterparts. `BENCH_FROM=source` runs the checkout's source instead
 * (`node src/cli/main.ts`, as `npm start` does), which skips the build.
 */
import { spawnSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runNode, type ProcessRun } from './process.ts'

/** The checkout whose CLI is measured: this one, or `BENCH_TOOL`. */
export const TOOL_ROOT = path.resolve(process.env['BENCH_TOOL'] ?? fileURLToPath(new URL('../..', import.meta.url)))
/** `package` (default): the installed command, built first (`buildTool`); `source`: src/cli/main.ts. */
export const TOOL_FROM = process.env['BENCH_FROM'] === 'source' ? 'source' : 'package'
const MAIN = path.join(TOOL_ROOT, TOOL_FROM === 'source' ? 'src/cli/main.ts' : 'bin/timeline-sheets.js')
const PASSWORD_ENV = 'BENCH_TIMELINE_PASSWORD'
const TOKEN_ENV = 'BENCH_GOOGLE_TOKEN'

export interface ToolTarget {
  name: string
  spreadsheet: { kind: 'google'; spreadsheetId: string } | { kind: 'workbook'; path: string }
  /** Owners whose timelines the target holds; empty: every Tags timeline. */
  users?: string[]
  /** The target's `approvals` (an Approvals tab, weekly periods). */
  approvals?: { period: 'week' | 'month' }
}

export interface ToolSetup {
  /** Folder of the config file and the state. */
  dir: string
  timelineUrl: string
  username: string
  password: string
  rootUrl: string
  token: string
  windowDays: number
  targets: ToolTarget[]
  /** Google's per-user pace the tool keeps. @default the tool's default (60 a minute) */
  googlePerMinute?: number
  /** `google.watch`: the sign-in may ask Drive for the spreadsheets' versions (`sync --watch`). */
  googleWatch?: boolean
}

export interface ToolConfig {
  file: string
  env: Record<string, string>
}

/**
 * Writes the config: password sign-in, static Google token to the fake, UTC
 * targets with the given window. The Timeline pace is raised (4 in flight,
 * 10⁶ a minute): the default 300 a minute would make a 100k first run
 * pace-bound, and the peers keep no pace at all.
 */
export async function writeToolConfig(setup: ToolSetup): Promise<ToolConfig> {
  await mkdir(setup.dir, { recursive: true })
  const file = path.join(setup.dir, 'timeline-sheets.json')
  const config = {
    timeline: {
      auth: { mode: 'password', baseUrl: setup.timelineUrl, username: setup.username, passwordEnv: PASSWORD_ENV },
      pace: { concurrency: 4, requestsPerInterval: 1_000_000, intervalMs: 60_000 },
    },
    google: {
      auth: { mode: 'static-token', tokenEnv: TOKEN_ENV },
      rootUrl: setup.rootUrl,
      ...(setup.googlePerMinute ? { readsPerMinute: setup.googlePerMinute, writesPerMinute: setup.googlePerMinute } : {}),
      ...(setup.googleWatch ? { watch: true } : {}),
    },
    stateDir: 'state',
    targets: setup.targets.map((t) => ({
      name: t.name,
      spreadsheet: t.spreadsheet,
      ...(t.users ? { users: t.users } : {}),
      ...(t.approvals ? { approvals: t.approvals } : {}),
      timeZone: 'UTC',
      window: { days: setup.windowDays, lookBackDays: 7 },
    })),
  }
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`)
  return { file, env: { [PASSWORD_ENV]: setup.password, [TOKEN_ENV]: setup.token } }
}

/**
 * Builds the measured checkout's package (its own `npm run build`, so an older checkout builds as it did then):
 * what `npm pack` ships and an installed command runs. Nothing to do for `BENCH_FROM=source`.
 */
export function buildTool(): string {
  if (TOOL_FROM === 'source') return 'its source (src/cli/main.ts, BENCH_FROM=source)'
  const started = performance.now()
  const built = spawnSync(process.execPath, [path.join(TOOL_ROOT, 'scripts/build.ts')], { cwd: TOOL_ROOT, encoding: 'utf8' })
  if (built.status !== 0) throw new Error(`npm run build in ${TOOL_ROOT} failed (exit ${built.status}):\n${built.stderr}`)
  return `its installed command (bin/timeline-sheets.js, dist/ built in ${((performance.now() - started) / 1000).toFixed(1)} s)`
}

/** `timeline-sheets <args…> --config <file> --json [--now <iso>]`, measured. */
export function runTool(config: ToolConfig, args: string[], now?: Date): Promise<ProcessRun> {
  return runNode([MAIN, ...args, '--config', config.file, '--json', ...(now ? ['--now', now.toISOString()] : [])], {
    env: config.env,
    cwd: path.dirname(config.file),
  })
}

/** `timeline-sheets <args…>` without a config (start-up: `--help`). */
export function runToolBare(args: string[]): Promise<ProcessRun> {
  return runNode([MAIN, ...args])
}

/** The run summaries the CLI printed with `--json` (`{ "runs": [one per target] }`), if it parses. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI's --json output, read field by field
export function summaryOf(run: ProcessRun): Record<string, any>[] {
  const text = run.stdout.trim()
  if (!text) return []
  try {
    const parsed = JSON.parse(text)
    return Array.isArray(parsed?.runs) ? parsed.runs : []
  } catch {
    return []
  }
}
