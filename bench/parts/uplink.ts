/**
 * The first export, then an incremental run after 1 % changed, over a shaped link to the Sheets fake
 * (bench/lib/link.ts): what the bytes and the requests cost where they are not free, as they are on loopback. The rates are Ookla's global averages for fixed
 * broadband (bench/README.md cites them); Google publishes no per-request latency for the Sheets API, so the
 * latency of each Sheets answer is swept instead of guessed.
 */
import { PEERS, TOOL, peerExporter, toolExporter, windowDates, type Exporter, type Stage } from '../lib/exporters.ts'
import { startHost } from '../lib/host-client.ts'
import type { HeadlineOptions } from './headline.ts'
import { correctnessText, isCorrect, measure, withCheck, type Sample } from '../lib/measure.ts'
import { goals, load, mb, median, spreadSecs, table } from '../lib/report.ts'

/** The headline's sizes, data and repetitions; the link profiles are this part's own. */
export type UplinkOptions = Pick<HeadlineOptions, 'label' | 'users' | 'days' | 'startDate' | 'windowDays' | 't0' | 'reps' | 'changeShare'>

const FIRST = 'first export'
const INCREMENTAL = 'incremental, 1% changed'
const HOUR = 3_600_000

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
    /** Runs every exporter `reps` times over `profile`; `before` readies each rep (a new spreadsheet, changed activities). */
    const phase = async (name: string, profile: Profile, before: (rep: number) => Promise<void>, judgedOn: 'wall' | 'correct wall') => {
      await host.call('shapeSheetsLink', profile)
      const byWho = new Map<string, Sample[]>()
      for (let rep = 0; rep < options.reps; rep++) {
        await before(rep)
        // A rotating order, as in the headline.
        for (let i = 0; i < exporters.length; i++) {
          const e = exporters[(i + rep) % exporters.length]!
          const sample = await measure(host, e.name, () => e.run(new Date(options.t0 + (name === FIRST ? 0 : HOUR))), {
            part: 'uplink',
            size: options.label,
            phase: name,
            profile: profile.name,
            rep,
          })
          const checked = withCheck(sample, await host.call('check', { spreadsheetId: e.spreadsheetId, from: stage.from, to: stage.to }))
          byWho.set(e.name, [...(byWho.get(e.name) ?? []), checked])
        }
      }
      const wall = (who: string) => median(byWho.get(who)!.map((s) => s.wallMs))
      const candidates = [...byWho.keys()].filter(
        (w) => w !== TOOL && (judgedOn === 'wall' || byWho.get(w)!.every((s) => isCorrect(s.correctness))),
      )
      for (const [who, list] of byWho) {
        rows.push([
          `${name}, ${profile.name}`,
          who,
          spreadSecs(list.map((s) => s.wallMs)),
          median(list.map((s) => s.sheetsReads + s.sheetsWrites)),
          mb(median(list.map((s) => s.sheetsBytesSent))),
          mb(median(list.map((s) => s.sheetsBytesRead))),
          [...new Set(list.map((s) => correctnessText(s.correctness)))].join(', '),
        ])
      }
      if (candidates.length === 0) return undefined
      const best = candidates.reduce((a, b) => (wall(a) <= wall(b) ? a : b))
      const r = wall(TOOL) / wall(best)
      const why = judgedOn === 'wall' ? 'best peer' : 'best correct peer'
      rows.push([`${name}, ${profile.name}`, `ratio ${TOOL} ÷ ${best} (${why})`, `${r.toFixed(2)}×`, '', '', '', ''])
      return { ratio: r, best, ours: wall(TOOL), theirs: wall(best) }
    }
    for (const profile of PROFILES) {
      const result = await phase(
        FIRST,
        profile,
        async () => {
          for (const e of exporters) await e.fresh()
        },
        'wall',
      )
      if (result && profile.upMbit > 0)
        goals.push({
          goal: `${options.label} first export over ${profile.name}: wall ≤ 0.8× the best peer`,
          measured: `${result.ratio.toFixed(2)}× ${result.best} (${(result.ours / 1000).toFixed(2)} s vs ${(result.theirs / 1000).toFixed(2)} s)`,
          met: result.ratio <= 0.8,
        })
    }
    // After 1 % changed on the server, each exporter on the sheet its last first export left.
    const incremental = await phase(
      INCREMENTAL,
      PROFILES[1]!,
      async (rep) => void (await host.call('mutate', { share: options.changeShare, seed: 200 + rep })),
      'correct wall',
    )
    if (incremental)
      goals.push({
        goal: `${options.label} incremental, 1% changed, over ${PROFILES[1]!.name}: wall ≤ ${options.label === '20k' ? '0.7' : '0.5'}× the best correct peer`,
        measured: `${incremental.ratio.toFixed(2)}× ${incremental.best} (${(incremental.ours / 1000).toFixed(2)} s vs ${(incremental.theirs / 1000).toFixed(2)} s)`,
        met: incremental.ratio <= (options.label === '20k' ? 0.7 : 0.5),
      })
    await host.call('shapeSheetsLink', { upMbit: 0, downMbit: 0, latencyMs: 0 })
    for (const e of exporters) await e.dispose()
    table(
      `${options.label} over a shaped link to Sheets (fixed broadband: ${FIXED.upMbit} Mbit/s up, ${FIXED.downMbit} down, Ookla's global average; Timeline on loopback), median (min–max) of ${options.reps} run${options.reps === 1 ? '' : 's'}`,
      ['run, link', 'exporter', 'wall s', 'Sheets requests', 'MB sent to Sheets', 'MB read from Sheets', 'tab: stale/missing/outdated'],
      rows,
      2,
    )
    console.log(`\n(load average ${loadStart} → ${load()})`)
  } finally {
    await host.close()
  }
}
