/**
 * One fixed sync scenario as data, for the kill and fault tests: a reference
 * server seeded the same way every time, a first export, then a manager's
 * edits in the sheet (edited rows, new rows, ticked Deletes, an Allowed tags
 * line) and changes on the server (an update, a new activity, a deletion).
 *
 * `prepareTemplate` does the export and the sheet edits once; `startCase`
 * gives every case an identical fresh setup: a new server from the same seed
 * with the same server-side changes, a copy of the template's sheet and state.
 * `observe` reads the outcome a person would judge: the server's activities
 * per timeline, the sheet's rows by Key and the keyless rows' values (Status
 * text and the Sync log left out), the allowed tags, and what the state holds.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { expect } from 'vitest'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import type { SpreadsheetData } from '../../counterparts/sheets/sheet-data.ts'
import type { FaultRule } from '../../counterparts/sheets/faults.ts'
import type { FaultSettings } from '../../counterparts/timeline/faults.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { unfinishedJournals } from '../../src/state/journal.ts'
import { loadState, stateLocation } from '../../src/state/target-state.ts'
import { editFile } from '../sheets/workbook-fixture.ts'
import { onlyRun, runCli, tempFolder, writeConfig, type CliRun } from './cli.ts'
import { storedTab } from './google-sheet.ts'

export type Backend = 'workbook' | 'google'

/**
 * A case's vitest budget: it runs the CLI two to four times (runCli kills a run after 120 s), five cases at
 * a time, beside another test file. About 5–20 s here on an idle 2-core machine: this holds at 5× slower.
 */
export const CASE_BUDGET_MS = 300_000
/** A file's setup (the template's export and edits, a baseline sync and what it left): like a case. */
export const SETUP_BUDGET_MS = 300_000

const timeZone = 'Europe/Berlin'
/** The first export. */
export const EXPORT_AT = '2026-11-10T11:00:00Z'
/** The sync: 21 h later, so the look-back re-read (which finds server deletions) is due. */
export const SYNC_AT = '2026-11-11T08:00:00Z'
const SEED = { users: 2, days: 12, startDate: '2026-10-31', timeZones: [timeZone], otherTimelines: false, seed: 42 }
const TOKEN = 'ya29.kill-scenario-static-token'
const TOKEN_ENV = 'E2E_GOOGLE_ACCESS_TOKEN'
const SPREADSHEET_ID = 'kill-scenario-spreadsheet-0001'
const TARGET = 'team'

/** Sheet serial of a local date. */
function serial(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000) + 25_569
}

/** The edits a manager makes after the first export, by row role. */
const MANAGER = {
  /** Per user: rows on these dates (in sheet order) get, in turn: notes, tags, end, start, Delete. */
  editDates: [serial('2026-11-03'), serial('2026-11-06')] as const,
  newRows: (user: string, i: number): Record<string, CellValue> =>
    [
      {
        User: user,
        Date: serial('2026-11-07'),
        Start: 9 / 24,
        End: 10.5 / 24,
        Tags: 'Globex, Migration, Analysis',
        Notes: `kill scenario new ${i}a`,
      },
      {
        User: user,
        Date: '2026-11-08',
        Start: '14:00',
        End: '15:15',
        Tags: 'Acme Corp, Website, Review',
        Labels: ':billable',
        Notes: `0042 kept as text ${i}b`,
      },
    ][i % 2]!,
  allowedTagsLine: ['everyone', 'Globex, Migration, Kill scenario'] as const,
}

/** The changes made on the server after the first export (applied to every fresh server). */
function serverChanges(server: ReferenceServer): void {
  const [alice, bob] = server.credentials.users.map((u) => u.tagsTimelineKey!)
  const store = server.store
  const onDay = (key: string, date: string) => {
    const from = Date.parse(`${date}T00:00:00+01:00`)
    return store.overlapping(key, from, from + 86_400_000).filter((a) => a.startMs >= from)
  }
  const updated = onDay(alice!, '2026-11-05')[0]!
  store.updateActivity(alice!, updated.id, {
    tags: store.tagsOf(alice!, updated),
    notes: 'changed on the server',
    start: updated.start,
    duration: updated.duration,
  })
  const doomed = onDay(bob!, '2026-11-10')[0]!
  store.deleteActivity(bob!, doomed.id)
  store.createActivity(bob!, {
    tags: 'Initech, Support, Tickets',
    notes: 'new on the server',
    start: '2026-11-10T16:00:00+01:00',
    duration: 2700,
  })
}

export interface Template {
  folder: string
  backend: Backend
  /** The server URL the template's state was made against (cursor links name it). */
  url: string
  /** Google: the spreadsheet as the fake held it after the export and the edits. */
  spreadsheet?: SpreadsheetData
  /** Rows whose values the manager changed, by Key (for the report). */
  edited: string[]
}

function baseConfig(server: ReferenceServer, backend: Backend, fake?: SheetsFake, googleExtra: Record<string, unknown> = {}) {
  return {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    ...(backend === 'google'
      ? { google: { auth: { mode: 'static-token', tokenEnv: TOKEN_ENV }, rootUrl: fake!.rootUrl, quotaWindowMs: 500, ...googleExtra } }
      : {}),
    stateDir: 'state',
    // A short first wait before a repeat: the fault cases' many 5xx answers are repeated without the real back-off.
    timeouts: { retryDelayMs: 10 },
    targets: [
      {
        name: TARGET,
        spreadsheet: backend === 'google' ? { kind: 'google', spreadsheetId: SPREADSHEET_ID } : { kind: 'workbook', path: 'team.xlsx' },
        timeZone,
        window: { days: 10, lookBackDays: 3 },
      },
    ],
  }
}

function envFor(server: ReferenceServer): Record<string, string> {
  return { TIMELINE_PASSWORD: server.credentials.transfer!.password, [TOKEN_ENV]: TOKEN }
}

/** Exports once from a fresh server and applies the manager's edits; every case starts from a copy. */
export async function prepareTemplate(backend: Backend): Promise<Template> {
  const server = await startReferenceServer({ data: SEED })
  const fake = backend === 'google' ? await startSheetsFake({ quota: false, staticToken: TOKEN }) : undefined
  try {
    if (fake) fake.store.createSpreadsheet({ spreadsheetId: SPREADSHEET_ID, title: 'Team time', timeZone })
    const folder = await tempFolder(`kill-template-${backend}`)
    const config = await writeConfig(folder, baseConfig(server, backend, fake))
    const exported = await runCli(['export', '--config', config, '--now', EXPORT_AT], envFor(server))
    expect(exported.code, exported.stderr).toBe(0)

    const users = server.credentials.users.map((u) => u.username)
    const edited: string[] = []
    const plan = (header: string[], rows: CellValue[][]) => {
      const col = (name: string) => header.indexOf(name)
      const cells: { row: number; column: string; value: CellValue }[] = []
      for (const user of users) {
        const mine = rows
          .map((r, i) => ({ r, row: i + 2 }))
          .filter(({ r }) => r[col('User')] === user && MANAGER.editDates.includes(r[col('Date')] as never))
        expect(mine.length, `rows of ${user} on the edit dates`).toBeGreaterThanOrEqual(5)
        const [notes, tags, end, start, ticked] = mine
        cells.push({ row: notes!.row, column: 'Notes', value: `edited by the manager for ${user}` })
        cells.push({ row: tags!.row, column: 'Tags', value: 'Internal, Training, Reading' })
        cells.push({ row: end!.row, column: 'End', value: ((end!.r[col('End')] as number) + 0.25 / 24) % 1 })
        cells.push({ row: start!.row, column: 'Start', value: (start!.r[col('Start')] as number) + 5 / 1440 })
        cells.push({ row: ticked!.row, column: 'Delete', value: true })
        edited.push(...[notes, tags, end, start, ticked].map((x) => x!.r[col('Key')] as string))
      }
      let next = rows.length + 2
      users.forEach((user) => {
        for (let i = 0; i < 2; i++) {
          for (const [column, value] of Object.entries(MANAGER.newRows(user, i))) cells.push({ row: next, column, value })
          next++
        }
      })
      return { cells, col }
    }

    if (backend === 'workbook') {
      const file = path.join(folder, 'team.xlsx')
      const tab = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
      const { cells, col } = plan(tab.header as string[], tab.rows as CellValue[][])
      await editFile(file, 'Activities', (sheet) => {
        for (const c of cells) sheet.getCell(c.row, col(c.column) + 1).value = c.value as never
      })
      await editFile(file, 'Allowed tags', (sheet) => {
        sheet.addRow([...MANAGER.allowedTagsLine])
      })
    } else {
      const manager = createManager(fake!.store)
      const tab = storedTab(fake!.store, SPREADSHEET_ID, 'Activities')
      const rows = tab.rows.map((r) => r.map((c) => c.value))
      const { cells, col } = plan(tab.header as string[], rows)
      for (const c of cells) {
        manager.editCell(
          SPREADSHEET_ID,
          'Activities',
          `${String.fromCharCode(65 + col(c.column))}${c.row}`,
          c.value as string | number | boolean,
        )
      }
      const allowed = storedTab(fake!.store, SPREADSHEET_ID, 'Allowed tags')
      manager.pasteBlock(SPREADSHEET_ID, 'Allowed tags', `A${allowed.rows.length + 2}`, [[...MANAGER.allowedTagsLine]])
    }
    // The spreadsheet's data without its clock (a function: the fake that restores it brings its own).
    const spreadsheet = fake ? cloneSpreadsheet(fake.store.spreadsheets.get(SPREADSHEET_ID)!) : undefined
    return { folder, backend, url: server.url, edited, ...(spreadsheet ? { spreadsheet } : {}) }
  } finally {
    await server.close()
    await fake?.close()
  }
}

export interface CaseFaults {
  timeline?: FaultSettings
  sheets?: FaultRule[]
  /** Seeds the dice of both services' faults. @default 11 */
  seed?: number
}

export interface Case {
  folder: string
  server: ReferenceServer
  fake: SheetsFake | undefined
  /** Runs `sync` at SYNC_AT; `crashAt` names a crash point (`name#n`); `env` adds to the run's environment. */
  sync(crashAt?: string, extraArgs?: string[], env?: Record<string, string>): Promise<CliRun>
  close(): Promise<void>
}

/** A fresh server from the same seed with the same server-side changes, and a copy of the template. */
export async function startCase(template: Template, faults: CaseFaults = {}): Promise<Case> {
  const server = await startReferenceServer({ data: SEED, faultSeed: faults.seed ?? 11 })
  serverChanges(server)
  const fake =
    template.backend === 'google' ? await startSheetsFake({ quota: false, staticToken: TOKEN, seed: faults.seed ?? 11 }) : undefined
  if (fake) fake.store.spreadsheets.set(SPREADSHEET_ID, { ...cloneSpreadsheet(template.spreadsheet!), clock: fake.store.now })
  const folder = await tempFolder(`kill-case-${template.backend}`)
  await cp(template.folder, folder, { recursive: true })
  // The cursors hold the server's links: the fresh server is the same server on another port.
  const stateFile = path.join(folder, 'state', TARGET, 'state.json')
  await writeFile(stateFile, (await readFile(stateFile, 'utf8')).split(template.url).join(server.url))
  const config = await writeConfig(folder, baseConfig(server, template.backend, fake))
  // Faults start after the setup, so setup requests never draw from the dice.
  if (faults.timeline) server.faults.set(faults.timeline)
  for (const rule of faults.sheets ?? []) fake!.store.faults.inject(rule)
  return {
    folder,
    server,
    fake,
    sync: (crashAt, extraArgs = [], env = {}) =>
      runCli(['sync', '--config', config, '--now', SYNC_AT, '--json', ...extraArgs], {
        ...envFor(server),
        ...(crashAt ? { TIMELINE_SHEETS_CRASH_AT: crashAt } : {}),
        ...env,
      }),
    close: async () => {
      await server.close()
      await fake?.close()
    },
  }
}

export interface Outcome {
  /** Per Tags timeline (by owner): `id | start | duration | tags | notes`, by id. */
  server: Record<string, string[]>
  allowedTags: string[]
  /** Keyed rows: Key → the row's cells (Status left out), sorted by Key. */
  keyed: [string, string][]
  /** Keyless, non-empty rows' cells (Status left out), sorted. */
  keyless: string[]
  allowedTagsTab: string[]
  /** The state's base fingerprints. */
  base: Record<string, string>
  allowedTagsFingerprint: string | undefined
  /** Journals of runs that never reached their end. */
  unfinishedJournals: number
  /** Key → `owner | start | duration | tags | notes` of the activity the server holds under it. */
  identities: Record<string, string>
}

/** What a person would judge after the runs. */
export async function observe(c: Case): Promise<Outcome> {
  const store = c.server.store
  const server: Record<string, string[]> = {}
  const identities: Record<string, string> = {}
  for (const t of store.timelines().filter((t) => t.kind === 'Tags')) {
    server[t.owner] = store
      .activities(t.key)
      .map((a) => [a.id, a.start, a.duration, store.tagsOf(t.key, a).join(', '), a.notes ?? ''].join(' | '))
      .sort()
    for (const a of store.activities(t.key))
      identities[`${t.key}/${a.id}`] = [t.owner, a.start, a.duration, store.tagsOf(t.key, a).join(', '), a.notes ?? ''].join(' | ')
  }
  let header: CellValue[]
  let rows: CellValue[][]
  let allowedRows: CellValue[][]
  if (c.fake) {
    const tab = storedTab(c.fake.store, SPREADSHEET_ID, 'Activities')
    header = tab.header
    rows = tab.rows.map((r) => r.map((x) => x.value))
    allowedRows = storedTab(c.fake.store, SPREADSHEET_ID, 'Allowed tags').rows.map((r) => r.map((x) => x.value))
  } else {
    const snapshot = await createWorkbookSpreadsheet({ path: path.join(c.folder, 'team.xlsx') }).read(['Activities', 'Allowed tags'])
    header = snapshot.tabs['Activities']!.header
    rows = snapshot.tabs['Activities']!.rows as CellValue[][]
    allowedRows = snapshot.tabs['Allowed tags']!.rows as CellValue[][]
  }
  const keyIndex = header.indexOf('Key')
  const statusIndex = header.indexOf('Status')
  const keyed: [string, string][] = []
  const keyless: string[] = []
  for (const row of rows) {
    const cells = header
      .map((name, i) => (i === statusIndex ? undefined : [name, normal(row[i])]))
      .filter((x) => x !== undefined && x[1] !== null)
    if (cells.length === 0) continue
    const key = row[keyIndex]
    if (typeof key === 'string' && key.trim()) keyed.push([key.trim(), JSON.stringify(cells)])
    else keyless.push(JSON.stringify(cells))
  }
  keyed.sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]))
  keyless.sort()
  const stateDir = path.join(c.folder, 'state', TARGET)
  // Through the tool's own loader: the bases live in a file of their own that state.json names.
  const { state } = await loadState(stateLocation(path.join(c.folder, 'state'), TARGET), TARGET)
  return {
    server,
    allowedTags: store.allowedTagsListing(),
    keyed,
    keyless,
    allowedTagsTab: allowedRows.filter((r) => r.some((x) => normal(x) !== null)).map((r) => JSON.stringify(r.map(normal))),
    base: Object.fromEntries(state.base),
    allowedTagsFingerprint: state.allowedTagsFingerprint,
    unfinishedJournals: (await unfinishedJournals(path.join(stateDir, 'journal'))).length,
    identities,
  }
}

/**
 * The outcome with entity ids replaced by what the server holds under them:
 * a POST repeated in a later run (after a lost connection) gets another id
 * than in a run without faults, and that is no difference a person would see.
 * A Key the server does not know stays visible as `unknown <key>`.
 */
export function withoutIds(o: Outcome): unknown {
  const who = (key: string) => o.identities[key] ?? `unknown ${key}`
  return {
    server: Object.fromEntries(
      Object.entries(o.server).map(([owner, lines]) => [owner, lines.map((l) => l.replace(/^\d+ \| /, '')).sort()]),
    ),
    allowedTags: o.allowedTags,
    keyed: o.keyed
      .map(([key, cells]) => [who(key), cells.split(JSON.stringify(key)).join(JSON.stringify(who(key)))])
      .sort((a, b) => String(a).localeCompare(String(b))),
    keyless: o.keyless,
    allowedTagsTab: o.allowedTagsTab,
    base: Object.entries(o.base)
      .map(([key, fp]) => `${who(key)} → ${fp}`)
      .sort(),
    allowedTagsFingerprint: o.allowedTagsFingerprint,
    unfinishedJournals: o.unfinishedJournals,
  }
}

/** Cell values as a person compares them: numbers to the second, empty text as empty. */
function normal(value: CellValue | undefined): string | number | boolean | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value === 'number') return Math.round(value * 86_400 * 1000) / 1000
  return value as string | boolean
}

/** Journal files in the case's state folder (for the report of a failing case). */
export async function journalText(c: Case): Promise<string> {
  const dir = path.join(c.folder, 'state', TARGET, 'journal')
  const names = await readdir(dir).catch(() => [] as string[])
  const parts = await Promise.all(names.sort().map(async (n) => `--- ${n}\n${await readFile(path.join(dir, n), 'utf8')}`))
  return parts.join('\n')
}

/** The scenario's own effects, so a baseline that silently did nothing cannot pass as the reference. */
export function expectScenarioApplied(o: Outcome, template: Template): void {
  const all = Object.values(o.server).flat()
  const users = Object.keys(o.server)
  expect(users).toHaveLength(2)
  for (const user of users) {
    expect(o.server[user]!.filter((line) => line.endsWith(`| edited by the manager for ${user}`))).toHaveLength(1)
    for (const note of ['kill scenario new 0a', '0042 kept as text 1b'])
      expect(o.server[user]!.filter((line) => line.endsWith(`| ${note}`))).toHaveLength(1)
  }
  expect(all.filter((line) => line.endsWith('| changed on the server'))).toHaveLength(1)
  expect(all.filter((line) => line.endsWith('| new on the server'))).toHaveLength(1)
  expect(o.allowedTags).toContain('Globex, Migration, Kill scenario')
  // Ticked rows are gone from the server and the sheet; every edited row that stays has its Key.
  const keys = new Set(o.keyed.map(([k]) => k))
  expect(keys.size).toBe(o.keyed.length)
  const ticked = template.edited.filter((_, i) => i % 5 === 4)
  for (const key of template.edited) expect(keys.has(key)).toBe(!ticked.includes(key))
  expect(o.keyless).toEqual([])
  expect(o.keyed.filter(([, cells]) => cells.includes('new on the server'))).toHaveLength(1)
  expect(o.unfinishedJournals).toBe(0)
}

/** How a kill case ended, for messages. */
async function explain(c: Case, runs: CliRun[]): Promise<string> {
  const tail = (t: string) => t.split('\n').slice(-15).join('\n')
  return [...runs.map((r, i) => `run ${i + 1}: exit ${r.code}\n${tail(r.stderr)}`), await journalText(c)].join('\n')
}

export interface KillCase {
  /** Crash points, one per run, in order; then a clean run. */
  kills: string[]
  /** Run sync once more at the end: it must find nothing to do. */
  check?: boolean
}

/** The outcome of an uninterrupted sync of the scenario: what every interrupted or faulty one must end in. */
export async function uninterruptedOutcome(template: Template): Promise<Outcome> {
  return (await uninterruptedRun(template)).outcome
}

/**
 * An uninterrupted sync of the scenario with the crash-point trace on: its
 * outcome, and the crash points it passed in order (one line per pass), which
 * the kill tests hold their cases against.
 */
export async function uninterruptedRun(template: Template): Promise<{ outcome: Outcome; trace: string[]; run: CliRun }> {
  const c = await startCase(template)
  try {
    const run = await tracedSync(c)
    expect(run.run.code, run.run.stderr).toBe(0)
    const outcome = await observe(c)
    expectScenarioApplied(outcome, template)
    return { outcome, trace: run.trace, run: run.run }
  } finally {
    await c.close()
  }
}

/** One `sync` of the case with TIMELINE_SHEETS_CRASH_TRACE on: the run and the crash points it passed. */
export async function tracedSync(c: Case): Promise<{ run: CliRun; trace: string[] }> {
  const file = path.join(c.folder, 'crash-trace.txt')
  const run = await c.sync(undefined, [], { TIMELINE_SHEETS_CRASH_TRACE: file })
  const text = await readFile(file, 'utf8').catch(() => '')
  return { run, trace: text.split('\n').filter(Boolean) }
}

/** Kills `sync` at each point in turn, runs it clean, and compares with the uninterrupted run. */
export async function runKillCase(template: Template, baseline: Outcome, kase: KillCase): Promise<void> {
  const c = await startCase(template)
  const runs: CliRun[] = []
  try {
    for (const point of kase.kills) {
      const run = await c.sync(point)
      runs.push(run)
      expect(run.code, `${point} was never reached:\n${await explain(c, runs)}`).toBe(137)
      expect(run.stderr).toContain(`crash point ${point}:`)
    }
    const clean = await c.sync()
    runs.push(clean)
    expect(clean.code, `the run after ${kase.kills.join(' → ')} failed:\n${await explain(c, runs)}`).toBe(0)
    expect(await observe(c), `after ${kase.kills.join(' → ')}:\n${await explain(c, runs)}`).toEqual(baseline)
    if (kase.check) {
      const again = await c.sync()
      runs.push(again)
      expect(again.code, await explain(c, runs)).toBe(0)
      const summary = onlyRun(again) as { imported: { counts: Record<string, number> }; exported: { counts: Record<string, number> } }
      expect(summary.imported.counts).toMatchObject({ created: 0, updated: 0, deleted: 0, conflicts: 0, invalid: 0, failed: 0 })
      expect(summary.exported.counts).toMatchObject({ created: 0, updated: 0, deleted: 0, conflicts: 0, invalid: 0 })
      expect(await observe(c)).toEqual(baseline)
    }
  } finally {
    await c.close()
  }
}

/** A deep copy of a fake spreadsheet's data; its clock is left out (the store restoring it supplies one). */
function cloneSpreadsheet<T extends { clock: unknown }>(data: T): T {
  const { clock: _clock, ...rest } = data
  return { ...structuredClone(rest), clock: undefined } as unknown as T
}
