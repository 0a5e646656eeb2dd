/**
 * End to end: the CLI as a subprocess, the reference Timeline server and the
 * Google Sheets API fake both on loopback, reached through the real
 * googleapis client. One story, step by step, as an operator and a manager
 * live it; the fake's request statistics keep the request economy honest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManager, type Manager } from '../../counterparts/sheets/manager.ts'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import type { SheetsStats } from '../../counterparts/sheets/store.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { onlyRun, runCli, tempFolder, writeConfig, type CliRun } from './cli.ts'
import { storedTab } from './google-sheet.ts'

const timeZone = 'Europe/Berlin'
const NOW = '2026-11-10T11:00:00Z'
const LATER = '2026-11-11T08:00:00Z' // 21 h later: the look-back re-read is due
const LATEST = '2026-11-12T06:00:00Z' // 22 h after that: due again
const TOKEN = 'ya29.e2e-google-static-token-6b1f0c'
const TOKEN_ENV = 'E2E_GOOGLE_ACCESS_TOKEN'
/** Sheet serial of 2026-10-25, the night the clocks go back in Berlin. */
const DST_DAY = 46320

let server: ReferenceServer
let fake: SheetsFake
let manager: Manager
let spreadsheetId: string
let folder: string
let configFile: string
let env: Record<string, string>
let timelines: string[]
const texts = { formula: '=IMPORTDATA("https://example.com/x.csv")', zeros: '0042', phone: '+49 30 1234567' }
const textKeys: Record<keyof typeof texts, string> = { formula: '', zeros: '', phone: '' }
/** Sheets requests per step, as the fake counted them (printed at the end for the record). */
const measured: Record<string, SheetsStats> = {}

beforeAll(async () => {
  server = await startReferenceServer({
    data: { users: 3, days: 25, startDate: '2026-10-17', timeZones: [timeZone], otherTimelines: false },
  })
  // Quota off: the fake's quota window is a real minute, and several runs share
  // one; 429s come from injected faults only, so every count is deterministic.
  fake = await startSheetsFake({ quota: false, staticToken: TOKEN })
  manager = createManager(fake.store)
  spreadsheetId = manager.createSpreadsheet({ title: 'Team time' })
  folder = await tempFolder('google')
  timelines = server.credentials.users.map((u) => u.tagsTimelineKey!).filter(Boolean)
  const [first, second] = timelines
  // Both 02:30s of the night the clocks go back, and one across midnight.
  server.store.createActivity(first!, { tags: 'Internal, Admin, Email', start: '2026-10-25T02:30:00+02:00', duration: 1800 })
  server.store.createActivity(first!, { tags: 'Internal, Admin, Email', start: '2026-10-25T02:30:00+01:00', duration: 1800 })
  server.store.createActivity(first!, { tags: 'Initech, Support, On-call', start: '2026-11-02T23:30:00+01:00', duration: 5400 })
  // Text Google would turn into a formula or a number if typed.
  const formula = server.store.createActivity(first!, {
    tags: 'Acme Corp, Website, Build',
    notes: texts.formula,
    start: '2026-11-03T10:00:00+01:00',
    duration: 900,
  })
  const zeros = server.store.createActivity(second!, {
    tags: texts.zeros,
    notes: texts.zeros,
    start: '2026-11-04T10:00:00+01:00',
    duration: 900,
  })
  const phone = server.store.createActivity(second!, {
    tags: 'Globex, Support, Call',
    notes: texts.phone,
    start: '2026-11-04T11:00:00+01:00',
    duration: 900,
  })
  textKeys.formula = `${first}/${formula.id}`
  textKeys.zeros = `${second}/${zeros.id}`
  textKeys.phone = `${second}/${phone.id}`
  configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    google: { auth: { mode: 'static-token', tokenEnv: TOKEN_ENV }, rootUrl: fake.rootUrl, quotaWindowMs: 2000 },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, timeZone, window: { days: 21, lookBackDays: 7 } }],
  })
  env = { TIMELINE_PASSWORD: server.credentials.transfer!.password, [TOKEN_ENV]: TOKEN }
})

afterAll(async () => {
  if (Object.keys(measured).length > 0) {
    const lines = Object.entries(measured).map(
      ([step, s]) =>
        `  ${step}: total ${s.total} (reads ${s.reads}, writes ${s.writes}) ${JSON.stringify(s.byMethod)}${s.faultsInjected ? `, faults ${s.faultsInjected}` : ''}`,
    )
    console.log(`Sheets requests per step:\n${lines.join('\n')}`)
  }
  await server?.close()
  await fake?.close()
})

function activities() {
  const tab = storedTab(fake.store, spreadsheetId, 'Activities')
  const keys = tab.column('Key').filter((k): k is string => typeof k === 'string')
  return { ...tab, keys }
}

/** Rows stay once exported, so the sheet covers every window so far: from the first window's start to `to`. */
function expectedKeys(to = '2026-11-11T00:00:00+01:00'): string[] {
  const from = Date.parse('2026-10-21T00:00:00+02:00')
  const end = Date.parse(to)
  return timelines.flatMap((key) => server.store.overlapping(key, from, end).map((a) => `${key}/${a.id}`)).sort()
}

/** Runs an export and records the Sheets requests the fake saw for it. */
async function exportRun(
  step: string,
  now: string,
  extraEnv: Record<string, string> = {},
  args: string[] = ['--json'],
): Promise<{ run: CliRun; stats: SheetsStats; ms: number }> {
  fake.store.resetStats()
  const started = Date.now()
  const run = await runCli(['export', '--config', configFile, '--now', now, ...args], { ...env, ...extraEnv })
  const ms = Date.now() - started
  const stats = fake.store.stats()
  measured[step] = stats
  return { run, stats, ms }
}

function expectNoSecret(run: CliRun) {
  expect(run.stdout).not.toContain(TOKEN)
  expect(run.stderr).not.toContain(TOKEN)
  expect(run.stdout).not.toContain(server.credentials.transfer!.password)
  expect(run.stderr).not.toContain(server.credentials.transfer!.password)
}

describe('export into a Google spreadsheet (Sheets fake), end to end', () => {
  it('first export: every activity of the window lands once, with the layout a manager needs', async () => {
    const { run, stats } = await exportRun('1 first export', NOW)
    expect(run.code, run.stderr).toBe(0)
    expectNoSecret(run)
    const summary = onlyRun(run)
    expect(summary.result).toBe('success')
    expect(summary.layoutChanged).toBe(true)
    const { keys, sheet, col } = activities()
    expect([...keys].sort()).toEqual(expectedKeys())
    expect(new Set(keys).size).toBe(keys.length)
    expect(summary.counts.created).toBe(keys.length)
    expect(keys.length).toBeGreaterThan(100)
    // What the CLI counted is what the fake received.
    expect(summary.sheetsRequests.reads + summary.sheetsRequests.writes).toBe(stats.total)

    // Layout: frozen header, hidden Key and Base, protected header and tool columns.
    expect(sheet.properties.gridProperties.frozenRowCount).toBe(1)
    for (const name of ['Key', 'Base']) expect(sheet.columns[col(name)]?.props?.hiddenByUser, name).toBe(true)
    for (const name of ['User', 'Tags', 'Notes']) expect(sheet.columns[col(name)]?.props?.hiddenByUser ?? false, name).toBe(false)
    const sheetId = sheet.properties.sheetId
    const header = sheet.protectedRanges.find(
      (p) => (p.range.sheetId ?? 0) === sheetId && p.range.startRowIndex === 0 && p.range.endRowIndex === 1,
    )
    expect(header, 'protected header row').toBeDefined()
    for (const name of ['Key', 'Base']) {
      const i = col(name)
      expect(
        sheet.protectedRanges.some(
          (p) => p.range.startColumnIndex === i && p.range.endColumnIndex === i + 1 && p.range.startRowIndex === undefined,
        ),
        `protected ${name} column`,
      ).toBe(true)
    }
    const ss = fake.store.spreadsheets.get(spreadsheetId)!
    expect(ss.properties.timeZone).toBe(timeZone)
    expect(ss.sheets.map((s) => s.properties.title)).toEqual(expect.arrayContaining(['Activities', 'Allowed tags', 'Sync log']))
    expect(storedTab(fake.store, spreadsheetId, 'Sync log').rows).toHaveLength(1)
  })

  it('text that looks like a formula or a number is stored as text; dates and times as numbers', () => {
    const { rows, col } = activities()
    const rowOf = (key: string) => rows.find((r) => r[col('Key')]?.value === key)!
    const formula = rowOf(textKeys.formula)[col('Notes')]
    expect(formula).toEqual({ kind: 'text', value: texts.formula })
    expect(rowOf(textKeys.zeros)[col('Notes')]).toEqual({ kind: 'text', value: texts.zeros })
    expect(rowOf(textKeys.zeros)[col('Tags')]).toEqual({ kind: 'text', value: texts.zeros })
    expect(rowOf(textKeys.phone)[col('Notes')]).toEqual({ kind: 'text', value: texts.phone })
    // As a person sees it: 0042 keeps its zeros, the formula is not evaluated.
    const shown = manager.readTab(spreadsheetId, 'Activities')
    const keyCol = col('Key')
    expect(shown.find((r) => r[keyCol] === textKeys.zeros)?.[col('Notes')]).toBe('0042')
    expect(shown.find((r) => r[keyCol] === textKeys.formula)?.[col('Notes')]).toBe(texts.formula)

    const keyed = rows.filter((r) => typeof r[col('Key')]?.value === 'string')
    for (const r of keyed) {
      for (const name of ['Date', 'Start', 'End']) expect(r[col(name)]?.kind, `${name} of ${r[col('Key')]?.value}`).toBe('number')
      expect(r[col('Duration')]?.kind).toMatch(/^(number|formula)$/)
      for (const name of ['User', 'Key', 'Base']) expect(r[col(name)]?.kind).toBe('text')
    }
    // Both 02:30s of the DST night are there, as the same local time.
    const dstNight = keyed.filter(
      (r) => r[col('Date')]?.value === DST_DAY && Math.abs((r[col('Start')]?.value as number) - 2.5 / 24) < 1e-9,
    )
    expect(dstNight).toHaveLength(2)
    const overnight = keyed.find((r) => r[col('Date')]?.value === 46328 && Math.abs((r[col('Start')]?.value as number) - 23.5 / 24) < 1e-9)
    expect(overnight?.[col('End')]?.value).toBeCloseTo(1 / 24, 9)
  })

  let unchangedRequests = 0
  let rowsAtStep2 = 0
  it('a second export at once with no changes costs at most 3 Sheets requests', async () => {
    const before = activities()
    const { run, stats } = await exportRun('2 no-change export', NOW)
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    expect(summary.timelines.every((t: { mode: string }) => t.mode === 'incremental')).toBe(true)
    // Measured: 1 values.batchGet (the read) + 1 spreadsheets.batchUpdate (the Sync log row, inserted after the
    // last row with its formats: rows are added by insertDimension + updateCells, never written over a position).
    expect(stats.total).toBeLessThanOrEqual(3)
    expect(stats.total).toBe(2)
    expect(stats.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateSpreadsheet: 1 })
    expect(summary.sheetsRequests).toEqual({ reads: stats.reads, writes: stats.writes })
    unchangedRequests = stats.total
    rowsAtStep2 = before.keys.length
    const after = activities()
    expect(after.keys).toEqual(before.keys)
    expect(after.rows.map((r) => r.map((c) => c.value))).toEqual(before.rows.map((r) => r.map((c) => c.value)))
  })

  it('after the manager sorted the tab and inserted a blank row, server changes land in place by Key', async () => {
    const tags = activities().col('Tags')
    manager.sortTab(spreadsheetId, 'Activities', tags)
    manager.insertRows(spreadsheetId, 'Activities', 5)
    const sorted = activities()
    expect(sorted.rows[3]).toEqual([]) // sheet row 5 is blank

    const [first, second] = timelines
    const created = server.store.createActivity(first!, {
      tags: 'Globex, Migration, Analysis',
      notes: 'new on the server',
      start: '2026-11-10T09:00:00+01:00',
      duration: 3600,
    })
    const victim = server.store.overlapping(second!, Date.parse('2026-11-05T00:00:00Z'), Date.parse('2026-11-06T00:00:00Z'))[0]!
    server.store.updateActivity(second!, victim.id, {
      tags: 'Initech, Support, Tickets',
      notes: 'changed on the server',
      start: victim.start,
      duration: victim.duration,
    })
    // The server does not list deletions on incremental reads: only the look-back re-read can see this one.
    const doomed = server.store.overlapping(first!, Date.parse('2026-11-06T00:00:00Z'), Date.parse('2026-11-07T00:00:00Z'))[0]!
    server.store.deleteActivity(first!, doomed.id)

    const { run, stats } = await exportRun('3 incremental export', LATER)
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.counts).toMatchObject({ created: 1, updated: 1, deleted: 1 })
    expect(summary.timelines.some((t: { lookBack: boolean }) => t.lookBack)).toBe(true)

    const after = activities()
    expect(new Set(after.keys).size).toBe(after.keys.length)
    expect([...after.keys].sort()).toEqual(expectedKeys('2026-11-12T00:00:00+01:00'))
    // Same order as the manager left it, minus the deleted row, plus the new one at the end.
    const victimKey = `${second}/${victim.id}`
    const doomedKey = `${first}/${doomed.id}`
    const createdKey = `${first}/${created.id}`
    expect(sorted.keys).toContain(victimKey)
    expect(sorted.keys).toContain(doomedKey)
    expect(after.keys).toEqual([...sorted.keys.filter((k) => k !== doomedKey), createdKey])
    const updated = after.rows.find((r) => r[after.col('Key')]?.value === victimKey)!
    expect(updated[after.col('Tags')]?.value).toBe('Initech, Support, Tickets')
    expect(updated[after.col('Notes')]?.value).toBe('changed on the server')
    // Every other row is exactly as before (the blank row included); the removed one is emptied where it was
    // (a positional row removal could hit another row if a person sorted at that moment: decisions/0003).
    const keyOf = (r: (typeof after.rows)[number]) => r[after.col('Key')]?.value
    const untouched = (rows: typeof after.rows) =>
      rows.filter((r) => ![victimKey, createdKey].includes(keyOf(r) as string)).map((r) => r.map((c) => c.value))
    expect(untouched(after.rows)).toEqual(untouched(sorted.rows.map((r) => (keyOf(r) === doomedKey ? [] : r))))
    expect(after.rows.some((r) => r.length === 0)).toBe(true)
    // The read; the claims on the rows the write changes, where the read showed them (one batchUpdate); their
    // read-back, which confirms each claim sits on its row; one value write (update, emptied row) through the
    // claims; one batchUpdate that inserts the new row and the Sync log row and removes the claims (the tab ids
    // come from the state's hints): 5, not one per row.
    expect(stats).toMatchObject({ total: 5, reads: 2, writes: 3 })
    expect(stats.byMethod).toMatchObject({ BatchUpdateSpreadsheet: 2, BatchUpdateValuesByDataFilter: 1 })
  })

  it('a run killed between the sheet write and the cursor save leaves no duplicate after the rerun', async () => {
    const [first] = timelines
    const late = server.store.createActivity(first!, {
      tags: 'Acme Corp, Website, Build',
      start: '2026-11-11T07:00:00+01:00',
      duration: 2700,
    })
    const crashed = await exportRun('4a crashed export', LATER, { TIMELINE_SHEETS_CRASH_AT: 'export:after-sheet-write' }, [])
    expect(crashed.run.code).toBe(137)
    const midway = activities()
    expect([...midway.keys].sort()).toEqual(expectedKeys('2026-11-12T00:00:00+01:00'))
    expect(midway.keys.filter((k) => k === `${first}/${late.id}`)).toHaveLength(1)

    const { run } = await exportRun('4b rerun after crash', LATER)
    expect(run.code, run.stderr).toBe(0)
    expect(onlyRun(run).counts.created).toBe(0)
    const after = activities()
    expect(new Set(after.keys).size).toBe(after.keys.length)
    expect([...after.keys].sort()).toEqual(expectedKeys('2026-11-12T00:00:00+01:00'))
  })

  it('a 429 storm from Sheets slows the run down, says it is retrying, and still ends with the right rows', async () => {
    const [, second] = timelines
    const fresh = server.store.createActivity(second!, {
      tags: 'Globex, Support, Call',
      notes: 'during the storm',
      start: '2026-11-11T07:30:00+01:00',
      duration: 600,
    })
    fake.store.faults.inject({ status: 429, times: 3, requestClass: 'read' })
    fake.store.faults.inject({ status: 429, times: 2, requestClass: 'write' })
    const { run, stats, ms } = await exportRun('5 429 storm', LATER)
    expect(run.code, run.stderr).toBe(0)
    expect(stats.faultsInjected).toBe(5)
    const retries = run.stderr.split('\n').filter((l) => l.includes('Google Sheets asked to slow down, retrying'))
    expect(retries).toHaveLength(5)
    expect(run.stderr).toMatch(/quota exceeded \(429\)/)
    // Five waits for a 2 s quota window (each at least half the doubling back-off).
    expect(ms).toBeGreaterThan(3500)
    const summary = onlyRun(run)
    expect(summary.counts).toMatchObject({ created: 1, updated: 0, deleted: 0 })
    const after = activities()
    expect(after.keys.filter((k) => k === `${second}/${fresh.id}`)).toHaveLength(1)
    expect(new Set(after.keys).size).toBe(after.keys.length)
    expect([...after.keys].sort()).toEqual(expectedKeys('2026-11-12T00:00:00+01:00'))
  }, 90_000)

  it('writes applied and then answered 503 are retried without duplicating or removing other rows', async () => {
    const [first, second] = timelines
    const added = server.store.createActivity(first!, {
      tags: 'Initech, Support, Tickets',
      notes: 'added before the 503',
      start: '2026-11-12T06:00:00+01:00',
      duration: 1200,
    })
    // Deleted behind the incremental link; the look-back re-read (due again at LATEST) finds it: a row delete.
    const gone = server.store.overlapping(second!, Date.parse('2026-11-09T00:00:00Z'), Date.parse('2026-11-10T00:00:00Z'))[0]!
    server.store.deleteActivity(second!, gone.id)
    const before = activities()
    const logBefore = storedTab(fake.store, spreadsheetId, 'Sync log').rows.length
    expect(before.keys).toContain(`${second}/${gone.id}`)
    fake.store.faults.inject({ status: 503, times: 1, method: 'BatchUpdateSpreadsheet', applyThenFail: true })
    fake.store.faults.inject({ status: 503, times: 1, method: 'BatchUpdateValuesByDataFilter', applyThenFail: true })

    const { run, stats } = await exportRun('6 applied-then-503', LATEST)
    expect(run.code, run.stderr).toBe(0)
    expect(stats.faultsInjected).toBe(2)
    expect(run.stderr).toMatch(/answered 503/)
    // The claims were made before the 503: one look through them instead of claiming again; the value write (the
    // emptied row) is simply repeated (it goes through the claims). Reads: the run's, the look, the claims'
    // read-back.
    expect(stats.byMethod).toMatchObject({ BatchUpdateSpreadsheet: 2, BatchUpdateValuesByDataFilter: 2 })
    expect(stats.reads).toBe(3)
    const summary = onlyRun(run)
    expect(summary.counts).toMatchObject({ created: 1, deleted: 1 })
    const after = activities()
    expect(new Set(after.keys).size).toBe(after.keys.length)
    expect(after.keys.filter((k) => k === `${first}/${added.id}`)).toHaveLength(1)
    expect(after.keys).not.toContain(`${second}/${gone.id}`)
    // Exactly one row went: the deleted activity's, not a neighbour by a repeated positional delete.
    expect(after.keys).toEqual([...before.keys.filter((k) => k !== `${second}/${gone.id}`), `${first}/${added.id}`])
    expect([...after.keys].sort()).toEqual(expectedKeys('2026-11-13T00:00:00+01:00'))
    // One Sync log row per successful run, none doubled by the repeated value write.
    const log = storedTab(fake.store, spreadsheetId, 'Sync log').rows
    expect(log).toHaveLength(logBefore + 1)
  }, 90_000)

  it('the request count of an unchanged run does not grow with the sheet', async () => {
    const [first, second, third] = timelines
    // Grow the sheet by 60 rows, then export them.
    for (let i = 0; i < 60; i++) {
      const key = [first, second, third][i % 3]!
      server.store.createActivity(key, {
        tags: 'Acme Corp, Website, Build',
        notes: `bulk ${i}`,
        start: `2026-11-0${1 + (i % 9)}T${String(6 + Math.floor(i / 9)).padStart(2, '0')}:15:00+01:00`,
        duration: 300,
      })
    }
    const grown = await exportRun('7a export of 60 new rows', LATEST)
    expect(grown.run.code, grown.run.stderr).toBe(0)
    expect(onlyRun(grown.run).counts.created).toBe(60)
    const rowsNow = activities().keys.length

    const { run, stats } = await exportRun('7b no-change export, bigger sheet', LATEST)
    expect(run.code, run.stderr).toBe(0)
    expect(onlyRun(run).counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    expect(rowsNow).toBeGreaterThanOrEqual(rowsAtStep2 + 60)
    expect(stats.total).toBe(unchangedRequests)
    expect(stats.byMethod).toEqual(measured['2 no-change export']!.byMethod)
  })

  it('a spreadsheet id the account cannot find: exit 1, a hint what to check, and no token in the output', async () => {
    const badFolder = await tempFolder('google-bad')
    const missingId = '1NoSuchSpreadsheetForThisAccount_e2e'
    const bad = await writeConfig(badFolder, {
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
      google: { auth: { mode: 'static-token', tokenEnv: TOKEN_ENV }, rootUrl: fake.rootUrl, quotaWindowMs: 2000 },
      stateDir: 'state',
      targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId: missingId }, timeZone }],
    })
    fake.store.resetStats()
    const run = await runCli(['export', '--config', bad, '--now', LATEST, '--verbose'], env)
    measured['8 missing spreadsheet'] = fake.store.stats()
    // A spreadsheet id Google does not know is the config's to fix (exit 2), not "run it again" (1).
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toMatch(/error: .*404/)
    expect(run.stderr).toMatch(new RegExp(`hint: Check the spreadsheet id "${missingId}".*shared`))
    expectNoSecret(run)
    // 404 is final: no retries spent on it.
    expect(measured['8 missing spreadsheet']!.total).toBe(1)
  })
})
