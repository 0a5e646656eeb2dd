/**
 * Whether the tool could write in a folder, found out without writing: the folder, or the nearest ancestor
 * the first run would make it in, is a folder this user may write. For `timeline-sheets doctor`.
 */
import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import path from 'node:path'
import { fileAccessError, type FileContext } from './file-access.ts'

/**
 * Resolves with the folder that exists (`folder` itself, or the ancestor it would be made in); throws the
 * `FileAccessError` a run would meet (a missing permission, a read-only disk, a path through a file).
 */
export async function writableFolder(folder: string, context: Omit<FileContext, 'file' | 'action'>): Promise<string> {
  const existing = await nearestExisting(folder)
  try {
    if (!(await stat(existing)).isDirectory()) {
      throw Object.assign(new Error(`ENOTDIR: ${existing} is not a folder`), { code: 'ENOTDIR', path: existing })
    }
    await access(existing, constants.W_OK | constants.X_OK)
  } catch (error) {
    throw fileAccessError(error, { ...context, file: folder, action: 'write' }) ?? error
  }
  return existing
}

async function nearestExisting(folder: string): Promise<string> {
  let current = folder
  for (;;) {
    // ENOTDIR (a file on the way) counts as there: the check above names it.
    const there = await stat(current).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
    )
    const parent = path.dirname(current)
    if (there || parent === current) return current
    current = parent
  }
}
