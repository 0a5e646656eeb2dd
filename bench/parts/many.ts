/**
 * The many-targets case: a department's config of N small targets
 * (one user's timeline each, one spreadsheet each), synced by one process
 * (`sync`), against the same N targets synced one after another (`sync
 * --target t-i`, N processes) — each way on its own spreadsheets and state,
 * the same server and the same fake. Three runs: the first sync (empty
 * spreadsheets), a second with nothing new, a third after 1 % of the
 * activities changed on the server.
 *
 * Google's quota is per user, and every target here uses one token: the fake
 * enforces one per-user budget for all of them (`perMinute` reads and as many
 * writes), and the tool is told the same pace.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { windowDates } from '../lib/exporters.ts'
import { startHost, type Correctness, type Host } from '../lib/host-client.ts'
import { isCorrect, measure, type Sample } from '../lib/measure.ts'
import { goals, load, mb, ratio, secs, table } from '../lib/report.ts'
import { runTool, writeToolConfig, type ToolConfig } from '../lib/tool-cli.ts'

export interface ManyOptions {
  targets: number
  days: number
  startDate: string
  windowDays: number
  t0: number
  /** Google's per-user quota the fake enforces and the tool keeps, reads and writes alike. */
  perMinute: number
  /** Share of activities changed before the third sync. */
  changeShare: number
}

const HOUR = 3_600_000

interface Way {
  name: string
  config: ToolConfig
  spreadsheets: string[]
}

export async function many(options: ManyOptions): Promise<void> {
  const loadStart = load()
  const host = startHost()
  const dirs: string[] = []
  try {
    const timeline = await host.startTimeline({ users: options.targets, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets({ perMinute: options.perMinute })
    const window = windowDates(new Date(options.t0), options.windowDays)
    const makeWay = async (name: string): Promise<Way> => {
      const dir = await mkdtemp(path.join(tmpdir(), `ts-bench-many-${name}-`))
      dirs.push(dir)
      const spreadsheets: string[] = []
      for (let i = 0; i < options.targets; i++) spreadsheets.push(await host.call<string>('createSpreadsheet', { title: `${name} ${i}` }))
      const config = await writeToolConfig({
        dir,
        timelineUrl: timeline.url,
        username: timeline.username,
        password: timeline.password,
        rootUrl: sheets.rootUrl,
        token: sheets.token,
        windowDays: options.windowDays,
        googlePerMinute: options.perMinute,
        targets: spreadsheets.map((spreadsheetId, i) => ({
          name: `t-${i}`,
          spreadsheet: { kind: 'google', spreadsheetId },
          users: [timeline.owners[i]!],
        })),
      })
      return { name, config, spreadsheets }
    }
    const together = await makeWay('one-process')
    const apart = await makeWay('one-after-another')
    const rows: (string | number)[][] = []
    for (const [phase, at] of [
      ['first sync (empty spreadsheets)', options.t0],
      ['second sync, nothing new', options.t0 + HOUR],
      ['third sync, 1% changed', options.t0 + 2 * HOUR],
    ] as const) {
      const now = new Date(at)
      if (phase.includes('1% changed')) await host.call('mutate', { share: options.changeShare, seed: 500 })
      const context = { part: 'many', targets: options.targets, phase }
      // Quota windows are per minute: each way starts on a fresh one (the fake's clock moves on, nobody waits).
      await host.call('nextQuotaMinute')
      const one = await measure(host, `${options.targets} targets, one process`, () => runTool(together.config, ['sync'], now), context)
      const oneWrong = await wrongTabs(host, together.spreadsheets, timeline.owners, window)
      await host.call('nextQuotaMinute')
      const each = await sequential(host, apart, now, context)
      const eachWrong = await wrongTabs(host, apart.spreadsheets, timeline.owners, window)
      for (const [s, wrong] of [
        [one, oneWrong],
        [each, eachWrong],
      ] as const) {
        rows.push([
          phase,
          s.who,
          s.ok ? 'ok' : 'FAILED (see below)',
          secs(s.wallMs),
          s.peakRssMiB ?? '?',
          `${s.sheetsReads + s.sheetsWrites} (${s.sheetsReads} r / ${s.sheetsWrites} w)`,
          quotaMinutes(s),
          s.quotaRejections,
          s.timelineRequests,
          mb(s.sheetsBytesRead),
          `${wrong} of ${options.targets}`,
        ])
      }
      goals.push({
        goal: `${options.targets} targets, ${phase}: one process ≤ 0.15× running them one after another`,
        measured: `${secs(one.wallMs)} s; one after another ${secs(each.wallMs)} s (${ratio(one.wallMs, each.wallMs)}), slowest single target ${secs(slowest.get(each)!)} s; ${quotaMinutes(one)} min of Google's per-user quota`,
        met: one.ok && each.ok ? one.wallMs <= 0.15 * each.wallMs : false,
      })
      if (!phase.startsWith('first')) {
        const per = (n: number) => (n / options.targets).toFixed(1)
        goals.push({
          goal: `\`sync\`, ${phase.replace(/^\w+ sync, /, '')}: Sheets requests per target (report: the import half's read is shared with the export half; rows changed are claimed, read back and written)`,
          measured: `${per(one.sheetsReads + one.sheetsWrites)} (${per(one.sheetsReads)} r / ${per(one.sheetsWrites)} w) in one process; ${per(each.sheetsReads + each.sheetsWrites)} one after another`,
          met: undefined,
        })
      }
      rows.push([
        phase,
        'ratio one process ÷ one after another',
        '',
        ratio(one.wallMs, each.wallMs),
        '',
        ratio(one.sheetsReads + one.sheetsWrites, each.sheetsReads + each.sheetsWrites),
        '',
        '',
        ratio(one.timelineRequests, each.timelineRequests),
        '',
        '',
      ])
    }
    table(
      `many targets: ${options.targets} targets of one user each (${Math.round(timeline.activities / options.targets)} activities a target), one spreadsheet each, Google quota ${options.perMinute} reads + ${options.perMinute} writes a minute shared (one token); one run each`,
      [
        'run',
        'how',
        'outcome',
        'wall s',
        'peak RSS MiB (largest process)',
        'Sheets requests',
        "min at Google's 60 a minute",
        '429s',
        'Timeline requests',
        'MB read from Sheets',
        'tabs not matching the server',
      ],
      rows,
      2,
    )
    console.log(`\n(load average ${loadStart} → ${load()})`)
  } finally {
    await host.close()
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The wall time Google's own quota (60 reads and 60 writes a minute per user, shared by every target) would
 * take for these requests alone, in minutes: the busier lane's requests at 60 a minute. The bench's fake
 * allows ten times more, so that the case measures concurrency; this is what a department would wait.
 */
function quotaMinutes(s: Sample): string {
  return (Math.max(s.sheetsReads, s.sheetsWrites) / 60).toFixed(1)
}

/** N processes, one target each, back to back; figures summed (peak RSS: the largest). */
/** The longest single target's wall time of a sequential run. */
const slowest = new WeakMap<Sample, number>()

async function sequential(host: Host, way: Way, now: Date, context: Record<string, unknown>): Promise<Sample> {
  let total: Sample | undefined
  let longest = 0
  for (let i = 0; i < way.spreadsheets.length; i++) {
    const s = await measure(
      host,
      `${way.spreadsheets.length} targets, one after another`,
      () => runTool(way.config, ['sync', '--target', `t-${i}`], now),
      { ...context, target: i },
    )
    longest = Math.max(longest, s.wallMs)
    if (!total) {
      total = { ...s, sheetsByMethod: { ...s.sheetsByMethod } }
      continue
    }
    total.wallMs += s.wallMs
    total.peakRssMiB = Math.max(total.peakRssMiB ?? 0, s.peakRssMiB ?? 0)
    total.cpuMs = (total.cpuMs ?? 0) + (s.cpuMs ?? 0)
    total.sheetsReads += s.sheetsReads
    total.sheetsWrites += s.sheetsWrites
    total.quotaRejections += s.quotaRejections
    total.timelineRequests += s.timelineRequests
    total.timelineActivityReads += s.timelineActivityReads
    total.sheetsBytesRead += s.sheetsBytesRead
    total.sheetsBytesSent += s.sheetsBytesSent
    total.timelineBytesRead += s.timelineBytesRead
    total.ok &&= s.ok
  }
  slowest.set(total!, longest)
  return total!
}

/** How many of the targets' tabs do not show their user's window exactly. */
async function wrongTabs(host: Host, spreadsheets: string[], owners: string[], window: { from: string; to: string }): Promise<number> {
  let wrong = 0
  for (const [i, spreadsheetId] of spreadsheets.entries()) {
    const c = await host.call<Correctness>('check', { spreadsheetId, ...window, owner: owners[i] }).catch(() => undefined)
    if (!isCorrect(c)) wrong++
  }
  return wrong
}
