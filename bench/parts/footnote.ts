/**
 * The footnote: the one-`values.append`-per-row script
 * (bench/peers/append-per-row.ts), on a sample, scaled to 100,000 rows and
 * to Google's 60 writes a minute. Not in the headline: no one should write it.
 */
import { peerExporter, windowDates, type Stage } from '../lib/exporters.ts'
import { startHost } from '../lib/host-client.ts'
import { measure } from '../lib/measure.ts'
import { emitted } from '../lib/process.ts'

export interface FootnoteOptions {
  rows: number
  users: number
  days: number
  startDate: string
  windowDays: number
  t0: number
}

export async function footnote(options: FootnoteOptions): Promise<void> {
  const host = startHost()
  try {
    const timeline = await host.startTimeline({ users: options.users, days: options.days, startDate: options.startDate })
    const sheets = await host.startSheets()
    const stage: Stage = {
      host,
      timeline,
      sheets,
      windowDays: options.windowDays,
      ...windowDates(new Date(options.t0), options.windowDays),
    }
    const peer = peerExporter(stage, 'append-per-row', 'footnote', { rows: options.rows })
    await peer.fresh()
    const sample = await measure(host, peer.name, () => peer.run(new Date(options.t0)), { part: 'footnote' })
    const result = emitted<{ rows: number; writeMs: number; writeRequests: number }>(sample.run)
    if (!sample.ok || !result) return
    const msPerRow = result.writeMs / result.rows
    const perRow = result.writeRequests / result.rows
    console.log(
      `\nFootnote — one values.append per row (the slowest way people write), ${result.rows.toLocaleString('en')} rows sampled: ` +
        `${msPerRow.toFixed(2)} ms and ${perRow.toFixed(2)} Sheets writes a row on loopback; for 100,000 rows ${Math.round(100_000 * perRow).toLocaleString('en')} writes, ` +
        `${((100_000 * perRow) / 60 / 60).toFixed(1)} h at Google's 60 writes a minute.`,
    )
  } finally {
    await host.close()
  }
}
