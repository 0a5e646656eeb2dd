/** Read-only tabs for other timelines: filled from the window, rewritten only where they differ. */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { parseConfig } from '../../src/config/load.ts'
import type { TargetConfig } from '../../src/config/schema.ts'
import { runExport } from '../../src/engine/export.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import { createTimelineClient, type TimelineClient } from '../../src/timeline/client.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let server: ReferenceServer
let client: TimelineClient
let target: TargetConfig
let file: string
let stateDir: string

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 2, days: 4, startDate: '2026-11-07', timeZones: ['Europe/Berlin'], otherTimelines: true } })
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-other-'))
  file = path.join(folder, 'team.xlsx')
  stateDir = path.join(folder, 'state')
  const transfer = server.credentials.transfer!
  client = createTimelineClient({ signIn: passwordSignIn({ baseUrl: server.url, username: transfer.username, password: transfer.password, vendor: vendorIdentifiers('manictime') }) })
  const { config } = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: transfer.username } },
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: file }, timeZone: 'Europe/Berlin', window: { days: 7 }, otherTimelines: ['ComputerUsage', 'Applications'] }],
    }),
    path.join(folder, 'config.json'),
  )
  target = config.targets[0]!
})

afterAll(async () => {
  await server?.close()
})

describe('read-only tabs for other timelines', () => {
  it('holds every activity of the window, in user and time order, and a second run leaves them alone', async () => {
    await runExport(target, { client, spreadsheet: createWorkbookSpreadsheet({ path: file }), stateDir, reporter: silentReporter, now })
    const snapshot = await createWorkbookSpreadsheet({ path: file }).read(['ComputerUsage', 'Applications'])
    const from = Date.parse('2026-11-04T00:00:00+01:00')
    const to = Date.parse('2026-11-11T00:00:00+01:00')
    for (const kind of ['ComputerUsage', 'Applications'] as const) {
      const expected = server.credentials.users.reduce((n, u) => {
        const t = server.store.timelineOf(u.username, kind)
        return n + (t ? server.store.overlapping(t.key, from, to).length : 0)
      }, 0)
      const tab = snapshot.tabs[kind]!
      expect(tab.exists).toBe(true)
      expect(tab.header).toEqual(['User', 'Date', 'Start', 'End', 'Duration', 'Name'])
      expect(tab.rows.length).toBe(expected)
      expect(expected).toBeGreaterThan(0)
      for (let i = 1; i < tab.rows.length; i++) {
        const [a, b] = [tab.rows[i - 1]!, tab.rows[i]!]
        const inOrder = String(a[0]) < String(b[0]) || (a[0] === b[0] && Number(a[1]) + Number(a[2]) <= Number(b[1]) + Number(b[2]))
        expect(inOrder, `rows ${i + 1} and ${i + 2}`).toBe(true)
      }
    }
    const second = createWorkbookSpreadsheet({ path: file })
    const summary = await runExport(target, { client, spreadsheet: second, stateDir, reporter: silentReporter, now })
    expect(summary.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    const again = await second.read(['ComputerUsage'])
    expect(again.tabs['ComputerUsage']!.rows).toEqual(snapshot.tabs['ComputerUsage']!.rows)
  })
})
