/**
 * The Allowed tags tab on import, decided: unchanged, invalid, refused, or the sheet's lines to merge into the
 * server's list and send. A target sends only the lines it may change (src/core/scoped-allowed-tags.ts): a tab
 * that changes any other line, or holds a line for nobody the target covers, is refused whole, with a Status on
 * each row that reaches past the target.
 */
import type { AllowedTags } from './activity.ts'
import { allowedTagsFingerprint, EVERYONE, parseAppliesTo, rowsToAllowedTags } from './allowed-tags-sheet.ts'
import { cellText, isEmptyCell } from './cells.ts'
import { ALLOWED_TAGS_COLUMN } from './columns.ts'
import { groupKey, partsOf, viewFingerprints, viewOf, type TagsScope, type ViewFingerprints } from './scoped-allowed-tags.ts'
import type { CellValue, Snapshot } from './sheet.ts'

/** A Status for one row of the tab (1-based sheet row, as read). */
export interface TagsRowStatus {
  rowNumber: number
  reason: string
}

export type TagsPlan =
  | { kind: 'unchanged'; message?: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'refused'; message: string; rows?: TagsRowStatus[] }
  | { kind: 'send'; sheet: AllowedTags; fingerprints: ViewFingerprints; overwrite: boolean; message?: string }

/** What the state knows of the lines the tool last wrote to the tab or sent. */
export interface TagsRecord {
  whole: string | undefined
  parts: { editable: string; fixed: string } | undefined
}

/**
 * What to do with the Allowed tags tab on import. `record` is what the tool last wrote; `server` the server's
 * whole list as this run read it (undefined when the account may not read it).
 */
export function planAllowedTags(
  snapshot: Snapshot,
  tabTitle: string,
  record: TagsRecord,
  overwrite: boolean,
  tagsScope: TagsScope,
  server: AllowedTags | undefined,
): TagsPlan {
  const tab = snapshot.tabs[tabTitle]
  if (!tab?.exists) return { kind: 'unchanged' }
  const appliesTo = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.appliesTo)
  const tags = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.tags)
  if (appliesTo < 0 || tags < 0) return { kind: 'invalid', message: `The ${tab.title} tab's header is damaged; its rows were not read.` }
  const read = rowsToAllowedTags(tab.rows, appliesTo, tags)
  if (!read.ok) return { kind: 'invalid', message: `The ${tab.title} tab was not sent: ${read.problems.map((p) => p.message).join('; ')}` }
  const fingerprints = viewFingerprints(read.allowed, tagsScope)
  if (fingerprints.whole === record.whole) return { kind: 'unchanged' }

  const beyond = reachesPast(tab.rows, appliesTo, tags, read.allowed, record, tagsScope, server)
  if (beyond.length > 0) {
    const who = tagsScope.scope.userNames.join(', ')
    return {
      kind: 'refused',
      message: `The ${tab.title} tab changes lines this sheet may not change (it covers ${who}; allowedTagsEdits: ${tagsScope.edits}), so nothing of it was sent: ${beyond.map((b) => b.summary).join('; ')}. Put those lines back as they were, or ask the operator; the rows say which.`,
      rows: beyond.flatMap((b) => b.rows),
    }
  }
  if (record.whole === undefined && !overwrite) {
    return {
      kind: 'refused',
      message: `The ${tab.title} tab differs from the server, and this tool has no record of what it last exported, so it cannot tell your edits from changes on the server; nothing was sent. ${refusalWays(tab.title)}`,
    }
  }
  return { kind: 'send', sheet: read.allowed, fingerprints, overwrite }
}

interface Beyond {
  summary: string
  rows: TagsRowStatus[]
}

/**
 * The changes of the tab that reach past the target: lines for nobody it covers, and changes to the lines it
 * shows but may not change. A line the target may not change counts as changed by the manager only when the tab's
 * part differs from what the tool wrote and from what the server holds now (a change made on the server since
 * the export is the server's, and stays).
 */
function reachesPast(
  rows: readonly (readonly CellValue[])[],
  appliesTo: number,
  tags: number,
  sheet: AllowedTags,
  record: TagsRecord,
  tagsScope: TagsScope,
  server: AllowedTags | undefined,
): Beyond[] {
  const parts = partsOf(sheet, tagsScope)
  const lines = linesOfRows(rows, appliesTo, tags)
  const out: Beyond[] = []
  const foreign = new Set(parts.foreign.groups.map(groupKey))
  if (foreign.size > 0) {
    out.push({
      summary: `lines for ${[...foreign].join('; ')}, who this sheet does not cover`,
      rows: lines
        .filter((l) => foreign.has(l.key))
        .map((l) => ({
          rowNumber: l.rowNumber,
          reason: `This line applies to nobody this sheet covers, so it cannot be added or changed here; nothing of the tab was sent. Delete the row.`,
        })),
    })
  }
  const fixedNow = allowedTagsFingerprint(parts.fixed)
  const serverFixed = server ? partsOf(viewOf(server, tagsScope.scope), tagsScope).fixed : undefined
  // Without a record of the parts (a state of an older version, or none) any difference from the server counts.
  const touched = record.parts ? fixedNow !== record.parts.fixed : true
  if (touched && (serverFixed === undefined || fixedNow !== allowedTagsFingerprint(serverFixed))) {
    const held = new Set(serverFixed ? linesOf(serverFixed) : [])
    const fixedKeys = new Set([...(parts.fixed.everyone.length > 0 ? [EVERYONE] : []), ...parts.fixed.groups.map(groupKey)])
    const changed = lines.filter((l) => fixedKeys.has(l.key) && !held.has(`${l.key}\n${l.combination}`))
    const removed = serverFixed ? linesOf(serverFixed).filter((line) => !lines.some((l) => `${l.key}\n${l.combination}` === line)) : []
    const outsiders = (key: string) => (key === EVERYONE ? 'everyone' : `${key}, some of whom this sheet does not cover`)
    out.push({
      summary: [
        changed.length > 0 ? `${changed.length} changed or added line(s) for everyone or shared with people outside the sheet` : '',
        removed.length > 0 ? `${removed.length} such line(s) removed (${removed.map((r) => r.replace('\n', ': ')).join('; ')})` : '',
      ]
        .filter(Boolean)
        .join(', '),
      rows: changed.map((l) => ({
        rowNumber: l.rowNumber,
        reason: `This line applies to ${outsiders(l.key)}, so it cannot be changed from this sheet (allowedTagsEdits: ${tagsScope.edits}); nothing of the tab was sent. Put it back as it was, or ask the operator.`,
      })),
    })
  }
  return out
}

/** Each non-empty row of the tab as `Applies to` (as `groupKey` writes it, or everyone) and its combination. */
function linesOfRows(rows: readonly (readonly CellValue[])[], appliesTo: number, tags: number) {
  const out: { rowNumber: number; key: string; combination: string }[] = []
  rows.forEach((row, i) => {
    const who = cellText(row[appliesTo]).trim()
    const combination = cellText(row[tags]).trim()
    if (isEmptyCell(row[appliesTo]) && combination === '') return
    const parsed = who === '' || who.toLowerCase() === EVERYONE ? undefined : parseAppliesTo(who)
    // A row the reader refused never gets here: `rowsToAllowedTags` read the tab first.
    const key = parsed?.ok ? parsed.names.join(', ') : EVERYONE
    out.push({ rowNumber: i + 2, key, combination })
  })
  return out
}

function linesOf(list: AllowedTags): string[] {
  return [
    ...list.everyone.map((c) => `${EVERYONE}\n${c.trim()}`),
    ...list.groups.flatMap((g) => g.combinations.map((c) => `${groupKey(g)}\n${c.trim()}`)),
  ]
}

/** The two ways out of a refusal, for its message. */
export function refusalWays(tab: string): string {
  return `To take the server's list instead, delete the rows of the ${tab} tab (keep its header) and run export, then make your edits again; to send your list anyway, replacing what is on the server, run import with --overwrite-tags.`
}
