/**
 * A subprocess whose output is read while it runs: `login --no-browser`
 * prints the sign-in address and then waits for the browser, and the
 * reference-server CLI prints its URLs and keeps serving.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import { CLI, CLI_NODE, type CliRun } from './cli.ts'

export interface RunningProcess {
  readonly child: ChildProcess
  /** Everything written so far. */
  stdout(): string
  stderr(): string
  /** Resolves with the first match of `pattern` in the stream, as soon as it has arrived. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>
  /** Resolves when the process has exited. */
  readonly exited: Promise<CliRun>
  /** Ends this process (by its pid) if it still runs. */
  stop(): Promise<CliRun>
}

/** Starts `node <script> …args` on this test's Node (or `node`) with extra environment variables. */
export function startProcess(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
  node: string = process.execPath,
): RunningProcess {
  const child = spawn(node, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const output = { stdout: '', stderr: '' }
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of [...listeners]) listener()
  }
  child.stdout!.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString()
    changed()
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString()
    changed()
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  let closed = false
  const exited = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(killer)
      closed = true
      changed()
      resolve({ code, stdout: output.stdout, stderr: output.stderr })
    })
  })

  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    exited,
    waitFor(stream, pattern, waitMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output[stream])
          if (match) {
            done()
            resolve(match)
          } else if (closed) {
            done()
            reject(new Error(`process exited before ${pattern} appeared on ${stream}:\n${output.stdout}\n${output.stderr}`))
          }
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`${pattern} did not appear on ${stream} within ${waitMs} ms:\n${output.stdout}\n${output.stderr}`))
        }, waitMs)
        const done = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        check()
      })
    },
    async stop() {
      if (!closed && child.pid !== undefined) child.kill('SIGTERM')
      return exited
    },
  }
}

/** Starts the CLI under test (`CLI`, the sources or the entry `TIMELINE_SHEETS_E2E_CLI` names), read while it runs. */
export function startCli(args: string[], env: Record<string, string> = {}, timeoutMs?: number): RunningProcess {
  return startProcess(CLI, args, env, timeoutMs, CLI_NODE)
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })
}
