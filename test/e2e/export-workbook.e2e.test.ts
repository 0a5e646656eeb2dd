/**
 * End to end: the CLI as a subprocess, the reference Timeline server on
 * loopback, a real .xlsx on disk. One story, step by step, as an operator
 * and a manager live it.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { onlyRun, runCli, tempFolder, writeConfig } from './cli.ts'

const timeZone = 'Europe/Berlin'
const NOW = '2026-11-10T11:00:00Z'
const LATER = '2026-11-11T08:00:00Z' // 21 h later: the look-back re-read is due

let server: ReferenceServer
let folder: string
let configFile: string
let workbookFile: string
let env: Record<string, string>
let timelines: string[]

beforeAll(async () => {
  server = await startReferenceServer({
    data: { users: 3, days: 27, startDate: '2026-10-15', timeZones: [timeZone], otherTimelines: false },
  })
  folder = await tempFolder('workbook')
  workbookFile = path.join(folder, 'team.xlsx')
  timelines = server.credentials.users.map((u) => u.tagsTimelineKey!).filter(Boolean)
  // Both 02:30s of the night the clocks go back, and one across midnight.
  server.store.createActivity(timelines[0]!, { tags: 'Internal, Admin, Email', start: '2026-10-25T02:30:00+02:00', duration: 1800 })
  server.store.createActivity(timelines[0]!, { tags: 'Internal, Admin, Email', start: '2026-10-25T02:30:00+01:00', duration: 1800 })
  server.store.createActivity(timelines[0]!, { tags: 'Initech, Support, On-call', start: '2026-11-02T23:30:00+01:00', duration: 5400 })
  configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone, window: { days: 21, lookBackDays: 7 } }],
  })
  env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
})

afterAll(async () => {
  await server?.close()
})

async function sheetRows() {
  const snapshot = await createWorkbookSpreadsheet({ path: workbookFile }).read(['Activities', 'Sync log'])
  const tab = snapshot.tabs['Activities']!
  const col = (name: string) => tab.header.indexOf(name)
  return {
    rows: tab.rows,
    col,
    keys: tab.rows.map((r) => r[col('Key')]).filter((k): k is string => typeof k === 'string'),
    log: snapshot.tabs['Sync log']!.rows,
  }
}

/** Rows stay once exported, so the sheet covers every window so far: from the first window's start to `to`. */
function expectedKeys(to = '2026-11-11T00:00:00+01:00'): string[] {
  const from = Date.parse('2026-10-21T00:00:00+02:00')
  const end = Date.parse(to)
  return timelines.flatMap((key) => server.store.overlapping(key, from, end).map((a) => `${key}/${a.id}`)).sort()
}

describe('export into a local workbook, end to end', () => {
  it('refuses a bad config with the field and exit code 2', async () => {
    const bad = await writeConfig(await tempFolder('bad'), {
      timeline: { auth: { mode: 'password', baseUrl: 'not a url', username: 'x' } },
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'x.xlsx' }, timeZone: 'Nowhere/City' }],
    })
    const run = await runCli(['export', '--config', bad], env)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('timeline.auth.baseUrl')
    expect(run.stderr).toMatch(/hint: /)
  })

  it('dry run writes nothing', async () => {
    const run = await runCli(['export', '--config', configFile, '--now', NOW, '--dry-run'], env)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('Dry run of export team')
    await expect(stat(workbookFile)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('first export fills the sheet with every activity of the window, once', async () => {
    const run = await runCli(['export', '--config', configFile, '--now', NOW, '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.result).toBe('success')
    const { keys, log } = await sheetRows()
    expect([...keys].sort()).toEqual(expectedKeys())
    expect(new Set(keys).size).toBe(keys.length)
    expect(summary.counts.created).toBe(keys.length)
    expect(log).toHaveLength(1)
  })

  it('shows both 02:30s of the DST night and the activity across midnight as local times', async () => {
    const { rows, col } = await sheetRows()
    const onDstNight = rows.filter((r) => r[col('Date')] === 46320 && Math.abs((r[col('Start')] as number) - 2.5 / 24) < 1e-9)
    expect(onDstNight).toHaveLength(2)
    for (const r of onDstNight) expect(r[col('Duration')]).toBeCloseTo(0.5 / 24, 9)
    const overnight = rows.find((r) => r[col('Date')] === 46328 && Math.abs((r[col('Start')] as number) - 23.5 / 24) < 1e-9)
    // End before Start reads as the next day: 23:30 to 01:00.
    expect(overnight?.[col('End')]).toBeCloseTo(1 / 24, 9)
  })

  it('a second run at once is incremental and changes nothing', async () => {
    const before = await sheetRows()
    const run = await runCli(['export', '--config', configFile, '--now', NOW, '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.timelines.every((t: { mode: string }) => t.mode === 'incremental')).toBe(true)
    expect(summary.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    expect((await sheetRows()).rows).toEqual(before.rows)
  })

  it('after a manager sorted the sheet and the server changed, rows update in place by Key', async () => {
    const manager = managerEditing(workbookFile)
    await manager.sortRows('Activities', 'Tags')
    await manager.insertBlankRow('Activities', 5)
    const sorted = await sheetRows()

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
    const doomed = server.store.overlapping(first!, Date.parse('2026-11-06T00:00:00Z'), Date.parse('2026-11-07T00:00:00Z'))[0]!
    server.store.deleteActivity(first!, doomed.id)

    const run = await runCli(['export', '--config', configFile, '--now', LATER, '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.counts).toMatchObject({ created: 1, updated: 1, deleted: 1 })

    const after = await sheetRows()
    expect(new Set(after.keys).size).toBe(after.keys.length)
    expect([...after.keys].sort()).toEqual(expectedKeys('2026-11-12T00:00:00+01:00'))
    // The updated row stayed where the manager's sort put it.
    const victimKey = `${second}/${victim.id}`
    const rowBefore = sorted.keys.indexOf(victimKey)
    const updatedRow = after.rows.find((r) => r[after.col('Key')] === victimKey)!
    expect(updatedRow[after.col('Tags')]).toBe('Initech, Support, Tickets')
    expect(updatedRow[after.col('Notes')]).toBe('changed on the server')
    expect(rowBefore).toBeGreaterThanOrEqual(0)
    expect(after.keys).toContain(`${first}/${created.id}`)
    expect(after.keys).not.toContain(`${first}/${doomed.id}`)
    // The blank row the manager inserted is still there.
    expect(after.rows.some((r) => r.length === 0)).toBe(true)
  })

  it('a run killed between the sheet write and the cursor save creates no duplicate when run again', async () => {
    const [first] = timelines
    server.store.createActivity(first!, { tags: 'Acme Corp, Website, Build', start: '2026-11-11T07:00:00+01:00', duration: 2700 })
    const crashed = await runCli(['export', '--config', configFile, '--now', LATER], {
      ...env,
      TIMELINE_SHEETS_CRASH_AT: 'export:after-sheet-write',
    })
    expect(crashed.code).toBe(137)
    const midway = await sheetRows()
    expect([...midway.keys].sort()).toEqual(expectedKeys('2026-11-12T00:00:00+01:00'))

    const rerun = await runCli(['export', '--config', configFile, '--now', LATER, '--json'], env)
    expect(rerun.code, rerun.stderr).toBe(0)
    expect(onlyRun(rerun).counts.created).toBe(0)
    const after = await sheetRows()
    expect(new Set(after.keys).size).toBe(after.keys.length)
    expect([...after.keys].sort()).toEqual(expectedKeys('2026-11-12T00:00:00+01:00'))
  })

  it('a second run while one holds the lock exits 5 and names the lock file', async () => {
    const { acquireLock } = await import('../../src/state/lock.ts')
    const lock = await acquireLock(path.join(folder, 'state', 'team', 'lock'), { command: 'sync' })
    try {
      const run = await runCli(['export', '--config', configFile, '--now', LATER], env)
      expect(run.code).toBe(5)
      expect(run.stderr).toContain(path.join(folder, 'state', 'team', 'lock'))
    } finally {
      await lock.release()
    }
  })
})
