/**
 * The workbook file on disk: its identity stamp (to notice people's edits
 * between calls), reading it, and saving it so that a crash at any point
 * leaves either the old or the new workbook, never half of one.
 */
import { constants } from 'node:fs'
import { copyFile, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import path from 'node:path'
import { InternalError, TimelineSheetsError } from '../../errors.ts'
import { retry, retryOptions, type RetryEvent, type RetryOptions } from '../../http/retry.ts'
import { syncFolder } from '../../state/atomic-file.ts'
import { HOST_PLATFORM, isHeldOpen, type Platform } from '../../state/platform.ts'
import { holdersOf, WorkbookOpenError } from './open-by.ts'

/** The file operations the backend uses; injectable so tests can crash a save in the middle. */
export interface WorkbookFileSystem {
  readFile(file: string): Promise<Uint8Array>
  /** Undefined when the file does not exist. */
  stat(file: string): Promise<FileStamp | undefined>
  /** Writes and flushes to disk before resolving. */
  writeFileDurably(file: string, data: Uint8Array): Promise<void>
  copyFile(from: string, to: string): Promise<void>
  rename(from: string, to: string): Promise<void>
  unlink(file: string): Promise<void>
  /** Flushes a folder's entries (the rename); best effort where unsupported. */
  syncFolder(folder: string): Promise<void>
}

/** What tells one version of the file from another without reading it. */
export interface FileStamp {
  size: number
  mtimeMs: number
  ctimeMs: number
  ino: number
}

export function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino
}

/** The real file system. */
export const nodeFileSystem: WorkbookFileSystem = {
  readFile: (file) => readFile(file),
  async stat(file) {
    try {
      const info = await stat(file)
      return { size: info.size, mtimeMs: info.mtimeMs, ctimeMs: info.ctimeMs, ino: info.ino }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  },
  async writeFileDurably(file, data) {
    const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644)
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
  },
  copyFile: (from, to) => copyFile(from, to),
  rename: (from, to) => rename(from, to),
  unlink: (file) => unlink(file),
  syncFolder,
}

/** Where the previous version is kept after each save. */
export function backupPath(file: string): string {
  return `${file}.bak`
}

/**
 * How a save meets a workbook another program holds open: on Windows (and on shares) Excel's hold makes the
 * rename fail. A hold for a moment (a virus scanner, a sync client, Excel's own save) passes, so the rename is
 * tried again after 1, 2 and 4 s before the save gives up and names who has the file open.
 */
export interface HeldOpenPolicy {
  platform: Platform
  /** The waits between attempts (`sleep` injected in tests). @default 3 repeats, 1 s doubling to 4 s, no jitter */
  retry: RetryOptions
  /** Told before each wait, to say what the run waits for. */
  onRetry?: (event: RetryEvent) => void
}

export const DEFAULT_HELD_OPEN: HeldOpenPolicy = {
  platform: HOST_PLATFORM,
  retry: retryOptions({ limit: 3, baseDelay: 1000, backoffLimit: 4000, jitter: 0 }),
}

/**
 * Saves `data` as `file`: written and flushed to a temp file in the same folder,
 * the previous version copied to `<file>.bak`, then renamed over the file.
 * The rename is the only step that changes `file`, and it is atomic. A rename
 * refused because another program holds the file open is tried again (the
 * file checked again for someone's save first); when it stays refused, the temp
 * file is removed, the file is as it was, and the error names who has it open.
 */
export async function saveAtomically(
  fs: WorkbookFileSystem,
  file: string,
  data: Uint8Array,
  expected?: FileStamp | null,
  heldOpen: HeldOpenPolicy = DEFAULT_HELD_OPEN,
): Promise<FileStamp | undefined> {
  const paths = heldOpen.platform.path
  const folder = paths.dirname(file)
  const temp = paths.join(folder, `.${paths.basename(file)}.${process.pid}.${Date.now()}.tmp`)
  let written: FileStamp | undefined
  // Only the rename's refusal is the other program's hold; any other step's failure is what it says.
  let refused: unknown
  let attempts = 0
  let waitedMs = 0
  try {
    await fs.writeFileDurably(temp, data)
    written = await fs.stat(temp)
    await retry(
      async (attempt) => {
        attempts = attempt
        const now = await fs.stat(file)
        // Someone saved the file since it was loaded (or during a wait): replacing it would throw their work away.
        if (expected !== undefined && !sameStamp(now, expected ?? undefined)) throw new SavedMeanwhile(file)
        if (now !== undefined) await fs.copyFile(file, backupPath(file))
        try {
          await fs.rename(temp, file)
        } catch (error) {
          refused = error
          throw error
        }
      },
      (error) =>
        error === refused && isHeldOpen(errnoOf(error), heldOpen.platform)
          ? { retry: true, reason: `the workbook is open in another program (${errnoOf(error)})` }
          : { retry: false },
      {
        ...heldOpen.retry,
        onRetry: (event) => {
          waitedMs += event.delayMs
          heldOpen.onRetry?.(event)
        },
      },
    )
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined)
    if (error instanceof SavedMeanwhile) throw error
    const errno = errnoOf(error)
    if (error === refused && errno !== undefined && isHeldOpen(errno, heldOpen.platform)) {
      const holders = await holdersOf(file, (lockFile) => fs.readFile(lockFile), heldOpen.platform)
      throw new WorkbookOpenError({ file, holders, errno, attempts, waitedMs, cause: error })
    }
    throw fileError(error, file, 'save')
  }
  await fs.syncFolder(folder)
  return written
}

function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' ? code : undefined
}

/** Whether `now` is the very file `written` was (a rename keeps inode, size and modification time). */
export function isWrittenFile(now: FileStamp | undefined, written: FileStamp | undefined): boolean {
  return (
    now !== undefined && written !== undefined && now.ino === written.ino && now.size === written.size && now.mtimeMs === written.mtimeMs
  )
}

/** The file on disk is no longer the one the write was applied to; nothing was replaced. */
export class SavedMeanwhile extends InternalError {
  readonly code = 'TS_WORKBOOK'
  readonly convertedBy = 'againIfSavedMeanwhile (sheets/workbook/backend.ts): applies the change again, or says the file kept changing'
  readonly file: string

  constructor(file: string) {
    super(`${file} was saved by someone else while it was being written`)
    this.file = file
  }
}

/** A file-system failure as the error a user can act on, naming the file. */
export function fileError(error: unknown, file: string, action: 'open' | 'save'): TimelineSheetsError {
  if (error instanceof TimelineSheetsError) return error
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'EBUSY' || code === 'EPERM' || code === 'EACCES') {
    return new TimelineSheetsError('TS_WORKBOOK', `Cannot ${action} the workbook ${file}: it is locked or not permitted (${code})`, {
      hint: 'Close the workbook in Excel or LibreOffice (or fix its permissions), then run again.',
      cause: error,
    })
  }
  if (code === 'ENOENT' && action === 'save') {
    return new TimelineSheetsError('TS_WORKBOOK', `Cannot save the workbook ${file}: its folder does not exist`, {
      hint: `Create the folder ${path.dirname(file)} or point the target at an existing one.`,
      cause: error,
    })
  }
  const detail = error instanceof Error ? error.message : String(error)
  return new TimelineSheetsError('TS_WORKBOOK', `Cannot ${action} the workbook ${file}: ${detail}`, {
    hint:
      action === 'open'
        ? `The file is not a readable .xlsx workbook. Restore it from ${backupPath(file)} if that exists, or move it away so a new one is created.`
        : 'Check the disk space and the permissions of the folder, then run again; the previous workbook is unchanged.',
    cause: error,
  })
}
