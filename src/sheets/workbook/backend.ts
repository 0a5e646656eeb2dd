/**
 * The local .xlsx backend of the spreadsheet port: the same tabs, layout and
 * value semantics as the Google one, in a file that opens in Excel and
 * LibreOffice. The loaded workbook is kept between calls and reloaded only
 * when the file changed on disk, so a run costs one load and one save.
 */
import path from 'node:path'
import ExcelJS from 'exceljs'
// Before any workbook is saved: exceljs otherwise changes some text it writes (see the module).
import './exceljs-text.ts'
import type { Workbook, Worksheet } from 'exceljs'
import { TimelineSheetsError } from '../../errors.ts'
import { basisCells, locateRows, writableCells } from '../../core/row-identity.ts'
import type {
  CellValue,
  LayoutOptions,
  LayoutReport,
  RequestCounts,
  SkippedRow,
  Snapshot,
  Spreadsheet,
  TabData,
  TabSpec,
  TabWrite,
  WriteReport,
} from '../port.ts'
import { cellAddress, dateToSerial, isWritableValue, toCellValue, trimRow, trimRows } from './cells.ts'
import { fileError, isWrittenFile, nodeFileSystem, sameStamp, saveAtomically, SavedMeanwhile, type FileStamp, type WorkbookFileSystem } from './file.ts'
import { applyTabLayout, compactValidations, extendValidations } from './layout.ts'

/** One load or save, for the operator's log. */
export interface WorkbookLogEvent {
  action: 'load' | 'save'
  path: string
  ms: number
  bytes: number
}

export interface WorkbookSpreadsheetOptions {
  /** The .xlsx file; created by `ensureLayout` when missing. */
  path: string
  log?: (event: WorkbookLogEvent) => void
  /**
   * Protect each sheet (header and tool columns locked, no password). Excel and
   * LibreOffice refuse to sort a range with locked cells on a protected sheet,
   * so an operator whose managers sort may turn this off.
   * @default true
   */
  protect?: boolean
  /** File operations; tests inject failures here. @default the real file system */
  fileSystem?: WorkbookFileSystem
}

interface Loaded {
  workbook: Workbook
  stamp: FileStamp
  /** Bumped whenever the file turned out to have changed under us. */
  generation: number
}

/** Which version of the workbook a snapshot shows: the file's generation and how many of our own writes it had seen. */
interface SnapshotOrigin {
  generation: number
  writes: number
}

/** Creates the workbook backend for one file. Nothing is read until the first call. */
export function createWorkbookSpreadsheet(options: WorkbookSpreadsheetOptions): Spreadsheet {
  const file = path.resolve(options.path)
  const fs = options.fileSystem ?? nodeFileSystem
  const protect = options.protect ?? true
  const counts: RequestCounts = { reads: 0, writes: 0 }
  // Which version of the file each snapshot we handed out was read from.
  const snapshotOrigins = new WeakMap<Snapshot, SnapshotOrigin>()
  let cache: Loaded | undefined
  let generation = 0
  /** Writes applied to the cached workbook so far: a snapshot read before one of them no longer shows positions as they are. */
  let writesApplied = 0
  let queue: Promise<unknown> = Promise.resolve()

  // One call at a time: a read must never see a write half-applied to the cached workbook.
  function serialised<T>(task: () => Promise<T>): Promise<T> {
    const run = queue.then(task, task)
    queue = run.catch(() => undefined)
    return run
  }

  /** The current workbook, loading it when the file is new to us or changed; undefined when there is no file. */
  async function current(): Promise<Loaded | undefined> {
    const stamp = await statFile()
    if (stamp === undefined) {
      if (cache !== undefined) generation++
      cache = undefined
      return undefined
    }
    if (cache !== undefined && sameStamp(cache.stamp, stamp)) return cache
    if (cache !== undefined) generation++
    const started = performance.now()
    let data: Uint8Array
    try {
      data = await fs.readFile(file)
    } catch (error) {
      throw fileError(error, file, 'open')
    }
    counts.reads++
    const workbook = await parseWorkbook(data, file)
    options.log?.({ action: 'load', path: file, ms: performance.now() - started, bytes: data.byteLength })
    cache = { workbook, stamp, generation }
    return cache
  }

  async function statFile(): Promise<FileStamp | undefined> {
    try {
      return await fs.stat(file)
    } catch (error) {
      throw fileError(error, file, 'open')
    }
  }

  /** Saves `workbook` over the file, but only if the file is still the version it was loaded from (`expected`; null: no file). */
  async function save(workbook: Workbook, expected: FileStamp | null): Promise<void> {
    const started = performance.now()
    let data: Uint8Array
    let written: FileStamp | undefined
    try {
      data = new Uint8Array(await workbook.xlsx.writeBuffer())
      written = await saveAtomically(fs, file, data, expected)
    } catch (error) {
      // The cached workbook holds changes the file does not: forget it.
      cache = undefined
      if (error instanceof SavedMeanwhile) throw error
      throw fileError(error, file, 'save')
    }
    counts.writes++
    const stamp = await statFile()
    // Keep the workbook only if the file is still the one just written: someone may have saved right after.
    cache = stamp !== undefined && isWrittenFile(stamp, written) ? { workbook, stamp, generation } : undefined
    options.log?.({ action: 'save', path: file, ms: performance.now() - started, bytes: data.byteLength })
  }

  /**
   * A person saving the file between our load and our save would lose their save if we replaced the
   * file: the save refuses, and the change is applied again on top of what they saved.
   */
  async function againIfSavedMeanwhile<T>(change: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await change()
      } catch (error) {
        if (!(error instanceof SavedMeanwhile)) throw error
        if (attempt >= 3) {
          throw new TimelineSheetsError('TS_WORKBOOK', `The workbook ${file} was saved by someone else each time this run tried to write it; nothing was written`, {
            hint: 'Close the workbook in Excel or LibreOffice (or wait until nobody saves it), then run again.',
          })
        }
      }
    }
  }

  async function layOut(tabs: TabSpec[]): Promise<LayoutReport> {
    // A workbook has no time zone of its own: serials are wall-clock times, as in Google.
    const loaded = await current()
    const workbook = loaded?.workbook ?? newWorkbook()
    const createdTabs: string[] = []
    let changed = loaded === undefined
    try {
      for (const spec of tabs) {
        const result = applyTabLayout(workbook, spec, tabs, { protect })
        if (result.created) createdTabs.push(spec.title)
        if (result.changed) changed = true
      }
    } catch (error) {
      cache = undefined
      throw error
    }
    if (changed) {
      writesApplied++
      await save(workbook, loaded?.stamp ?? null)
    }
    return { createdTabs, changed }
  }

  async function writeOnce(writes: TabWrite[], basis: Snapshot): Promise<WriteReport> {
    const loaded = await current()
    if (loaded === undefined) {
      throw new TimelineSheetsError('TS_WORKBOOK', `Cannot write to the workbook ${file}: it does not exist`, {
        hint: 'Run an export first (it creates the workbook), or check the path in the config.',
      })
    }
    const plans = writes.map((write) => planTabWrite(loaded.workbook, write, basis, file))
    const origin = snapshotOrigins.get(basis)
    const skipped: SkippedRow[] = []
    if (origin?.generation !== generation || origin.writes !== writesApplied) {
      // Someone saved the file since the caller read it (or we wrote since): find each addressed row again.
      for (const plan of plans) relocate(plan, basis, skipped)
    }
    const appended: WriteReport['appended'] = {}
    try {
      for (const plan of plans) {
        const landed = applyTabWrite(plan)
        if (landed !== undefined) appended[plan.write.tab] = landed
      }
    } catch (error) {
      cache = undefined
      throw error
    }
    if (plans.length > 0) {
      writesApplied++
      await save(loaded.workbook, loaded.stamp)
    }
    return { appended, skipped }
  }

  return {
    kind: 'workbook',
    describe: () => file,

    ensureLayout: (tabs: TabSpec[], _layout: LayoutOptions): Promise<LayoutReport> =>
      serialised(() => againIfSavedMeanwhile(() => layOut(tabs))),

    read: (titles: string[]): Promise<Snapshot> =>
      serialised(async () => {
        const loaded = await current()
        const snapshot: Snapshot = { tabs: {} }
        for (const title of titles) {
          const sheet = loaded?.workbook.worksheets.find((candidate) => candidate.name === title)
          snapshot.tabs[title] = sheet === undefined ? missingTab(title) : readTab(sheet)
        }
        snapshotOrigins.set(snapshot, { generation, writes: writesApplied })
        return snapshot
      }),

    write: (writes: TabWrite[], basis: Snapshot): Promise<WriteReport> => serialised(() => againIfSavedMeanwhile(() => writeOnce(writes, basis))),

    requestCounts: () => ({ ...counts }),
  }
}

function newWorkbook(): Workbook {
  const workbook = new ExcelJS.Workbook()
  workbook.creator = 'timeline-sheets'
  workbook.created = new Date()
  return workbook
}

async function parseWorkbook(data: Uint8Array, file: string): Promise<Workbook> {
  const workbook = new ExcelJS.Workbook()
  try {
    await workbook.xlsx.load(data as never)
  } catch (error) {
    throw fileError(error, file, 'open')
  }
  if (workbook.properties.date1904) {
    throw new TimelineSheetsError('TS_WORKBOOK', `The workbook ${file} uses the 1904 date system`, {
      hint: 'Turn off "Use 1904 date system" in Excel (File › Options › Advanced) or start from a new workbook.',
    })
  }
  for (const sheet of workbook.worksheets) {
    serialiseDates(sheet)
    compactValidations(sheet)
  }
  return workbook
}

/**
 * exceljs turns numbers in date-formatted cells into Dates; turn them back
 * into the serials they were (UTC arithmetic, so the machine's zone is out of it).
 */
function serialiseDates(sheet: Worksheet): void {
  sheet.eachRow({ includeEmpty: false }, (row) => {
    row.eachCell({ includeEmpty: false }, (cell) => {
      const value = cell.value
      if (value instanceof Date) cell.value = dateToSerial(value)
    })
  })
}

function missingTab(title: string): TabData {
  return { title, exists: false, header: [], rows: [], gridRowCount: 0 }
}

function readTab(sheet: Worksheet): TabData {
  const rows: CellValue[][] = []
  let header: CellValue[] = []
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells: CellValue[] = []
    row.eachCell({ includeEmpty: false }, (cell, column) => {
      const isFormula = cell.type === ExcelJS.ValueType.Formula
      // A merged cell other than the top-left one holds no value of its own, as in Google.
      cells[column - 1] = cell.type === ExcelJS.ValueType.Merge ? null : toCellValue(cell.value as never, isFormula ? cell.formula : undefined)
    })
    const trimmed = trimRow(cells)
    if (rowNumber === 1) header = trimmed
    else rows[rowNumber - 2] = trimmed
  })
  // eachRow skips rows exceljs never created; they are the empty rows `[]`.
  const filled = Array.from(rows, (row) => row ?? [])
  return { title: sheet.name, exists: true, header, rows: trimRows(filled), gridRowCount: sheet.rowCount }
}

interface TabWritePlan {
  write: TabWrite
  sheet: Worksheet
  /** Last data row (of the basis, or of the tab as it is now once relocated): appends go right after it. */
  lastRow: number
  /** Rows to remove, descending. */
  deleteRows: number[]
}

/** Checks a write against the workbook and its basis before anything changes. */
function planTabWrite(workbook: Workbook, write: TabWrite, basis: Snapshot, file: string): TabWritePlan {
  const where = `tab "${write.tab}" of ${file}`
  const sheet = workbook.worksheets.find((candidate) => candidate.name === write.tab)
  if (sheet === undefined) {
    throw new TimelineSheetsError('TS_WORKBOOK', `Cannot write to ${where}: the tab does not exist`, {
      hint: 'Lay the workbook out first (an export does), or check the tab name in the config.',
    })
  }
  const basisTab = basis.tabs[write.tab]
  if (basisTab === undefined || !basisTab.exists) {
    throw new TimelineSheetsError('TS_WORKBOOK', `Cannot write to ${where}: the snapshot the write is based on did not read it`, {
      hint: 'This is a bug: read a tab before writing to it, and pass that snapshot as the basis.',
    })
  }
  const lastRow = basisTab.rows.length > 0 ? basisTab.rows.length + 1 : basisTab.header.length > 0 ? 1 : 0
  for (const update of write.updates ?? []) {
    if (!Number.isInteger(update.row) || update.row < 1 || !Number.isInteger(update.column) || update.column < 0) {
      throw badWrite(`an update addresses row ${update.row}, column ${update.column}`, where)
    }
    update.values.forEach((value, i) => {
      if (!isWritableValue(value)) throw badWrite(`${cellAddress(update.row, update.column + i + 1)} would get ${String(value)}`, where)
    })
  }
  for (const [i, row] of (write.appends ?? []).entries()) {
    row.forEach((value, j) => {
      if (!isWritableValue(value)) throw badWrite(`appended row ${i + 1}, cell ${j + 1} would get ${String(value)}`, where)
    })
  }
  const deleteRows = [...new Set(write.deleteRows ?? [])].sort((a, b) => b - a)
  for (const row of deleteRows) {
    if (!Number.isInteger(row) || row < 2 || row > lastRow) {
      throw badWrite(`row ${row} cannot be removed (the basis has data rows 2 to ${lastRow})`, where)
    }
  }
  return { write, sheet, lastRow, deleteRows }
}

function badWrite(problem: string, where: string): TimelineSheetsError {
  return new TimelineSheetsError('TS_WORKBOOK', `Refused a write to ${where}: ${problem}`, {
    hint: 'This is a bug in the caller: positions come from the snapshot that was read, values are text, finite numbers, booleans or null.',
  })
}

/**
 * Points every addressed row of a write at where that row is now, by content
 * (and Key), and drops the updates and removals of rows that a person changed
 * or removed since the basis was read; appends go after the rows as they are now.
 */
function relocate(plan: TabWritePlan, basis: Snapshot, skipped: SkippedRow[]): void {
  const basisTab = basis.tabs[plan.write.tab]!
  const now = readTab(plan.sheet)
  const rows = [...(plan.write.updates ?? []).map((u) => u.row), ...plan.deleteRows]
  const where = locateRows(basisTab, now, rows, plan.write.keyColumn)
  const skip = (row: number, reason: SkippedRow['reason']) => {
    if (!skipped.some((s) => s.tab === plan.write.tab && s.row === row)) skipped.push({ tab: plan.write.tab, row, reason })
  }
  const updates = (plan.write.updates ?? []).flatMap((u) => {
    const found = where.get(u.row)
    if (found?.kind === 'found') return [{ ...u, row: found.row }]
    if (found?.kind === 'changed') {
      // A person typed into this row: write only where they did not, never over what they typed.
      const columns = u.values.map((_, i) => u.column + i)
      if (writableCells(basisCells(basisTab, u.row), now.rows[found.row - 2] ?? [], columns)) return [{ ...u, row: found.row }]
      skip(u.row, 'changed')
      return []
    }
    skip(u.row, 'gone')
    return []
  })
  plan.deleteRows = plan.deleteRows.flatMap((r) => {
    // A row someone changed since the read is not removed.
    const found = where.get(r)
    if (found?.kind === 'found') return [found.row]
    skip(r, found?.kind === 'changed' ? 'changed' : 'gone')
    return []
  }).sort((a, b) => b - a)
  plan.write = { ...plan.write, updates }
  plan.lastRow = now.rows.length > 0 ? now.rows.length + 1 : now.header.length > 0 ? 1 : 0
}

function setCell(sheet: Worksheet, row: number, column: number, value: CellValue): void {
  // '' is an empty cell in the port, as in Google; exceljs would keep an empty string.
  sheet.getCell(row, column).value = value === '' ? null : value
}

/** Updates, then appends after the basis's last row, then removals from the bottom up. */
function applyTabWrite(plan: TabWritePlan): { firstRow: number; count: number } | undefined {
  const { sheet, write, lastRow } = plan
  for (const update of write.updates ?? []) {
    update.values.forEach((value, i) => setCell(sheet, update.row, update.column + i + 1, value))
  }
  const appends = write.appends ?? []
  appends.forEach((values, i) => {
    const row = lastRow + 1 + i
    // A row that had leftovers below the basis (formatting, stray cells) is cleared first.
    const existing = sheet.getRow(row)
    existing.eachCell({ includeEmpty: false }, (cell) => {
      cell.value = null
    })
    values.forEach((value, j) => setCell(sheet, row, j + 1, value))
  })
  removeRows(sheet, plan.deleteRows)
  extendValidations(sheet, sheet.rowCount)
  if (appends.length === 0) return undefined
  const removedAbove = plan.deleteRows.filter((row) => row <= lastRow).length
  return { firstRow: lastRow + 1 - removedAbove, count: appends.length }
}

/** exceljs's row storage: `_rows[n - 1]` is sheet row n; each cell caches its address. */
interface RowStorage {
  _rows: Array<{ _number: number; _cells: Array<{ _address: string; _column: { number: number } } | undefined> } | undefined>
}

/**
 * Removes rows in one pass: every later row moves up by the number of removed
 * rows above it. exceljs's spliceRows costs a pass per run of rows and leaves
 * the last rows behind when nothing follows them. Formulas are not re-addressed.
 */
function removeRows(sheet: Worksheet, rowsToRemove: readonly number[]): void {
  if (rowsToRemove.length === 0) return
  const rows = (sheet as unknown as RowStorage)._rows
  const remove = new Set(rowsToRemove)
  // No spread: a row-sized argument list overflows the stack past ~125,000 rows.
  let target = rowsToRemove.reduce((min, row) => Math.min(min, row), Number.POSITIVE_INFINITY) - 1
  for (let source = target; source < rows.length; source++) {
    if (remove.has(source + 1)) continue
    const row = rows[source]
    if (row !== undefined && source !== target) {
      row._number = target + 1
      for (const cell of row._cells) {
        if (cell !== undefined) cell._address = cellAddress(target + 1, cell._column.number)
      }
    }
    rows[target] = row
    target++
  }
  rows.length = target
}
