/**
 * The file side of the crash-point trace (src/engine/crash-points.ts): one
 * line per point passed. Synchronous, so a kill at the next point cannot lose
 * the line; tests only, so no locking or atomic write.
 */
import { appendFileSync } from 'node:fs'

export function appendCrashTrace(file: string, name: string): void {
  appendFileSync(file, `${name}\n`)
}
