/**
 * The file beside state.json that holds the digests of rows as written (decisions/0013): `{ context, rows: [key,
 * digest, key, digest, …] }`. A cache: a file that is missing or not one reads as no digests.
 */
import path from 'node:path'
import type { WrittenRows } from '../core/written-rows.ts'
import { readFileAtomic } from './atomic-file.ts'
import { withFileAccess } from './file-access.ts'

export const WRITTEN_FILE = /^written-[0-9a-f]{16}\.json$/

export function noWrittenRows(): WrittenRows {
  return { context: '', digests: new Map() }
}

export function writtenFileText(written: WrittenRows): string {
  const rows = new Array<string | number>(written.digests.size * 2)
  let i = 0
  for (const [key, digest] of written.digests) {
    rows[i++] = key
    rows[i++] = digest
  }
  return JSON.stringify({ context: written.context, rows })
}

/**
 * The digests a written file holds; none when state.json names no file, or the file is missing or not one (a
 * cache: without it rows are read in full, as they were before it existed).
 */
export async function readWrittenFile(folder: string, writtenFile: string | undefined): Promise<WrittenRows> {
  if (!writtenFile) return noWrittenRows()
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
  const { context, rows } = json as { context?: unknown; rows?: unknown }
  if (typeof context !== 'string' || !Array.isArray(rows) || rows.length % 2 !== 0) return noWrittenRows()
  const digests = new Map<string, number>()
  for (let i = 0; i < rows.length; i += 2) {
    const key: unknown = rows[i]
    const digest: unknown = rows[i + 1]
    if (typeof key !== 'string' || typeof digest !== 'number' || !Number.isSafeInteger(digest)) return noWrittenRows()
    digests.set(key, digest)
  }
  return { context, digests }
}
