/**
 * The Allowed tags tab on import: sent in one POST only when it changed, never over a server change it did not
 * see, and only the target's own lines: the POST carries the server's current list with those lines replaced.
 */
import { allowedTagsFingerprint } from '../core/allowed-tags-sheet.ts'
import { refusalWays, type TagsPlan } from '../core/allowed-tags-plan.ts'
import { mergeAllowedTags, partsOf, viewOf, type TagsScope } from '../core/scoped-allowed-tags.ts'
import type { Journal } from '../state/journal.ts'
import { recordAllowedTags, type TargetState } from '../state/target-state.ts'
import type { TimelineClient } from '../timeline/client.ts'
import { crashPoint } from './crash-points.ts'

export async function sendAllowedTags(
  client: TimelineClient,
  plan: Extract<TagsPlan, { kind: 'send' }>,
  tagsScope: TagsScope,
  state: TargetState,
  journal: Journal,
): Promise<TagsPlan> {
  // The server replaces the whole list: re-read it, refuse a lost update of what the target may change, and
  // keep every other line as the server has it now.
  const current = await client.readAllowedTags({ all: true })
  const editableNow = allowedTagsFingerprint(partsOf(viewOf(current, tagsScope.scope), tagsScope).editable)
  const sent = { ...plan, message: 'Allowed tags sent to the server.' }
  if (editableNow === plan.fingerprints.editable) {
    // The server holds these lines already (a run killed after sending them): nothing to send, nothing refused.
    recordAllowedTags(state, plan.fingerprints)
    return sent
  }
  // A state of an older version recorded the whole list only, which was then the part the target could change.
  const editableBefore = state.allowedTagsParts?.editable ?? state.allowedTagsFingerprint
  if (editableNow !== editableBefore && !plan.overwrite) {
    return {
      kind: 'refused',
      message: `The allowed tags were changed on the server since the last export, so your edits to the allowed tags were not sent (they would overwrite that change). ${refusalWays('Allowed tags')}`,
    }
  }
  const next = mergeAllowedTags(current, plan.sheet, tagsScope)
  const id = await journal.intend({ op: 'tags', tagsBefore: allowedTagsFingerprint(current), tagsAfter: allowedTagsFingerprint(next) })
  crashPoint('import:before-tags-post')
  await client.writeAllowedTags(next)
  crashPoint('import:after-tags-post')
  await journal.done(id, {})
  crashPoint('import:after-tags-recorded')
  recordAllowedTags(state, plan.fingerprints)
  return sent
}
