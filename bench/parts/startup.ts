/**
 * The start-up case: `timeline-sheets --help` and `export --help`,
 * whole processes, taking turns; no service is reached. `node -e 0` is
 * measured the same way as the floor no CLI can go below.
 */
import { runNode, type ProcessRun } from '../lib/process.ts'
import { failures, goals, load, median, records, shared, spreadSecs, table } from '../lib/report.ts'
import { runToolBare } from '../lib/tool-cli.ts'

export async function startup(reps: number): Promise<void> {
  const loadStart = load()
  const commands: { name: string; run: () => Promise<ProcessRun> }[] = [
    { name: 'timeline-sheets --help', run: () => runToolBare(['--help']) },
    { name: 'timeline-sheets export --help', run: () => runToolBare(['export', '--help']) },
    { name: 'node -e 0 (the floor)', run: () => runNode(['-e', '0']) },
  ]
  const samples = commands.map(() => [] as { wallMs: number; rss: number; cpuMs: number }[])
  // One unmeasured run first: the file system cache, as for any CLI run after the first.
  await runToolBare(['--help'])
  for (let rep = 0; rep < reps; rep++) {
    for (const [i, command] of commands.entries()) {
      const run = await command.run()
      if (run.code !== 0) failures.push(`startup · ${command.name}: exit ${run.code}\n${run.stderr}`)
      samples[i]!.push({ wallMs: run.wallMs, rss: run.peakRssMiB ?? Number.NaN, cpuMs: run.cpuMs ?? Number.NaN })
      records.push({
        part: 'startup',
        command: command.name,
        rep,
        wallMs: run.wallMs,
        peakRssMiB: run.peakRssMiB,
        cpuMs: run.cpuMs,
        code: run.code,
      })
    }
  }
  table(
    `CLI start-up: whole processes, median (min–max) of ${reps} runs each`,
    ['command', 'wall s', 'peak RSS MiB', 'CPU s'],
    commands.map((command, i) => [
      command.name,
      spreadSecs(samples[i]!.map((s) => s.wallMs)),
      Math.round(median(samples[i]!.map((s) => s.rss))),
      (median(samples[i]!.map((s) => s.cpuMs)) / 1000).toFixed(2),
    ]),
  )
  console.log(`\n(load average ${loadStart} → ${load()})`)
  const help = median(samples[0]!.map((s) => s.wallMs))
  shared.startupMs = help
  goals.push({
    goal: 'CLI start-up (`--help`) ≤ 250 ms',
    measured: `${Math.round(help)} ms (\`node -e 0\`: ${Math.round(median(samples[2]!.map((s) => s.wallMs)))} ms)`,
    met: help <= 250,
  })
}
