/** The server writes an import plans, and what became of each when it was sent. */
import type { Activity } from './activity.ts'
import type { Decision } from './plan.ts'

/** A decision that writes to the server. */
export type ServerWrite = Extract<Decision, { kind: 'import-put' | 'import-post' | 'import-delete' | 'import-delete-missing' }>

/** What became of one server write. */
export interface WriteOutcome {
  decision: ServerWrite
  status: 'done' | 'conflict' | 'failed' | 'adopted'
  /** The activity as the server now holds it (post, put, adopted). */
  activity?: Activity
  user?: string
  message?: string
}
