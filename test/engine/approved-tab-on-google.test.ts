/**
 * The Approved tab on Google (decisions/0026): once a week is approved the tab shows its record, protected whole for
 * the tool's account (not a warning), so a manager's typing, new rows and sorting there are refused by the Sheets
 * fake as Google refuses them, while the tool keeps writing it. In Activities, which managers keep sorting and
 * typing in, the import refuses every change to the week: a typed edit, a new row, a ticked Delete, and a typed
 * edit after a sort. Reopening empties the tab and lets the edits through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { PROTECTED_EDIT_MESSAGE } from '../../counterparts/sheets/protection-rules.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runSync } from '../../src/engine/sync.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { startGoogleWorld, type GoogleWorld } from './google-world.ts'

const TOKEN = 'approved-tab-token'
const MANAGER = 'mia.manager@example.com'
const T0 = Date.parse('2026-11-10T11:00:00Z')
const HOUR = 3_600_000
let world: GoogleWorld
let clock = T0

beforeAll(async () => {
  world = await startGoogleWorld(TOKEN, 'ts-approved-tab-')
  world.target = { ...world.target, approvals: { period: 'week', tab: 'Approvals' } }
})

afterAll(async () => {
  await world?.close()
})

async function sync() {
  clock += HOUR
  const spreadsheet = createGoogleSpreadsheet({
    spreadsheetId: world.spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: world.fake.rootUrl,
  })
  return runSync(world.target, {
    client: world.client,
    spreadsheet,
    stateDir: world.stateDir,
    reporter: silentReporter,
    now: () => new Date(clock),
  })
}

const tab = (title: string) => world.manager.readTab(world.spreadsheetId, title, 'UNFORMATTED_VALUE')
const letter = (header: unknown[], name: string) => String.fromCharCode(65 + header.indexOf(name))

describe('the Approved tab on Google', () => {
  it('refuses a manager’s typing, new rows and sorting, while the import refuses the week’s edits in Activities', async () => {
    await sync()
    await sync()
    const approvals = tab('Approvals')
    const row = approvals.findIndex((r, i) => i > 0 && r[approvals[0]!.indexOf('Period')] === '2026-W45')
    const user = String(approvals[row]![approvals[0]!.indexOf('User')])
    const mia = createManager(world.fake.store, { as: MANAGER })
    mia.editCell(world.spreadsheetId, 'Approvals', `${letter(approvals[0]!, 'Approved')}${row + 1}`, true)
    mia.editCell(world.spreadsheetId, 'Approvals', `${letter(approvals[0]!, 'Approved by')}${row + 1}`, 'Mia Manager')
    await sync()

    // The record, on a tab protected whole for the tool's account: not a warning.
    const approved = tab('Approved')
    expect(approved.length).toBeGreaterThan(1)
    expect(approved.slice(1).every((r) => r[0] === user && r[1] === '2026-W45')).toBe(true)
    const sheet = world.fake.store.spreadsheets.get(world.spreadsheetId)!.sheets.find((s) => s.properties.title === 'Approved')!
    const whole = sheet.protectedRanges.filter((p) => Object.keys(p.range).every((k) => k === 'sheetId'))
    expect(whole).toHaveLength(1)
    expect(whole[0]!.warningOnly).toBeUndefined()
    expect((whole[0]!.editors as { users: string[] }).users).not.toContain(MANAGER)

    // A manager can change nothing there: typing, a new row, a sort, a deletion.
    expect(() => mia.editCell(world.spreadsheetId, 'Approved', 'H2', 'changed')).toThrow(PROTECTED_EDIT_MESSAGE)
    expect(() => mia.pasteBlock(world.spreadsheetId, 'Approved', `A${approved.length + 1}`, [[user, '2026-W45']])).toThrow(
      PROTECTED_EDIT_MESSAGE,
    )
    expect(() => mia.insertRows(world.spreadsheetId, 'Approved', 2)).toThrow(PROTECTED_EDIT_MESSAGE)
    expect(() => mia.sortTab(world.spreadsheetId, 'Approved', 5, 'DESCENDING')).toThrow(PROTECTED_EDIT_MESSAGE)
    expect(() => mia.deleteRows(world.spreadsheetId, 'Approved', 2)).toThrow(PROTECTED_EDIT_MESSAGE)
    expect(tab('Approved')).toEqual(approved)

    // In Activities the manager still sorts and types; the import refuses each change to the week (exit 3).
    const activities = () => tab('Activities')
    const header = activities()[0]!
    const at = (name: string) => header.indexOf(name)
    const keys = new Set(approved.slice(1).map((r) => String(r[approved[0]!.indexOf('Key')])))
    const rowOf = (key: string) => activities().findIndex((r) => r[at('Key')] === key) + 1
    const [first, second, third] = [...keys]
    mia.editCell(world.spreadsheetId, 'Activities', `${letter(header, 'Notes')}${rowOf(first!)}`, 'typed after approval')
    mia.editCell(world.spreadsheetId, 'Activities', `${letter(header, 'Delete')}${rowOf(second!)}`, true)
    const date = approved[1]![approved[0]!.indexOf('Date')] as number
    mia.pasteBlock(world.spreadsheetId, 'Activities', `A${activities().length + 1}`, [
      [user, date, 0.375, 0.4166666666666667, null, 'Internal, Admin, Email', null, 'new row in the week'],
    ])
    let summary = await sync()
    expect(summary.imported.result).toBe('partial')
    expect(summary.imported.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    mia.editCell(world.spreadsheetId, 'Activities', `${letter(header, 'Delete')}${rowOf(second!)}`, false)
    mia.sortTab(world.spreadsheetId, 'Activities', at('Tags'), 'DESCENDING')
    mia.editCell(world.spreadsheetId, 'Activities', `${letter(header, 'Notes')}${rowOf(third!)}`, 'sorted, then typed')
    summary = await sync()
    expect(summary.imported.result).toBe('partial')
    expect(summary.imported.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    const statusOf = (key: string) => String(activities()[rowOf(key) - 1]![at('Status')])
    expect(statusOf(third!)).toMatch(/^Error \(.*\): Not sent: .*'s 2026-W45 was approved by Mia Manager/)
    expect(tab('Approved')).toEqual(approved)

    // Reopened: the tab empties and the edits made meanwhile go through.
    mia.editCell(world.spreadsheetId, 'Approvals', `${letter(approvals[0]!, 'Approved')}${row + 1}`, false)
    summary = await sync()
    expect(summary.imported.result).toBe('success')
    expect(summary.imported.counts).toMatchObject({ created: 1, updated: 2 })
    expect(tab('Approved')).toEqual([approved[0]])
  })

  it('is drawn from the record again after the owner edits it, and laid out again, protected, after it is deleted', async () => {
    const approvals = tab('Approvals')
    const row = approvals.findIndex((r, i) => i > 0 && r[approvals[0]!.indexOf('Period')] === '2026-W45')
    createManager(world.fake.store).editCell(world.spreadsheetId, 'Approvals', `${letter(approvals[0]!, 'Approved')}${row + 1}`, true)
    await sync()
    const approved = tab('Approved')
    expect(approved.length).toBeGreaterThan(1)

    // The owner may edit a protected range; the next import puts the record back.
    createManager(world.fake.store).editCell(world.spreadsheetId, 'Approved', 'F2', 'edited by the owner')
    await sync()
    expect(tab('Approved')).toEqual(approved)

    // Deleted: the export lays it out again, protected, and the next import fills it from the record.
    const ss = world.fake.store.spreadsheets.get(world.spreadsheetId)!
    ss.sheets = ss.sheets.filter((s) => s.properties.title !== 'Approved')
    await sync()
    await sync()
    expect(tab('Approved')).toEqual(approved)
    expect(() => createManager(world.fake.store, { as: MANAGER }).editCell(world.spreadsheetId, 'Approved', 'F2', 'x')).toThrow(
      PROTECTED_EDIT_MESSAGE,
    )
  })
})
