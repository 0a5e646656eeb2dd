/**
 * What the tool remembers about one target between runs: a cursor per
 * timeline, the base fingerprint of every row it last synced, the layout it
 * last applied and the run history. Versioned, validated on load, written
 * atomically. Losing it costs a full reconcile by Key, never duplicates: the
 * sheet's own Key and Base columns carry the row identities and bases.
 *
 * The bases (about 5 MB at 100,000 rows) live in a file of their own, named
 * afresh each time they change and named by `state.json`: a run in which
 * nothing changed rewrites only the small `state.json`, and a crash between
 * the two writes leaves `state.json` naming a whole, older base file
 * (decisions/0008-what-an-incremental-run-touches.md). In memory they are a
 * Map, on disk one JSON array of alternating keys and fingerprints: both
 * build and parse several times faster than a 100,000-key object.
 * The digests of rows as written (decisions/0013) live in a file of their
 * own too, one number per base in the base file's order (`written-file.ts`);
 * they are a cache, and a run without them reads rows in full.
 *
 * Longer than most files because loading and saving must agree, in one place, on every version of the format
 * and on which of its files a save writes again.
 */
import { randomBytes } from 'node:crypto'
import { readdir, unlink } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { TimelineSheetsError } from '../errors.ts'
import { withFileAccess } from './file-access.ts'
import { readFileAtomic, writeFileAtomic } from './atomic-file.ts'
import { UnreadBases } from './unread-bases.ts'
import type { WrittenRows } from '../core/written-rows.ts'
import { noWrittenRows, readWrittenFile, writtenFileText, WRITTEN_FILE } from './written-file.ts'

/**
 * 3: the bases in their own file (`baseFile`), an array `[key, fingerprint, key, fingerprint, …]`. Still read:
 * 2, the same file holding an object `{ key: fingerprint }`; 1, that object inline in state.json (`base`).
 */
export const STATE_VERSION = 3

/** An `updatedactivities` link exactly as the server wrote it, and the range of the read it came with. */
const cursorLink = z.looseObject({ href: z.string(), from: z.string(), to: z.string() })

const timelineCursor = z.looseObject({
  timelineKey: z.string(),
  owner: z.string(),
  schemaName: z.string(),
  /** The links of the last read of the window whole, one per part answered (decisions/0019). */
  links: z.array(cursorLink).optional(),
  /** The links of the last read of the days since `links` end (and of the look-back), one per part answered. */
  recentLinks: z.array(cursorLink).optional(),
  /** States before decisions/0019: a link rebuilt for the window, which is not followed (the next read is whole). */
  updatedActivitiesUrl: z.string().optional(),
  /** Window the cursor covers, ISO with offsets. */
  windowFrom: z.string().optional(),
  windowTo: z.string().optional(),
  /** When the look-back window was last re-read in full (ISO). */
  lastLookBackAt: z.string().optional(),
  lastChangeId: z.string().optional(),
  /** The timeline's version as the list showed it before the read this cursor came from (a later equal one: nothing new). */
  listedVersion: z.string().optional(),
})

const runRecord = z.looseObject({
  runId: z.string(),
  command: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  result: z.enum(['success', 'partial', 'incomplete', 'failure', 'running']),
  summary: z.string().optional(),
})

/** The server and account the state was built from: cursors and bases mean nothing on another. */
const serverOfState = z.looseObject({ entryUrl: z.string(), account: z.string().optional() })

/**
 * A JSON object of strings, checked in one plain loop and kept as parsed: `z.record` copies every entry
 * through a schema, which at 100,000 rows would be most of a state load.
 */
function stringRecord(what: string) {
  return z.custom<Record<string, string>>(
    (value) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
      for (const key in value) if (typeof (value as Record<string, unknown>)[key] !== 'string') return false
      return true
    },
    { message: `must be an object of ${what} texts` },
  )
}

const BASE_FILE = /^base-[0-9a-f]{16}\.json$/

const targetState = z.looseObject({
  version: z.union([z.literal(1), z.literal(2), z.literal(STATE_VERSION)]),
  target: z.string(),
  /** Absent in states written before it was recorded: the next run adopts the server it signs in to. */
  server: serverOfState.optional(),
  timelines: z.record(z.string(), timelineCursor),
  /** Row key (`timelineKey/entityId`) → fingerprint of the values last synced. In state.json of version 1 only. */
  base: stringRecord('row key → fingerprint').optional(),
  /** The file beside state.json that holds the bases (versions 2 and 3). */
  baseFile: z.string().regex(BASE_FILE).optional(),
  /** The file beside state.json that holds the digests of rows as written (`WrittenRows`): a cache, rebuilt when lost. */
  writtenFile: z.string().regex(WRITTEN_FILE).optional(),
  layoutHash: z.string().optional(),
  /** Fingerprint of the allowed tags as the tool last wrote them to the tab (or sent them to the server). */
  allowedTagsFingerprint: z.string().optional(),
  /**
   * Fingerprints of the two parts of those lines: what the target may change, and what it shows but may not
   * (src/core/scoped-allowed-tags.ts). Absent in states written before teams were known: the whole is then the
   * editable part, as it was.
   */
  allowedTagsParts: z.strictObject({ editable: z.string(), fixed: z.string() }).optional(),
  /** The hour the sheet's days start at (`dayStartsAt`) when its rows were written; absent before it was kept: 00:00. */
  dayStartsAt: z.string().optional(),
  /** The Approvals tab's title once an export's layout made it: an import reads it only then (a read naming a missing tab fails on Google). */
  approvalsTab: z.string().optional(),
  /** The Approved tab's title once an export's layout made it, read by an import only then, as the Approvals tab. */
  approvedTab: z.string().optional(),
  /** Opaque facts the spreadsheet backend keeps between runs (Google: tab ids). */
  backendHints: z.record(z.string(), z.unknown()).optional(),
  runs: z.array(runRecord),
})

export type TimelineCursor = z.infer<typeof timelineCursor>
export type CursorLink = z.infer<typeof cursorLink>
export type RunRecord = z.infer<typeof runRecord>
/**
 * The state as a run holds it. `base` (row key → fingerprint) is read-only here: it changes only through
 * `applyBaseChanges`, which is how a save knows whether the base file must be written again.
 */
export type TargetState = z.infer<ReturnType<typeof targetState.omit<{ base: true; version: true }>>> & {
  version: typeof STATE_VERSION
  base: ReadonlyMap<string, string>
  /** Digests of rows as the tool wrote them; changed only through `applyWrittenChanges`. */
  written: WrittenRows
}
export type ServerOfState = z.infer<typeof serverOfState>

const MAX_RUNS = 200

export function emptyState(target: string): TargetState {
  return { version: STATE_VERSION, target, timelines: {}, base: new Map(), written: noWrittenRows(), runs: [] }
}

/** Records the Allowed tags lines as the tool last wrote or sent them. */
export function recordAllowedTags(state: TargetState, written: { whole: string; editable: string; fixed: string }): void {
  state.allowedTagsFingerprint = written.whole
  state.allowedTagsParts = { editable: written.editable, fixed: written.fixed }
}

/** Base maps changed since they were loaded or saved: their file is written again on save. */
const changedBases = new WeakSet<ReadonlyMap<string, string>>()

/** Sets (a fingerprint) or forgets (null) the bases of rows; the only way a run changes them. */
export function applyBaseChanges(state: TargetState, changes: Iterable<readonly [string, string | null]>): void {
  const base = state.base as Map<string, string>
  let changed = false
  for (const [key, fp] of changes) {
    if (fp === null) {
      if (!base.delete(key)) continue
    } else if (base.get(key) !== fp) base.set(key, fp)
    else continue
    changed = true
  }
  if (changed) changedBases.add(base)
}

/** Digest sets changed since they were loaded or saved: their file is written again on save. */
const changedWritten = new WeakSet<WrittenRows>()

/**
 * Remembers (a digest) or forgets (null) rows as written under `context` (`writtenContext`). Digests of another
 * context are dropped: they would never be used again.
 */
export function applyWrittenChanges(state: TargetState, context: string, changes: Iterable<readonly [string, number | null]>): void {
  for (const [key, digest] of changes) {
    // Only a run that writes rows moves the context on (a run that left the digests unread writes none).
    if (state.written.context !== context) state.written = { context, digests: new Map() }
    const { digests } = state.written
    if (digest === null) {
      if (!digests.delete(key)) continue
    } else if (digests.get(key) !== digest) digests.set(key, digest)
    else continue
    changedWritten.add(state.written)
  }
}

export interface StateLocation {
  folder: string
  stateFile: string
  lockFile: string
  journalFolder: string
}

export function stateLocation(stateDir: string, target: string): StateLocation {
  const folder = path.join(stateDir, target)
  return {
    folder,
    stateFile: path.join(folder, 'state.json'),
    lockFile: path.join(folder, 'lock'),
    journalFolder: path.join(folder, 'journal'),
  }
}

export interface LoadedState {
  state: TargetState
  /** True when no state existed: the run must reconcile in full. */
  fresh: boolean
  recoveredFrom: string | undefined
  /** Reads the base file into `state.base` if `deferBases` left it unread; otherwise does nothing. */
  loadBases(): Promise<void>
}

export interface LoadOptions {
  /**
   * Leave the base file unread until `loadBases` (a run that plans no row needs no base: at 100k rows the file
   * is megabytes to parse). Until then `state.base` throws on every use, so a base read too early is a loud
   * error, never an empty map taken for "no bases".
   */
  deferBases?: boolean
}

export async function loadState(location: StateLocation, target: string, options: LoadOptions = {}): Promise<LoadedState> {
  const found = await withFileAccess({ what: 'the state file', file: location.stateFile, action: 'read', setting: 'stateDir' }, () =>
    readFileAtomic(location.stateFile),
  )
  if (!found) return { state: emptyState(target), fresh: true, recoveredFrom: undefined, loadBases: async () => undefined }
  const parsed = targetState.safeParse(parseJson(found.text, location, location.stateFile))
  if (!parsed.success) throw corrupt(location, location.stateFile, describeIssue(parsed.error))
  if (parsed.data.target !== target)
    throw corrupt(location, location.stateFile, `belongs to target "${parsed.data.target}", not "${target}"`)
  const { base: inline, version, ...rest } = parsed.data
  const baseFile = rest.baseFile
  if (baseFile && version === STATE_VERSION && options.deferBases) {
    const state: TargetState = {
      ...rest,
      version: STATE_VERSION,
      base: new UnreadBases(path.join(location.folder, baseFile)),
      written: noWrittenRows(),
    }
    const loadBases = async () => {
      if (!(state.base instanceof UnreadBases)) return
      state.base = await readBaseFile(location, baseFile, version)
      state.written = await readWrittenFile(location.folder, rest.writtenFile, state.base, baseFile)
    }
    return { state, fresh: false, recoveredFrom: found.recoveredFrom, loadBases }
  }
  const base = baseFile ? await readBaseFile(location, baseFile, version) : mapOf(inline ?? {})
  // Saved as version 3, state.json must name a file of pairs: the next save writes one even if no base changed.
  if (version !== STATE_VERSION) changedBases.add(base)
  const written = await readWrittenFile(location.folder, rest.writtenFile, base, baseFile)
  return {
    state: { ...rest, version: STATE_VERSION, base, written },
    fresh: false,
    recoveredFrom: found.recoveredFrom,
    loadBases: async () => undefined,
  }
}

async function readBaseFile(location: StateLocation, baseFile: string, version: number): Promise<Map<string, string>> {
  const file = path.join(location.folder, baseFile)
  const text = await withFileAccess({ what: 'the state file', file, action: 'read', setting: 'stateDir' }, () => readFileAtomic(file))
  if (!text || text.recoveredFrom) throw corrupt(location, file, 'is missing (state.json names it)')
  const json = parseJson(text.text, location, file)
  if (version === STATE_VERSION) {
    const bases = basesOfPairs(json)
    if (!bases) throw corrupt(location, file, 'is not a list of row key and fingerprint texts, in pairs')
    return bases
  }
  const bases = baseRecord.safeParse(json)
  if (!bases.success) throw corrupt(location, file, describeIssue(bases.error))
  return mapOf(bases.data)
}

export async function saveState(location: StateLocation, state: TargetState): Promise<void> {
  const access = { what: 'the state file', file: location.stateFile, action: 'write', setting: 'stateDir' } as const
  let baseFile = state.baseFile
  const basesWritten = !baseFile || changedBases.has(state.base)
  if (basesWritten) {
    // A new name each time: state.json (and its .old) keep naming whole files until they are replaced.
    baseFile = `base-${randomBytes(8).toString('hex')}.json`
    const file = path.join(location.folder, baseFile)
    const text = JSON.stringify(pairsOf(state.base))
    // Named as the state file: the bases are part of it, and its folder is what a person fixes.
    await withFileAccess(access, () => writeFileAtomic(file, text, { mode: 0o600, keepOld: false }))
  }
  // The digests follow the base file's order: a new base file needs them written again. Bases left unread are
  // unchanged, and so is the order their digests follow.
  let writtenFile = state.writtenFile
  if (!(state.base instanceof UnreadBases) && (changedWritten.has(state.written) || (basesWritten && writtenFile))) {
    writtenFile = state.written.digests.size > 0 ? `written-${randomBytes(8).toString('hex')}.json` : undefined
    if (writtenFile) {
      const file = path.join(location.folder, writtenFile)
      const text = writtenFileText(state.written, state.base, baseFile!)
      await withFileAccess(access, () => writeFileAtomic(file, text, { mode: 0o600, keepOld: false }))
    }
  }
  const previous = [state.baseFile, state.writtenFile]
  const { base: _inMemory, written: _written, writtenFile: _file, ...rest } = state
  const trimmed = { ...rest, version: STATE_VERSION, baseFile, ...(writtenFile ? { writtenFile } : {}), runs: state.runs.slice(-MAX_RUNS) }
  await withFileAccess(access, () => writeFileAtomic(location.stateFile, JSON.stringify(trimmed), { mode: 0o600 }))
  state.baseFile = baseFile
  state.writtenFile = writtenFile
  changedBases.delete(state.base)
  changedWritten.delete(state.written)
  // The files state.json names now, and the ones its .old names, stay; older ones go.
  await removeStateFilesExcept(location.folder, [baseFile, writtenFile, ...previous])
}

const baseRecord = stringRecord('row key → fingerprint')

/** The bases as a base file of version 3 holds them: `[key, fingerprint, key, fingerprint, …]`. */
function pairsOf(base: ReadonlyMap<string, string>): string[] {
  const pairs = new Array<string>(base.size * 2)
  let i = 0
  for (const [key, fp] of base) {
    pairs[i++] = key
    pairs[i++] = fp
  }
  return pairs
}

/** A version 3 base file's content as a map, its shape checked in the same loop; undefined when it is not one. */
function basesOfPairs(json: unknown): Map<string, string> | undefined {
  if (!Array.isArray(json) || json.length % 2 !== 0) return undefined
  const base = new Map<string, string>()
  for (let i = 0; i < json.length; i += 2) {
    const key: unknown = json[i]
    const fp: unknown = json[i + 1]
    if (typeof key !== 'string' || typeof fp !== 'string') return undefined
    base.set(key, fp)
  }
  return base
}

/** Bases of an older state (an object, already checked) as a map. */
function mapOf(record: Readonly<Record<string, string>>): Map<string, string> {
  const base = new Map<string, string>()
  for (const key in record) base.set(key, record[key]!)
  return base
}

async function removeStateFilesExcept(folder: string, keep: readonly (string | undefined)[]): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[])
  for (const name of names) {
    const file = name.replace(/\.new$/, '')
    if ((BASE_FILE.test(file) || WRITTEN_FILE.test(file)) && !keep.includes(name))
      await unlink(path.join(folder, name)).catch(() => undefined)
  }
}

function parseJson(text: string, location: StateLocation, file: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw corrupt(location, file, 'is not valid JSON')
  }
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]
  return `has ${issue?.path.join('.') || 'a field'}: ${issue?.message ?? 'invalid'}`
}

function corrupt(location: StateLocation, file: string, problem: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_STATE', `The state file ${file} ${problem}.`, {
    hint: `Move the folder ${location.folder} aside (the sheet's Key and Base columns let the next run reconcile in full), or restore ${location.stateFile}.old.`,
  })
}
