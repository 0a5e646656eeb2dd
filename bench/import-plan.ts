/**
 * Pure planning, in a process of its own. Loads what an import
 * plans from — the Activities snapshot through a fresh Google backend, every
 * Tags activity in the window from the reference server (the server map),
 * base fingerprints from the export's state — then calls the core directly:
 * `parseSheet` over every row and `planSync` over base, lines and server.
 * Loading is not timed. Three rounds: the first is cold (as a CLI run is).
 * Memory: heap before, after (results still held) and after a GC with the
 * results still held, and the process's peak RSS before and after planning.
 */
import { runInNewContext } from 'node:vm'
import { setFlagsFromString } from 'node:v8'
import { validateHeader, activitiesTab } from '../src/core/columns.ts'
import { planSync, type DecisionKind } from '../src/core/plan.ts'
import { parseSheet } from '../src/core/sheet-lines.ts'
import type { KnownUser, RowContext, ServerActivity } from '../src/core/row-context.ts'
import { activityKey } from '../src/core/activity-key.ts'
import { chunkWindows } from '../src/core/windows.ts'
import { signInWithStaticToken } from '../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../src/sheets/google/backend.ts'
import { loadState, stateLocation } from '../src/state/target-state.ts'
import { passwordSignIn } from '../src/timeline/auth/password.ts'
import { createTimelineClient } from '../src/timeline/client.ts'
import { vendorIdentifiers } from '../src/timeline/vendor.ts'
import { argument, emit, peakRssMiB } from './lib/emit.ts'

export interface ImportPlanOptions {
  timelineUrl: string
  username: string
  password: string
  rootUrl: string
  token: string
  spreadsheetId: string
  stateDir: string
  /** First local date of the window and its length, as the export used. */
  fromDate: string
  days: number
  rounds?: number
}

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const MiB = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10

const options = argument<ImportPlanOptions>()
const TIME_ZONE = 'UTC'

// ── Inputs (not timed) ─────────────────────────────────────────────────────
const loadStarted = performance.now()
const spreadsheet = createGoogleSpreadsheet({
  spreadsheetId: options.spreadsheetId,
  auth: signInWithStaticToken(options.token),
  rootUrl: options.rootUrl,
})
const snapshot = await spreadsheet.read(['Activities'])
const tab = snapshot.tabs['Activities']!
const header = validateHeader(tab.header, activitiesTab('Activities'))
if (!header.ok) throw new Error(`Activities header: ${JSON.stringify(header.problems)}`)
const layout = header.layout

const client = createTimelineClient({
  signIn: passwordSignIn({
    baseUrl: options.timelineUrl,
    username: options.username,
    password: options.password,
    vendor: vendorIdentifiers('manictime'),
  }),
  pace: { concurrency: 4, intervalCap: 1_000_000, interval: 60_000 },
})
const timelines = await client.tagsTimelines()
const users: KnownUser[] = timelines.map((t) => ({
  username: t.ownerUsername,
  displayName: t.ownerDisplayName,
  tagsTimelineKey: t.timelineKey,
}))
const allowedTags = await client.readAllowedTags({ all: true })
const chunks = chunkWindows(TIME_ZONE, options.fromDate, options.days, 7)
const server = new Map<string, ServerActivity>()
const queue = [...timelines]
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      for (const range of chunks) {
        for (const a of (await client.readActivities(t, range)).activities)
          server.set(activityKey(t.timelineKey, a.entityId), { activity: a, user: t.ownerUsername })
      }
    }
  }),
)
const { state } = await loadState(stateLocation(options.stateDir, 'bench'), 'bench')
const base = state.base
const loadMs = Math.round(performance.now() - loadStarted)

// ── Planning (timed) ──────────────────────────────────────────────────────
const ctx: RowContext = { timeZone: TIME_ZONE, users, server, baseKeys: new Set(base.keys()), allowedTags, allowedTagsSeverity: 'warning' }
gc()
const heapBefore = process.memoryUsage().heapUsed
const rssPeakBefore = peakRssMiB()
const rounds: { parseMs: number; planMs: number }[] = []
let held: unknown
let heapAfter = 0
let counts: Record<DecisionKind, number> | undefined
for (let round = 0; round < (options.rounds ?? 3); round++) {
  // eslint-disable-next-line no-useless-assignment -- dropping the last round's plan before gc() is the point
  held = undefined
  if (round > 0) gc()
  const t0 = performance.now()
  const lines = parseSheet(tab.rows, layout, ctx)
  const t1 = performance.now()
  const plan = planSync(base, lines, server, { deletedOnServer: 'remove' })
  const t2 = performance.now()
  rounds.push({ parseMs: Math.round(t1 - t0), planMs: Math.round(t2 - t1) })
  if (round === 0) {
    heapAfter = process.memoryUsage().heapUsed
    counts = plan.counts
  }
  held = { lines, plan }
}
gc()
const heapRetained = process.memoryUsage().heapUsed
void held

const nonZero = Object.fromEntries(Object.entries(counts!).filter(([, n]) => n > 0))
emit({
  rows: tab.rows.length,
  serverActivities: server.size,
  baseKeys: base.size,
  timelines: timelines.length,
  loadMs,
  rounds,
  decisions: nonZero,
  heapBeforeMiB: MiB(heapBefore),
  heapAfterFirstRoundMiB: MiB(heapAfter),
  heapRetainedMiB: MiB(heapRetained),
  peakRssBeforeMiB: rssPeakBefore,
  peakRssMiB: peakRssMiB(),
})
