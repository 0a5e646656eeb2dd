/**
 * Printing: aligned Markdown tables, figures as "median (min–max)", sizes in
 * MB, and every sample kept for `BENCH_JSON`.
 */
import { loadavg } from 'node:os'

/** Prints a Markdown table, the first `textColumns` columns left-aligned, the rest (figures) right-aligned. */
export function table(title: string, header: string[], rows: (string | number)[][], textColumns = 1): void {
  const cells = [header, ...rows.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  const left = (i: number) => i < textColumns
  const line = (r: string[]) => `| ${r.map((c, i) => (left(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`
  console.log(`\n${title}\n`)
  console.log(line(header))
  console.log(`|${widths.map((w, i) => (left(i) ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`)
  for (const r of cells.slice(1)) console.log(line(r))
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Seconds with two decimals. */
export const secs = (ms: number) => (ms / 1000).toFixed(2)

/** `1.23 (1.10–1.40)` in seconds, or just the value for one sample. */
export function spreadSecs(values: number[]): string {
  if (values.length === 0) return '-'
  if (values.length === 1) return secs(values[0]!)
  return `${secs(median(values))} (${secs(Math.min(...values))}–${secs(Math.max(...values))})`
}

/** Median of whole numbers, rounded; `a–b` appended when the samples differ. */
export function spreadCount(values: number[]): string {
  if (values.length === 0) return '-'
  const m = Math.round(median(values))
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  return lo === hi ? String(m) : `${m} (${lo}–${hi})`
}

/** Megabytes (10⁶ bytes): two decimals, three below 0.1 MB. */
export const mb = (bytes: number) => (bytes / 1e6).toFixed(bytes < 1e5 ? 3 : 2)

/** `a ÷ b` as `0.42×`; `-` when it has no meaning. */
export function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b)) return '-'
  if (b === 0) return a === 0 ? '1.00×' : '∞'
  const r = a / b
  return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`
}

/** The 1-minute load average, one decimal. */
export const load = () => loadavg()[0]!.toFixed(1)

/** Every sample and result, for `BENCH_JSON`. */
export const records: Record<string, unknown>[] = []

/** Failures to print at the end, each with what the process said last. */
export const failures: string[] = []

/** One goal the bench holds the tool to, as measured; `met` undefined when there is no target to meet. */
export interface Goal {
  goal: string
  measured: string
  met: boolean | undefined
}

/** The goals, printed together at the end under "Goals". */
export const goals: Goal[] = []

/** Figures one part measures and another needs (start-up, for "beyond start-up"). */
export const shared: { startupMs?: number } = {}
