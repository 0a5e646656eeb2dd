/**
 * The importer against another writer: a concurrency rejection re-reads the
 * timeline; an activity the other writer did not touch is retried, one it
 * did touch becomes a conflict that writes nothing and keeps the edit.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { parseConfig } from '../../src/config/load.ts'
import type { TargetConfig } from '../../src/config/schema.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import { createTimelineClient, type TimelineClient } from '../../src/timeline/client.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let server: ReferenceServer
let client: TimelineClient
let target: TargetConfig
let spreadsheet: Spreadsheet
let file: string
let stateDir: string

beforeAll(async () => {
  server = await startReferenceServer({ data: { users: 1, days: 5, startDate: '2026-11-05', timeZones: ['Europe/Berlin'], otherTimelines: false } })
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-import-concurrency-'))
  file = path.join(folder, 'team.xlsx')
  stateDir = path.join(folder, 'state')
  const transfer = server.credentials.transfer!
  client = createTimelineClient({ signIn: passwordSignIn({ baseUrl: server.url, username: transfer.username, password: transfer.password, vendor: vendorIdentifiers('manictime') }) })
  const { config } = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: transfer.username } },
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: file }, timeZone: 'Europe/Berlin', window: { days: 7 } }],
    }),
    path.join(folder, 'config.json'),
  )
  target = config.targets[0]!
  spreadsheet = createWorkbookSpreadsheet({ path: file })
  await runExport(target, { client, spreadsheet, stateDir, reporter: silentReporter, now })
})

afterAll(async () => {
  await server?.close()
})

describe('import against a concurrent writer', () => {
  it('retries what the other writer did not touch and turns what it touched into a conflict', async () => {
    const timelineKey = server.credentials.users[0]!.tagsTimelineKey!
    const tab = (await spreadsheet.read(['Activities'])).tabs['Activities']!
    const col = (name: string) => tab.header.indexOf(name)
    const manager = managerEditing(file)
    const rows = tab.rows.slice(0, 3).map((r, i) => ({ row: i + 2, key: r[col('Key')] as string }))
    for (const r of rows) await manager.editCell('Activities', r.row, col('Notes'), `edited ${r.row}`)
    const touchedId = Number(rows[1]!.key.split('/')[1])
    const untouchedIds = [rows[0]!, rows[2]!].map((r) => Number(r.key.split('/')[1]))

    // Right before the importer's second write, someone else edits the activity of the second row.
    server.faults.addConcurrentWriter({
      before: { writesOnly: true },
      nth: 2,
      run: (store) => {
        const a = store.activity(timelineKey, touchedId)!
        store.updateActivity(timelineKey, touchedId, { tags: store.tagsOf(timelineKey, a), notes: 'someone else', start: a.start, duration: a.duration })
      },
    })

    const summary = await runImport(target, { client, spreadsheet: createWorkbookSpreadsheet({ path: file }), stateDir, reporter: silentReporter, now })
    expect(summary.counts).toMatchObject({ updated: 2, conflicts: 1, failed: 0 })
    expect(summary.result).toBe('partial')
    for (const id of untouchedIds) expect(server.store.activity(timelineKey, id)!.notes).toMatch(/^edited /)
    expect(server.store.activity(timelineKey, touchedId)!.notes).toBe('someone else')

    const after = (await createWorkbookSpreadsheet({ path: file }).read(['Activities'])).tabs['Activities']!
    const row = after.rows.find((r) => r[col('Key')] === rows[1]!.key)!
    expect(row[col('Notes')]).toBe(`edited ${rows[1]!.row}`)
    expect(String(row[col('Status')])).toContain('Changed on the server while this import ran')
  })
})
