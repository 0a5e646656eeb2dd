/** Runs the real CLI as a subprocess, the way an operator or cron does. */
import { spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const CLI = path.join(root, 'src/cli/main.ts')

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
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
 * The one run a `--json` command printed (issue 12): stdout is `{ "runs": [run], "exitCode" }` and nothing else,
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
