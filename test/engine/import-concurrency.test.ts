/**
 * The importer against another writer: a concurrency rejection re-reads the
 * timeline; an activity the other writer did not touch is retried, one it
 * did touch becomes a conflict that writes nothing and keeps the edit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runImport } from '../../src/engine/import.ts'
import { managerEditing } from '../sheets/workbook-fixture.ts'
import { startExportedFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startExportedFixture({ users: 1, days: 5, startDate: '2026-11-05' }, { window: { days: 7 } }, now)
})

afterAll(async () => {
  await world?.server.close()
})

describe('import against a concurrent writer', () => {
  it('retries what the other writer did not touch and turns what it touched into a conflict', async () => {
    const { server, client, target, file, stateDir } = world
    const timelineKey = server.credentials.users[0]!.tagsTimelineKey!
    const tab = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
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
        store.updateActivity(timelineKey, touchedId, {
          tags: store.tagsOf(timelineKey, a),
          notes: 'someone else',
          start: a.start,
          duration: a.duration,
        })
      },
    })

    const summary = await runImport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
    expect(summary.counts).toMatchObject({ updated: 2, conflicts: 1, failed: 0 })
    expect(summary.result).toBe('partial')
    for (const id of untouchedIds) expect(server.store.activity(timelineKey, id)!.notes).toMatch(/^edited /)
    expect(server.store.activity(timelineKey, touchedId)!.notes).toBe('someone else')

    const after = (await world.spreadsheet().read(['Activities'])).tabs['Activities']!
    const row = after.rows.find((r) => r[col('Key')] === rows[1]!.key)!
    expect(row[col('Notes')]).toBe(`edited ${rows[1]!.row}`)
    expect(String(row[col('Status')])).toContain('Changed on the server while this import ran')
  })
})
