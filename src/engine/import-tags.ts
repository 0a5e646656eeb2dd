/** The Allowed tags tab on import: sent in one POST only when it changed, never over a server change it did not see. */
import { allowedTagsFingerprint } from '../core/allowed-tags-sheet.ts'
import { refusalWays, type TagsPlan } from '../core/allowed-tags-plan.ts'
import type { Journal } from '../state/journal.ts'
import type { TargetState } from '../state/target-state.ts'
import type { TimelineClient } from '../timeline/client.ts'
import { crashPoint } from './crash-points.ts'

export async function sendAllowedTags(
  client: TimelineClient,
  plan: Extract<TagsPlan, { kind: 'send' }>,
  state: TargetState,
  journal: Journal,
): Promise<TagsPlan> {
  // The server replaces the whole list: re-read it and refuse a lost update.
  const current = allowedTagsFingerprint(await client.readAllowedTags({ all: true }))
  if (current === plan.fingerprint) {
    // The server holds this list already (a run killed after sending it): nothing to send, nothing refused.
    state.allowedTagsFingerprint = plan.fingerprint
    return { ...plan, message: 'Allowed tags sent to the server.' }
  }
  if (current !== state.allowedTagsFingerprint && !plan.overwrite) {
    return {
      kind: 'refused',
      message: `The allowed tags were changed on the server since the last export, so your edits to the allowed tags were not sent (they would overwrite that change). ${refusalWays('Allowed tags')}`,
    }
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
