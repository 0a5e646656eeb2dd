/**
 * One measured run of any exporter: the counterparts' counters reset, the
 * process run and timed from outside, then what each service saw — requests,
 * bytes on the wire — read back from the counterparts host.
 */
import type { Correctness, Host } from './host-client.ts'
import type { ProcessRun } from './process.ts'
import { tail } from './process.ts'
import { failures, records } from './report.ts'

export interface Sample {
  who: string
  wallMs: number
  peakRssMiB: number | undefined
  cpuMs: number | undefined
  /** What the counterparts spent meanwhile (the fake's share of the wall on loopback, with the server's). */
  counterpartsCpuMs: number
  /** From the spawn to the first request either counterpart received: start-up as a run pays it. */
  firstRequestMs: number | undefined
  sheetsReads: number
  sheetsWrites: number
  sheetsByMethod: Record<string, number>
  /** 429s the fake's quota answered. */
  quotaRejections: number
  timelineRequests: number
  /** Of which activity reads (whole-window, weekly or incremental). */
  timelineActivityReads: number
  /** Bytes the client read from the Sheets API (answers, headers included). */
  sheetsBytesRead: number
  /** Bytes the client sent to the Sheets API. */
  sheetsBytesSent: number
  /** Of which request bodies, as the API read them (gzip undone). */
  sheetsJsonBytesSent: number
  timelineBytesRead: number
  /** Developer-metadata characters on the fullest sheet: the most during the run, and what the run left. */
  metadataPeakChars: number
  metadataResidualChars: number
  ok: boolean
  code: number | null
  run: ProcessRun
  correctness?: Correctness
}

/** Exit codes a run may end with and still count (the tool's 3 = "partly done" is not among them by default). */
export async function measure(
  host: Host,
  who: string,
  start: () => Promise<ProcessRun>,
  context: Record<string, unknown>,
  okCodes = [0],
): Promise<Sample> {
  await host.call('resetStats')
  const run = await start()
  const stats = await host.stats()
  const timelineRequests = Object.values(stats.timeline).reduce((a, b) => a + b, 0)
  const timelineActivityReads = Object.entries(stats.timeline).reduce((n, [k, c]) => n + (k.startsWith('activities (') ? c : 0), 0)
  const ok = run.code !== null && okCodes.includes(run.code)
  const sample: Sample = {
    who,
    wallMs: run.wallMs,
    peakRssMiB: run.peakRssMiB,
    cpuMs: run.cpuMs,
    counterpartsCpuMs: stats.counterpartsCpuMs,
    firstRequestMs: stats.firstRequestAt === undefined ? undefined : Math.round(stats.firstRequestAt - run.startedAt),
    sheetsReads: stats.sheets?.reads ?? 0,
    sheetsWrites: stats.sheets?.writes ?? 0,
    sheetsByMethod: stats.sheets?.byMethod ?? {},
    quotaRejections: stats.sheets?.quotaRejections ?? 0,
    timelineRequests,
    timelineActivityReads,
    sheetsBytesRead: stats.sheetsBytes.fromServer,
    sheetsBytesSent: stats.sheetsBytes.toServer,
    sheetsJsonBytesSent: stats.sheetsJsonBytesSent,
    timelineBytesRead: stats.timelineBytes.fromServer,
    metadataPeakChars: stats.metadata.peakChars,
    metadataResidualChars: stats.metadata.residualChars,
    ok,
    code: run.code,
    run,
  }
  if (!ok) {
    failures.push(
      `${Object.values(context).join(' · ')} · ${who}: exit ${run.code ?? run.signal}, ${(run.wallMs / 1000).toFixed(1)} s, peak RSS ${run.peakRssMiB ?? '?'} MiB\n` +
        `stderr (last lines):\n${tail(run.stderr) || '(empty)'}\nstdout (last lines):\n${tail(run.stdout, 10) || '(empty)'}`,
    )
  }
  const { run: _run, ...figures } = sample
  records.push({ ...context, ...figures, code: run.code, signal: run.signal, ...(ok ? {} : { stderr: tail(run.stderr, 60) }) })
  return sample
}

/** Adds the tab's comparison with the server to a sample (and its JSON record). */
export function withCheck(sample: Sample, correctness: Correctness): Sample {
  sample.correctness = correctness
  const last = records[records.length - 1]
  if (last && last['who'] === sample.who) last['correctness'] = correctness
  return sample
}

/** `stale/missing/outdated` (and duplicates when any); `-` when unchecked. */
export function correctnessText(c: Correctness | undefined): string {
  if (!c) return '-'
  return `${c.stale}/${c.missing}/${c.outdated}${c.duplicates ? ` (${c.duplicates} dup)` : ''}`
}

/** Whether a tab is exactly the server's window. */
export function isCorrect(c: Correctness | undefined): boolean {
  return c !== undefined && c.stale + c.missing + c.outdated + c.duplicates === 0
}
