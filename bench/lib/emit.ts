/**
 * The line protocol between a scenario process and bench/run.ts: one JSON
 * object per line on stdout, after a marker, so stray output cannot be taken
 * for a result. Peak RSS is the process's own (`maxRSS`), which is why every
 * heavy part runs in a process of its own.
 */
export const MARKER = '@@bench '

/** Prints one result line for the orchestrator. */
export function emit(result: Record<string, unknown>): void {
  process.stdout.write(`${MARKER}${JSON.stringify(result)}\n`)
}

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMiB(): number {
  return Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10
}

/** Runs `task` and gives its wall time in ms with its value. */
export async function timed<T>(task: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now()
  const value = await task()
  return { ms: Math.round(performance.now() - started), value }
}

/** Parses the JSON argument a scenario is started with. */
export function argument<T>(): T {
  const raw = process.argv[2]
  if (!raw) throw new Error(`usage: node ${process.argv[1]} '<json options>'`)
  return JSON.parse(raw) as T
}
