/**
 * The frame every run of a target shares (export, import, undo, sync): its clock and id, its count of
 * Sheets requests, the target's lock, the target's state loaded (and recovered) before and saved with the
 * run's history after, and the spreadsheet backend's hints carried across runs. Each command only says
 * what it does inside the frame.
 */
import { describeServer, sameServer, type ServerAccount } from '../core/server-identity.ts'
import { dayStartText, parseDayStart } from '../core/day-start.ts'
import type { BaseFingerprints } from '../core/plan.ts'
import { TimelineSheetsError } from '../errors.ts'
import type { CellValue, ReadOptions, RequestCounts, Snapshot, TabWrite } from '../sheets/port.ts'
import { acquireLock, type Lock } from '../state/lock.ts'
import {
  emptyState,
  loadState,
  saveState,
  stateLocation,
  type RunRecord,
  type StateLocation,
  type TargetState,
} from '../state/target-state.ts'
import type { TargetConfig } from '../config/schema.ts'
import type { EngineDeps } from './deps.ts'
import type { TimelineChanges } from './server-reads.ts'
import type { TimeWindow } from '../core/windows.ts'
import type { TimelineInfo } from '../timeline/model.ts'

export interface RunFrame {
  readonly runId: string
  readonly startedAt: Date
  readonly now: () => Date
  readonly location: StateLocation
  /** The target's state as loaded; the run changes it in place and `save` writes it. */
  readonly state: TargetState
  /** True when no state existed: the run reconciles in full. */
  readonly fresh: boolean
  /** The state this run set aside for a fresh one, built from another server (export --full). */
  readonly setAside: { server: ServerAccount; base: BaseFingerprints } | undefined
  /** Sheets requests this run made so far (one backend may serve several runs: sync). */
  sheetsRequests(): RequestCounts
  /** Reads the row bases into `state.base` when the frame was opened with `deferBases`; otherwise does nothing. */
  loadBases(): Promise<void>
  /** Pushes the lock's expiry forward on a long run. */
  keepLock(): Promise<void>
  /** Records the run in the history, keeps the backend's hints, and writes the state. */
  save(result: RunRecord['result'], summary: string): Promise<void>
}

/**
 * What the import half of a sync leaves the export half when it wrote nothing (nothing to import): the
 * sheet as it read it, so the export reads it no second time, and its Sync log row, which the export
 * appends with its own in one write.
 */
export interface SyncHandOff {
  snapshot?: Snapshot
  logRows?: CellValue[][]
  /** Writes the import planned on `snapshot` and leaves to the export's one write (the Approvals tab's cells). */
  writes?: TabWrite[]
  /**
   * Reads the export half's server changes in the import's frame, before the import reads the sheet, and
   * returns the read options that have that read confirm their rows (decisions/0008).
   */
  readAhead?: (frame: RunFrame) => Promise<ReadOptions>
  /** What `readAhead` read, and on which cursors and window, so the export can tell whether it still holds. */
  changesAhead?: ChangesAhead
  /**
   * `sync --watch`: a Sync log row only for a sync that changed something (wrote to the sheet or the server), so
   * a watch that syncs every few minutes does not fill the log with runs that found nothing.
   */
  logOnlyChanges?: boolean
  /**
   * Said at the end of the export's Sync log row, which is then written even when nothing changed (the hourly
   * row of a watch, saying how often it checked).
   */
  logNote?: string
}

/** The export half's server changes, read before the sync's one sheet read. */
export interface ChangesAhead {
  /** The Tags timelines listed for the read, which the export lists no second time. */
  tagsTimelines: TimelineInfo[]
  changes: TimelineChanges[]
  window: TimeWindow
  /** The cursors they were read from (`cursorsText`). */
  cursors: string
}

export interface FrameOptions {
  command: string
  /** A dry run takes no lock and saves nothing. */
  dryRun?: boolean
  /**
   * A state built from another server or account is set aside for a fresh one (export --full) instead of
   * stopping the run.
   */
  startOverOnOtherServer?: boolean
  /** Leave the row bases unread until `frame.loadBases()` (`loadState`'s `deferBases`). */
  deferBases?: boolean
}

/**
 * Runs `body` holding the target's lock (unless the caller holds it, or on a dry run), saying so when a
 * stale lock was taken over; releases it however `body` ends.
 */
export async function withTargetLock<T>(
  target: TargetConfig,
  deps: EngineDeps,
  options: FrameOptions,
  body: (keepLock: () => Promise<void>) => Promise<T>,
): Promise<T> {
  const location = stateLocation(deps.stateDir, target.name)
  const lock: Lock | undefined =
    options.dryRun || deps.lockHeld ? undefined : await acquireLock(location.lockFile, { command: options.command })
  try {
    if (lock?.tookOver) deps.reporter.warn(`Took over a stale lock left by pid ${lock.tookOver.pid} (${lock.tookOver.command}).`)
    return await body(async () => {
      await lock?.refresh()
    })
  } finally {
    await lock?.release()
  }
}

/** Runs `body` inside the frame: the target's lock held, its state loaded, the lock released at the end. */
export async function withRun<T>(
  target: TargetConfig,
  deps: EngineDeps,
  options: FrameOptions,
  body: (frame: RunFrame) => Promise<T>,
): Promise<T> {
  const now = deps.now ?? (() => new Date())
  const startedAt = now()
  const start = deps.spreadsheet.requestCounts()
  const runId = deps.runId ?? newRunId(startedAt)
  const location = stateLocation(deps.stateDir, target.name)
  return withTargetLock(target, deps, options, async (keepLock) => {
    deps.onRunStarted?.(runId)
    const loaded = await loadState(location, target.name, { deferBases: Boolean(options.deferBases) })
    if (loaded.recoveredFrom) deps.reporter.warn(`State recovered from ${loaded.recoveredFrom} after an interrupted save.`)
    let { state, fresh } = loaded
    let setAside: RunFrame['setAside']
    const server = await deps.client.identity()
    if (state.server && !sameServer(state.server, server)) {
      if (!options.startOverOnOtherServer) throw stateOfAnotherServer(location.stateFile, target.name, state.server, server)
      deps.reporter.warn(
        `The state of target ${target.name} was built from ${describeServer(state.server)}; it starts afresh for ${describeServer(server)}.`,
      )
      // The old server's rows are planned against its bases.
      await loaded.loadBases()
      setAside = { server: state.server, base: state.base }
      state = emptyState(target.name)
      fresh = true
    }
    // The sheet's Dates were written counting days from the recorded hour: under another, the night's rows would
    // read as moved by a day, and an import would send those moves (decisions/0023-day-start.md).
    const dayStart = dayStartText(parseDayStart(target.dayStartsAt))
    if (!fresh && (state.dayStartsAt ?? '00:00') !== dayStart) {
      throw dayStartChanged(location.stateFile, target.name, state.dayStartsAt ?? '00:00', dayStart)
    }
    state.dayStartsAt = dayStart
    // Of a state set aside, a fresh one: its bases are all there is.
    const loadBases = setAside ? async () => undefined : loaded.loadBases
    state.server = { entryUrl: server.entryUrl, ...(server.account ? { account: server.account } : {}) }
    if (state.backendHints) deps.spreadsheet.importHints?.(state.backendHints)
    const frame: RunFrame = {
      runId,
      startedAt,
      now,
      location,
      state,
      fresh,
      setAside,
      sheetsRequests() {
        const counts = deps.spreadsheet.requestCounts()
        return { reads: counts.reads - start.reads, writes: counts.writes - start.writes }
      },
      loadBases,
      keepLock,
      async save(result, summary) {
        state.runs.push({
          runId,
          command: options.command,
          startedAt: startedAt.toISOString(),
          finishedAt: now().toISOString(),
          result,
          summary,
        })
        state.backendHints = deps.spreadsheet.exportHints?.() ?? state.backendHints
        await saveState(location, state)
      },
    }
    return body(frame)
  })
}

function dayStartChanged(stateFile: string, target: string, was: string, now: string): TimelineSheetsError {
  return new TimelineSheetsError(
    'TS_STATE',
    `Target ${target} counts its days from ${now} (dayStartsAt), but its sheet was written counting them from ${was} (${stateFile}): rows between the two hours would read as moved by a day, so nothing was read or written.`,
    {
      hint: `Set dayStartsAt back to "${was}". To change it: run sync once with "${was}" so no edit is pending, delete the target's state folder and the Activities rows below the header, then set "${now}" and run export, which writes every row again.`,
    },
  )
}

function stateOfAnotherServer(stateFile: string, target: string, was: ServerAccount, now: ServerAccount): TimelineSheetsError {
  return new TimelineSheetsError(
    'TS_STATE',
    `The state of target ${target} (${stateFile}) belongs to ${describeServer(was)}, but this run signs in to ${describeServer(now)}; its cursors and Keys mean nothing there, so nothing was read or written.`,
    {
      hint: `If the target really moved to this server, run \`export --full\` once: it starts a fresh state and makes the tab this server's (rows of the other server are removed unless a manager edited them). To keep both, give this configuration its own "stateDir". To go back, point the config at ${was.entryUrl} again.`,
    },
  )
}

/** `20261110T110000Z-k3f9`: when the run started, and a few random characters so two runs never share one. */
export function newRunId(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`
}
