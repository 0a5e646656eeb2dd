/**
 * The import journal: every server write is recorded before it is sent
 * (`intent`) and after it answered (`done` / `failed`), flushed to disk each
 * time. A run killed at any moment leaves a journal without `end`; the next
 * run reads it to finish the interrupted work instead of repeating it (a
 * POST that landed is adopted, never sent twice). Undo reads it too.
 */
import { access, appendFile, mkdir, open, readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { TimelineSheetsError } from '../errors.ts'
import { fileAccessError, withFileAccess } from './file-access.ts'

const activityInput = z.object({
  tags: z.array(z.string()),
  notes: z.string().optional(),
  start: z.string(),
  duration: z.number(),
})

const record = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    runId: z.string(),
    command: z.string(),
    at: z.string(),
    /** An undo run: the run whose writes it reverts. */
    undoes: z.string().optional(),
  }),
  z.object({
    type: z.literal('intent'),
    id: z.number(),
    op: z.enum(['post', 'put', 'delete', 'tags']),
    timelineKey: z.string().optional(),
    entityId: z.number().optional(),
    user: z.string().optional(),
    /** Fingerprint of the values sent (post, put). */
    fingerprint: z.string().optional(),
    /** The mark in the new row's Key cell (post): finds the row again, whatever was typed into it since. */
    pending: z.string().optional(),
    input: activityInput.optional(),
    /** The server's activity before the write (put, delete), for undo. */
    before: activityInput.optional(),
    beforeFingerprint: z.string().optional(),
    /** Allowed tags sent (op tags): fingerprints before and after. */
    tagsBefore: z.string().optional(),
    tagsAfter: z.string().optional(),
  }),
  z.object({
    type: z.literal('done'),
    id: z.number(),
    entityId: z.number().optional(),
    /** Fingerprint of the activity as the server answered. */
    fingerprint: z.string().optional(),
    /** The server's form of what was written (for undo of undo and for write-back after a crash). */
    after: activityInput.optional(),
  }),
  z.object({ type: z.literal('failed'), id: z.number(), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('end'), result: z.string(), at: z.string(), note: z.string().optional() }),
])

export type JournalRecord = z.infer<typeof record>
export type IntentRecord = Extract<JournalRecord, { type: 'intent' }>
export type DoneRecord = Extract<JournalRecord, { type: 'done' }>

export interface Journal {
  readonly runId: string
  readonly file: string
  /** Records a write about to be sent; resolves with its id once it is on disk. */
  intend(intent: Omit<IntentRecord, 'type' | 'id'>): Promise<number>
  done(id: number, result: Omit<DoneRecord, 'type' | 'id'>): Promise<void>
  failed(id: number, code: string, message: string): Promise<void>
  end(result: string, note?: string): Promise<void>
}

export async function openJournal(
  folder: string,
  runId: string,
  command: string,
  now: () => Date = () => new Date(),
  extra: { undoes?: string } = {},
): Promise<Journal> {
  const file = journalFile(folder, runId)
  const context = { what: 'the journal', file, action: 'write', setting: 'stateDir' } as const
  await withFileAccess(context, () => mkdir(folder, { recursive: true, mode: 0o700 }))
  let nextId = 1
  const write = (entry: JournalRecord) =>
    withFileAccess(context, async () => {
      const handle = await open(file, 'a', 0o600)
      try {
        await handle.appendFile(`${JSON.stringify(entry)}\n`)
        // The point of a journal is that the line is on disk before the write is sent.
        await handle.sync()
      } finally {
        await handle.close()
      }
    })
  await write({ type: 'start', runId, command, at: now().toISOString(), ...(extra.undoes ? { undoes: extra.undoes } : {}) })
  return {
    runId,
    file,
    async intend(intent) {
      const id = nextId++
      await write({ type: 'intent', id, ...intent })
      return id
    },
    done: (id, result) => write({ type: 'done', id, ...result }),
    failed: (id, code, message) => write({ type: 'failed', id, code, message }),
    end: (result, note) => write({ type: 'end', result, at: now().toISOString(), ...(note ? { note } : {}) }),
  }
}

export interface JournalRun {
  runId: string
  command: string
  file: string
  records: JournalRecord[]
  ended: boolean
  /** For an undo run: the run it reverts. */
  undoes?: string
  /** Intents with their outcome (undefined: the run died before the answer came). */
  writes: { intent: IntentRecord; outcome: DoneRecord | Extract<JournalRecord, { type: 'failed' }> | undefined }[]
}

export function journalFile(folder: string, runId: string): string {
  return path.join(folder, `${runId}.jsonl`)
}

export async function readJournal(file: string): Promise<JournalRun> {
  const text = await withFileAccess({ what: 'the journal', file, action: 'read', setting: 'stateDir' }, () => readFile(file, 'utf8'))
  const records: JournalRecord[] = []
  const lines = text.split('\n')
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      // A line cut short by a crash can only be the last one; anything else is damage.
      if (i >= lines.length - 2) break
      throw new TimelineSheetsError('TS_STATE', `The journal ${file} is damaged at line ${i + 1}.`, {
        hint: 'Move the file aside to continue; the writes it records may then need checking by hand.',
      })
    }
    const result = record.safeParse(parsed)
    if (!result.success) {
      throw new TimelineSheetsError('TS_STATE', `The journal ${file} has an unreadable record at line ${i + 1}.`, {
        hint: 'Move the file aside to continue.',
      })
    }
    records.push(result.data)
  }
  const start = records.find((r) => r.type === 'start')
  const outcomes = new Map<number, DoneRecord | Extract<JournalRecord, { type: 'failed' }>>()
  for (const r of records) if (r.type === 'done' || r.type === 'failed') outcomes.set(r.id, r)
  return {
    runId: start?.type === 'start' ? start.runId : path.basename(file, '.jsonl'),
    command: start?.type === 'start' ? start.command : 'unknown',
    file,
    records,
    ended: records.some((r) => r.type === 'end'),
    ...(start?.type === 'start' && start.undoes ? { undoes: start.undoes } : {}),
    writes: records.filter((r): r is IntentRecord => r.type === 'intent').map((intent) => ({ intent, outcome: outcomes.get(intent.id) })),
  }
}

/** Journals of runs that did not reach their end, oldest first. */
export async function unfinishedJournals(folder: string): Promise<JournalRun[]> {
  let names: string[]
  try {
    names = (await readdir(folder)).filter((n) => n.endsWith('.jsonl')).sort()
  } catch (error) {
    // No folder: no run was ever journaled. One that cannot be read would hide an interrupted run.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw fileAccessError(error, { what: 'the journal folder', file: folder, action: 'read', setting: 'stateDir' }) ?? error
  }
  const runs: JournalRun[] = []
  for (const name of names) {
    const run = await readJournal(path.join(folder, name))
    if (!run.ended) runs.push(run)
  }
  return runs
}

/** Marks an interrupted run's journal as taken over by a later run. */
export async function closeJournal(file: string, note: string, now: Date = new Date()): Promise<void> {
  await withFileAccess({ what: 'the journal', file, action: 'write', setting: 'stateDir' }, () =>
    appendFile(file, `${JSON.stringify({ type: 'end', result: 'recovered', at: now.toISOString(), note })}\n`),
  )
}

export interface RecentRun {
  runId: string
  /** The command that wrote it, or `undo of <run>`; `unreadable` for a journal that cannot be parsed. */
  command: string
  ended: boolean
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/

/** The newest journals in a folder, newest first (run ids sort by time). A missing folder has none. */
export async function recentJournals(folder: string, limit = 10): Promise<RecentRun[]> {
  let names: string[]
  try {
    names = (await readdir(folder))
      .filter((n) => n.endsWith('.jsonl'))
      .sort()
      .reverse()
      .slice(0, limit)
  } catch {
    return []
  }
  const out: RecentRun[] = []
  for (const name of names) {
    const runId = name.slice(0, -'.jsonl'.length)
    try {
      const run = await readJournal(journalFile(folder, runId))
      out.push({ runId: run.runId, command: run.undoes ? `undo of ${run.undoes}` : run.command, ended: run.ended })
    } catch {
      out.push({ runId, command: 'unreadable', ended: false })
    }
  }
  return out
}

/** True when the folder holds this run's journal. A run id that could not be a file name has none. */
export async function journalExists(folder: string, runId: string): Promise<boolean> {
  if (!RUN_ID.test(runId)) return false
  try {
    await access(journalFile(folder, runId))
    return true
  } catch {
    return false
  }
}
