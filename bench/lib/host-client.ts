/**
 * Starts bench/lib/host.ts in a child process and calls it: `host.call('op', args)`.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { SheetsStats } from '../../counterparts/sheets/store.ts'

export interface HostRequest {
  id: number
  op: string
  args?: unknown
}

type HostReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string }

export interface TimelineStarted {
  url: string
  username: string
  password: string
  timelines: number
  activities: number
  /** Usernames owning the Tags timelines. */
  owners: string[]
}

/** Bytes on the wire, headers included, as the server's sockets counted them. */
export interface WireBytes {
  /** Requests: what the client sent. */
  toServer: number
  /** Answers: what the client read. */
  fromServer: number
}

export interface HostStats {
  sheets: SheetsStats | undefined
  /** Requests the Timeline server received, by kind. */
  timeline: Record<string, number>
  sheetsBytes: WireBytes
  /** Request bodies as the Sheets API read them (gzip undone): what the client would send uncompressed. */
  sheetsJsonBytesSent: number
  /** Developer-metadata characters on the fullest sheet: the most after any request of the run, and at its end. */
  metadata: { peakChars: number; residualChars: number }
  timelineBytes: WireBytes
  /** CPU milliseconds of the counterparts' process (Sheets fake and Timeline server together) since the reset. */
  counterpartsCpuMs: number
  /** When the first request since the reset arrived, ms since the epoch; undefined when none did. */
  firstRequestAt: number | undefined
}

/** How a tab compares with the server's window (bench/lib/host.ts `check`). */
export interface Correctness {
  /** Rows holding a Key. */
  rows: number
  /** Rows whose activity is gone from the server's window. */
  stale: number
  /** Activities in the window without a row. */
  missing: number
  /** Keys found on more than one row (counted once per extra row). */
  duplicates: number
  /** Rows whose Notes differ from the server's. */
  outdated: number
  /** Size of the tab's values as JSON, formatted: about what one read of the whole tab answers. */
  tabBytes: number
}

export interface Host {
  call<T>(op: string, args?: unknown): Promise<T>
  startTimeline(args: { users: number; days: number; startDate: string }): Promise<TimelineStarted>
  startSheets(args?: { perMinute?: number }): Promise<{ rootUrl: string; token: string }>
  stats(): Promise<HostStats>
  close(): Promise<void>
}

/** Forks a counterparts host; the same Node binary runs it. */
export function startHost(): Host {
  const child: ChildProcess = fork(fileURLToPath(new URL('./host.ts', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
    // `BENCH_HOST_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'` profiles the counterparts.
    execArgv: [...process.execArgv, ...(process.env['BENCH_HOST_NODE_ARGS']?.split(' ').filter(Boolean) ?? [])],
  })
  let next = 1
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>()
  child.on('message', (reply: HostReply) => {
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (reply.ok) waiter.resolve(reply.result)
    else waiter.reject(new Error(`host: ${reply.error}`))
  })
  child.on('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`host exited with ${code}`))
    pending.clear()
  })
  const call = <T>(op: string, args?: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = next++
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      child.send({ id, op, args } satisfies HostRequest)
    })
  return {
    call,
    startTimeline: (args) => call('startTimeline', args),
    startSheets: (args) => call('startSheets', args ?? {}),
    stats: () => call('stats'),
    close: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      await call('close').catch(() => undefined)
      await exited
    },
  }
}
