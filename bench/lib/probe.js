/**
 * Preloaded into every measured process (`node --import bench/lib/probe.js …`):
 * when the process exits it writes its own peak RSS and CPU time to the file
 * `BENCH_PROBE_FILE` names. The operating system's own accounting, read at the
 * last moment, without touching the code under test (the CLI of any checkout).
 *
 * Plain JavaScript on purpose: a preloaded .ts file makes Node load its type
 * stripper (amaro) into every measured process, 35–50 ms of start-up that the
 * installed command (plain JS) never pays when an operator runs it.
 */
import { writeFileSync } from 'node:fs'
import process from 'node:process'

const file = process.env['BENCH_PROBE_FILE']
if (file) {
  // Not inherited by anything the process starts itself.
  delete process.env['BENCH_PROBE_FILE']
  process.on('exit', () => {
    const usage = process.resourceUsage()
    writeFileSync(file, JSON.stringify({ maxRssKiB: usage.maxRSS, userUs: usage.userCPUTime, systemUs: usage.systemCPUTime }))
  })
}
