/**
 * Runs one whole process the way a person or cron does and measures it from
 * outside: wall time from just before the spawn to the exit, peak RSS and CPU
 * time from the process's own accounting at exit (bench/lib/probe.js).
 */
import { spawn } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { MARKER } from './emit.ts'

const PROBE = fileURLToPath(new URL('./probe.js', import.meta.url))
const EXTRA_NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean)
let nextProbe = 0

export interface ProcessRun {
  /** Spawn to exit, as seen from outside. */
  wallMs: number
  /** When the process was spawned, ms since the epoch (the counterparts' clock: same machine). */
  startedAt: number
  /** Undefined when the process died before its exit handlers ran (a signal, a crash of the runtime). */
  peakRssMiB: number | undefined
  /** User + system. */
  cpuMs: number | undefined
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface ProcessOptions {
  env?: Record<string, string>
  cwd?: string
  /** Killed after this long. @default 30 minutes */
  timeoutMs?: number
}

/** `node [probe] <args…>`; resolves when the process has exited and its output is read. */
export async function runNode(args: string[], options: ProcessOptions = {}): Promise<ProcessRun> {
  const probeFile = path.join(tmpdir(), `ts-bench-probe-${process.pid}-${nextProbe++}.json`)
  const started = performance.now()
  const startedAt = performance.timeOrigin + started
  const child = spawn(process.execPath, [...EXTRA_NODE_ARGS, '--import', PROBE, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, BENCH_PROBE_FILE: probeFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30 * 60_000)
  let wallMs = 0
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, signal) => {
      wallMs = performance.now() - started
      resolve([code, signal])
    }),
  )
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const [code, signal] = await exited
  await closed
  clearTimeout(timer)
  const probe = await readFile(probeFile, 'utf8')
    .then((text) => JSON.parse(text) as { maxRssKiB: number; userUs: number; systemUs: number })
    .catch(() => undefined)
  await rm(probeFile, { force: true })
  return {
    wallMs: Math.round(wallMs),
    startedAt,
    peakRssMiB: probe ? Math.round((probe.maxRssKiB / 1024) * 10) / 10 : undefined,
    cpuMs: probe ? Math.round((probe.userUs + probe.systemUs) / 1000) : undefined,
    code,
    signal,
    stdout,
    stderr,
  }
}

/** The one result line a bench script printed (bench/lib/emit.ts), or undefined. */
export function emitted<T>(run: ProcessRun): T | undefined {
  const line = run.stdout.split('\n').find((l) => l.startsWith(MARKER))
  return line ? (JSON.parse(line.slice(MARKER.length)) as T) : undefined
}

/** The last lines of what a failed process said, for the report. */
export function tail(text: string, lines = 25): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n')
}
