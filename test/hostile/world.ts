/**
 * One hostile world per test: the reference Timeline server behind a hostile
 * proxy, a witness on another host, and a workbook target whose config sets
 * small timeouts. The CLI runs as a subprocess, as cron runs it. The limits
 * are small but the misbehaviour is far slower than them (a hung request
 * never answers; a trickle sends a byte every 2 s against a 1 s idle limit),
 * so which limit fires does not depend on the machine's speed; the test's own
 * budget (the kill timer) is generous.
 */
import path from 'node:path'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { runCli, tempFolder, writeConfig, type CliRun } from '../e2e/cli.ts'
import { startHostileProxy, startWitness, type HostileProxy, type Witness } from './proxy.ts'

/**
 * Small per-request limits for the tests, in the config's own section, and a short first wait before a repeat
 * (`retryDelayMs`, doubled for each repeat): no test waits on the real back-off, which for a request tried six
 * times is 15.5 s of waiting.
 */
export const TEST_TIMEOUTS = { connectMs: 2_000, firstByteMs: 1_000, idleBodyMs: 1_000, totalMs: 3_000, retryDelayMs: 10 }

/** How long a CLI run may take before the test kills it: only a run that hangs gets near it. */
export const KILL_AFTER_MS = 150_000

/** The vitest timeout for a test that runs the CLI a few times. */
export const TEST_BUDGET_MS = 300_000

export const NOW = '2026-11-10T11:00:00Z'

export interface HostileWorld {
  server: ReferenceServer
  proxy: HostileProxy
  witness: Witness
  folder: string
  configFile: string
  workbookFile: string
  /** The transfer account's password: it must never reach the witness nor any output. */
  password: string
  env: Record<string, string>
  /** Runs the CLI with this world's config; `code` is null only when the kill timer ended it. */
  run(args: string[]): Promise<CliRun>
  close(): Promise<void>
}

export async function startHostileWorld(name: string, config: Record<string, unknown> = {}): Promise<HostileWorld> {
  const server = await startReferenceServer({
    data: { users: 2, days: 5, startDate: '2026-11-04', timeZones: ['Europe/Berlin'], otherTimelines: false },
  })
  const proxy = await startHostileProxy(server.url)
  const witness = await startWitness()
  const folder = await tempFolder(`hostile-${name}`)
  const password = server.credentials.transfer!.password
  const configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: proxy.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    timeouts: TEST_TIMEOUTS,
    targets: [
      {
        name: 'team',
        spreadsheet: { kind: 'workbook', path: 'team.xlsx' },
        timeZone: 'Europe/Berlin',
        window: { days: 7, lookBackDays: 2 },
      },
    ],
    ...config,
  })
  const env = { TIMELINE_PASSWORD: password }
  return {
    server,
    proxy,
    witness,
    folder,
    configFile,
    workbookFile: path.join(folder, 'team.xlsx'),
    password,
    env,
    run: (args) => runCli(['--config', configFile, '--now', NOW, ...args], env, KILL_AFTER_MS),
    close: async () => {
      await proxy.close()
      await witness.close()
      await server.close()
    },
  }
}

/** Runs `test` in a fresh world and closes it afterwards (tests in a file may then run concurrently). */
export async function inWorld(
  name: string,
  test: (world: HostileWorld) => Promise<void>,
  config: Record<string, unknown> = {},
): Promise<void> {
  const world = await startHostileWorld(name, config)
  try {
    await test(world)
  } finally {
    await world.close()
  }
}

/** Everything the run printed, for "never printed" checks. */
export function printed(run: CliRun): string {
  return `${run.stdout}\n${run.stderr}`
}

/** The `error: …` line the CLI ends a failed run with. */
export function errorLine(run: CliRun): string {
  return run.stderr.split('\n').find((line) => line.startsWith('error: ')) ?? `(no error line) ${run.stderr.slice(-2000)}`
}
