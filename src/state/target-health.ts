/**
 * What the failure notices and the metrics remember of a target between runs, in `health.json` beside its
 * `state.json`: when it last succeeded (the metrics' last-success time survives a restart and a failed nightly
 * run) and the failure a notice last told (so the next good run is told as "recovered", once). Written atomically:
 * a crash leaves the last whole version, and a lost file costs at most one notice too many or too few.
 */
import path from 'node:path'
import { z } from 'zod'
import type { ToldFailure } from '../core/notice.ts'
import { readFileAtomic, writeFileAtomic } from './atomic-file.ts'
import { withFileAccess } from './file-access.ts'
import { stateLocation } from './target-state.ts'

export interface TargetHealthRecord {
  /** When a run of the target last succeeded (ISO). */
  lastSuccessAt?: string
  told?: ToldFailure
}

const HEALTH_FILE = 'health.json'

const record = z.object({
  version: z.literal(1),
  lastSuccessAt: z.iso.datetime().optional(),
  told: z.object({ code: z.string(), runId: z.string().nullable(), at: z.iso.datetime() }).optional(),
})

export function healthFile(stateDir: string, target: string): string {
  return path.join(stateLocation(stateDir, target).folder, HEALTH_FILE)
}

/** The record, or an empty one when there is none or it cannot be read as one (it is a convenience, not state). */
export async function readTargetHealth(stateDir: string, target: string): Promise<TargetHealthRecord> {
  const file = healthFile(stateDir, target)
  const read = await withFileAccess({ what: 'the health record', file, action: 'read', setting: 'stateDir' }, () => readFileAtomic(file))
  if (!read) return {}
  let json: unknown
  try {
    json = JSON.parse(read.text)
  } catch {
    return {}
  }
  const parsed = record.safeParse(json)
  if (!parsed.success) return {}
  const { lastSuccessAt, told } = parsed.data
  return { ...(lastSuccessAt ? { lastSuccessAt } : {}), ...(told ? { told } : {}) }
}

export async function writeTargetHealth(stateDir: string, target: string, health: TargetHealthRecord): Promise<void> {
  const file = healthFile(stateDir, target)
  await withFileAccess({ what: 'the health record', file, action: 'write', setting: 'stateDir' }, () =>
    writeFileAtomic(file, `${JSON.stringify({ version: 1, ...health }, null, 2)}\n`),
  )
}
