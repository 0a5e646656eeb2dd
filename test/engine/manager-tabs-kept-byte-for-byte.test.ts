/**
 * A manager's own workbook (saved by LibreOffice, two tabs of their
 * own, a defined name) becomes a target. An export adds the tool's tabs, a
 * manager's edit is imported, an export with nothing new follows: through all
 * of it every zip entry of the manager's tabs and of the package parts the
 * tool has no business with keeps every byte, and what the tool does change
 * in the workbook part is adding its tabs.
 */
import { copyFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentReporter } from '../../src/cli/reporter.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { changedEntries, zipRecords, zipText } from '../sheets/xlsx-package.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
const later = () => new Date('2026-11-10T12:00:00Z')
/** The parts a run may rewrite: the workbook part and its relationships and content types (tabs added), the styles (formats appended). */
const PACKAGE = ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', '[Content_Types].xml', 'xl/styles.xml']
let world: EngineFixture
let manager: Map<string, Buffer>

beforeAll(async () => {
  world = await startEngineFixture({ users: 2, days: 14, startDate: '2026-10-28' }, { window: { days: 14 } })
  await copyFile(path.join(import.meta.dirname, '../sheets/fixtures/libreoffice-manager.xlsx'), world.file)
  manager = await zipRecords(world.file)
})

afterAll(async () => {
  await world?.server.close()
})

/** The entries the manager's file had that are not package parts: their tabs, shared strings, document properties. */
function managersEntries(): string[] {
  return [...manager.keys()].filter((name) => !PACKAGE.includes(name))
}

describe('a manager’s tabs survive export and import byte for byte', () => {
  it('an export adds the tool’s tabs after theirs and changes none of their entries', async () => {
    const { client, target, stateDir } = world
    const workbookBefore = await zipText(world.file, 'xl/workbook.xml')
    const summary = await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now })
    expect(summary.counts.created).toBeGreaterThan(50)
    const after = await zipRecords(world.file)
    expect(managersEntries().length).toBeGreaterThanOrEqual(5)
    expect(managersEntries()).toContain('xl/worksheets/sheet1.xml')
    expect(managersEntries()).toContain('xl/worksheets/sheet2.xml')
    expect(changedEntries(manager, after, managersEntries())).toEqual([])
    // The workbook part keeps every element it had; the tool's <sheet> elements are added to <sheets>, and the
    // print titles and filter range of its own tabs to <definedNames>.
    const workbookAfter = await zipText(world.file, 'xl/workbook.xml')
    const sheetsEnd = workbookBefore.indexOf('</sheets>')
    expect(workbookAfter.slice(0, sheetsEnd)).toBe(workbookBefore.slice(0, sheetsEnd))
    const toolNames =
      /<definedName name="_xlnm\.(?:Print_Titles|_FilterDatabase)" localSheetId="(\d+)"(?: hidden="1")?>[^<]*<\/definedName>/g
    const managersTabs = (workbookBefore.match(/<sheet /g) ?? []).length
    expect([...workbookAfter.matchAll(toolNames)].every((m) => Number(m[1]) >= managersTabs)).toBe(true)
    expect(workbookAfter.slice(workbookAfter.indexOf('</sheets>')).replace(toolNames, '')).toBe(workbookBefore.slice(sheetsEnd))
    expect(workbookAfter).toContain('Costs')
  })

  it('an import of a manager’s edit, then an export with nothing new, change none of their entries either', async () => {
    const { client, target, stateDir } = world
    // The manager types a note (written as typing would be: only the Activities sheet changes).
    const sheet = createWorkbookSpreadsheet({ path: world.file })
    const basis = await sheet.read(['Activities'])
    const notes = basis.tabs['Activities']!.header.indexOf('Notes')
    await sheet.write([{ tab: 'Activities', updates: [{ row: 2, column: notes, values: ['typed by the manager'] }] }], basis)
    const laidOut = await zipRecords(world.file)

    const imported = await runImport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now: later })
    expect(imported.counts).toMatchObject({ updated: 1, conflicts: 0, invalid: 0 })
    const afterImport = await zipRecords(world.file)
    expect(changedEntries(manager, afterImport, managersEntries())).toEqual([])
    // No tab was added, no format needed: the package parts stay as the export left them.
    expect(changedEntries(laidOut, afterImport, PACKAGE)).toEqual([])

    await runExport(target, { client, spreadsheet: world.spreadsheet(), stateDir, reporter: silentReporter, now: later })
    const afterExport = await zipRecords(world.file)
    expect(changedEntries(manager, afterExport, managersEntries())).toEqual([])
    expect(changedEntries(laidOut, afterExport, PACKAGE)).toEqual([])
  })
})
