/**
 * A watch that runs intervals back to back, for the memory test and the bench: `node --expose-gc
 * watch-memory.run.ts <config> <intervals> <checkpoint>…` runs `sync --watch` over the config's targets with a
 * clock that starts the next interval as soon as the last ended, and prints one JSON line: the resident set and
 * the heap after a garbage collection at each checkpoint, and the watch's requests per idle interval.
 */
import { runWatchCommand, type WatchClock } from '../../src/cli/commands/sync-watch.ts'

const [config, total, ...checkpoints] = process.argv.slice(2)
if (config === undefined || total === undefined) throw new Error('usage: watch-memory.run.ts <config> <intervals> <checkpoint>…')
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with node --expose-gc')
const at = new Set(checkpoints.map(Number))
const samples: { interval: number; rssMiB: number; heapMiB: number; externalMiB: number }[] = []
const started = Date.now()

const clock: WatchClock = {
  describe: () => 'back to back',
  async run(tick, stop) {
    for (let i = 1; i <= Number(total) && !stop.aborted; i++) {
      await tick()
      if (at.has(i)) {
        gc()
        gc()
        const usage = process.memoryUsage()
        samples.push({ interval: i, rssMiB: round(usage.rss), heapMiB: round(usage.heapUsed), externalMiB: round(usage.external) })
      }
    }
  },
}

const options = {
  watch: true,
  dryRun: false,
  deleteMissing: false,
  force: false,
  forceLayout: false,
  strictTags: false,
  overwriteTags: false,
}
const code = await runWatchCommand({ config, json: true, verbose: false, quiet: true }, options, clock)
process.stderr.write(`${JSON.stringify({ code, samples, ms: Date.now() - started })}\n`)

function round(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10
}
