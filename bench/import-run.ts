/**
 * One `import` run (dry run or applied) in a process of its own, the
 * way the CLI runs it: the product's config parsing and spreadsheet wiring, a
 * password sign-in whose fetch is counted by method, `runImport` against the
 * reference server and the Sheets fake. Prints one result line: wall time,
 * peak RSS, requests to each service split into reads and writes, the plan's
 * size and the outcome counts.
 */
import { runImport } from '../src/engine/import.ts'
import { argument, emit, peakRssMiB, timed } from './lib/emit.ts'
import { benchTool, requestKind, type ToolOptions } from './lib/tool.ts'

export interface ImportRunOptions extends ToolOptions {
  label: string
  now: string
  dryRun: boolean
}

const options = argument<ImportRunOptions>()

/** Every request the client sends, by method and kind (`GET activities`, `PUT activities`, `POST sign-in`, …). */
const tool = await benchTool(options, (request) => `${request.method} ${requestKind(request.url)}`)
const { target, client, spreadsheet, timelineRequests, loaded } = tool
const silent = tool.reporter

const run = await timed(() =>
  runImport(
    target,
    { client, spreadsheet, stateDir: loaded.resolvePath(loaded.config.stateDir), reporter: silent, now: () => new Date(options.now) },
    { dryRun: options.dryRun },
  ),
)
const summary = run.value
const isWrite = (name: string) => !name.startsWith('GET ') && !name.endsWith(' sign-in')
const sum = (pick: (name: string) => boolean) => Object.entries(timelineRequests).reduce((n, [name, c]) => n + (pick(name) ? c : 0), 0)
const kinds = (list: { kind: string }[]) => list.reduce<Record<string, number>>((m, w) => ({ ...m, [w.kind]: (m[w.kind] ?? 0) + 1 }), {})
emit({
  label: options.label,
  wallMs: run.ms,
  peakRssMiB: peakRssMiB(),
  sheetsRequests: summary.sheetsRequests,
  timelineRequests,
  timelineReads: sum((n) => !isWrite(n)),
  timelineWrites: sum(isWrite),
  planned: kinds(summary.plan.writes),
  conflicts: summary.plan.conflicts.length,
  invalid: summary.plan.invalid.length,
  invalidSample: summary.plan.invalid.slice(0, 3),
  counts: summary.counts,
  result: summary.result,
  applied: summary.applied,
})
