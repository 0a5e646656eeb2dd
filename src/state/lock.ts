/**
 * One lock file per target so two runs never overlap (cron and a person, two
 * schedulers). The file holds the PID, the host and an expiry; a lock whose
 * process is gone or whose expiry passed is taken over, and saying so.
 */
import { constants } from 'node:fs'
import { mkdir, open, readFile, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import { TimelineSheetsError } from '../errors.ts'
import { withFileAccess, type FileContext } from './file-access.ts'

export interface LockInfo {
  pid: number
  host: string
  command: string
  createdAt: string
  expiresAt: string
}

export interface Lock {
  readonly file: string
  /** Set when a stale lock was taken over, for the run log. */
  readonly tookOver: LockInfo | undefined
  /** Pushes the expiry forward on long runs. */
  refresh(): Promise<void>
  release(): Promise<void>
}

export interface LockOptions {
  command: string
  /** How long the lock holds without refresh. @default 2 hours */
  ttlMs?: number
  now?: () => number
  isAlive?: (pid: number) => boolean
}

export async function acquireLock(file: string, options: LockOptions): Promise<Lock> {
  const context: FileContext = { what: 'the lock file', file, action: 'write', setting: 'stateDir' }
  return withFileAccess(context, () => acquire(file, options, context))
}

async function acquire(file: string, options: LockOptions, context: FileContext): Promise<Lock> {
  const now = options.now ?? Date.now
  const ttlMs = options.ttlMs ?? 2 * 60 * 60 * 1000
  const isAlive = options.isAlive ?? processIsAlive
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const info = (): LockInfo => ({
    pid: process.pid,
    host: hostname(),
    command: options.command,
    createdAt: new Date(now()).toISOString(),
    expiresAt: new Date(now() + ttlMs).toISOString(),
  })
  let tookOver: LockInfo | undefined
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
      try {
        await handle.writeFile(JSON.stringify(info(), null, 2))
      } finally {
        await handle.close()
      }
      let released = false
      return {
        file,
        tookOver,
        refresh: async () => {
          if (!released) await withFileAccess(context, () => writeLockInfo(file, info()))
        },
        release: async () => {
          if (released) return
          released = true
          await unlink(file).catch(() => undefined)
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = await readLockInfo(file)
      if (holder && !isStale(holder, now(), isAlive)) {
        throw new TimelineSheetsError(
          'TS_LOCKED',
          `Another run holds the lock ${file} (${holder.command}, pid ${holder.pid} on ${holder.host}, since ${holder.createdAt}).`,
          { hint: `Wait for it to finish. If no such run exists, delete ${file}; it also expires by itself at ${holder.expiresAt}.` },
        )
      }
      tookOver = holder
      await unlink(file).catch(() => undefined)
    }
  }
  throw new TimelineSheetsError('TS_LOCKED', `Could not take the lock ${file}: another run keeps taking it.`, {
    hint: 'Check for two schedulers running the same target.',
  })
}

/**
 * Who holds the lock now, without taking it: `undefined` when there is no lock file, or its holder is gone or
 * expired, or it cannot be read (the next run takes such a lock over). For `timeline-sheets doctor`.
 */
export async function lockHolder(file: string, options: Pick<LockOptions, 'now' | 'isAlive'> = {}): Promise<LockInfo | undefined> {
  const holder = await readLockInfo(file)
  if (!holder) return undefined
  return isStale(holder, (options.now ?? Date.now)(), options.isAlive ?? processIsAlive) ? undefined : holder
}

function isStale(holder: LockInfo, now: number, isAlive: (pid: number) => boolean): boolean {
  if (Date.parse(holder.expiresAt) <= now) return true
  return holder.host === hostname() && !isAlive(holder.pid)
}

async function readLockInfo(file: string): Promise<LockInfo | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<LockInfo>
    if (typeof parsed.pid === 'number' && typeof parsed.expiresAt === 'string') return parsed as LockInfo
  } catch {
    /* unreadable or half-written: treated as stale */
  }
  return undefined
}

async function writeLockInfo(file: string, info: LockInfo): Promise<void> {
  const handle = await open(file, constants.O_WRONLY | constants.O_TRUNC)
  try {
    await handle.writeFile(JSON.stringify(info, null, 2))
  } finally {
    await handle.close()
  }
}

/** Whether a process of this host is running (EPERM: it is, under another user). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
