/**
 * The one writer of the tool's own files that must never be left half-written (state, bases, the approvals
 * record, the token files, reports): the data goes to a temp file of its own beside the target
 * (`.<name>.<pid>.<random>.tmp`, created exclusively), is flushed, and one rename puts it in place; the folder is
 * flushed after. With `keepOld` the previous version is first copied to `<file>.old`, so the file is never
 * missing. A writer that fails removes its temp file. The workbook keeps its own save
 * (decisions/0025-open-workbooks.md says why).
 */
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { copyFile, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import path from 'node:path'

export interface AtomicWriteOptions {
  /** File mode, e.g. 0o600 for anything holding a secret. @default 0o644 */
  mode?: number
  /** Keep the previous version as `<file>.old`. @default true */
  keepOld?: boolean
}

export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? 0o644
  const folder = path.dirname(path.resolve(file))
  // The first login or run may be the first thing that writes in a fresh state folder.
  await mkdir(folder, { recursive: true, mode: 0o700 })
  // A name of its own, so that two writers of one file (a login while a run refreshes) never write into each other's.
  const temp = path.join(folder, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode)
  try {
    try {
      await handle.writeFile(data)
      // The umask may have narrowed the mode; never widened, but make it exact.
      await handle.chmod(mode)
      await handle.sync()
    } finally {
      await handle.close()
    }
    if (options.keepOld ?? true) {
      // A copy, not a rename: the file stays in place until the rename below replaces it.
      await copyFile(file, `${file}.old`).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error
      })
    }
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
  await syncFolder(folder)
}

/**
 * Reads a file written by `writeFileAtomic`; undefined when none exists. When the file is missing it falls back to
 * `<file>.new` (where versions before the one writer put the data before a rename a crash could interrupt) and to
 * `<file>.old`.
 */
export async function readFileAtomic(file: string): Promise<{ text: string; recoveredFrom?: string } | undefined> {
  for (const candidate of [file, `${file}.new`, `${file}.old`]) {
    try {
      const text = await readFile(candidate, 'utf8')
      return candidate === file ? { text } : { text, recoveredFrom: candidate }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return undefined
}

export async function removeFileAtomic(file: string): Promise<void> {
  for (const candidate of [file, `${file}.new`, `${file}.old`]) {
    await unlink(candidate).catch(() => undefined)
  }
}

/** Mode bits of a file, undefined when it does not exist. */
export async function fileMode(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mode & 0o777
  } catch {
    return undefined
  }
}

/** Makes a rename in `folder` durable, where the platform allows it (Windows cannot fsync a folder). */
export async function syncFolder(folder: string): Promise<void> {
  // Makes the rename durable; not supported on every platform, so best effort.
  try {
    const handle = await open(folder, constants.O_RDONLY)
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    /* best effort */
  }
}
