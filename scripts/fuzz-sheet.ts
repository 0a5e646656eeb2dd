/**
 * The sheet the fuzzer garbles, the same way on both backends: a local workbook read and written with exceljs,
 * or a spreadsheet in the Sheets fake edited through its manager, as a person at the keyboard would. It reads
 * the header and the rows by column name, fills the tab with the garbled rows (the Fuzz column last), and in a
 * workbook puts links, notes and merges on cells (`fuzz-cell-parts.ts`) and finds those the run moved off their
 * rows. What it reads is what Excel, LibreOffice or Google would show, so the judging compares what a manager sees.
 */
import path from 'node:path'
import ExcelJS from 'exceljs'
import { createManager } from '../counterparts/sheets/manager.ts'
import { insertDimension } from '../counterparts/sheets/grid-shape.ts'
import { sheetByTitle } from '../counterparts/sheets/sheet-lookup.ts'
import { beginTx } from '../counterparts/sheets/tx.ts'
import type { SheetsFake } from '../counterparts/sheets/server.ts'
import { decodeExcelText } from '../src/sheets/workbook/xml-text.ts'
import { attachCellParts, misplacedCellParts, type CellParts } from './fuzz-cell-parts.ts'
import { FUZZ, type Backend, type Cell, type FuzzRow, type Scalar } from './fuzz-rows.ts'

export interface Sheet {
  spec: Record<string, unknown>
  header(): Promise<string[]>
  /** Data rows by column name (sheet row 2 on). */
  rows(header: string[]): Promise<Record<string, Scalar>[]>
  fill(header: string[], rows: FuzzRow[], parts?: CellParts): Promise<void>
  /** The links, notes and merges not on the rows they were put on (a workbook's; none on Google). */
  misplaced(header: string[], parts: CellParts): Promise<string[]>
}

export async function openSheet(backend: Backend, folder: string, fake: SheetsFake | undefined): Promise<Sheet> {
  if (backend === 'workbook') {
    const file = path.join(folder, 'team.xlsx')
    const load = async () => {
      const book = new ExcelJS.Workbook()
      await book.xlsx.readFile(file)
      return { book, tab: book.getWorksheet('Activities')! }
    }
    return {
      spec: { kind: 'workbook', path: 'team.xlsx' },
      async header() {
        const { tab } = await load()
        return (tab.getRow(1).values as unknown[]).slice(1).map((v) => String(v ?? ''))
      },
      async rows(header) {
        const { tab } = await load()
        const out: Record<string, Scalar>[] = []
        for (let r = 2; r <= tab.rowCount; r++) {
          const row = tab.getRow(r)
          out.push(Object.fromEntries(header.map((name, i) => [name, workbookScalar(row.getCell(i + 1).value)])))
        }
        return out
      },
      async fill(header, rows, parts) {
        const { book, tab } = await load()
        tab.getCell(1, header.length).value = FUZZ
        rows.forEach((row, i) => {
          header.forEach((name, c) => {
            const value = name === FUZZ ? row.id : (row.cells[name] ?? null)
            tab.getCell(i + 2, c + 1).value = toExcel(value)
          })
        })
        for (let r = rows.length + 2; r <= tab.rowCount; r++) tab.getRow(r).values = []
        if (parts) attachCellParts(tab, parts, new Map(rows.map((row, i) => [row.id, i + 2])), header.length)
        await book.xlsx.writeFile(file)
      },
      async misplaced(header, parts) {
        const { tab } = await load()
        return misplacedCellParts(tab, parts, header.length, header.length - 1)
      },
    }
  }
  const manager = createManager(fake!.store)
  const spreadsheetId = manager.createSpreadsheet({ title: 'Fuzz' })
  return {
    spec: { kind: 'google', spreadsheetId },
    async header() {
      return (manager.readTab(spreadsheetId, 'Activities', 'FORMULA')[0] ?? []).map((v) => String(v ?? ''))
    },
    async rows(header) {
      return manager
        .readTab(spreadsheetId, 'Activities', 'FORMULA')
        .slice(1)
        .map((row) => Object.fromEntries(header.map((name, i) => [name, (row[i] === '' ? null : row[i]) ?? null])))
    },
    async fill(header, rows) {
      // A column of the manager's own at the end: the grid must grow by one, as "Insert 1 column right" does.
      const ss = fake!.store.spreadsheets.get(spreadsheetId)!
      const tab = sheetByTitle(ss, 'Activities')!
      const width = tab.properties.gridProperties.columnCount
      if (width < header.length)
        insertDimension(beginTx(), ss, tab, 'COLUMNS', width, header.length - width, true, fake!.store.options.cellLimit)
      const existing = manager.readTab(spreadsheetId, 'Activities', 'FORMULA').length - 1
      if (rows.length > existing) manager.insertRows(spreadsheetId, 'Activities', 2, rows.length - existing + 1)
      manager.pasteBlock(spreadsheetId, 'Activities', 'A1', [header])
      // RAW keeps every value exactly as generated (an error value is the text Google's FORMULA rendering returns).
      const block = rows.map((row) => header.map((name) => googleValue(name === FUZZ ? row.id : (row.cells[name] ?? null))))
      manager.pasteBlock(spreadsheetId, 'Activities', 'A2', block, { raw: true })
      const left = manager.readTab(spreadsheetId, 'Activities', 'FORMULA').length - 1
      if (left > rows.length) manager.deleteRows(spreadsheetId, 'Activities', rows.length + 2, left - rows.length)
    },
    misplaced: async () => [],
  }
}

function toExcel(value: Cell): ExcelJS.CellValue {
  if (value !== null && typeof value === 'object') return { error: value.error } as ExcelJS.CellErrorValue
  if (typeof value === 'string' && value.startsWith('=')) return { formula: value.slice(1), date1904: false } as ExcelJS.CellFormulaValue
  return value
}

function googleValue(value: Cell): Scalar {
  if (value !== null && typeof value === 'object') return value.error
  return value === null ? '' : value
}

function workbookScalar(value: ExcelJS.CellValue): Scalar {
  if (value === null || value === undefined) return null
  // exceljs leaves Excel's `_xHHHH_` escapes (a control character in cell text) as they are in the file;
  // Excel and LibreOffice show the character, so the fuzzer reads what they show.
  if (typeof value === 'string') return decodeExcelText(value)
  if (typeof value === 'number' || typeof value === 'boolean') return value
  if (value instanceof Date) return value.getTime() / 86_400_000 + 25_569
  if (typeof value === 'object' && 'error' in value) return String(value.error)
  if (typeof value === 'object' && 'formula' in value) return `=${value.formula}`
  if (typeof value === 'object' && 'richText' in value) return value.richText.map((r) => r.text).join('')
  // A hyperlink cell (the fuzzer puts links on Fuzz cells): its text is what the sheet shows.
  if (typeof value === 'object' && 'hyperlink' in value) return typeof value.text === 'string' ? value.text : String(value.text)
  return String(value)
}
