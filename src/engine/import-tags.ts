/** The Allowed tags tab on import: sent in one POST only when it changed, never over a server change it did not see. */
import { allowedTagsFingerprint, rowsToAllowedTags } from '../core/allowed-tags-sheet.ts'
import { ALLOWED_TAGS_COLUMN } from '../core/columns.ts'
import type { Snapshot } from '../sheets/port.ts'
import type { Journal } from '../state/journal.ts'
import type { TargetState } from '../state/target-state.ts'
import type { TimelineClient } from '../timeline/client.ts'
import type { AllowedTags } from '../timeline/model.ts'
import type { TargetConfig } from '../config/schema.ts'
import { crashPoint } from './crash-points.ts'

export type TagsPlan =
  | { kind: 'unchanged'; message?: string }
  | { kind: 'invalid'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'send'; allowed: AllowedTags; fingerprint: string; overwrite: boolean; message?: string }

function refusalWays(tab: string): string {
  return `To take the server's list instead, delete the rows of the ${tab} tab (keep its header) and run export, then make your edits again; to send your list anyway, replacing what is on the server, run import with --overwrite-tags.`
}

export function planAllowedTags(snapshot: Snapshot, target: TargetConfig, state: TargetState, overwrite: boolean): TagsPlan {
  const tab = snapshot.tabs[target.tabs.allowedTags]
  if (!tab?.exists) return { kind: 'unchanged' }
  const appliesTo = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.appliesTo)
  const tags = tab.header.findIndex((h) => h === ALLOWED_TAGS_COLUMN.tags)
  if (appliesTo < 0 || tags < 0) return { kind: 'invalid', message: `The ${tab.title} tab's header is damaged; its rows were not read.` }
  const read = rowsToAllowedTags(tab.rows, appliesTo, tags)
  if (!read.ok) return { kind: 'invalid', message: `The ${tab.title} tab was not sent: ${read.problems.map((p) => p.message).join('; ')}` }
  const fingerprint = allowedTagsFingerprint(read.allowed)
  if (fingerprint === state.allowedTagsFingerprint) return { kind: 'unchanged' }
  if (state.allowedTagsFingerprint === undefined) {
    if (!overwrite) {
      return { kind: 'refused', message: `The ${tab.title} tab differs from the server, and this tool has no record of what it last exported, so it cannot tell your edits from changes on the server; nothing was sent. ${refusalWays(tab.title)}` }
    }
  }
  return { kind: 'send', allowed: read.allowed, fingerprint, overwrite }
}

export async function sendAllowedTags(client: TimelineClient, plan: Extract<TagsPlan, { kind: 'send' }>, state: TargetState, journal: Journal): Promise<TagsPlan> {
  // The server replaces the whole list: re-read it and refuse a lost update.
  const current = allowedTagsFingerprint(await client.readAllowedTags({ all: true }))
  if (current === plan.fingerprint) {
    // The server holds this list already (a run killed after sending it): nothing to send, nothing refused.
    state.allowedTagsFingerprint = plan.fingerprint
    return { ...plan, message: 'Allowed tags sent to the server.' }
  }
  if (current !== state.allowedTagsFingerprint && !plan.overwrite) {
    return { kind: 'refused', message: `The allowed tags were changed on the server since the last export, so your edits to the allowed tags were not sent (they would overwrite that change). ${refusalWays('Allowed tags')}` }
  }
  const id = await journal.intend({ op: 'tags', tagsBefore: current, tagsAfter: plan.fingerprint })
  crashPoint('import:before-tags-post')
  await client.writeAllowedTags(plan.allowed)
  crashPoint('import:after-tags-post')
  await journal.done(id, {})
  crashPoint('import:after-tags-recorded')
  state.allowedTagsFingerprint = plan.fingerprint
  return { ...plan, message: 'Allowed tags sent to the server.' }
}
