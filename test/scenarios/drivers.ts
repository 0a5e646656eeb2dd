/**
 * The two spreadsheet backends a scenario runs against, behind one small
 * interface: what the CLI is configured with, how the runner reads a tab, and
 * what a manager does to it. Workbook: an .xlsx on disk, edited as Excel
 * would save it (test/sheets/workbook-fixture.ts). Google: the Sheets fake on
 * loopback, edited through its manager (counterparts/sheets/manager.ts), which
 * parses typed text the way the Google UI does (USER_ENTERED).
 */
import path from 'node:path'
import type ExcelJS from 'exceljs'
import { createManager, type Manager } from '../../counterparts/sheets/manager.ts'
import { setDimensionProps } from '../../counterparts/sheets/grid-shape.ts'
import { gridRangeOf, sheetByTitle } from '../../counterparts/sheets/sheet-lookup.ts'
import { beginTx, setKey } from '../../counterparts/sheets/tx.ts'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { editFile, managerEditing } from '../sheets/workbook-fixture.ts'

export type BackendName = 'workbook' | 'google'
export const BACKENDS: readonly BackendName[] = ['workbook', 'google']

export interface TabRead {
  header: string[]
  /** `rows[i]` is sheet row `i + 2`; a blank row is `[]`. */
  rows: CellValue[][]
}

export interface Driver {
  readonly name: BackendName
  /** The config file's `spreadsheet` (and `google`) parts. */
  readonly config: Record<string, unknown>
  /** Extra environment for the CLI (the Google token). */
  readonly env: Record<string, string>
  /** Secrets that must never show in any output. */
  readonly secrets: string[]
  read(tab: string): Promise<TabRead>
  /** Puts exactly this value in a cell: text stays text, a boolean is a tick, null empties it. */
  setCell(tab: string, row: number, column: number, value: CellValue): Promise<void>
  /** Types text into a cell the way a person does at the keyboard. */
  typeCell(tab: string, row: number, column: number, text: string): Promise<void>
  /** Pastes typed text with its top-left cell at (row, column); null leaves a cell as it is. */
  paste(tab: string, row: number, column: number, block: (string | null)[][]): Promise<void>
  sortTab(tab: string, column: number, header: string, descending: boolean): Promise<void>
  insertBlankRow(tab: string, beforeRow: number): Promise<void>
  /** Deletes whole sheet rows (any order). */
  deleteRows(tab: string, rows: number[]): Promise<void>
  /** Hides rows behind a filter on the header, as "Filter" in the UI does. */
  filterRows(tab: string, hiddenRows: number[], width: number): Promise<void>
  close(): Promise<void>
}

const GOOGLE_TOKEN = 'ya29.scenario-static-token-4c2e9a'
const GOOGLE_TOKEN_ENV = 'SCENARIO_GOOGLE_ACCESS_TOKEN'

export async function createDriver(name: BackendName, folder: string): Promise<Driver> {
  return name === 'workbook' ? workbookDriver(folder) : googleDriver()
}

function workbookDriver(folder: string): Driver {
  const file = path.join(folder, 'team.xlsx')
  const manager = managerEditing(file)
  const edit = (tab: string, change: (sheet: ExcelJS.Worksheet) => void) => editFile(file, tab, change)
  // Excel keeps typed text that it does not recognise as text; a leading = makes a formula.
  const typed = (text: string): ExcelJS.CellValue => (text.startsWith('=') ? { formula: text.slice(1), date1904: false } : text)
  return {
    name: 'workbook',
    config: { spreadsheet: { kind: 'workbook', path: 'team.xlsx' } },
    env: {},
    secrets: [],
    async read(tab) {
      const data = (await createWorkbookSpreadsheet({ path: file }).read([tab])).tabs[tab]
      if (!data?.exists) throw new Error(`The workbook has no tab ${tab}`)
      return { header: data.header.map((h) => String(h ?? '')), rows: data.rows }
    },
    setCell: (tab, row, column, value) =>
      edit(tab, (sheet) => {
        sheet.getCell(row, column + 1).value = value
      }),
    typeCell: (tab, row, column, text) =>
      edit(tab, (sheet) => {
        sheet.getCell(row, column + 1).value = typed(text)
      }),
    paste: (tab, row, column, block) =>
      edit(tab, (sheet) => {
        block.forEach((line, i) =>
          line.forEach((text, j) => {
            if (text !== null) sheet.getCell(row + i, column + j + 1).value = typed(text)
          }),
        )
      }),
    sortTab: (tab, _column, header, descending) =>
      edit(tab, (sheet) => {
        // As Excel and Google sort: numbers, then text, then booleans; blanks last either way; stable.
        const names = (sheet.getRow(1).values as unknown[]).map((v) => String(v ?? ''))
        const index = names.indexOf(header)
        const rows: unknown[][] = []
        for (let r = 2; r <= sheet.rowCount; r++) rows.push((sheet.getRow(r).values as unknown[]).slice())
        const rank = (v: unknown) =>
          v === null || v === undefined || v === '' ? 3 : typeof v === 'number' || v instanceof Date ? 0 : typeof v === 'boolean' ? 2 : 1
        const compare = (a: unknown, b: unknown): number => {
          const [ra, rb] = [rank(a), rank(b)]
          if (ra !== rb || ra === 3) return ra - rb
          const order = ra === 0 ? Number(a) - Number(b) : String(a).toLowerCase().localeCompare(String(b).toLowerCase())
          return descending ? -order : order
        }
        rows.sort((a, b) => compare(a[index], b[index]))
        rows.forEach((values, i) => {
          const row = sheet.getRow(i + 2)
          row.values = values as ExcelJS.CellValue[]
        })
      }),
    insertBlankRow: (tab, beforeRow) => manager.insertBlankRow(tab, beforeRow),
    deleteRows: (tab, rows) =>
      edit(tab, (sheet) => {
        for (const r of [...rows].sort((a, b) => b - a)) sheet.spliceRows(r, 1)
      }),
    filterRows: (tab, hiddenRows, width) =>
      edit(tab, (sheet) => {
        sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: width } }
        for (const r of hiddenRows) sheet.getRow(r).hidden = true
      }),
    close: async () => undefined,
  }
}

async function googleDriver(): Promise<Driver> {
  // Quotas off: a scenario's few requests fit any minute, and no run should wait on a real clock.
  const fake: SheetsFake = await startSheetsFake({ quota: false, staticToken: GOOGLE_TOKEN })
  const manager: Manager = createManager(fake.store)
  const spreadsheetId = manager.createSpreadsheet({ title: 'Team time' })
  const a1 = (row: number, column: number) => `${columnLetters(column)}${row}`
  const sheetOf = (tab: string) => {
    const ss = fake.store.spreadsheets.get(spreadsheetId)!
    const sheet = sheetByTitle(ss, tab)
    if (!sheet) throw new Error(`The spreadsheet has no tab ${tab}`)
    return sheet
  }
  return {
    name: 'google',
    config: {
      google: { auth: { mode: 'static-token', tokenEnv: GOOGLE_TOKEN_ENV }, rootUrl: fake.rootUrl, quotaWindowMs: 1000 },
      spreadsheet: { kind: 'google', spreadsheetId },
    },
    env: { [GOOGLE_TOKEN_ENV]: GOOGLE_TOKEN },
    secrets: [GOOGLE_TOKEN],
    async read(tab) {
      // FORMULA rendering with serial dates: what the tool itself reads.
      const all = manager.readTab(spreadsheetId, tab, 'FORMULA')
      const cell = (v: string | number | boolean | undefined): CellValue => (v === undefined || v === '' ? null : v)
      const header = (all[0] ?? []).map((h) => String(h))
      const rows = all.slice(1).map((r) => {
        const cells = r.map(cell)
        while (cells.length > 0 && cells[cells.length - 1] === null) cells.pop()
        return cells
      })
      return { header, rows }
    },
    async setCell(tab, row, column, value) {
      if (value === null || typeof value === 'boolean') manager.editCell(spreadsheetId, tab, a1(row, column), value)
      else manager.pasteBlock(spreadsheetId, tab, a1(row, column), [[value]], { raw: true })
    },
    async typeCell(tab, row, column, text) {
      manager.editCell(spreadsheetId, tab, a1(row, column), text)
    },
    async paste(tab, row, column, block) {
      manager.pasteBlock(spreadsheetId, tab, a1(row, column), block)
    },
    async sortTab(tab, column, _header, descending) {
      manager.sortTab(spreadsheetId, tab, column, descending ? 'DESCENDING' : 'ASCENDING')
    },
    async insertBlankRow(tab, beforeRow) {
      manager.insertRows(spreadsheetId, tab, beforeRow)
    },
    async deleteRows(tab, rows) {
      for (const r of [...rows].sort((a, b) => b - a)) manager.deleteRows(spreadsheetId, tab, r)
    },
    async filterRows(tab, hiddenRows, width) {
      const sheet = sheetOf(tab)
      const tx = beginTx()
      const g = sheet.properties.gridProperties
      setKey(tx, sheet, 'basicFilter', {
        range: gridRangeOf(sheet.properties.sheetId, { startRow: 0, endRow: g.rowCount, startColumn: 0, endColumn: width }),
      })
      for (const r of hiddenRows) setDimensionProps(tx, sheet, 'ROWS', r - 1, r, { hiddenByUser: true }, ['hiddenByUser'])
    },
    close: () => fake.close(),
  }
}

function columnLetters(index: number): string {
  let n = index + 1
  let out = ''
  while (n > 0) {
    const rem = (n - 1) % 26
    out = String.fromCharCode(65 + rem) + out
    n = Math.floor((n - 1) / 26)
  }
  return out
}
