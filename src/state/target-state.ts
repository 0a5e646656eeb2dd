/**
 * What the tool remembers about one target between runs: a cursor per
 * timeline, the base fingerprint of every row it last synced, the layout it
 * last applied and the run history. Versioned, validated on load, written
 * atomically. Losing it costs a full reconcile by Key, never duplicates: the
 * sheet's own Key and Base columns carry the row identities and bases.
 */
import path from 'node:path'
import { z } from 'zod'
import { TimelineSheetsError } from '../errors.ts'
import { withFileAccess } from './file-access.ts'
import { readFileAtomic, writeFileAtomic } from './atomic-file.ts'

export const STATE_VERSION = 1

const timelineCursor = z.looseObject({
  timelineKey: z.string(),
  owner: z.string(),
  schemaName: z.string(),
  /** Server-given `updatedactivities` link (toTime widened to the window end). */
  updatedActivitiesUrl: z.string().optional(),
  /** Window the cursor covers, ISO with offsets. */
  windowFrom: z.string().optional(),
  windowTo: z.string().optional(),
  /** When the look-back window was last re-read in full (ISO). */
  lastLookBackAt: z.string().optional(),
  lastChangeId: z.string().optional(),
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
 * through a schema, which at 100,000 rows was most of a state load (issue 10).
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

const targetState = z.looseObject({
  version: z.literal(STATE_VERSION),
  target: z.string(),
  /** Absent in states written before it was recorded: the next run adopts the server it signs in to. */
  server: serverOfState.optional(),
  timelines: z.record(z.string(), timelineCursor),
  /** Row key (`timelineKey/entityId`) → fingerprint of the values last synced. */
  base: stringRecord('row key → fingerprint'),
  layoutHash: z.string().optional(),
  /** Fingerprint of the allowed tags as the tool last wrote them to the tab (or sent them to the server). */
  allowedTagsFingerprint: z.string().optional(),
  /** Opaque facts the spreadsheet backend keeps between runs (Google: tab ids). */
  backendHints: z.record(z.string(), z.unknown()).optional(),
  runs: z.array(runRecord),
})

export type TimelineCursor = z.infer<typeof timelineCursor>
export type RunRecord = z.infer<typeof runRecord>
export type TargetState = z.infer<typeof targetState>
export type ServerOfState = z.infer<typeof serverOfState>

const MAX_RUNS = 200

export function emptyState(target: string): TargetState {
  return { version: STATE_VERSION, target, timelines: {}, base: {}, runs: [] }
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
}

export async function loadState(location: StateLocation, target: string): Promise<LoadedState> {
  const found = await withFileAccess({ what: 'the state file', file: location.stateFile, action: 'read', setting: 'stateDir' }, () =>
    readFileAtomic(location.stateFile),
  )
  if (!found) return { state: emptyState(target), fresh: true, recoveredFrom: undefined }
  let json: unknown
  try {
    json = JSON.parse(found.text)
  } catch {
    throw corrupt(location, 'is not valid JSON')
  }
  const parsed = targetState.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw corrupt(location, `has ${issue?.path.join('.') || 'a field'}: ${issue?.message ?? 'invalid'}`)
  }
  if (parsed.data.target !== target) throw corrupt(location, `belongs to target "${parsed.data.target}", not "${target}"`)
  return { state: parsed.data, fresh: false, recoveredFrom: found.recoveredFrom }
}

export async function saveState(location: StateLocation, state: TargetState): Promise<void> {
  const trimmed: TargetState = { ...state, runs: state.runs.slice(-MAX_RUNS) }
  await withFileAccess({ what: 'the state file', file: location.stateFile, action: 'write', setting: 'stateDir' }, () =>
    writeFileAtomic(location.stateFile, JSON.stringify(trimmed), { mode: 0o600 }),
  )
}

function corrupt(location: StateLocation, problem: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_STATE', `The state file ${location.stateFile} ${problem}.`, {
    hint: `Move it aside (the sheet's Key and Base columns let the next run reconcile in full), or restore ${location.stateFile}.old.`,
  })
}
