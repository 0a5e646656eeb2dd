/**
 * The Drive file's `version` and `modifiedTime` as files.get shows them. Drive documents the version as "A
 * monotonically increasing version number for the file. This reflects every change made to the file on the
 * server" and does not say how soon. A Google engineer (google-api-go-client issue 444) says changes "are coalesced
 * and only sent around every 3 minutes or so". With a lag (`driveVersionLagMs`), files.get shows the version
 * as it stood that long ago, so a client that relies on the version moving at once can be seen to miss changes.
 */
import type { SpreadsheetData } from './sheet-data.ts'

/** What files.get shows: the version and modification time (epoch ms). */
export interface DriveStamp {
  version: number
  modifiedTime: number
}

/** The Drive side of a spreadsheet: its stamp now, and with a lag the stamps it had, oldest first. */
export interface DriveFile extends DriveStamp {
  /** How far files.get lags behind a change; 0 shows each change at once. */
  lagMs: number
  /** With a lag: each stamp and when it came to be (the first is the file's creation). */
  history?: (DriveStamp & { at: number })[]
}

/** A new file's Drive side: version `1` and its creation time [I]. */
export function newDriveFile(now: number, lagMs: number): DriveFile {
  const stamp = { version: 1, modifiedTime: now }
  return lagMs > 0 ? { ...stamp, lagMs, history: [{ ...stamp, at: now }] } : { ...stamp, lagMs: 0 }
}

/** A change committed now: the version moves on (by one; Google says only that it grows). */
export function recordChange(ss: SpreadsheetData): void {
  const now = ss.clock()
  ss.drive.version++
  ss.drive.modifiedTime = now
  ss.drive.history?.push({ version: ss.drive.version, modifiedTime: now, at: now })
}

/** The stamp files.get shows now: the newest that is at least `lagMs` old. */
export function shownStamp(ss: SpreadsheetData): DriveStamp {
  const history = ss.drive.history
  if (!history) return { version: ss.drive.version, modifiedTime: ss.drive.modifiedTime }
  const seenBy = ss.clock() - ss.drive.lagMs
  let shown = 0
  while (shown + 1 < history.length && history[shown + 1]!.at <= seenBy) shown++
  // Stamps older than the one shown are never shown again.
  if (shown > 0) history.splice(0, shown)
  const { version, modifiedTime } = history[0]!
  return { version, modifiedTime }
}
