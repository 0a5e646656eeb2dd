/**
 * The Approved tab in a workbook (decisions/0026): once a week is approved the tab shows its record under sheet
 * protection with every cell locked and neither sorting, inserting nor deleting rows allowed, so Excel and
 * LibreOffice refuse a manager's typing and sorting there — even where the operator turned `protect` off for the
 * tabs managers sort. Activities stays unprotected; the import refuses each change to the week there: a typed
 * edit, a new row, a ticked Delete, a typed edit after a sort. Reopening empties the tab and lets the edits through.
 */
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runSync } from '../../src/engine/sync.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import type { CellValue, TabData } from '../../src/sheets/port.ts'
import { internals, managerEditing } from '../sheets/workbook-fixture.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-12T11:00:00Z')
let world: EngineFixture

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 10, startDate: '2026-11-02' }, { window: { days: 14 }, approvals: { period: 'week' } })
})

afterAll(async () => {
  await world?.server.close()
})

// Protection off, as for a team whose managers sort: the Approved tab is protected all the same.
const spreadsheet = () => createWorkbookSpreadsheet({ path: world.file, protect: false })
const sync = () =>
  runSync(world.target, { client: world.client, spreadsheet: spreadsheet(), stateDir: world.stateDir, reporter: silentReporter, now })

async function read(title: string): Promise<TabData> {
  return (await spreadsheet().read([title])).tabs[title]!
}

const cell = (tab: TabData, row: CellValue[] | undefined, name: string) => row?.[tab.header.indexOf(name)]

describe('the Approved tab in a workbook', () => {
  it('is locked under sheet protection while Activities stays open, and the import refuses the week’s edits there', async () => {
    await sync()
    await sync()
    const user = world.server.credentials.users[0]!.username
    const approvals = await read('Approvals')
    const approvalRow =
      approvals.rows.findIndex((r) => cell(approvals, r, 'User') === user && cell(approvals, r, 'Period') === '2026-W45') + 2
    const manager = managerEditing(world.file)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved'), true)
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved by'), 'Mia Manager')
    await sync()

    const approved = await read('Approved')
    expect(approved.rows.length).toBeGreaterThan(0)
    expect(approved.rows.every((r) => cell(approved, r, 'User') === user && cell(approved, r, 'Period') === '2026-W45')).toBe(true)
    const workbook = new ExcelJS.Workbook()
    await workbook.xlsx.readFile(world.file)
    const sheet = workbook.getWorksheet('Approved')!
    const protection = internals(sheet).sheetProtection
    expect(protection).toMatchObject({ sheet: true })
    // Present means allowed: sorting, inserting and deleting rows are not.
    for (const allowed of ['sort', 'insertRows', 'deleteRows', 'formatCells']) expect(protection?.[allowed]).toBeUndefined()
    for (let r = 1; r <= approved.rows.length + 1; r++) {
      for (let c = 1; c <= approved.header.length; c++) expect(sheet.getCell(r, c).protection?.locked, `R${r}C${c}`).not.toBe(false)
    }
    expect(internals(workbook.getWorksheet('Activities')!).sheetProtection ?? null).toBeNull()

    // Activities: typed, a new row, a ticked Delete; then sorted and typed. Each is refused (exit 3).
    let activities = await read('Activities')
    const keys = approved.rows.map((r) => String(cell(approved, r, 'Key')))
    const rowOf = (tab: TabData, key: string) => tab.rows.findIndex((r) => cell(tab, r, 'Key') === key) + 2
    const column = (name: string) => activities.header.indexOf(name)
    await manager.editCell('Activities', rowOf(activities, keys[0]!), column('Notes'), 'typed after approval')
    await manager.editCell('Activities', rowOf(activities, keys[1]!), column('Delete'), true)
    const newRow = activities.rows.length + 2
    for (const [name, value] of [
      ['User', user],
      ['Date', '2026-11-05'],
      ['Start', '09:00'],
      ['End', '10:00'],
      ['Tags', 'Internal, Admin, Email'],
      ['Notes', 'new row in the week'],
    ] as const)
      await manager.editCell('Activities', newRow, column(name), value)
    let summary = await sync()
    expect(summary.imported.result).toBe('partial')
    expect(summary.imported.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })

    await manager.editCell('Activities', rowOf(await read('Activities'), keys[1]!), column('Delete'), false)
    await manager.sortRows('Activities', 'Tags')
    activities = await read('Activities')
    await manager.editCell('Activities', rowOf(activities, keys[2]!), column('Notes'), 'sorted, then typed')
    summary = await sync()
    expect(summary.imported.result).toBe('partial')
    expect(summary.imported.counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
    activities = await read('Activities')
    expect(String(cell(activities, activities.rows[rowOf(activities, keys[2]!) - 2], 'Status'))).toMatch(
      /^Error \(2026-11-12\): Not sent: .*'s 2026-W45 was approved by Mia Manager/,
    )
    expect((await read('Approved')).rows).toEqual(approved.rows)

    // Reopened: the tab empties, and the edits made meanwhile go through.
    await manager.editCell('Approvals', approvalRow, approvals.header.indexOf('Approved'), false)
    summary = await sync()
    expect(summary.imported.result).toBe('success')
    expect(summary.imported.counts).toMatchObject({ created: 1, updated: 2 })
    expect((await read('Approved')).rows).toEqual([])
  })
})
