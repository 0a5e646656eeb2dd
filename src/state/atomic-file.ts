/**
 * Files the tool must never leave half-written (state, tokens): written to
 * `<file>.new`, flushed, the previous version kept as `<file>.old`, then
 * renamed into place. A reader that finds no file recovers from `.new`
 * (crash between the two renames) or `.old`.
 */
import { constants } from 'node:fs'
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import path from 'node:path'

export interface AtomicWriteOptions {
  /** File mode, e.g. 0o600 for anything holding a secret. @default 0o644 */
  mode?: number
  /** Keep the previous version as `<file>.old`. @default true */
  keepOld?: boolean
}

export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? 0o644
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const fresh = `${file}.new`
  const handle = await open(fresh, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, mode)
  try {
    await handle.writeFile(data)
    await handle.chmod(mode)
    await handle.sync()
  } finally {
    await handle.close()
  }
  if (options.keepOld ?? true) {
    await rename(file, `${file}.old`).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
  }
  await rename(fresh, file)
  await syncFolder(path.dirname(file))
}

/** Reads a file written by `writeFileAtomic`, recovering from an interrupted write. Undefined when none exists. */
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
