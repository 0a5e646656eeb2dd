/**
 * `sync` for one target, the nightly job: import the managers' edits, then export the server's changes,
 * under one lock, so an export never overwrites an edit that was not imported.
 */
import type { TargetConfig } from '../config/schema.ts'
import { readChangesAhead, runExport, type ExportSummary } from './export.ts'
import { runImport, type ImportDeps, type ImportOptions, type ImportSummary } from './import.ts'
import { withTargetLock, type SyncHandOff } from './run.ts'

export interface SyncSummary {
  imported: ImportSummary
  /** Absent on a dry run: the export half only shows what the import half would leave. */
  exported: ExportSummary | undefined
}

/** What `sync --watch` asks of one sync (decisions/0016). */
export interface SyncLogging {
  /** A Sync log row only when the sync changed something. */
  logOnlyChanges?: boolean
  /** Added to the export's Sync log row, which is then written even when nothing changed. */
  logNote?: string
}

export async function runSync(
  target: TargetConfig,
  deps: ImportDeps,
  options: ImportOptions = {},
  logging: SyncLogging = {},
): Promise<SyncSummary> {
  // One lock for both halves; each half runs in a frame of its own inside it.
  return withTargetLock(target, deps, { command: 'sync', dryRun: Boolean(options.dryRun) }, async () => {
    const inner = { ...deps, lockHeld: true }
    deps.reporter.info(`Sync ${target.name}: import`)
    // An import with nothing to import leaves its read to the export: one read for both halves. The export's
    // server changes are read before it, so that read also confirms the rows the export writes.
    const handOff: SyncHandOff = {
      ...(logging.logOnlyChanges ? { logOnlyChanges: true } : {}),
      ...(logging.logNote ? { logNote: logging.logNote } : {}),
    }
    handOff.readAhead = (frame) => readChangesAhead(target, inner, frame, handOff)
    const imported = await runImport(target, inner, { ...options, planTab: false }, options.dryRun ? undefined : handOff)
    if (options.dryRun) return { imported, exported: undefined }
    deps.reporter.info(`Sync ${target.name}: export`)
    const exported = await runExport(target, inner, {}, handOff)
    return { imported, exported }
  })
}
