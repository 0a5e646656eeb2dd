/**
 * A lock file around the token refresh, so that two processes never present
 * the same refresh token: with rotation, the second use would make the
 * provider revoke the whole grant.
 */
import { open, readFile, unlink } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { TimelineSheetsError } from '../errors.ts'
import { fileAccessError } from './file-access.ts'
import { processIsAlive } from './lock.ts'

export interface FileLockOptions {
  /** How long to wait for another holder before giving up. @default 30_000 */
  timeoutMs?: number
  /** A lock older than this is taken to be left over from a crash. @default 60_000 */
  staleMs?: number
  /** Poll interval while waiting. @default 25 */
  pollMs?: number
}

interface LockContents {
  pid: number
  expiresAt: number
}

/** Runs `task` while holding `lockPath` (created exclusively, removed afterwards). */
export async function withFileLock<T>(lockPath: string, task: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000
  const staleMs = options.staleMs ?? 60_000
  const pollMs = options.pollMs ?? 25
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await tryCreate(lockPath, { pid: process.pid, expiresAt: Date.now() + staleMs })) break
    if (await isAbandoned(lockPath)) {
      await unlink(lockPath).catch(() => undefined)
      continue
    }
    if (Date.now() >= deadline) {
      throw new TimelineSheetsError('TS_LOCKED', `The lock file ${lockPath} is held by another process`, {
        hint: `Wait for the other timeline-sheets run to finish; if none is running, delete ${lockPath}.`,
      })
    }
    await sleep(pollMs)
  }
  try {
    return await task()
  } finally {
    await unlink(lockPath).catch(() => undefined)
  }
}

async function tryCreate(lockPath: string, contents: LockContents): Promise<boolean> {
  try {
    const handle = await open(lockPath, 'wx', 0o600)
    try {
      await handle.writeFile(JSON.stringify(contents))
    } finally {
      await handle.close()
    }
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw (
      fileAccessError(error, { what: 'the lock file', file: lockPath, action: 'write', setting: 'timeline.auth.tokenFile' }) ??
      new TimelineSheetsError('TS_STATE', `Cannot create the lock file ${lockPath}`, { cause: error })
    )
  }
}

async function isAbandoned(lockPath: string): Promise<boolean> {
  let contents: Partial<LockContents>
  try {
    contents = JSON.parse(await readFile(lockPath, 'utf8')) as Partial<LockContents>
  } catch {
    // Gone already, or caught between create and write: not abandoned, look again.
    return false
  }
  if (typeof contents.expiresAt === 'number' && contents.expiresAt < Date.now()) return true
  return typeof contents.pid === 'number' && !processIsAlive(contents.pid)
}
