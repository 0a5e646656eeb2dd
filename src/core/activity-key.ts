/**
 * The Key text format: `timelineKey/entityId`, the hidden cell that ties an Activities row to its server
 * activity, and the `pending:` mark an import writes into a new row's Key cell before it creates the activity.
 * It stands apart because the plans, the write-back, the undo and the engine all make or read Keys without
 * reading rows, and the format must be the same for all of them.
 */

/** Row identity: `timelineKey/entityId`. */
export function activityKey(timelineKey: string, entityId: number): string {
  return `${timelineKey}/${entityId}`
}

/**
 * The mark an import writes into a new row's Key cell before it creates the activity, so that the row is
 * found again afterwards whatever a person types into it meanwhile. It has no `/`, so it is never a Key.
 */
export function pendingMark(runId: string, rowNumber: number): string {
  return `pending:${runId}:${rowNumber}`
}

export function isPendingMark(text: string): boolean {
  return /^pending:[^/\s]+:\d+$/.test(text)
}

/** Splits a Key cell; undefined when it is not `timelineKey/entityId`. */
export function parseActivityKey(text: string): { timelineKey: string; entityId: number } | undefined {
  const m = /^([^/\s]+)\/(\d+)$/.exec(text.trim())
  if (!m) return undefined
  const entityId = Number(m[2])
  return Number.isSafeInteger(entityId) ? { timelineKey: m[1]!, entityId } : undefined
}
