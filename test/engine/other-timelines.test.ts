/** Read-only tabs for other timelines: filled from the window, rewritten only where they differ. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture(
    { users: 2, days: 4, startDate: '2026-11-07', otherTimelines: true },
    { window: { days: 7 }, otherTimelines: ['ComputerUsage', 'Applications'] },
  )
})

afterAll(async () => {
  await world?.server.close()
})

describe('read-only tabs for other timelines', () => {
  it('holds every activity of the window, in user and time order, and a second run leaves them alone', async () => {
    const { server, client, target, file, stateDir } = world
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
