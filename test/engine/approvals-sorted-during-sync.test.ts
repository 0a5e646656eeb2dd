/**
 * A manager sorts the Approvals tab between a nightly sync's read and its write, on the Sheets fake: the values
 * planned on the read go through the rows' marks (decisions/0026, Requests), which move with the rows, so every
 * cell still lands on its own person's row, with no read before the write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runSync } from '../../src/engine/sync.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'approvals-sorted-token'
const HOUR = 3_600_000

let world: GoogleWorld
let at = Date.parse('2026-11-10T11:00:00Z')

beforeAll(async () => {
  world = await startGoogleWorld(TOKEN, 'ts-approvals-sorted-')
  world.target = { ...world.target, approvals: { period: 'week', tab: 'Approvals' } }
})

afterAll(async () => {
  await world?.close()
})

/** One sync on a fresh backend; `afterRead` acts right after the read that holds the Approvals tab. */
async function night(afterRead?: () => void) {
  at += HOUR
  world.fake.store.resetStats()
  const backend = createGoogleSpreadsheet({
    spreadsheetId: world.spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: world.fake.rootUrl,
    retry: { limit: 0 },
  })
  let acted = false
  const spreadsheet: Spreadsheet = {
    ...backend,
    read: async (tabs, options) => {
      const snapshot = await backend.read(tabs, options)
      if (afterRead && !acted && tabs.includes('Approvals')) {
        acted = true
        afterRead()
      }
      return snapshot
    },
  }
  const deps = { client: world.client, spreadsheet, stateDir: world.stateDir, reporter: silentReporter, now: () => new Date(at) }
  await runSync(world.target, deps)
  return { acted, stats: world.fake.store.stats() }
}

function approvals() {
  const rows = world.manager.readTab(world.spreadsheetId, 'Approvals')
  const col = (name: string) => rows[0]!.indexOf(name)
  return { rows, col }
}

describe('the Approvals tab sorted between a sync read and its write (Google)', () => {
  it('puts each Status and approval cell on its own person and period, through the marks', async () => {
    await night() // The layout.
    await night() // The Approvals rows, and their marks.
    await night() // A read that sees the marks.
    const [ann, bob] = world.server.credentials.users.filter((u) => u.tagsTimelineKey).map((u) => u.username)
    const before = approvals()
    const rowOf = (user: string, period: string) =>
      before.rows.findIndex((r) => r[before.col('User')] === user && r[before.col('Period')] === period) + 1
    const cell = (name: string, row: number) => `${String.fromCharCode(65 + before.col(name))}${row}`
    // Ann's week approved; Bob's ticked without a name, which waits.
    world.manager.editCell(world.spreadsheetId, 'Approvals', cell('Approved', rowOf(ann!, '2026-W45')), true)
    world.manager.editCell(world.spreadsheetId, 'Approvals', cell('Approved by', rowOf(ann!, '2026-W45')), 'Mia Manager')
    world.manager.editCell(world.spreadsheetId, 'Approvals', cell('Approved', rowOf(bob!, '2026-W44')), true)

    const order = (rows: unknown[][]) => rows.slice(1).map((r) => `${String(r[before.col('User')])} ${String(r[before.col('Period')])}`)
    const sorted = await night(() => world.manager.sortTab(world.spreadsheetId, 'Approvals', before.col('User'), 'DESCENDING'))
    expect(sorted.acted).toBe(true)
    const after = approvals()
    expect(order(after.rows)).not.toEqual(order(before.rows))

    for (const row of after.rows.slice(1)) {
      const who = `${String(row[after.col('User')])} ${String(row[after.col('Period')])}`
      const status = String(row[after.col('Status')] ?? '')
      const approvedAt = row[after.col('Approved at')] ?? ''
      expect(/Approved by Mia Manager/.test(status), who).toBe(who === `${ann} 2026-W45`)
      expect(approvedAt !== '', who).toBe(who === `${ann} 2026-W45`)
      expect(/type your name into Approved by/.test(status), who).toBe(who === `${bob} 2026-W44`)
    }
    // No read before the write: the values went through the marks the import's read saw.
    expect(sorted.stats.byMethod).toEqual({ BatchGetValuesByDataFilter: 1, BatchUpdateValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
  })
})
