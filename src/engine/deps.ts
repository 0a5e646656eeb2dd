/** What every engine run (export, import, undo) is handed: the two adapters, where state lives, how to report. */
import type { Reporter } from './reporter.ts'
import type { Spreadsheet } from '../sheets/port.ts'
import type { TimelineClient } from '../timeline/client.ts'

export interface EngineDeps {
  client: TimelineClient
  spreadsheet: Spreadsheet
  /** Folder of the per-target state, journals and locks. */
  stateDir: string
  reporter: Reporter
  /** The run's clock. @default () => new Date() */
  now?: () => Date
  /** The run's id (its journal's name). @default a timestamp and a random suffix */
  runId?: string
  /** Told each run's id as its frame opens, so a caller can name the run that failed (the failure notices). */
  onRunStarted?: (runId: string) => void
  /** The caller (sync, undo) already holds the target's lock. */
  lockHeld?: boolean
}
