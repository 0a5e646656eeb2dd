/**
 * `timeline-sheets doctor --write-test` as an operator runs it against a Google target: the CLI as a
 * subprocess, the reference Timeline server and the Sheets fake on loopback. One line per behaviour tried, exit
 * 0 when each holds; the target's tabs are as before and the scratch tab is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { runCli, tempFolder, writeConfig } from './cli.ts'

const NOW = '2026-11-10T11:00:00Z'
const TOKEN = 'ya29.e2e-doctor-write-test-token'
let server: ReferenceServer
let fake: SheetsFake
let configFile: string
let spreadsheetId: string
let env: Record<string, string>

beforeAll(async () => {
  server = await startReferenceServer({
    data: { users: 2, days: 3, startDate: '2026-11-07', timeZones: ['Europe/Berlin'], otherTimelines: false },
  })
  fake = await startSheetsFake({ quota: false, staticToken: TOKEN })
  spreadsheetId = createManager(fake.store).createSpreadsheet({ title: 'Team time' })
  env = { TIMELINE_PASSWORD: server.credentials.transfer!.password, E2E_GOOGLE_ACCESS_TOKEN: TOKEN }
  const folder = await tempFolder('doctor-write-test')
  configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    google: { auth: { mode: 'static-token', tokenEnv: 'E2E_GOOGLE_ACCESS_TOKEN' }, rootUrl: fake.rootUrl },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, timeZone: 'Europe/Berlin', window: { days: 7 } }],
  })
}, 60_000)

afterAll(async () => {
  await server?.close()
  await fake?.close()
})

describe('timeline-sheets doctor --write-test (CLI)', () => {
  it('after an export: one line per behaviour, all ok, exit 0; the tabs unchanged and the scratch tab gone', async () => {
    const exported = await runCli(['export', '--config', configFile, '--now', NOW], env)
    expect(exported.code, exported.stderr).toBe(0)
    const manager = createManager(fake.store)
    const before = manager.readTab(spreadsheetId, 'Activities')
    const run = await runCli(['doctor', '--config', configFile, '--now', NOW, '--write-test'], env)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    const lines = run.stdout.trim().split('\n')
    for (const line of [
      'ok    team: scratch tab added: ',
      'ok    team: a sort moves row metadata with its row: ',
      'ok    team: inserted and deleted rows move row metadata: ',
      'ok    team: a value write through a filter that matches nothing writes nothing: ',
      'ok    team: a metadata delete through a filter that matches nothing is a no-op: ',
      "ok    team: a write planned before a manager's sort lands every cell on its row: ",
      "ok    team: what Google's 10 MB request limit counts of a compressed body: what a body unpacks to: ",
      'ok    team: scratch tab removed: ',
      'ok    team: developer-metadata room: of 30,000 characters a tab: "Activities" 30,000 free',
    ])
      expect(lines.some((l) => l.startsWith(line))).toBe(true)
    expect(lines.at(-1)).toBe('A sync would work.')
    expect(manager.readTab(spreadsheetId, 'Activities')).toEqual(before)
    const titles = fake.store.spreadsheets.get(spreadsheetId)!.sheets.map((s) => s.properties.title)
    expect(titles.some((t) => t.startsWith('timeline-sheets write test'))).toBe(false)
  }, 120_000)

  it('without --write-test doctor writes nothing to the spreadsheet', async () => {
    fake.store.resetStats()
    const run = await runCli(['doctor', '--config', configFile, '--now', NOW], env)
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(run.stdout).not.toContain('scratch tab')
    expect(fake.store.stats().writes).toBe(0)
  }, 120_000)
})
