/**
 * Preloaded into every measured process (`node --import bench/lib/probe.ts …`):
 * when the process exits it writes its own peak RSS and CPU time to the file
 * `BENCH_PROBE_FILE` names. The operating system's own accounting, read at the
 * last moment, without touching the code under test (the CLI of any checkout).
 */
import { writeFileSync } from 'node:fs'

const file = process.env['BENCH_PROBE_FILE']
if (file) {
  // Not inherited by anything the process starts itself.
  delete process.env['BENCH_PROBE_FILE']
  process.on('exit', () => {
    const usage = process.resourceUsage()
    writeFileSync(file, JSON.stringify({ maxRssKiB: usage.maxRSS, userUs: usage.userCPUTime, systemUs: usage.systemCPUTime }))
  })
}
