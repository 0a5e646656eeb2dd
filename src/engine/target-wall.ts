/**
 * The last wall between a target and everyone else's time: a Timeline client whose writes reach only the
 * timelines of the people the target covers, and whose allowed-tags POST leaves every line the target does not
 * own as the server has it. The plans already keep to the target; this holds whatever a plan or a sheet gets
 * wrong, so that a write past it is refused before it is sent (TS_OUTSIDE_TARGET): an activity write fails as one
 * write does (the others go on, and the run exits 3), an allowed-tags POST ends the run (exit 4).
 */
import { changesBeyondScope } from '../core/scoped-allowed-tags.ts'
import type { AllowedTagsEdits, TargetScope } from '../core/target-scope.ts'
import type { AllowedTags } from '../core/activity.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { TimelineClient, TimelineRef } from '../timeline/client.ts'

export function withinTarget(
  client: TimelineClient,
  target: { name: string },
  scope: TargetScope,
  edits: AllowedTagsEdits,
): TimelineClient {
  if (scope.whole) return client
  let lastListing: AllowedTags | undefined
  const owner = async (timeline: TimelineRef): Promise<string | undefined> => {
    if (typeof timeline !== 'string') return timeline.ownerUsername
    return (await client.listTimelines({ timelineKey: timeline })).find((t) => t.timelineKey === timeline)?.ownerUsername
  }
  const guard = async (timeline: TimelineRef, what: string): Promise<void> => {
    const user = await owner(timeline)
    if (user !== undefined && scope.covers(user)) return
    const key = typeof timeline === 'string' ? timeline : timeline.timelineKey
    throw new TimelineSheetsError(
      'TS_OUTSIDE_TARGET',
      `Target ${target.name} may not ${what} on timeline ${key} of ${user ?? 'an unknown owner'}: it covers ${scope.userNames.join(', ')} only. Nothing was sent.`,
      { hint: 'This is a bug of timeline-sheets: the plan reached past the target. Please report it with the run id.' },
    )
  }
  return {
    ...client,
    async createActivity(timeline, input) {
      await guard(timeline, 'create an activity')
      return client.createActivity(timeline, input)
    },
    async updateActivity(timeline, entityId, input) {
      await guard(timeline, 'change an activity')
      return client.updateActivity(timeline, entityId, input)
    },
    async deleteActivity(timeline, entityId) {
      await guard(timeline, 'delete an activity')
      return client.deleteActivity(timeline, entityId)
    },
    async readAllowedTags(options) {
      const read = await client.readAllowedTags(options)
      if (options?.all) lastListing = read
      return read
    },
    async writeAllowedTags(allowed) {
      const current = lastListing ?? (await client.readAllowedTags({ all: true }))
      const beyond = changesBeyondScope(current, allowed, { scope, edits })
      if (beyond.length > 0) {
        throw new TimelineSheetsError(
          'TS_OUTSIDE_TARGET',
          `Target ${target.name} may not change ${beyond.join(' or ')} of the allowed tags (allowedTagsEdits: ${edits}). Nothing was sent.`,
          { hint: 'This is a bug of timeline-sheets: the plan reached past the target. Please report it with the run id.' },
        )
      }
      return client.writeAllowedTags(allowed)
    },
  }
}
