/**
 * Issue 37 on Google: a target with approvals gets a Summary whose approved / open table follows the Approvals tab.
 * Syncs lay it out on the Sheets fake, a manager ticks a week, and the evaluated numbers move from open to approved
 * once the sync has taken the approval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runSync } from '../../src/engine/sync.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'issue-37-summary-token'
const T0 = Date.parse('2026-11-10T11:00:00Z')
const HOUR = 3_600_000
let world: GoogleWorld

beforeAll(async () => {
  world = await startGoogleWorld(TOKEN, 'ts-issue-37-summary-')
  world.target = { ...world.target, approvals: { period: 'week', tab: 'Approvals' } }
})

afterAll(async () => {
  await world?.close()
})

async function sync(when: number) {
  const spreadsheet = createGoogleSpreadsheet({
    spreadsheetId: world.spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: world.fake.rootUrl,
  })
  await runSync(world.target, {
    client: world.client,
    spreadsheet,
    stateDir: world.stateDir,
    reporter: silentReporter,
    now: () => new Date(when),
  })
}

/** The Summary's rows as the fake evaluates them, by the label in column A: the week cells and the last one. */
function summary(): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (const row of world.manager.readTab(world.spreadsheetId, 'Summary', 'UNFORMATTED_VALUE')) {
    if (typeof row[0] === 'string' && typeof row[1] === 'number') out.set(row[0], row.slice(1, 5) as number[])
  }
  return out
}

describe('the Summary’s approved and open hours on Google', () => {
  it('moves a week from open to approved once the sync takes its tick', async () => {
    // The first sync lays out; the Approvals rows appear from the second (decisions/0026).
    await sync(T0)
    await sync(T0 + HOUR)
    const approvals = world.manager.readTab(world.spreadsheetId, 'Approvals', 'UNFORMATTED_VALUE')
    const header = approvals[0]!.map(String)
    const at = (name: string) => header.indexOf(name)
    const rowIndex = approvals.findIndex((r, i) => i > 0 && r[at('Period')] === '2026-W45')
    expect(rowIndex).toBeGreaterThan(0)
    const user = String(approvals[rowIndex]![at('User')])
    const a1 = (name: string) => `${String.fromCharCode(65 + at(name))}${rowIndex + 1}`

    // Weeks shown (a 10-day window reaches into 3): 2026-10-26, W45 (11-02), W46 (11-09).
    const before = summary()
    const hours = before.get(user)!
    expect(hours[1]).toBeGreaterThan(0)
    expect(before.get(`${user}: approved`)).toEqual([0, 0, 0, 0])
    before.get(`${user}: open`)!.forEach((open, i) => expect(open).toBeCloseTo(i < 3 ? hours[i]! : hours[0]! + hours[1]! + hours[2]!, 6))

    world.manager.editCell(world.spreadsheetId, 'Approvals', a1('Approved'), true)
    world.manager.editCell(world.spreadsheetId, 'Approvals', a1('Approved by'), 'Mia Manager')
    // A tick alone is not yet on record: still open.
    expect(summary().get(`${user}: approved`)).toEqual([0, 0, 0, 0])

    await sync(T0 + 2 * HOUR)
    expect(world.manager.readTab(world.spreadsheetId, 'Approvals', 'UNFORMATTED_VALUE')[rowIndex]![at('Approved at')]).toEqual(
      expect.any(Number),
    )
    const after = summary()
    const now = after.get(user)!
    const approved = after.get(`${user}: approved`)!
    const open = after.get(`${user}: open`)!
    expect(approved[0]).toBe(0)
    expect(approved[1]).toBeCloseTo(now[1]!, 6)
    expect(approved[2]).toBe(0)
    expect(open[1]).toBeCloseTo(0, 6)
    expect(open[2]).toBeCloseTo(now[2]!, 6)
    expect(after.get('Total approved')![1]).toBeCloseTo(now[1]!, 6)
  })
})
