/**
 * What a run says of the rows it could not write because the spreadsheet protects them against its account
 * (decisions/0021-protected-ranges.md): one sentence a range, naming it and its rows as read, and what to do.
 */
import type { SkippedRow } from '../sheets/port.ts'

/** One warning per protected range that held rows of this write; none when no row was left out for that. */
export function protectedRowsWarnings(skipped: readonly SkippedRow[]): string[] {
  const byRange = new Map<string, number[]>()
  for (const row of skipped) {
    if (row.reason !== 'protected') continue
    const name = row.protectedBy ?? 'a protected range'
    byRange.set(name, [...(byRange.get(name) ?? []), row.row])
  }
  return [...byRange].map(([name, rows]) => {
    const list = `${rows.slice(0, 10).join(', ')}${rows.length > 10 ? ', …' : ''}`
    return `${rows.length === 1 ? `Row ${list} lies` : `${rows.length} rows (${list}) lie`} in the protected range ${name}, which the Google account timeline-sheets signs in as may not edit: nothing was written to ${rows.length === 1 ? 'it' : 'them'}. Ask whoever protected the range to add that account as an editor, or to remove the protection; the next run writes ${rows.length === 1 ? 'it' : 'them'} then.`
  })
}
