/**
 * A fresh workbook spreadsheet in a temp folder, and manager actions that edit
 * the file the way Excel does: open it, change it, save it, behind the
 * backend's back.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import ExcelJS from 'exceljs'
import type { Worksheet } from 'exceljs'
// Before any workbook is saved by the tests' exceljs: it otherwise changes text in rows it does not touch.
import './workbook-exceljs-text.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet, type WorkbookSpreadsheetOptions } from '../../src/sheets/workbook/backend.ts'
import type { ManagerActions, SpreadsheetFixture } from '../contract/spreadsheet-contract.ts'

export interface WorkbookFixture extends SpreadsheetFixture {
  file: string
  folder: string
  actAsManager: ManagerActions
}

export async function createWorkbookFixture(options: Partial<WorkbookSpreadsheetOptions> = {}): Promise<WorkbookFixture> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'timeline-sheets-workbook-'))
  const file = path.join(folder, 'team.xlsx')
  return {
    file,
    folder,
    spreadsheet: createWorkbookSpreadsheet({ ...options, path: file }),
    cleanup: () => rm(folder, { recursive: true, force: true }),
    actAsManager: managerEditing(file),
  }
}

/** Worksheet state exceljs keeps but does not type. */
export interface SheetInternals {
  dataValidations: { model: Record<string, { type: string; formulae?: unknown[]; errorStyle?: string } | undefined> }
  conditionalFormattings: Array<{ ref: string; rules: Array<{ type: string; formulae?: string[]; priority?: number; style?: unknown }> }>
  sheetProtection: Record<string, unknown> | null
}

export function internals(sheet: Worksheet): SheetInternals {
  return sheet as unknown as SheetInternals
}

/** Opens the file with a separate exceljs workbook, applies `change`, saves it in place as a person's program would. */
export async function editFile(file: string, tab: string, change: (sheet: Worksheet) => void): Promise<void> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(file)
  const sheet = workbook.getWorksheet(tab)
  if (sheet === undefined) throw new Error(`No tab ${tab} in ${file}`)
  change(sheet)
  // The quickest deflate: the tests that edit a big file during a run spend most of their time here.
  await workbook.xlsx.writeFile(file, { zip: { compression: 'DEFLATE', compressionOptions: { level: 1 } } })
}

function text(value: unknown): string {
  if (value === null || value === undefined) return ''
  return value instanceof Date ? value.toISOString() : String(value)
}

export function managerEditing(file: string): ManagerActions {
  return {
    sortRows: (tab, column) =>
      editFile(file, tab, (sheet) => {
        const header = (sheet.getRow(1).values as unknown[]).map(text)
        const index = header.indexOf(column)
        const rows: unknown[][] = []
        for (let r = 2; r <= sheet.rowCount; r++) rows.push((sheet.getRow(r).values as unknown[]).slice())
        rows.sort((a, b) => text(a[index]).localeCompare(text(b[index])))
        rows.forEach((values, i) => {
          sheet.getRow(i + 2).values = values as ExcelJS.CellValue[]
        })
      }),
    insertBlankRow: (tab, row) => editFile(file, tab, (sheet) => sheet.spliceRows(row, 0, [])),
    deleteRow: (tab, row) => editFile(file, tab, (sheet) => sheet.spliceRows(row, 1)),
    editCell: (tab, row, column, value: CellValue) =>
      editFile(file, tab, (sheet) => {
        sheet.getCell(row, column + 1).value =
          typeof value === 'string' && value.startsWith('=') ? { formula: value.slice(1), date1904: false } : value
      }),
  }
}
