/** Human-readable run summaries: what happened, where, and what needs a person. */
import type { ExportSummary } from '../../engine/export.ts'
import type { ImportPlanView, ImportSummary } from '../../engine/import.ts'

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

/** The import plan, grouped by user, as a manager or operator reads it. */
export function formatImportPlan(plan: ImportPlanView): string {
  const lines: string[] = [`Plan for ${plan.target}:`]
  if (plan.writes.length === 0) lines.push('  nothing to send to the server')
  const byUser = new Map<string, typeof plan.writes>()
  for (const w of plan.writes) byUser.set(w.user || '(by key)', [...(byUser.get(w.user || '(by key)') ?? []), w])
  for (const [user, writes] of byUser) {
    lines.push(`  ${user}:`)
    for (const w of writes) lines.push(`    ${w.kind.padEnd(14)} ${w.rowNumber === undefined ? '' : `row ${w.rowNumber}: `}${w.what}`)
  }
  if (plan.tags !== 'unchanged') lines.push(`  allowed tags: ${plan.tags}${plan.tagsMessage ? ` — ${plan.tagsMessage}` : ''}`)
  if (plan.conflicts.length) {
    lines.push(`  ${plan.conflicts.length} conflicts (nothing written for them; the edit stays in the sheet):`)
    for (const c of plan.conflicts.slice(0, 20)) lines.push(`    row ${c.rowNumber ?? '?'}: ${c.reason}`)
  }
  if (plan.invalid.length) {
    lines.push(`  ${plan.invalid.length} rows cannot be read (their Status says why):`)
    for (const c of plan.invalid.slice(0, 20)) lines.push(`    row ${c.rowNumber ?? '?'}: ${c.reason}`)
  }
  if (plan.missing.length) lines.push(`  ${plan.missing.length} activities have no row in the sheet; they stay on the server (--delete-missing deletes them)`)
  for (const g of plan.guards) lines.push(`  SAFETY STOP: ${g.message}`)
  return lines.join('\n')
}

export function formatImportSummary(s: ImportSummary): string {
  const head = s.dryRun ? `Dry run of import ${s.target} (${s.runId}): nothing was written` : `Import ${s.target} (${s.runId}): ${s.applied ? s.result : 'not applied'}`
  const lines = [head, formatImportPlan(s.plan)]
  if (s.applied) {
    lines.push(`Done: ${s.counts.created} created, ${s.counts.updated} updated, ${s.counts.deleted} deleted, ${s.counts.conflicts} conflicts, ${s.counts.invalid} invalid rows, ${s.counts.failed} failed${s.counts.recovered ? `, ${s.counts.recovered} finished from an interrupted run` : ''}`)
  }
  lines.push(`Sheets requests: ${s.sheetsRequests.reads} reads, ${s.sheetsRequests.writes} writes`)
  return lines.join('\n')
}
