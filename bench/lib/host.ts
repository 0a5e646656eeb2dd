/**
 * The counterparts of a benchmark in a process of their own: the reference
 * Timeline server and the Sheets fake on loopback, driven over the IPC channel
 * of `fork`. Keeping them apart from the process under test makes that
 * process's peak RSS our tool's alone, and lets several short-lived client
 * processes (one per run, as the CLI runs) share one server state.
 */
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import { createRandom } from '../../counterparts/timeline/store.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import type { HostRequest } from './host-client.ts'
import { applyManagerEdits, type ManagerEditsOptions } from './manager-edits.ts'

let timeline: ReferenceServer | undefined
let sheets: SheetsFake | undefined
let timelineRequests: Record<string, number> = {}

/** Quotas far above anything a benchmark sends: never a 429, but every request still counted. */
const UNBOUNDED = { readPerUser: 1e9, writePerUser: 1e9, readPerProject: 1e9, writePerProject: 1e9 }

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

const ops: Record<string, (args: any) => Promise<unknown> | unknown> = {
  async startTimeline(args: { users: number; days: number; startDate: string }) {
    timeline = await startReferenceServer({
      reportDeletions: true,
      data: { users: args.users, days: args.days, startDate: args.startDate, otherTimelines: false },
    })
    // A second listener on the node server sees every request, answered or not.
    timeline.loopback.server.on('request', (req) => {
      const kind = classify(req.method ?? 'GET', req.url ?? '')
      timelineRequests[kind] = (timelineRequests[kind] ?? 0) + 1
    })
    const keys = timeline.credentials.users.map((u) => u.tagsTimelineKey!).filter(Boolean)
    const activities = keys.reduce((n, key) => n + timeline!.store.activities(key).length, 0)
    return {
      url: timeline.url,
      username: timeline.credentials.transfer!.username,
      password: timeline.credentials.transfer!.password,
      timelines: keys.length,
      activities,
    }
  },
  async startSheets() {
    sheets = await startSheetsFake({ quota: UNBOUNDED })
    return { rootUrl: sheets.rootUrl, token: sheets.staticToken }
  },
  createSpreadsheet(args: { title: string }) {
    return sheets!.store.createSpreadsheet({ title: args.title }).spreadsheetId
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
    timelineRequests = {}
  },
  stats() {
    return { sheets: sheets?.store.stats(), timeline: { ...timelineRequests } }
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
      server.store.createActivity(key, { tags: 'Internal, Meetings, Standup', start: a.start, duration: 600, notes: 'Added by the benchmark' })
    }
    return { updated: updates, deleted: deletes, created: creates }
  },
  /** Issue 5: a manager's edits typed into the stored cells (no request counted). */
  managerEdits(args: ManagerEditsOptions) {
    return applyManagerEdits(sheets!.store, args)
  },
  usage() {
    return { peakRssMiB: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10 }
  },
  async close() {
    await timeline?.close()
    await sheets?.close()
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
