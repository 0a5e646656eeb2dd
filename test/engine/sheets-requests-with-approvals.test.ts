/**
 * The Sheets requests of nightly syncs on a target with approvals, each beside the same sync on a target without:
 * issue 37's cost goal is at most one more request a run (decisions/0026, Requests). Counted by the Sheets fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runSync } from '../../src/engine/sync.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'issue-37-requests-token'
const T0 = Date.parse('2026-11-10T11:00:00Z')
const HOUR = 3_600_000

let plain: GoogleWorld
let approving: GoogleWorld
let at = T0

beforeAll(async () => {
  plain = await startGoogleWorld(TOKEN, 'ts-issue-37-plain-')
  approving = await startGoogleWorld(TOKEN, 'ts-issue-37-approvals-')
  approving.target = { ...approving.target, approvals: { period: 'week', tab: 'Approvals' } }
})

afterAll(async () => {
  await plain?.close()
  await approving?.close()
})

/** One sync on a fresh backend (as cron starts a new process), with the fake's counts reset. */
async function sync(world: GoogleWorld, when: number) {
  world.fake.store.resetStats()
  const spreadsheet = createGoogleSpreadsheet({
    spreadsheetId: world.spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: world.fake.rootUrl,
    retry: { limit: 0 },
  })
  const deps = { client: world.client, spreadsheet, stateDir: world.stateDir, reporter: silentReporter, now: () => new Date(when) }
  const summary = await runSync(world.target, deps)
  return { summary, stats: world.fake.store.stats() }
}

/** The same night on both targets: the plain one's requests and the approving one's. */
async function night() {
  at += HOUR
  return { plain: await sync(plain, at), approving: await sync(approving, at) }
}

/** The same change on both servers: the first user's first activity on `day`. */
function changeOnServers(day: string, notes: string) {
  for (const world of [plain, approving]) {
    const from = Date.parse(`${day}T00:00:00Z`)
    const [a] = world.server.store.overlapping(world.timelineKey, from, from + 24 * HOUR)
    world.server.store.updateActivity(world.timelineKey, a!.id, {
      tags: 'Initech, Support, Tickets',
      notes,
      start: a!.start,
      duration: a!.duration,
    })
  }
}

/** Requests by method, the two kinds of values read counted as one. */
function withoutReadKind(byMethod: Record<string, number>): Record<string, number> {
  const { BatchGetValuesByDataFilter = 0, BatchGetValues = 0, ...rest } = byMethod
  return { ...rest, reads: BatchGetValues + BatchGetValuesByDataFilter }
}

function approvalsTab() {
  const rows = approving.manager.readTab(approving.spreadsheetId, 'Approvals')
  const col = (name: string) => rows[0]!.indexOf(name)
  return { rows, col }
}

describe('Sheets requests of a nightly sync with approvals (Google)', () => {
  it('the first sync, which adds the Approvals rows, and the second cost what they cost without approvals', async () => {
    const first = await night()
    expect(first.approving.stats.byMethod).toEqual(first.plain.stats.byMethod)
    // The export that lays the tab out writes its rows in the write it makes anyway.
    expect(approvalsTab().rows.length - 1).toBe(2 * 3) // Two people, weeks 2026-W44 to 2026-W46.
    const second = await night()
    // The import reads the Approvals tab from now on, its rows through the marks the first sync put on them; the
    // export, which writes the Sync log rows anyway, writes its cells.
    expect(second.approving.stats.byMethod).toEqual({ BatchGetValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
    expect(withoutReadKind(second.approving.stats.byMethod)).toEqual(withoutReadKind(second.plain.stats.byMethod))
    expect(approvalsTab().rows.length - 1).toBe(2 * 3)
  })

  it('a night with nothing new, and one with a change on the server, make no extra request', async () => {
    // The import's one read reads the Approvals rows through their row marks too (a data-filter read).
    const quiet = await night()
    expect(quiet.plain.stats.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateSpreadsheet: 1 })
    expect(quiet.approving.stats.byMethod).toEqual({ BatchGetValuesByDataFilter: 1, BatchUpdateSpreadsheet: 1 })
    changeOnServers('2026-11-04', 'changed on the server')
    const changed = await night()
    expect(changed.approving.summary.exported?.counts.updated).toBe(1)
    expect(changed.plain.stats.total).toBe(5)
    expect(changed.approving.stats.total).toBe(5)
    expect(withoutReadKind(changed.approving.stats.byMethod)).toEqual(withoutReadKind(changed.plain.stats.byMethod))
  })

  it("a night that writes Approvals cells costs one more: the value write through the rows' marks", async () => {
    const { rows, col } = approvalsTab()
    const user = approving.server.credentials.users.find((u) => u.tagsTimelineKey === approving.timelineKey)!.username
    const row = rows.findIndex((r) => r[col('User')] === user && r[col('Period')] === '2026-W45') + 1
    const a1 = (name: string) => `${String.fromCharCode(65 + col(name))}${row}`
    approving.manager.editCell(approving.spreadsheetId, 'Approvals', a1('Approved'), true)
    approving.manager.editCell(approving.spreadsheetId, 'Approvals', a1('Approved by'), 'Mia Manager')
    // The tab has no Key: the import's read saw each row through its mark, and the values go through the marks,
    // which follow the rows if a manager sorts the tab meanwhile, with no read before them (decisions/0026).
    const taken = await night()
    expect(approvalsTab().rows[row - 1]![col('Status')]).toMatch(/Approved by Mia Manager/)
    expect(taken.approving.summary.imported.sheetsRequests).toEqual({ reads: 1, writes: 0 })
    expect(taken.plain.stats.byMethod).toEqual({ BatchGetValues: 1, BatchUpdateSpreadsheet: 1 })
    expect(taken.approving.stats.byMethod).toEqual({
      BatchGetValuesByDataFilter: 1,
      BatchUpdateValuesByDataFilter: 1,
      BatchUpdateSpreadsheet: 1,
    })

    // A change in the approved week: that night's export writes the row anyway; the next night's import writes the
    // approval row's Changed since, which again costs the value write alone.
    changeOnServers('2026-11-05', 'changed after approval')
    const changed = await night()
    expect(changed.approving.stats.total).toBe(changed.plain.stats.total)
    const after = await night()
    expect(approvalsTab().rows[row - 1]![col('Changed since')]).toMatch(/^1 activity changed since approval/)
    expect(after.approving.stats.total - after.plain.stats.total).toBe(1)
    expect(after.approving.stats.byMethod.BatchUpdateValuesByDataFilter).toBe(1)

    // Nights after that, with nothing new, cost what they cost without approvals.
    const quiet = await night()
    expect(quiet.approving.stats.total).toBe(quiet.plain.stats.total)
    expect(withoutReadKind(quiet.approving.stats.byMethod)).toEqual(withoutReadKind(quiet.plain.stats.byMethod))

    // Reopening costs the same one: the Approved tab's rows are emptied in the write of the Approvals cells, where
    // the import's read showed them (no manager can move them: the tab is closed).
    const approvedRows = () => approving.manager.readTab(approving.spreadsheetId, 'Approved').slice(1)
    expect(approvedRows().length).toBeGreaterThan(0)
    approving.manager.editCell(approving.spreadsheetId, 'Approvals', a1('Approved'), false)
    const reopened = await night()
    expect(approvedRows().every((r) => r.length === 0)).toBe(true)
    expect(reopened.approving.stats.byMethod).toEqual({
      BatchGetValuesByDataFilter: 1,
      BatchUpdateValuesByDataFilter: 1,
      BatchUpdateSpreadsheet: 1,
    })
    expect(reopened.approving.stats.total - reopened.plain.stats.total).toBe(1)
  })
})
