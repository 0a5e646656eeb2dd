/**
 * End to end: `sync --watch --every 1s --json` as a subprocess over a workbook and the reference server. A
 * manager's edit reaches the server within two intervals with its Status in the sheet, a server change reaches
 * the sheet as fast, idle intervals write nothing, and SIGTERM ends the watch after the interval under way.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startCli, type RunningProcess } from './cli-process.ts'
import { tempFolder, writeConfig } from './cli.ts'

const timeZone = 'Europe/Berlin'
let server: ReferenceServer
let folder: string
let workbookFile: string
let watch: RunningProcess

beforeAll(async () => {
  const start = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)
  server = await startReferenceServer({ data: { users: 2, days: 7, startDate: start, timeZones: [timeZone], otherTimelines: false } })
  folder = await tempFolder('watch-workbook')
  workbookFile = path.join(folder, 'team.xlsx')
  const configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone, window: { days: 7, lookBackDays: 2 } }],
  })
  watch = startCli(['--config', configFile, '--json', 'sync', '--watch', '--every', '1s'], {
    TIMELINE_PASSWORD: server.credentials.transfer!.password,
  })
})

afterAll(async () => {
  await watch?.stop()
  await server?.close()
})

/** The JSON lines the watch printed so far (whole lines: one still being written is left for later). */
function lines(): { runs?: unknown[]; watch?: { reason: string }; idle?: unknown; error?: unknown }[] {
  return watch
    .stdout()
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { runs?: unknown[]; watch?: { reason: string } })
}

/** Waits until the watch has printed `count` sync lines. */
async function syncs(count: number): Promise<void> {
  await watch.waitFor('stdout', new RegExp(`(?:"watch":\\{[^\\n]*\\n[^]*){${count}}`), 30_000)
}

async function sheet() {
  const snapshot = await createWorkbookSpreadsheet({ path: workbookFile }).read(['Activities', 'Sync log'])
  const tab = snapshot.tabs['Activities']!
  return { rows: tab.rows, col: (name: string) => tab.header.indexOf(name), log: snapshot.tabs['Sync log']!.rows }
}

describe('sync --watch over a workbook, end to end', () => {
  it('syncs first, then idles: the workbook is not written while nothing changes', async () => {
    await syncs(1)
    const before = await stat(workbookFile)
    await watch.waitFor('stderr', /Watching team every 1 s/)
    // Three intervals pass, each saying it found nothing: counted, not timed, so a busy machine cannot leave the
    // check with fewer intervals than it claims.
    await watch.waitFor('stdout', /(?:"idle":\{[^\n]*\n[^]*){3}/, 30_000)
    expect(lines().filter((l) => l.idle).length).toBeGreaterThanOrEqual(3)
    expect(lines().filter((l) => l.watch)).toHaveLength(1)
    expect((await stat(workbookFile)).mtimeMs).toBe(before.mtimeMs)
    expect((await sheet()).log).toHaveLength(1)
  })

  it("a manager's edit reaches the server within two intervals, and the row's Status says so", async () => {
    const { rows, col } = await sheet()
    const index = rows.findIndex((r) => typeof r[col('Key')] === 'string')
    const key = rows[index]![col('Key')] as string
    await managerEditing(workbookFile).editCell('Activities', index + 2, col('Notes'), 'fixed during the day')
    await syncs(2)
    expect(lines().filter((l) => l.watch)[1]!.watch!.reason).toBe('the spreadsheet changed')
    const slash = key.lastIndexOf('/')
    expect(server.store.activity(key.slice(0, slash), Number(key.slice(slash + 1)))!.notes).toBe('fixed during the day')
    const after = await sheet()
    expect(String(after.rows.find((r) => r[after.col('Key')] === key)![after.col('Status')])).toMatch(/^Done/)
  })

  it('a server change reaches the sheet in the next intervals', async () => {
    const bob = server.credentials.users[1]!
    const activity = server.store.activities(bob.tagsTimelineKey!).at(-1)!
    server.store.updateActivity(bob.tagsTimelineKey!, activity.id, {
      tags: server.store.tagsOf(bob.tagsTimelineKey!, activity),
      notes: 'changed on the server at noon',
      start: activity.start,
      duration: activity.duration,
    })
    const key = `${bob.tagsTimelineKey}/${activity.id}`
    await watch.waitFor('stdout', /"reason":"timeline [^"]+ changed"/, 30_000)
    await expect
      .poll(
        async () => {
          const { rows, col } = await sheet()
          return rows.find((r) => r[col('Key')] === key)?.[col('Notes')]
        },
        { timeout: 30_000 },
      )
      .toBe('changed on the server at noon')
  })

  it('SIGTERM ends the watch with exit 0 after the interval under way', async () => {
    const ended = await watch.stop()
    expect(ended.code).toBe(0)
    expect(ended.stderr).toMatch(/Watch stopped\./)
  })
})
