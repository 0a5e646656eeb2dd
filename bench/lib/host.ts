/**
 * The counterparts of a benchmark in a process of their own: the reference
 * Timeline server and the Sheets fake on loopback, driven over the IPC channel
 * of `fork`. Keeping them apart from the process under test makes that
 * process's peak RSS our tool's alone, and lets several short-lived client
 * processes (one per run, as the CLI runs) share one server state.
 */
import { SPREADSHEETS_SCOPE } from '../../counterparts/sheets/auth.ts'
import { DRIVE_METADATA_READONLY_SCOPE } from '../../counterparts/sheets/drive-files.ts'
import type http from 'node:http'
import type { Socket } from 'node:net'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { metadataUsage } from '../../counterparts/sheets/metadata-budget.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { asksForGzip } from '../../counterparts/sheets/server.ts'
import { createRandom } from '../../counterparts/timeline/store.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import type { Correctness, HostRequest, WireBytes } from './host-client.ts'
import { applyManagerEdits, type ManagerEditsOptions } from './manager-edits.ts'
import { shapedLink, type ShapedLink } from './link.ts'

let timeline: ReferenceServer | undefined
let sheets: { store: SheetsStore; server: LoopbackServer; rootUrl: string; staticToken: string } | undefined
/** Added to the fake's clock: moving it on starts a new quota minute without waiting for one. */
let sheetsClockOffset = 0
/** The shaped link in front of the Sheets fake, once a part asks for one. */
let sheetsLink: ShapedLink | undefined
let timelineRequests: Record<string, number> = {}
let sheetsBytes: WireBytes = { toServer: 0, fromServer: 0 }
let timelineBytes: WireBytes = { toServer: 0, fromServer: 0 }
let metadataPeak = 0
/** Request bodies as the Sheets API reads them, gzip undone: what the wire would carry uncompressed. */
let sheetsJsonBytesSent = 0
/** When the first request since the last reset reached either counterpart (ms since the epoch, sub-ms precise). */
let firstRequestAt: number | undefined
const noteRequest = () => (firstRequestAt ??= performance.timeOrigin + performance.now())
/** The counterparts' own CPU at the last reset: a run's share of the fake's and the server's work. */
let cpuAtReset = process.cpuUsage()
const STATIC_TOKEN = 'ya29.bench-static-token'

/** Quotas far above anything a benchmark sends: never a 429, but every request still counted. */
const UNBOUNDED = { readPerUser: 1e9, writePerUser: 1e9, readPerProject: 1e9, writePerProject: 1e9 }

/** The most characters of developer metadata one sheet of any spreadsheet holds now. */
function largestSheetMetadata(store: SheetsStore): number {
  let most = 0
  for (const ss of store.spreadsheets.values())
    for (const [scope, chars] of metadataUsage(ss)) if (scope !== 'spreadsheet') most = Math.max(most, chars)
  return most
}

/**
 * Counts the bytes on the wire (headers and bodies, both ways) of every
 * request the server answers, from its sockets' counters: nothing is copied
 * or slowed down. `into()` gives the counters of the moment (they are reset
 * between runs).
 */
function countWireBytes(server: http.Server, into: () => WireBytes): void {
  const seen = new WeakMap<Socket, { read: number; written: number }>()
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.once('finish', () => {
      const socket = req.socket
      const before = seen.get(socket) ?? { read: 0, written: 0 }
      const now = { read: socket.bytesRead, written: socket.bytesWritten }
      seen.set(socket, now)
      const counters = into()
      counters.toServer += now.read - before.read
      counters.fromServer += now.written - before.written
    })
  })
}

/** Every Tags activity's notes in `[from, to)` (dates, UTC), by Key; only `owner`'s when given. */
function serverWindow(from: string, to: string, owner?: string): Map<string, string> {
  const server = timeline!
  const fromMs = Date.parse(`${from}T00:00:00Z`)
  const toMs = Date.parse(`${to}T00:00:00Z`)
  const out = new Map<string, string>()
  for (const t of server.store.timelines()) {
    if (t.kind !== 'Tags' || (owner !== undefined && t.owner !== owner)) continue
    for (const a of server.store.overlapping(t.key, fromMs, toMs)) out.set(`${t.key}/${a.id}`, a.notes ?? '')
  }
  return out
}

function classify(method: string, url: string): string {
  // Writes (the import's): `activities PUT` etc.
  if (method !== 'GET' && /\/activities\b/i.test(url)) return `activities ${method}`
  if (method !== 'GET' && /tagcombinationlist/i.test(url)) return `allowed tags ${method}`
  if (url.includes('updatedAfterTimestamp')) return 'activities (incremental)'
  if (/\/activities\b/i.test(url)) return 'activities (range)'
  if (/tagcombinationlist/i.test(url)) return 'allowed tags'
  if (/\/token\b/.test(url)) return 'sign-in'
  if (/\/timelines\b/i.test(url)) return 'timelines'
  if (/\/api\/?(\?|$)/.test(url)) return method === 'GET' ? 'home' : 'other'
  return 'other'
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each op checks its own arguments; they arrive untyped over IPC
const ops: Record<string, (args: any) => Promise<unknown> | unknown> = {
  async startTimeline(args: { users: number; days: number; startDate: string }) {
    timeline = await startReferenceServer({
      reportDeletions: true,
      data: { users: args.users, days: args.days, startDate: args.startDate, otherTimelines: false },
    })
    // A second listener on the node server sees every request, answered or not.
    timeline.loopback.server.on('request', (req) => {
      noteRequest()
      const kind = classify(req.method ?? 'GET', req.url ?? '')
      timelineRequests[kind] = (timelineRequests[kind] ?? 0) + 1
    })
    countWireBytes(timeline.loopback.server, () => timelineBytes)
    const keys = timeline.credentials.users.map((u) => u.tagsTimelineKey!).filter(Boolean)
    const activities = keys.reduce((n, key) => n + timeline!.store.activities(key).length, 0)
    return {
      url: timeline.url,
      username: timeline.credentials.transfer!.username,
      password: timeline.credentials.transfer!.password,
      timelines: keys.length,
      activities,
      owners: timeline.credentials.users.filter((u) => u.tagsTimelineKey).map((u) => u.username),
    }
  },
  /**
   * The Sheets fake as `startSheetsFake` composes it (store, static token, handler on loopback), kept
   * apart only to reach its node server for the byte counts. `perMinute` sets Google's per-user and
   * per-project quotas (reads and writes alike); default unbounded.
   */
  async startSheets(args: { perMinute?: number } = {}) {
    const n = args.perMinute
    const store = createSheetsStore({
      now: () => Date.now() + sheetsClockOffset,
      quota: n === undefined ? UNBOUNDED : { readPerUser: n, writePerUser: n, readPerProject: 5 * n, writePerProject: 5 * n },
    })
    // Sheets and the read-only Drive metadata: the tool's `google.watch` sign-in.
    store.auth.addStaticToken(STATIC_TOKEN, { scopes: [SPREADSHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] })
    // After every request: the most developer-metadata characters any one sheet holds (Google allows 30,000).
    const server = await serveOnLoopback(
      createSheetsHandler(store, {
        onRequest: (event) => {
          noteRequest()
          metadataPeak = Math.max(metadataPeak, largestSheetMetadata(store))
          sheetsJsonBytesSent += event.bodyBytes ?? 0
        },
      }),
      process.env.BENCH_PLAIN_ANSWERS ? {} : { gzipAnswer: asksForGzip },
    )
    countWireBytes(server.server, () => sheetsBytes)
    sheets = { store, server, rootUrl: server.url, staticToken: STATIC_TOKEN }
    return { rootUrl: sheets.rootUrl, token: sheets.staticToken }
  },
  /** A new spreadsheet; `tabs` names its tabs (default one `Sheet1`, as Google makes it). */
  createSpreadsheet(args: { title: string; tabs?: string[] }) {
    return sheets!.store.createSpreadsheet({ title: args.title, ...(args.tabs ? { sheets: args.tabs.map((title) => ({ title })) } : {}) })
      .spreadsheetId
  },
  /** Moves the fake's clock to the start of its next quota minute. */
  nextQuotaMinute() {
    const now = Date.now() + sheetsClockOffset
    sheetsClockOffset += 60_000 - (now % 60_000)
    return null
  },
  deleteSpreadsheet(args: { spreadsheetId: string }) {
    return sheets!.store.spreadsheets.delete(args.spreadsheetId)
  },
  /**
   * Puts a shaped link (bench/lib/link.ts) in front of the Sheets fake, or sets its rates, and delays every
   * Sheets answer by `latencyMs`; answers the origin to send Sheets requests to through the link.
   */
  async shapeSheetsLink(args: { upMbit: number; downMbit: number; latencyMs: number }) {
    const rates = { upMbit: args.upMbit, downMbit: args.downMbit }
    if (sheetsLink) sheetsLink.rates = rates
    else sheetsLink = await shapedLink(sheets!.rootUrl, rates)
    sheets!.store.faults.setLatency(args.latencyMs)
    return sheetsLink.url
  },
  /** Delay every Timeline answer by `ms` (the reference server's `--latency`). */
  setLatency(args: { ms: number }) {
    timeline!.faults.set({ latencyMs: args.ms })
    return null
  },
  /**
   * Whether a tab shows the server's window: rows whose Key is no longer on the server (stale), activities
   * without a row (missing), Keys on two rows, and rows whose Notes differ from the server's (outdated).
   * With `owner`, the server's window is that user's Tags timeline only.
   */
  check(args: { spreadsheetId: string; tab?: string; from: string; to: string; owner?: string }): Correctness {
    const grid = createManager(sheets!.store).readTab(args.spreadsheetId, args.tab ?? 'Activities', 'FORMATTED_VALUE')
    const header = (grid[0] ?? []).map(String)
    const keyColumn = header.indexOf('Key')
    const notesColumn = header.indexOf('Notes')
    if (keyColumn < 0) throw new Error(`no Key column in ${args.tab ?? 'Activities'}: ${header.join(', ')}`)
    const server = serverWindow(args.from, args.to, args.owner)
    const seen = new Set<string>()
    const result: Correctness = {
      rows: 0,
      stale: 0,
      missing: 0,
      duplicates: 0,
      outdated: 0,
      tabBytes: Buffer.byteLength(JSON.stringify(grid)),
    }
    for (let i = 1; i < grid.length; i++) {
      const key = String(grid[i]?.[keyColumn] ?? '')
      if (!key.includes('/')) continue
      result.rows++
      if (seen.has(key)) result.duplicates++
      seen.add(key)
      const notes = server.get(key)
      if (notes === undefined) result.stale++
      else if (notesColumn >= 0 && String(grid[i]?.[notesColumn] ?? '') !== notes) result.outdated++
    }
    for (const key of server.keys()) if (!seen.has(key)) result.missing++
    return result
  },
  /** Rows below the header of the Activities tab, as the fake holds them. */
  activityRows(args: { spreadsheetId: string }) {
    const sheet = sheets!.store.spreadsheets.get(args.spreadsheetId)?.sheets.find((s) => s.properties.title === 'Activities')
    if (!sheet) return 0
    let last = 0
    sheet.rows.forEach((row, i) => {
      if (row && row.cells.some((cell) => cell !== undefined)) last = i
    })
    return last
  },
  resetStats() {
    sheets?.store.resetStats()
    metadataPeak = 0
    timelineRequests = {}
    sheetsBytes = { toServer: 0, fromServer: 0 }
    sheetsJsonBytesSent = 0
    timelineBytes = { toServer: 0, fromServer: 0 }
    cpuAtReset = process.cpuUsage()
    firstRequestAt = undefined
  },
  stats() {
    const cpu = process.cpuUsage(cpuAtReset)
    return {
      counterpartsCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      firstRequestAt,
      sheets: sheets?.store.stats(),
      timeline: { ...timelineRequests },
      sheetsBytes: { ...sheetsBytes },
      sheetsJsonBytesSent,
      metadata: { peakChars: metadataPeak, residualChars: sheets ? largestSheetMetadata(sheets.store) : 0 },
      timelineBytes: { ...timelineBytes },
    }
  },
  /** Changes a share of the Tags activities as people would: mostly edits, a few new and deleted ones. */
  mutate(args: { share: number; seed: number }) {
    const server = timeline!
    const random = createRandom(args.seed)
    const keys = server.credentials.users.map((u) => u.tagsTimelineKey!).filter(Boolean)
    const all = keys.flatMap((key) => server.store.activities(key).map((a) => ({ key, a })))
    const total = Math.round(all.length * args.share)
    const deletes = Math.round(total * 0.1)
    const creates = Math.round(total * 0.1)
    const updates = total - deletes - creates
    // Distinct activities, drawn without replacement.
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[all[i], all[j]] = [all[j]!, all[i]!]
    }
    let at = 0
    for (let i = 0; i < updates; i++) {
      const { key, a } = all[at++]!
      server.store.updateActivity(key, a.id, {
        tags: ['Globex', 'Migration', 'Cut-over', ':billable'],
        notes: `Edited by the benchmark (${args.seed}/${i})`,
        start: a.start,
        duration: a.duration + 900,
      })
    }
    for (let i = 0; i < deletes; i++) {
      const { key, a } = all[at++]!
      server.store.deleteActivity(key, a.id)
    }
    for (let i = 0; i < creates; i++) {
      // Next to an existing activity, so the new one falls inside the window.
      const { key, a } = all[at++]!
      server.store.createActivity(key, {
        tags: 'Internal, Meetings, Standup',
        start: a.start,
        duration: 600,
        notes: 'Added by the benchmark',
      })
    }
    return { updated: updates, deleted: deletes, created: creates }
  },
  /**
   * A manager's ticks on the Approvals tab (no request counted): Approved and a name on every `every`-th row from
   * `offset` of the given periods; `untick` clears Approved on those rows instead. Returns how many rows it changed.
   */
  approve(args: { spreadsheetId: string; periods: string[]; every: number; offset: number; untick?: boolean }) {
    const manager = createManager(sheets!.store)
    const rows = manager.readTab(args.spreadsheetId, 'Approvals', 'FORMATTED_VALUE')
    const col = (name: string) => rows[0]!.indexOf(name)
    const cell = (name: string, row: number) => `${String.fromCharCode(65 + col(name))}${row}`
    let changed = 0
    rows.slice(1).forEach((cells, i) => {
      if (!args.periods.includes(String(cells[col('Period')])) || (i - args.offset) % args.every !== 0) return
      manager.editCell(args.spreadsheetId, 'Approvals', cell('Approved', i + 2), !args.untick)
      if (!args.untick) manager.editCell(args.spreadsheetId, 'Approvals', cell('Approved by', i + 2), 'Bench Manager')
      changed++
    })
    return changed
  },
  /** A manager's edits typed into the stored cells (no request counted). */
  managerEdits(args: ManagerEditsOptions) {
    return applyManagerEdits(sheets!.store, args)
  },
  usage() {
    return { peakRssMiB: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10 }
  },
  async close() {
    await sheetsLink?.close()
    await timeline?.close()
    await sheets?.server.close()
    setImmediate(() => process.exit(0))
    return null
  },
}

process.on('message', (message: HostRequest) => {
  void (async () => {
    try {
      const op = ops[message.op]
      if (!op) throw new Error(`unknown op ${message.op}`)
      process.send!({ id: message.id, ok: true, result: await op(message.args) })
    } catch (error) {
      process.send!({ id: message.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) })
    }
  })()
})
process.on('disconnect', () => process.exit(0))
