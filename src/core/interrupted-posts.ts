/**
 * What an interrupted import already created: its journal recorded each POST before sending it, so a run killed
 * between the POST and the sheet write-back finds the activity again and adopts it instead of creating it twice.
 */
import { fingerprintOf } from './fingerprint.ts'
import type { Decision } from './plan.ts'
import type { ServerActivity } from './row-context.ts'
import { activityKey } from './activity-key.ts'

/** A create an interrupted run recorded in its journal: what it sent, and the answer if one came. */
export interface InterruptedPost {
  intent: { timelineKey?: string | undefined; fingerprint?: string | undefined; pending?: string | undefined }
  outcome?: { type: string; entityId?: number | undefined } | undefined
}

/** The import-post decisions whose activity an interrupted run already created: row number → that activity. */
export function adoptInterrupted(
  decisions: Decision[],
  interrupted: readonly { writes: readonly (InterruptedPost & { intent: { op: string } })[] }[],
  server: Map<string, ServerActivity>,
  sheetKeys: Set<string>,
): Map<number, ServerActivity> {
  const adoptions = new Map<number, ServerActivity>()
  const claimed = new Set<string>()
  const posts = interrupted.flatMap((run) => run.writes.filter((w) => w.intent.op === 'post'))
  for (const d of decisions) {
    if (d.kind !== 'import-post') continue
    for (const w of posts) {
      // A marked row is the row of the POST with its mark, whatever was typed into it since; an unmarked
      // one (written by an older version) is recognised by its values.
      if (w.intent.timelineKey !== d.timelineKey) continue
      if (
        d.pending !== undefined ? w.intent.pending !== d.pending : w.intent.pending !== undefined || w.intent.fingerprint !== d.fingerprint
      )
        continue
      const posted = w.intent.fingerprint ?? d.fingerprint
      let found: ServerActivity | undefined
      if (w.outcome?.type === 'done' && w.outcome.entityId !== undefined) {
        found = server.get(activityKey(d.timelineKey, w.outcome.entityId))
      } else if (w.outcome === undefined) {
        // The answer never came: the POST may have landed. Look for it.
        for (const [key, s] of server) {
          if (!sheetKeys.has(key) && !claimed.has(key) && fingerprintOf(s) === posted) {
            found = s
            break
          }
        }
      }
      if (!found) continue
      const key = activityKey(found.activity.timelineKey, found.activity.entityId)
      if (claimed.has(key) || sheetKeys.has(key)) continue
      claimed.add(key)
      adoptions.set(d.rowNumber, found)
      break
    }
  }
  return adoptions
}
