/**
 * The file beside state.json that holds the digests of rows as written (decisions/0013):
 * `{ context, baseFile, digests: [d, d, -1, …] }`, one number per base, in the order of the base file it names
 * (−1: none kept). Keyed by position rather than by Key, it holds no Key a second time: at 100,000 rows it is
 * 1.6 MB of numbers, read in a few milliseconds. A cache: a file that is missing, not one, or of another base file
 * reads as no digests.
 */
import path from 'node:path'
import type { WrittenRows } from '../core/written-rows.ts'
import { readFileAtomic } from './atomic-file.ts'
import { withFileAccess } from './file-access.ts'

export const WRITTEN_FILE = /^written-[0-9a-f]{16}\.json$/

export function noWrittenRows(): WrittenRows {
  return { context: '', digests: new Map() }
}

/** The file's text for `written` against the bases as `baseFile` holds them (in `base`'s order). */
export function writtenFileText(written: WrittenRows, base: ReadonlyMap<string, string>, baseFile: string): string {
  const digests = new Array<number>(base.size)
  let i = 0
  for (const key of base.keys()) digests[i++] = written.digests.get(key) ?? -1
  return JSON.stringify({ context: written.context, baseFile, digests })
}

/**
 * The digests a written file holds for `base`, read from `baseFile`; none when state.json names no written file,
 * or it is missing, not one, or was written for another base file.
 */
export async function readWrittenFile(
  folder: string,
  writtenFile: string | undefined,
  base: ReadonlyMap<string, string>,
  baseFile: string | undefined,
): Promise<WrittenRows> {
  if (!writtenFile || !baseFile) return noWrittenRows()
  const file = path.join(folder, writtenFile)
  const text = await withFileAccess({ what: 'the state file', file, action: 'read', setting: 'stateDir' }, () => readFileAtomic(file))
  if (!text || text.recoveredFrom) return noWrittenRows()
  let json: unknown
  try {
    json = JSON.parse(text.text)
  } catch {
    return noWrittenRows()
  }
  if (json === null || typeof json !== 'object') return noWrittenRows()
  const { context, baseFile: of, digests: list } = json as { context?: unknown; baseFile?: unknown; digests?: unknown }
  if (typeof context !== 'string' || of !== baseFile || !Array.isArray(list) || list.length !== base.size) return noWrittenRows()
  const digests = new Map<string, number>()
  let i = 0
  for (const key of base.keys()) {
    const digest: unknown = list[i++]
    if (typeof digest !== 'number' || !Number.isSafeInteger(digest) || digest < -1) return noWrittenRows()
    if (digest >= 0) digests.set(key, digest)
  }
  return { context, digests }
}
