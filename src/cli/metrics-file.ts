/**
 * `sync --metrics-file PATH`: after each run, the same figures `/metrics` serves, written for node_exporter's
 * textfile collector (`--collector.textfile.directory`): HELP and TYPE lines, one sample a line, a newline at the
 * end, written to `PATH.new` in the same folder and renamed into place, so the collector never reads half a file
 * (it reads only names ending in `.prom`, so the temp file is never read). A cron, systemd or CronJob run can then
 * be alerted on: `time() - timeline_sheets_last_success_timestamp_seconds > 26 * 3600`.
 */
import path from 'node:path'
import { TimelineSheetsError } from '../errors.ts'
import { writeFileAtomic } from '../state/atomic-file.ts'
import type { RunMetrics } from './metrics.ts'
import type { Reporter } from './reporter.ts'

/** The path as given, refused unless it ends in `.prom` (node_exporter reads no other file). */
export function metricsFilePath(text: string): string {
  if (!text.endsWith('.prom')) {
    throw new TimelineSheetsError(
      'TS_USAGE',
      `--metrics-file ${text} does not end in .prom, so node_exporter's textfile collector would not read it.`,
      {
        hint: 'For example --metrics-file /var/lib/node_exporter/textfile_collector/timeline_sheets.prom',
      },
    )
  }
  return path.resolve(text)
}

/** Writes the file; a failure is a warning, never the run's exit code. */
export async function writeMetricsFile(file: string, metrics: RunMetrics, reporter: Reporter): Promise<void> {
  try {
    // Readable by the collector, which often runs as another user.
    await writeFileAtomic(file, await metrics.text(), { keepOld: false, mode: 0o644 })
  } catch (error) {
    reporter.warn(`The metrics file ${file} could not be written (${(error as Error).message}); the run's exit code stands.`)
  }
}
