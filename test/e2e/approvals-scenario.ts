/**
 * One fixed approvals story as data, for the kill tests of taking an approval, reopening it and
 * `restore-approved`: a workbook target with weekly approvals, a reference server seeded the same way every
 * time, and four stages, each a run a kill can interrupt:
 *
 * - `approve`: the Approvals rows are laid out, a manager ticks alice's 2026-W45 and types a name; a sync
 *   takes the approval.
 * - `reopen`: from the approved week, the manager unticks it, edits a row in it and ticks a Delete there; a
 *   sync reopens the week and sends both.
 * - `changed`: from the approved week, the server retags, deletes and adds in it; a sync keeps the changes in
 *   the record and says so on the rows.
 * - `restore`: from there, `restore-approved` puts the approved values back; a sync follows.
 *
 * `prepareStages` makes each stage's starting files once (the previous stage's uninterrupted run); every case
 * starts from a copy of them with a fresh server from the same seed, carrying the stage's server changes.
 * `observe` reads what a person would judge, ids replaced by what the server holds under them: the server,
 * every tab but the Sync log, and the record with its runs left out.
 */
import { cp, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import ExcelJS from 'exceljs'
import { expect } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { parseBound } from '../../counterparts/timeline/time.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { APPROVALS_FILE } from '../../src/state/approvals-store.ts'
import { unfinishedJournals } from '../../src/state/journal.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { runCli, tempFolder, writeConfig, type CliRun } from './cli.ts'

export type Stage = 'approve' | 'reopen' | 'changed' | 'restore'

const timeZone = 'Europe/Berlin'
const SEED = { users: 2, days: 10, startDate: '2026-11-02', timeZones: [timeZone], otherTimelines: false, seed: 42 }
const TARGET = 'team'
const WEEK = '2026-W45'
const APPROVER = 'Mia Manager'
/** Each stage's run, an hour after the one before (a Thursday of 2026-W46: the window reaches back to W44). */
const AT: Record<Stage | 'layout', string> = {
  layout: '2026-11-12T10:00:00Z',
  approve: '2026-11-12T11:00:00Z',
  reopen: '2026-11-12T12:00:00Z',
  changed: '2026-11-12T12:00:00Z',
  restore: '2026-11-12T13:00:00Z',
}

/** Midnight in Berlin (CET in November) of a local date, in ms. */
const localMidnight = (date: string) => Date.parse(`${date}T00:00:00+01:00`)

/** The changes the server makes to alice's approved week after approval: one retagged, one deleted, one added. */
function serverChanges(server: ReferenceServer): void {
  const key = server.credentials.users[0]!.tagsTimelineKey!
  const store = server.store
  const inWeek = store.overlapping(key, localMidnight('2026-11-03'), localMidnight('2026-11-07')).sort((a, b) => a.startMs - b.startMs)
  const [retagged, deleted] = [inWeek[0]!, inWeek[1]!]
  store.updateActivity(key, retagged.id, {
    tags: ['Retagged', 'On the server'],
    notes: retagged.notes,
    start: retagged.start,
    duration: retagged.duration,
  })
  store.deleteActivity(key, deleted.id)
  store.createActivity(key, { tags: ['Added', 'Later'], notes: 'added after approval', start: '2026-11-05T18:00:00+01:00', duration: 1800 })
}

/** Which stages' server changes a fresh server carries. */
const CHANGED: Record<Stage, boolean> = { approve: false, reopen: false, changed: true, restore: true }

export interface StageFiles {
  stage: Stage
  /** The folder with the config, the workbook and the state a case copies. */
  folder: string
  /** The server URL the state was made against (cursor links name it). */
  url: string
}

function configOf(server: ReferenceServer) {
  return {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    targets: [
      {
        name: TARGET,
        spreadsheet: { kind: 'workbook', path: 'team.xlsx' },
        timeZone,
        window: { days: 14 },
        approvals: { period: 'week' },
      },
    ],
  }
}

async function startServer(changed: boolean): Promise<ReferenceServer> {
  const server = await startReferenceServer({ data: SEED })
  if (changed) serverChanges(server)
  return server
}

export interface Case {
  stage: Stage
  folder: string
  server: ReferenceServer
  /** The stage's run at its time; `crashAt` names a crash point (`name#n`); `env` adds to its environment. */
  run(crashAt?: string, env?: Record<string, string>): Promise<CliRun>
  /**
   * A `sync` at the stage's time: the restore stage's follow-up, and every case's last run. The Approvals tab's
   * Hours and Changed since are as of the last import, which runs before the export finds what changed on the
   * server: a run killed after the record took a change shows it one sync earlier. One more sync settles both.
   */
  sync(): Promise<CliRun>
  close(): Promise<void>
}

/** A fresh server from the seed with the stage's server changes, and a copy of the stage's files. */
export async function startCase(files: StageFiles): Promise<Case> {
  const server = await startServer(CHANGED[files.stage])
  const folder = await tempFolder(`kill-approvals-${files.stage}`)
  await cp(files.folder, folder, { recursive: true })
  // The cursors hold the server's links: the fresh server is the same server on another port.
  const stateFile = path.join(folder, 'state', TARGET, 'state.json')
  const state = (await readFile(stateFile, 'utf8')).split(files.url).join(server.url)
  await writeFile(stateFile, state)
  rememberLinks(server, state)
  const config = await writeConfig(folder, configOf(server))
  const env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
  const at = AT[files.stage]
  const user = server.credentials.users[0]!.username
  const args = files.stage === 'restore' ? ['restore-approved', '--user', user, '--period', WEEK, '--yes', '--json'] : ['sync', '--json']
  const sync = () => runCli(['sync', '--json', '--config', config, '--now', at], env)
  return {
    stage: files.stage,
    folder,
    server,
    run: (crashAt, extra = {}) =>
      runCli([...args, '--config', config, '--now', at], {
        ...env,
        ...(crashAt ? { TIMELINE_SHEETS_CRASH_AT: crashAt } : {}),
        ...extra,
      }),
    sync,
    close: () => server.close(),
  }
}

/** The stage's run uninterrupted, traced: the case (open, for the next stage's files) and the points it passed. */
export async function tracedRun(files: StageFiles): Promise<{ c: Case; trace: string[]; runs: CliRun[] }> {
  const c = await startCase(files)
  const file = path.join(c.folder, 'crash-trace.txt')
  // The stage's own: the folder may hold the trace of the stage it was copied from.
  await rm(file, { force: true })
  const run = await c.run(undefined, { TIMELINE_SHEETS_CRASH_TRACE: file })
  const trace = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean)
  const runs = [run]
  if (files.stage === 'restore') runs.push(await c.sync())
  runs.push(await c.sync())
  return { c, trace, runs }
}

/**
 * The fresh server answers the change-tracking links the state holds as the server that gave them out would: it is
 * the same server from the same seed with the same writes, so their timestamps name the same changes. (It answers
 * only links it gave out; without this each changed timeline would be read whole, which shows no deletion.)
 */
function rememberLinks(server: ReferenceServer, state: string): void {
  for (const [href] of state.matchAll(/https?:[^"]*updatedAfterTimestamp=[^"]*/g)) {
    const url = new URL(href)
    const key = /\/timelines\/([^/]+)\/activities/.exec(url.pathname)?.[1]
    const timeline = key && server.store.timeline(key)
    if (!timeline) continue
    const bound = (name: string) => {
      const parsed = parseBound(url.searchParams.get(name) ?? '', server.store.serverTimeZone)
      if (!parsed.ok) throw new Error(`${href}: ${parsed.problem}`)
      return parsed.ms
    }
    timeline.issuedLinks.add(`${url.searchParams.get('updatedAfterTimestamp')} ${bound('fromTime')} ${bound('toTime')}`)
  }
}

/** The first stage's files: two syncs lay out the tabs and the Approvals rows, then the manager ticks W45. */
export async function prepareApprove(): Promise<StageFiles> {
  const server = await startServer(false)
  try {
    const folder = await tempFolder('kill-approvals-template')
    const config = await writeConfig(folder, configOf(server))
    const env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
    for (let i = 0; i < 2; i++) {
      const run = await runCli(['sync', '--config', config, '--now', AT.layout], env)
      expect(run.code, run.stderr).toBe(0)
    }
    const file = path.join(folder, 'team.xlsx')
    const approvals = await tab(file, 'Approvals')
    const row = rowOf(approvals, server.credentials.users[0]!.username, WEEK)
    const manager = managerEditing(file)
    await manager.editCell('Approvals', row, approvals.header.indexOf('Approved'), true)
    await manager.editCell('Approvals', row, approvals.header.indexOf('Approved by'), APPROVER)
    return { stage: 'approve', folder, url: server.url }
  } finally {
    await server.close()
  }
}

/** The reopen stage's files: the approved week's files, the week unticked, a row in it edited and one Delete ticked. */
export async function prepareReopen(approved: Case): Promise<StageFiles> {
  const folder = await tempFolder('kill-approvals-reopen')
  await cp(approved.folder, folder, { recursive: true })
  const file = path.join(folder, 'team.xlsx')
  const user = approved.server.credentials.users[0]!
  const approvals = await tab(file, 'Approvals')
  const manager = managerEditing(file)
  await manager.editCell('Approvals', rowOf(approvals, user.username, WEEK), approvals.header.indexOf('Approved'), false)
  const activities = await tab(file, 'Activities')
  const col = (name: string) => activities.header.indexOf(name)
  const inWeek = activities.rows
    .map((r, i) => ({ r, row: i + 2 }))
    .filter(({ r }) => String(r[col('Key')]).startsWith(`${user.tagsTimelineKey}/`) && (r[col('Date')] as number) < serialOf('2026-11-09'))
  expect(inWeek.length).toBeGreaterThanOrEqual(2)
  await manager.editCell('Activities', inWeek[0]!.row, col('Notes'), 'corrected after reopening')
  await manager.editCell('Activities', inWeek[1]!.row, col('Delete'), true)
  return { stage: 'reopen', folder, url: approved.server.url }
}

/** A later stage's files: the folder an earlier stage's uninterrupted run left. */
export function filesAfter(c: Case, stage: Stage): StageFiles {
  return { stage, folder: c.folder, url: c.server.url }
}

/** Sheet serial of a local date. */
function serialOf(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000) + 25_569
}

async function tab(file: string, name: string) {
  return (await createWorkbookSpreadsheet({ path: file }).read([name])).tabs[name]!
}

function rowOf(approvals: { header: CellValue[]; rows: CellValue[][] }, user: string, period: string): number {
  const at = approvals.rows.findIndex(
    (r) => r[approvals.header.indexOf('User')] === user && r[approvals.header.indexOf('Period')] === period,
  )
  expect(at, `the Approvals row of ${user}'s ${period}`).toBeGreaterThanOrEqual(0)
  return at + 2
}

interface RecordFile {
  approvals: {
    user: string
    period: { id: string }
    approvedAt: string
    seconds: number
    activities: { key: string; seconds: number }[]
    changes: { key: string }[]
  }[]
  history: { runId: string }[]
}

async function readRecord(folder: string): Promise<RecordFile | undefined> {
  const text = await readFile(path.join(folder, 'state', TARGET, APPROVALS_FILE), 'utf8').catch(() => undefined)
  return text === undefined ? undefined : (JSON.parse(text) as RecordFile)
}

export interface Outcome {
  /** Per Tags timeline (by owner): `start | duration | tags | notes`, sorted. */
  server: Record<string, string[]>
  /** Every tab but the Sync log: its rows' cells by column, Keys as what the server holds under them, sorted. */
  tabs: Record<string, string[]>
  /** approvals.json with its runs left out and its Keys as what the server holds under them. */
  record: unknown
  unfinishedJournals: number
}

/** What a person would judge after the runs. */
export async function observe(c: Case): Promise<Outcome> {
  const store = c.server.store
  const server: Record<string, string[]> = {}
  const identities = new Map<string, string>()
  for (const t of store.timelines().filter((t) => t.kind === 'Tags')) {
    const lines = store.activities(t.key).map((a) => [a.start, a.duration, store.tagsOf(t.key, a).join(', '), a.notes ?? ''].join(' | '))
    server[t.owner] = [...lines].sort()
    store.activities(t.key).forEach((a, i) => identities.set(`${t.key}/${a.id}`, `${t.owner} | ${lines[i]}`))
  }
  const who = (key: unknown) => (typeof key === 'string' && key.includes('/') ? (identities.get(key) ?? `unknown ${key}`) : key)

  const file = path.join(c.folder, 'team.xlsx')
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(file)
  const names = workbook.worksheets.map((w) => w.name).filter((n) => n !== 'Sync log')
  const snapshot = await createWorkbookSpreadsheet({ path: file }).read(names)
  const tabs: Record<string, string[]> = {}
  for (const name of names) {
    const data = snapshot.tabs[name]!
    const key = data.header.indexOf('Key')
    // A row's Status tells how its run went ("Saved", or after a kill "Same change made here and on the server"):
    // not part of the outcome. Other tabs' Status (the Approvals rows') says what is on record, and is.
    const status = key >= 0 ? data.header.indexOf('Status') : -1
    tabs[name] = data.rows
      .map((row) =>
        JSON.stringify(
          data.header.map((h, i) => [h, i === status ? null : normal(i === key ? who(row[i]) : row[i])]).filter(([, v]) => v !== null),
        ),
      )
      .filter((line) => line !== '[]')
      .sort()
  }

  const raw = await readRecord(c.folder)
  const record =
    raw &&
    JSON.parse(JSON.stringify(raw), (name, value) => {
      if (name === 'runId') return undefined
      if (name === 'key') return who(value)
      // A run's clock is --now plus the time it has run: to the second, as a person reads it.
      if (name === 'at' || name === 'approvedAt') return String(value).slice(0, 19)
      return value as unknown
    })
  return {
    server,
    tabs,
    record,
    unfinishedJournals: (await unfinishedJournals(path.join(c.folder, 'state', TARGET, 'journal'))).length,
  }
}

/**
 * What must hold after every run, killed or not: no approval on record without what it held, and no Approvals
 * row showing an approval (ticked, Approved at filled in) the record lacks. After a finished run the record and the tab agree both ways.
 */
export async function expectNothingHalfDone(c: Case, finished: boolean, context: string): Promise<void> {
  const record = await readRecord(c.folder)
  const held = new Set<string>()
  for (const a of record?.approvals ?? []) {
    expect(a.activities.length, `${context}: ${a.user}'s ${a.period.id} on record without what it held`).toBeGreaterThan(0)
    expect(a.seconds, context).toBe(a.activities.reduce((sum, x) => sum + x.seconds, 0))
    held.add(`${a.user} ${a.period.id}`)
  }
  const approvals = await tab(path.join(c.folder, 'team.xlsx'), 'Approvals')
  const col = (name: string) => approvals.header.indexOf(name)
  for (const r of approvals.rows) {
    const id = `${String(r[col('User')])} ${String(r[col('Period')])}`
    // Approved as the Summary counts it: ticked, and Approved at filled in (an untick reopens at once).
    const at = r[col('Approved at')]
    const shown = r[col('Approved')] === true && at !== null && at !== undefined && at !== ''
    if (shown) expect(held.has(id), `${context}: the Approvals row of ${id} tells of an approval the record lacks`).toBe(true)
    else if (finished) expect(held.has(id), `${context}: ${id} is on record but its Approvals row does not say so`).toBe(false)
  }
  if (finished) expect((await unfinishedJournals(path.join(c.folder, 'state', TARGET, 'journal'))).length, context).toBe(0)
}

/** Cell values as a person compares them: numbers to the second, empty text as empty. */
function normal(value: unknown): string | number | boolean | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value === 'number') return Math.round(value * 86_400 * 1000) / 1000
  return value as string | boolean
}

/** What each stage's uninterrupted run must have done, so a baseline that silently did nothing cannot pass. */
export function expectStageApplied(stage: Stage, o: Outcome, user: string): void {
  const record = o.record as { approvals: { user: string; period: { id: string }; changes: unknown[] }[]; history: { event: string }[] }
  const approved = record?.approvals.find((a) => a.user === user && a.period.id === WEEK)
  const alice = o.server[user]!
  if (stage === 'reopen') {
    expect(approved).toBeUndefined()
    expect(record.history.map((h) => h.event)).toEqual(['approved', 'reopened'])
    expect(alice.filter((l) => l.endsWith('| corrected after reopening'))).toHaveLength(1)
  } else {
    expect(approved, `${user}'s ${WEEK} on record`).toBeDefined()
  }
  if (stage === 'approve') expect(record.history.map((h) => h.event)).toEqual(['approved'])
  if (stage === 'changed') expect(approved!.changes, JSON.stringify(approved!.changes)).toHaveLength(3)
  if (stage === 'restore') {
    expect(approved!.changes).toEqual([])
    expect(record.history.map((h) => h.event)).toEqual(['approved', 'restored'])
    expect(alice.some((l) => l.includes('Retagged') || l.includes('added after approval'))).toBe(false)
  }
  expect(o.unfinishedJournals).toBe(0)
}
