/** Runs the real CLI as a subprocess, the way an operator or cron does. */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/**
 * Names the entry the e2e runs start as the CLI. Under vitest it is set before the first file: the suite's bundle
 * of src/ (bundle-setup.ts), or the installed package's `bin/timeline-sheets.js` when `npm run check-package` runs
 * the sign-in e2e files against what it installed, where a lazy import or a CommonJS detail can break what the
 * sources run fine. Unset (a script outside vitest), the runs start the sources.
 */
export const CLI_ENV = 'TIMELINE_SHEETS_E2E_CLI'

/** The JavaScript (or TypeScript) file the e2e runs start as `node <CLI> …`. */
export const CLI = cliEntry()

/**
 * Names the Node the CLI runs on, when it is not the tests' own: `check-package --node <older Node>` runs the tests
 * and the counterparts on the project's Node (they need its type stripping) and the installed command on that one.
 */
export const CLI_NODE_ENV = 'TIMELINE_SHEETS_E2E_NODE'

/** The Node that runs the CLI in the e2e runs. */
export const CLI_NODE = process.env[CLI_NODE_ENV] || process.execPath

function cliEntry(): string {
  const chosen = process.env[CLI_ENV]
  if (chosen === undefined || chosen === '') return path.join(root, 'src/cli/main.ts')
  const file = path.resolve(chosen)
  // Refused here, at import, so that a wrong path fails every file that uses it instead of testing nothing.
  if (!existsSync(file)) throw new Error(`${CLI_ENV}=${chosen}: there is no such file (${file}) to run as the CLI`)
  return file
}

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI_NODE, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/**
 * The one run a `--json` command printed: stdout is `{ "runs": [run], "exitCode" }` and nothing else,
 * and the exit code in it is the process's.
 */
export function onlyRun(run: CliRun) {
  const out = JSON.parse(run.stdout)
  if (!Array.isArray(out?.runs) || out.runs.length !== 1 || out.exitCode !== run.code) {
    throw new Error(`expected { runs: [one run], exitCode: ${run.code} } on stdout, got:\n${run.stdout}\n${run.stderr}`)
  }
  return out.runs[0]
}

export async function tempFolder(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `ts-e2e-${prefix}-`))
}

export async function writeConfig(folder: string, config: unknown): Promise<string> {
  const file = path.join(folder, 'timeline-sheets.json')
  await writeFile(file, JSON.stringify(config, null, 2))
  return file
}
