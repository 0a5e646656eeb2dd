/** Human-readable run summaries: what happened, where, and what needs a person. */
import { linesPerPerson } from '../../core/changes.ts'
import type { ExportSummary } from '../../engine/export.ts'
import type { ImportPlanView, ImportSummary } from '../../engine/import.ts'
import type { UndoPlanView, UndoSummary } from '../../engine/undo.ts'
import { windowText } from '../../core/window-text.ts'
import { plural } from '../../core/describe.ts'

/** Lines per person in a printed plan; the rest are counted (`--plan-tab` and `--json` list them all). */
const LINES_PER_PERSON = 10

export function formatExportSummary(s: ExportSummary): string {
  const lines: string[] = []
  const verb = s.dryRun ? 'would write' : 'wrote'
  lines.push(`${s.dryRun ? 'Dry run of export' : 'Export'} ${s.target} (${s.runId}): ${s.result}`)
  lines.push(`  spreadsheet: ${s.spreadsheet}`)
  lines.push(`  window: ${windowText(s.window)}`)
  const full = s.timelines.filter((t) => t.mode === 'full').length
  const unchanged = s.timelines.filter((t) => t.unchanged).length
  const activities = s.timelines.reduce((n, t) => n + t.activitiesRead, 0)
  lines.push(
    `  timelines: ${s.timelines.length} (${full} read in full, ${s.timelines.length - full} incremental${
      unchanged ? `, of which ${unchanged} unchanged since the last run` : ''
    }), ${activities} activities read`,
  )
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
  const writes = plan.writes.map((w) => ({
    person: w.user || '(by key)',
    line: `${w.kind.padEnd(14)} ${w.rowNumber === undefined ? '' : `row ${w.rowNumber}: `}${w.what}`,
  }))
  lines.push(...linesPerPerson(writes, LINES_PER_PERSON))
  if (plan.tags !== 'unchanged') lines.push(`  allowed tags: ${plan.tags}${plan.tagsMessage ? ` — ${plan.tagsMessage}` : ''}`)
  if (plan.conflicts.length) {
    lines.push(`  ${plural(plan.conflicts.length, 'conflict')} (nothing written for them; the edit stays in the sheet):`)
    for (const c of plan.conflicts.slice(0, 20)) lines.push(`    row ${c.rowNumber ?? '?'}: ${c.reason}`)
    if (plan.conflicts.length > 20) lines.push(`    … and ${plan.conflicts.length - 20} more`)
  }
  if (plan.invalid.length) {
    lines.push(`  ${plural(plan.invalid.length, 'row')} cannot be read (their Status says why):`)
    for (const c of plan.invalid.slice(0, 20)) lines.push(`    row ${c.rowNumber ?? '?'}: ${c.reason}`)
    if (plan.invalid.length > 20) lines.push(`    … and ${plan.invalid.length - 20} more`)
  }
  if (plan.missing.length) {
    lines.push(
      `  ${plural(plan.missing.length, 'activity', 'activities')} without a row in the sheet ${plan.missing.length === 1 ? 'stays' : 'stay'} on the server (--delete-missing deletes them)`,
    )
  }
  for (const g of plan.guards) lines.push(`  SAFETY STOP: ${g.message}`)
  return lines.join('\n')
}

export function formatImportSummary(s: ImportSummary): string {
  const head = s.dryRun
    ? `Dry run of import ${s.target} (${s.runId}): nothing was written`
    : `Import ${s.target} (${s.runId}): ${s.applied ? s.result : 'not applied'}`
  const lines = [head, `  window: ${windowText(s.window)}`, formatImportPlan(s.plan)]
  if (s.applied) {
    lines.push(
      `Done: ${s.counts.created} created, ${s.counts.updated} updated, ${s.counts.deleted} deleted, ${plural(s.counts.conflicts, 'conflict')}, ${plural(s.counts.invalid, 'invalid row')}, ${s.counts.failed} failed${s.counts.recovered ? `, ${s.counts.recovered} finished from an interrupted run` : ''}`,
    )
    if (s.tags.outcome !== 'unchanged')
      lines.push(`Allowed tags: ${s.tags.outcome === 'send' ? 'sent' : s.tags.outcome}${s.tags.message ? ` — ${s.tags.message}` : ''}`)
  }
  lines.push(`Sheets requests: ${s.sheetsRequests.reads} reads, ${s.sheetsRequests.writes} writes`)
  return lines.join('\n')
}

const UNDO_VERB: Record<UndoPlanView['writes'][number]['kind'], string> = {
  delete: 'delete',
  restore: 'put back',
  recreate: 'create again',
}

/** The undo plan: the writes, what is already undone, and what is left for a person. */
export function formatUndoPlan(plan: UndoPlanView): string {
  const lines: string[] = [`Undo plan for ${plan.target}: run ${plan.undoes} (${plan.command}${plan.unfinished ? ', unfinished' : ''})`]
  if (plan.writes.length === 0) lines.push('  nothing to write to the server')
  lines.push(
    ...linesPerPerson(
      plan.writes.map((w) => ({ person: w.user, line: `${UNDO_VERB[w.kind].padEnd(13)} ${w.what}` })),
      LINES_PER_PERSON,
    ),
  )
  // Who and when, not the Key: `anna 2026-11-03 09:00 1:00 Acme: reason`.
  const named = (n: { key: string | undefined; user: string | undefined; what: string }) =>
    [n.user ?? n.key, n.what].filter(Boolean).join(' ')
  if (plan.nothing.length) {
    lines.push(`  ${plan.nothing.length} already as before the run (nothing to do):`)
    for (const n of plan.nothing.slice(0, 20)) lines.push(`    ${named(n)}: ${n.reason}`)
    if (plan.nothing.length > 20) lines.push(`    … and ${plan.nothing.length - 20} more`)
  }
  if (plan.conflicts.length) {
    lines.push(`  ${plan.conflicts.length} conflicts (changed since that run; left alone):`)
    for (const c of plan.conflicts.slice(0, 20)) lines.push(`    ${named(c)}: ${c.reason}`)
    if (plan.conflicts.length > 20) lines.push(`    … and ${plan.conflicts.length - 20} more`)
  }
  if (plan.manual.length) {
    lines.push(`  ${plan.manual.length} cannot be undone by the tool (a person checks them):`)
    for (const m of plan.manual) lines.push(`    ${named(m)}: ${m.reason}`)
  }
  return lines.join('\n')
}

export function formatUndoSummary(s: UndoSummary): string {
  const head = s.dryRun
    ? `Dry run of undo ${s.undoes} on ${s.target}: nothing was written`
    : `Undo ${s.undoes} on ${s.target} (${s.runId}): ${s.applied ? s.result : 'not applied'}`
  const lines = [head, formatUndoPlan(s.plan)]
  if (s.applied) {
    lines.push(
      `Done: ${s.counts.deleted} deleted, ${s.counts.restored} put back, ${s.counts.recreated} created again, ${s.counts.conflicts} conflicts, ${s.counts.manual} left for a person, ${s.counts.failed} failed`,
    )
    for (const f of s.failures) lines.push(`  failed ${f.key} ${f.what}: ${f.reason}`)
  }
  if (s.exported) {
    lines.push(formatExportSummary(s.exported))
    if (s.exported.result !== 'success')
      lines.push(`The export afterwards is ${s.exported.result} (its own Sync log row says why); the undo itself is ${s.result}.`)
  } else if (s.exportFailure)
    lines.push(
      `The export afterwards failed: ${s.exportFailure} Run export --full to see the reverted state; the undo itself is ${s.result}.`,
    )
  else if (s.applied) lines.push('The sheet was not exported (--no-export): run export to see the reverted state.')
  return lines.join('\n')
}
