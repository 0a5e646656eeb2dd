/**
 * One `export` run in a process of its own, the way the CLI runs it: the
 * product's config parsing and spreadsheet wiring, a password sign-in whose
 * fetch is counted, `runExport` against the reference server and the Sheets
 * fake. Prints one result line: wall time, peak RSS, requests to each service.
 */
import { runExport } from '../src/engine/export.ts'
import { argument, emit, peakRssMiB, timed } from './lib/emit.ts'
import { benchTool, requestKind, type ToolOptions } from './lib/tool.ts'

export interface ExportRunOptions extends ToolOptions {
  label: string
  now: string
  full?: boolean
}

const options = argument<ExportRunOptions>()

const tool = await benchTool(options, (request) => {
  const kind = requestKind(request.url)
  if (kind !== 'activities') return kind
  return request.url.includes('updatedAfterTimestamp') ? 'activities (incremental)' : 'activities (range)'
})
const { target, client, spreadsheet, timelineRequests, loaded } = tool
const silent = tool.reporter

const run = await timed(() =>
  runExport(
    target,
    { client, spreadsheet, stateDir: loaded.resolvePath(loaded.config.stateDir), reporter: silent, now: () => new Date(options.now) },
    { full: options.full ?? false },
  ),
)
const summary = run.value
emit({
  label: options.label,
  wallMs: run.ms,
  peakRssMiB: peakRssMiB(),
  sheetsRequests: summary.sheetsRequests,
  timelineRequests,
  counts: summary.counts,
  result: summary.result,
  timelines: summary.timelines.length,
  modes: [...new Set(summary.timelines.map((t) => t.mode))],
  lookBack: summary.timelines.some((t) => t.lookBack),
  activitiesRead: summary.timelines.reduce((n, t) => n + t.activitiesRead, 0),
  warnings: summary.warnings,
})
