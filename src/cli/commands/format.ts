/** Human-readable run summaries: what happened, where, and what needs a person. */
import type { ExportSummary } from '../../engine/export.ts'

export function formatExportSummary(s: ExportSummary): string {
  const lines: string[] = []
  const verb = s.dryRun ? 'would write' : 'wrote'
  lines.push(`${s.dryRun ? 'Dry run of export' : 'Export'} ${s.target} (${s.runId}): ${s.result}`)
  lines.push(`  spreadsheet: ${s.spreadsheet}`)
  const full = s.timelines.filter((t) => t.mode === 'full').length
  const activities = s.timelines.reduce((n, t) => n + t.activitiesRead, 0)
  lines.push(`  timelines: ${s.timelines.length} (${full} read in full, ${s.timelines.length - full} incremental), ${activities} activities read`)
  lines.push(
    `  ${verb}: ${s.counts.created} new rows, ${s.counts.updated} updated, ${s.counts.deleted} removed or marked deleted; allowed tags ${s.allowedTags}`,
  )
  if (s.counts.waiting) lines.push(`  ${s.counts.waiting} rows edited in the sheet wait for the next import (they were not overwritten)`)
  lines.push(`  Sheets requests: ${s.sheetsRequests.reads} reads, ${s.sheetsRequests.writes} writes`)
  for (const warning of s.warnings) lines.push(`  warning: ${warning}`)
  if (s.attention.length) {
    lines.push(`  ${s.attention.length} rows need a person (their Status says why):`)
    for (const a of s.attention.slice(0, 20)) lines.push(`    row ${a.rowNumber ?? '?'}: ${a.reason}`)
    if (s.attention.length > 20) lines.push(`    … and ${s.attention.length - 20} more`)
  }
  return lines.join('\n')
}
