/**
 * The one lock file: a target's (two runs never overlap: cron and a person, two schedulers) and the cloud token's
 * refresh (two processes never present the same refresh token: with rotation the second use makes the provider
 * revoke the whole grant). The file is created exclusively and holds the PID, the host, the command and an expiry.
 * A lock whose process is gone (on this host) or whose expiry passed is taken over, and the taker says so. A lock
 * file that cannot be read yet is another process between creating and writing it: it is waited for, and taken
 * over only once it has stayed unreadable for `UNREADABLE_GRACE_MS` (a crash between the two steps).
 */
import { constants } from 'node:fs'
import { mkdir, open, readFile, stat, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { TimelineSheetsError } from '../errors.ts'
import { fileAccessError, withFileAccess, type FileContext } from './file-access.ts'

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
  /** What holds the lock, for the message another process shows: `sync`, `token refresh`. */
  command: string
  /** How long the lock holds without refresh. @default 2 hours */
  ttlMs?: number
  /** How long to wait for another holder before refusing. @default 0 (refuse at once) */
  waitMs?: number
  /** Poll interval while waiting. @default 25 */
  pollMs?: number
  /** The config field that chooses the lock's folder, for the hint of a refusal. @default 'stateDir' */
  setting?: string
  now?: () => number
  isAlive?: (pid: number) => boolean
  sleep?: (ms: number) => Promise<unknown>
}

/** How long a lock file may stay unreadable (created, not yet written) before it counts as left by a crash. */
export const UNREADABLE_GRACE_MS = 5_000

export async function acquireLock(file: string, options: LockOptions): Promise<Lock> {
  const context: FileContext = { what: 'the lock file', file, action: 'write', setting: options.setting ?? 'stateDir' }
  return withFileAccess(context, () => acquire(file, options, context))
}

/** Runs `task` while holding the lock `file`, waiting for another holder as `options.waitMs` allows; released after. */
export async function withLock<T>(file: string, options: LockOptions, task: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(file, options)
  try {
    return await task()
  } finally {
    await lock.release()
  }
}

async function acquire(file: string, options: LockOptions, context: FileContext): Promise<Lock> {
  const now = options.now ?? Date.now
  const ttlMs = options.ttlMs ?? 2 * 60 * 60 * 1000
  const isAlive = options.isAlive ?? processIsAlive
  const sleep = options.sleep ?? delay
  const deadline = now() + (options.waitMs ?? 0)
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const info = (): LockInfo => ({
    pid: process.pid,
    host: hostname(),
    command: options.command,
    createdAt: new Date(now()).toISOString(),
    expiresAt: new Date(now() + ttlMs).toISOString(),
  })
  let tookOver: LockInfo | undefined
  // Each lock taken over or gone before it was read is one miss; another process that keeps winning those races
  // must not keep this one looping.
  let misses = 0
  for (;;) {
    if (await tryCreate(file, info(), context)) {
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
    }
    const holder = await readLockInfo(file)
    const waiting = now() < deadline
    if (holder === 'gone' || (holder !== 'unreadable' && isStale(holder, now(), isAlive))) {
      if (holder !== 'gone') {
        tookOver = holder
        await unlink(file).catch(() => undefined)
      }
      if (++misses >= 2 && !waiting) {
        throw new TimelineSheetsError('TS_LOCKED', `Could not take the lock ${file}: another run keeps taking it.`, {
          hint: 'Check for two schedulers running the same target.',
        })
      }
      continue
    }
    if (holder === 'unreadable' && (await unreadableSince(file)) <= now() - UNREADABLE_GRACE_MS) {
      await unlink(file).catch(() => undefined)
      continue
    }
    if (!waiting) throw held(file, holder)
    await sleep(options.pollMs ?? 25)
  }
}

function held(file: string, holder: LockInfo | 'unreadable'): TimelineSheetsError {
  if (holder === 'unreadable') {
    return new TimelineSheetsError('TS_LOCKED', `Another run is taking the lock ${file}.`, {
      hint: `Wait for it to finish. If no such run exists, delete ${file}.`,
    })
  }
  return new TimelineSheetsError(
    'TS_LOCKED',
    `Another run holds the lock ${file} (${holder.command}, pid ${holder.pid} on ${holder.host}, since ${holder.createdAt}).`,
    { hint: `Wait for it to finish. If no such run exists, delete ${file}; it also expires by itself at ${holder.expiresAt}.` },
  )
}

async function tryCreate(file: string, info: LockInfo, context: FileContext): Promise<boolean> {
  try {
    const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
    try {
      await handle.writeFile(JSON.stringify(info, null, 2))
    } finally {
      await handle.close()
    }
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw fileAccessError(error, context) ?? new TimelineSheetsError('TS_STATE', `Cannot create the lock file ${file}`, { cause: error })
  }
}

/**
 * Who holds the lock now, without taking it: `undefined` when there is no lock file, or its holder is gone or
 * expired, or it cannot be read (the next run takes such a lock over). For `timeline-sheets doctor`.
 */
export async function lockHolder(file: string, options: Pick<LockOptions, 'now' | 'isAlive'> = {}): Promise<LockInfo | undefined> {
  const holder = await readLockInfo(file)
  if (holder === 'gone' || holder === 'unreadable') return undefined
  return isStale(holder, (options.now ?? Date.now)(), options.isAlive ?? processIsAlive) ? undefined : holder
}

function isStale(holder: LockInfo, now: number, isAlive: (pid: number) => boolean): boolean {
  if (Date.parse(holder.expiresAt) <= now) return true
  return holder.host === hostname() && !isAlive(holder.pid)
}

async function readLockInfo(file: string): Promise<LockInfo | 'gone' | 'unreadable'> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : 'unreadable'
  }
  try {
    const parsed = JSON.parse(text) as Partial<Omit<LockInfo, 'expiresAt'>> & { expiresAt?: unknown }
    // A refresh lock written before the one lock held only `{pid, expiresAt}`, the expiry in epoch milliseconds, and
    // was always this host's (its pid was checked here).
    const expiresAt = typeof parsed.expiresAt === 'number' ? new Date(parsed.expiresAt).toISOString() : parsed.expiresAt
    if (typeof parsed.pid === 'number' && typeof expiresAt === 'string') {
      return { host: hostname(), command: 'a token refresh', createdAt: '?', ...parsed, pid: parsed.pid, expiresAt }
    }
  } catch {
    /* half-written */
  }
  return 'unreadable'
}

async function unreadableSince(file: string): Promise<number> {
  try {
    return (await stat(file)).mtimeMs
  } catch {
    return Number.POSITIVE_INFINITY
  }
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
