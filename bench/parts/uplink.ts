/**
 * The first export over a shaped link to the Sheets fake (bench/lib/link.ts): what the bytes and the requests
 * cost where they are not free, as they are on loopback. The rates are Ookla's global averages for fixed
 * broadband (bench/README.md cites them); Google publishes no per-request latency for the Sheets API, so the
 * latency of each Sheets answer is swept instead of guessed.
 */
import { PEERS, TOOL, peerExporter, toolExporter, windowDates, type Exporter, type Stage } from '../lib/exporters.ts'
import { startHost } from '../lib/host-client.ts'
import { correctnessText, measure, withCheck, type Sample } from '../lib/measure.ts'
import { goals, load, mb, median, spreadSecs, table } from '../lib/report.ts'

export interface UplinkOptions {
  label: string
  users: number
  days: number
  startDate: string
  windowDays: number
  t0: number
  reps: number
}

interface Profile {
  name: string
  upMbit: number
  downMbit: number
  latencyMs: number
}

/** Ookla Speedtest Global Index, August 2020: global average fixed broadband 84.33 Mbit/s down, 44.10 up. */
const FIXED = { upMbit: 44.1, downMbit: 84.33 }

export const PROFILES: Profile[] = [
  { name: 'loopback', upMbit: 0, downMbit: 0, latencyMs: 0 },
  { name: 'fixed broadband, 0 ms a Sheets answer', ...FIXED, latencyMs: 0 },
  { name: 'fixed broadband, 250 ms a Sheets answer', ...FIXED, latencyMs: 250 },
  { name: 'fixed broadband, 1000 ms a Sheets answer', ...FIXED, latencyMs: 1000 },
]

export async function uplink(options: UplinkOptions): Promise<void> {
  const loadStart = load()
  const host = startHost()
  try {
    const timeline = await host.startTimeline({ users: options.users, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets()
    const through = await host.call<string>('shapeSheetsLink', { upMbit: 0, downMbit: 0, latencyMs: 0 })
    const stage: Stage = {
      host,
      timeline,
      sheets: { rootUrl: through, token: sheets.token },
      windowDays: options.windowDays,
      ...windowDates(new Date(options.t0), options.windowDays),
    }
    const exporters: Exporter[] = [toolExporter(stage, options.label), ...PEERS.map((p) => peerExporter(stage, p, options.label))]
    const rows: (string | number)[][] = []
    for (const profile of PROFILES) {
      await host.call('shapeSheetsLink', profile)
      const byWho = new Map<string, Sample[]>()
      for (let rep = 0; rep < options.reps; rep++) {
        for (const e of exporters) await e.fresh()
        // A rotating order, as in the headline.
        for (let i = 0; i < exporters.length; i++) {
          const e = exporters[(i + rep) % exporters.length]!
          const sample = await measure(host, e.name, () => e.run(new Date(options.t0)), {
            part: 'uplink',
            size: options.label,
            profile: profile.name,
            rep,
          })
          const checked = withCheck(sample, await host.call('check', { spreadsheetId: e.spreadsheetId, from: stage.from, to: stage.to }))
          byWho.set(e.name, [...(byWho.get(e.name) ?? []), checked])
        }
      }
      const wall = (who: string) => median(byWho.get(who)!.map((s) => s.wallMs))
      const best = [...byWho.keys()].filter((w) => w !== TOOL).reduce((a, b) => (wall(a) <= wall(b) ? a : b))
      for (const [who, list] of byWho) {
        rows.push([
          profile.name,
          who,
          spreadSecs(list.map((s) => s.wallMs)),
          median(list.map((s) => s.sheetsReads + s.sheetsWrites)),
          mb(median(list.map((s) => s.sheetsBytesSent))),
          [...new Set(list.map((s) => correctnessText(s.correctness)))].join(', '),
        ])
      }
      const r = wall(TOOL) / wall(best)
      rows.push([profile.name, `ratio ${TOOL} ÷ ${best} (best peer)`, `${r.toFixed(2)}×`, '', '', ''])
      if (profile.upMbit > 0)
        goals.push({
          goal: `${options.label} first export over ${profile.name}: wall ≤ 0.8× the best peer`,
          measured: `${r.toFixed(2)}× ${best} (${(wall(TOOL) / 1000).toFixed(2)} s vs ${(wall(best) / 1000).toFixed(2)} s)`,
          met: r <= 0.8,
        })
    }
    await host.call('shapeSheetsLink', { upMbit: 0, downMbit: 0, latencyMs: 0 })
    for (const e of exporters) await e.dispose()
    table(
      `${options.label} first export over a shaped link to Sheets (fixed broadband: ${FIXED.upMbit} Mbit/s up, ${FIXED.downMbit} down, Ookla's global average; Timeline on loopback), median (min–max) of ${options.reps} run${options.reps === 1 ? '' : 's'}`,
      ['link', 'exporter', 'wall s', 'Sheets requests', 'MB sent to Sheets', 'tab: stale/missing/outdated'],
      rows,
      2,
    )
    console.log(`\n(load average ${loadStart} → ${load()})`)
  } finally {
    await host.close()
  }
}
