/** The Allowed tags tab on import, decided: unchanged, invalid, refused, or one POST to send. */
import type { AllowedTags } from './activity.ts'
import { allowedTagsFingerprint, rowsToAllowedTags } from './allowed-tags-sheet.ts'
import { ALLOWED_TAGS_COLUMN } from './columns.ts'
import type { Snapshot } from './sheet.ts'

export type TagsPlan =
  | { kind: 'unchanged'; message?: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'send'; allowed: AllowedTags; fingerprint: string; overwrite: boolean; message?: string }

/**
 * What to do with the Allowed tags tab on import. `lastWritten` is the fingerprint of the list as the tool
 * last wrote it to the tab or sent it (the state's), undefined when it has no record.
 */
export function planAllowedTags(snapshot: Snapshot, tabTitle: string, lastWritten: string | undefined, overwrite: boolean): TagsPlan {
  const tab = snapshot.tabs[tabTitle]
  if (!tab?.exists) return { kind: 'unchanged' }
  const appliesTo = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.appliesTo)
  const tags = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.tags)
  if (appliesTo < 0 || tags < 0) return { kind: 'invalid', message: `The ${tab.title} tab's header is damaged; its rows were not read.` }
  const read = rowsToAllowedTags(tab.rows, appliesTo, tags)
  if (!read.ok) return { kind: 'invalid', message: `The ${tab.title} tab was not sent: ${read.problems.map((p) => p.message).join('; ')}` }
  const fingerprint = allowedTagsFingerprint(read.allowed)
  if (fingerprint === lastWritten) return { kind: 'unchanged' }
  if (lastWritten === undefined) {
    if (!overwrite) {
      return {
        kind: 'refused',
        message: `The ${tab.title} tab differs from the server, and this tool has no record of what it last exported, so it cannot tell your edits from changes on the server; nothing was sent. ${refusalWays(tab.title)}`,
      }
    }
  }
  return { kind: 'send', allowed: read.allowed, fingerprint, overwrite }
}

/** The two ways out of a refusal, for its message. */
export function refusalWays(tab: string): string {
  return `To take the server's list instead, delete the rows of the ${tab} tab (keep its header) and run export, then make your edits again; to send your list anyway, replacing what is on the server, run import with --overwrite-tags.`
}
