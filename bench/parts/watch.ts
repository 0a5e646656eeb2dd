/**
 * What an idle interval of `sync --watch` costs, beside what `sync --every` runs each interval (a whole sync that
 * finds nothing), on one Google target of the headline's sizes. Each is a whole process of the tool: `sync`, then
 * `sync --watch --intervals 1` and `--intervals 11` (the first interval of a watch is a whole sync; the ten after
 * it, with nothing changed, are idle, so their cost is the difference divided by ten). The counterparts count
 * requests and bytes on the wire; each process's peak RSS says what memory a watch needs at that size. Then what fifty idle targets every two minutes cost a minute, from those
 * figures, against Google's 60 requests a minute per user.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startHost } from '../lib/host-client.ts'
import { measure, type Sample } from '../lib/measure.ts'
import { goals, load, table } from '../lib/report.ts'
import { runTool, writeToolConfig } from '../lib/tool-cli.ts'

export interface WatchOptions {
  label: string
  users: number
  days: number
  startDate: string
  windowDays: number
  t0: number
  /** Targets the per-minute figure is for. */
  targets: number
}

const IDLE = 10

export async function watchCase(options: WatchOptions): Promise<void> {
  const loadStart = load()
  const host = startHost()
  const dir = await mkdtemp(path.join(tmpdir(), 'ts-bench-watch-'))
  try {
    const timeline = await host.startTimeline({ users: options.users, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets()
    const spreadsheetId = await host.call<string>('createSpreadsheet', { title: `watch ${options.label}` })
    const config = await writeToolConfig({
      dir,
      timelineUrl: timeline.url,
      username: timeline.username,
      password: timeline.password,
      rootUrl: sheets.rootUrl,
      token: sheets.token,
      windowDays: options.windowDays,
      targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId } }],
      googleWatch: true,
    })
    const now = new Date(options.t0)
    const context = { part: 'watch', size: options.label }
    const filled = await measure(host, 'first sync (fills the sheet)', () => runTool(config, ['sync'], now), context)
    const plain = await measure(
      host,
      '`sync` with nothing new: what --every runs each interval',
      () => runTool(config, ['sync'], now),
      context,
    )
    const one = await measure(
      host,
      '`sync --watch`, 1 interval',
      () => runTool(config, ['sync', '--watch', '--intervals', '1'], now),
      context,
    )
    const more = await measure(
      host,
      `\`sync --watch\`, ${IDLE + 1} intervals`,
      () => runTool(config, ['sync', '--watch', '--intervals', String(IDLE + 1)], now),
      context,
    )
    const idle = perIdle(one, more)
    const rows = [filled, plain, one, more].map((s) => [
      s.who,
      s.ok ? 'ok' : 'FAILED',
      sheetsApi(s),
      drive(s),
      s.timelineRequests,
      kb(s.sheetsBytesRead + s.sheetsBytesSent),
      kb(s.timelineBytesRead),
      s.peakRssMiB ?? '?',
    ])
    rows.push([
      `one idle interval ((${IDLE + 1} − 1) ÷ ${IDLE})`,
      one.ok && more.ok ? 'ok' : 'FAILED',
      idle.sheets.toFixed(1),
      idle.drive.toFixed(1),
      idle.timeline.toFixed(1),
      (idle.googleBytes / 1000).toFixed(2),
      (idle.timelineBytes / 1000).toFixed(2),
      '',
    ])
    table(
      `sync --watch — ${options.label} rows, one Google target: what an idle interval costs`,
      [
        'run',
        'outcome',
        'Sheets API requests',
        'Drive requests',
        'Timeline requests',
        'KB to and from Google',
        'KB from Timeline',
        'peak RSS MiB',
      ],
      rows,
    )
    const perMinute = options.targets / 2
    goals.push({
      goal: `${options.label}: an idle interval costs at most 1 request and 2 KB to the spreadsheet side and at most 1 Timeline request, whatever the sheet's size`,
      measured: `${(idle.sheets + idle.drive).toFixed(1)} Google request (${idle.sheets.toFixed(1)} Sheets, ${idle.drive.toFixed(1)} Drive), ${(idle.googleBytes / 1000).toFixed(2)} KB; ${idle.timeline.toFixed(1)} Timeline request; \`sync\` with nothing new: ${plain.sheetsReads + plain.sheetsWrites} Sheets requests, ${kb(plain.sheetsBytesRead + plain.sheetsBytesSent)} KB`,
      met: one.ok && more.ok ? idle.sheets + idle.drive <= 1 && idle.googleBytes <= 2000 && idle.timeline <= 1 : false,
    })
    goals.push({
      goal: `${options.targets} idle targets every 2 minutes stay within Google's 60 requests a minute per user with room for the runs that change something`,
      measured: `${(idle.sheets * perMinute).toFixed(0)} Sheets requests a minute (Drive: ${(idle.drive * perMinute).toFixed(0)} a minute, its own quota); \`sync --every 2m\`: ${((plain.sheetsReads + plain.sheetsWrites) * perMinute).toFixed(0)} Sheets requests a minute`,
      met: one.ok && more.ok ? idle.sheets * perMinute <= 6 : false,
    })
    console.log(`\n(load average ${loadStart} → ${load()})`)
  } finally {
    await host.close()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Requests and bytes of one idle interval: the longer watch's beyond the one-interval watch's, per extra interval. */
function perIdle(one: Sample, more: Sample) {
  const per = (a: number, b: number) => (b - a) / IDLE
  return {
    sheets: per(one.sheetsReads + one.sheetsWrites - driveOf(one), more.sheetsReads + more.sheetsWrites - driveOf(more)),
    drive: per(driveOf(one), driveOf(more)),
    timeline: per(one.timelineRequests, more.timelineRequests),
    googleBytes: per(one.sheetsBytesRead + one.sheetsBytesSent, more.sheetsBytesRead + more.sheetsBytesSent),
    timelineBytes: per(one.timelineBytesRead, more.timelineBytesRead),
  }
}

/** Drive `files.get` requests, which the fake counts beside the Sheets methods. */
function driveOf(s: Sample): number {
  return Object.entries(s.sheetsByMethod).reduce((n, [method, count]) => n + (/drive/i.test(method) ? count : 0), 0)
}

function sheetsApi(s: Sample): string {
  const all = s.sheetsReads + s.sheetsWrites - driveOf(s)
  return String(all)
}

function drive(s: Sample): number {
  return driveOf(s)
}

function kb(bytes: number): string {
  return (bytes / 1000).toFixed(1)
}
