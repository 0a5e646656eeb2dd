/**
 * The local .xlsx backend of the spreadsheet port: the same tabs, layout and
 * value semantics as the Google one, in a file that opens in Excel and
 * LibreOffice. It works on the file's zip entries: a tab is read by streaming
 * its sheet XML, and a save writes anew only the sheets of the tabs the tool
 * laid out or wrote (plus the styles it appended and the tabs it added);
 * every other entry — managers' tabs, drawings, their names — is copied byte
 * for byte. The file's bytes are kept between calls and read again only when
 * the file changed on disk, so a run costs one load and one save per write.
 *
 * Longer than most files because it is the port for the workbook: load, read, layout, write and save share the
 * bytes kept between calls.
 */
import path from 'node:path'
import { TimelineSheetsError } from '../../errors.ts'
import type {
  CellValue,
  LayoutOptions,
  LayoutReport,
  ReadOptions,
  RequestCounts,
  SkippedRow,
  Snapshot,
  Spreadsheet,
  TabData,
  TabSpec,
  TabWrite,
  WriteReport,
} from '../port.ts'
import {
  BookChange,
  emptyBook,
  openBook,
  readSharedStrings,
  readStyles,
  sheetBytes,
  sheetNameProblem,
  sheetText,
  type Book,
  type BookSheet,
} from './book.ts'
import {
  DEFAULT_HELD_OPEN,
  fileError,
  isWrittenFile,
  nodeFileSystem,
  saveAtomically,
  SavedMeanwhile,
  sameStamp,
  type FileStamp,
  type HeldOpenPolicy,
  type WorkbookFileSystem,
} from './file.ts'
import { sheetReference } from './defined-names.ts'
import { extendValidations, layOutTab, type TabState } from './layout.ts'
import { extendAutoFilter } from './page-setup.ts'
import { rowHeightFor } from './row-height.ts'
import { Columns, NEW_SHEET_FRAME, SheetParts, dimension, setDimension } from './sheet-parts.ts'
import { SheetFormatError, cellContent, parseRow, scanSheet } from './sheet-xml.ts'
import { rewriteSheet, type RowChange } from './sheet-write.ts'
import { layOutSummary } from './summary.ts'
import type { Styles } from './styles.ts'
import { readHeaderOnly } from './header-read.ts'
import { isDateFormat, readTab, rowValues, type ReadContext } from './tab-read.ts'
import { XmlPartError } from './xml-parts.ts'
import { planTabWrite, relocate, type TabWritePlan } from './write-plan.ts'
import { PartCompressor, ZipFormatError, compressPart } from './zip.ts'

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
  /** How a save meets a workbook another program holds open (platform, waits); tests inject both. */
  heldOpen?: Partial<HeldOpenPolicy>
}

interface Loaded {
  book: Book
  stamp: FileStamp
  /** The shared strings, once a read needed them (the tool never changes them: it writes inline strings). */
  sharedStrings?: string[]
  /** What reading needs of the workbook (shared strings, date formats), once a read needed it. */
  context?: ReadContext
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
  const heldOpen: HeldOpenPolicy = { ...DEFAULT_HELD_OPEN, ...options.heldOpen }
  const counts: RequestCounts = { reads: 0, writes: 0 }
  // Which version of the file each snapshot we handed out was read from.
  const snapshotOrigins = new WeakMap<Snapshot, SnapshotOrigin>()
  let cache: Loaded | undefined
  /** Bumped whenever the file turned out to have changed under us. */
  let generation = 0
  /** Writes saved so far: a snapshot read before one of them no longer shows positions as they are. */
  let writesApplied = 0
  let queue: Promise<unknown> = Promise.resolve()
  /** The file as this backend's last save left it: its own writes are told from a person's by it. */
  let ownWrite: FileStamp | undefined

  // One call at a time: a read must never see a write half-saved, nor two saves race.
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
    let book: Book
    try {
      book = openBook(data, file)
    } catch (error) {
      throw fileError(error, file, 'open')
    }
    options.log?.({ action: 'load', path: file, ms: performance.now() - started, bytes: data.byteLength })
    cache = { book, stamp }
    return cache
  }

  async function statFile(): Promise<FileStamp | undefined> {
    try {
      return await fs.stat(file)
    } catch (error) {
      throw fileError(error, file, 'open')
    }
  }

  /** Reads a part of the file, naming the file when its content is not what an .xlsx holds. */
  async function reading<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task()
    } catch (error) {
      if (isFormatError(error)) throw fileError(error, file, 'open')
      throw error
    }
  }

  /** Lays out or writes, naming the file when it cannot be written back as it is (a zip64 part, 4 GB). */
  async function writing<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task()
    } catch (error) {
      throw formatError(error, file)
    }
  }

  async function readContext(loaded: Loaded): Promise<ReadContext> {
    if (loaded.context !== undefined) return loaded.context
    const sharedStrings = (loaded.sharedStrings ??= await reading(() => readSharedStrings(loaded.book)))
    const styles = readStylesOf(loaded.book)
    const dates = new Map<number, boolean>()
    const isDateStyle = (style: number) => {
      let known = dates.get(style)
      if (known === undefined) dates.set(style, (known = isDateFormat(styles.numberFormat(style))))
      return known
    }
    loaded.context = { sharedStrings, isDateStyle }
    return loaded.context
  }

  async function readTabData(loaded: Loaded, title: string): Promise<TabData> {
    const sheet = loaded.book.sheets.find((candidate) => candidate.name === title)
    if (sheet === undefined) return missingTab(title)
    const context = await readContext(loaded)
    const { frame: _frame, ...data } = await reading(() => readTab(title, sheetText(loaded.book, sheet), context))
    return data
  }

  /** Row 1 of a tab, and no other row: the caller plans nothing on its rows, and may write none on this read. */
  async function readHeaderData(loaded: Loaded, title: string): Promise<TabData> {
    const sheet = loaded.book.sheets.find((candidate) => candidate.name === title)
    if (sheet === undefined) return missingTab(title)
    const context = await readContext(loaded)
    const header =
      (await reading(() => readHeaderOnly(sheetBytes(loaded.book, sheet), context))) ?? (await readTabData(loaded, title)).header
    return { title, exists: true, header, rows: [], gridRowCount: 1, headerOnly: true }
  }

  /** Saves the change over the file, but only if the file is still the version it was loaded from (`expected`; null: no file). */
  async function save(change: BookChange, expected: FileStamp | null, previous: Loaded | undefined): Promise<void> {
    const started = performance.now()
    const data = change.toBytes()
    let written: FileStamp | undefined
    try {
      written = await saveAtomically(fs, file, data, expected, heldOpen)
    } catch (error) {
      if (error instanceof SavedMeanwhile) throw error
      throw fileError(error, file, 'save')
    }
    counts.writes++
    ownWrite = written
    const stamp = await statFile()
    // Keep the bytes only if the file is still the one just written: someone may have saved right after.
    if (stamp !== undefined && isWrittenFile(stamp, written)) {
      const book = openBook(data, file)
      const strings = previous?.sharedStrings
      cache = {
        book,
        stamp,
        ...(strings !== undefined && book.sharedStringsPart === previous?.book.sharedStringsPart ? { sharedStrings: strings } : {}),
      }
    } else {
      cache = undefined
    }
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
          throw new TimelineSheetsError(
            'TS_WORKBOOK',
            `The workbook ${file} was saved by someone else each time this run tried to write it; nothing was written`,
            {
              hint: 'Close the workbook in Excel or LibreOffice (or wait until nobody saves it), then run again.',
            },
          )
        }
      }
    }
  }

  /** A tab's parts, header and size, for the layout. */
  /** A tab's rows from row 1, as a read shows them (none for a new tab). */
  async function currentRows(loaded: Loaded | undefined, sheet: BookSheet | undefined): Promise<CellValue[][]> {
    if (loaded === undefined || sheet === undefined) return []
    const data = await readTabData(loaded, sheet.name)
    return [data.header, ...data.rows]
  }

  async function tabState(loaded: Loaded, sheet: BookSheet): Promise<TabState> {
    const context = await readContext(loaded)
    let header: CellValue[] = []
    const headerStyles = new Map<number, number | undefined>()
    let lastRow = 0
    let previous = 0
    const frame = await reading(() =>
      scanSheet(sheetText(loaded.book, sheet), (xml) => {
        const row = parseRow(xml, previous)
        previous = row.number
        if (row.number > lastRow) lastRow = row.number
        if (row.number !== 1) return
        header = rowValues(row.cells, 1, context, new Map())
        for (const cell of row.cells) headerStyles.set(cell.column, cellContent(cell).style)
      }),
    )
    return { parts: asParts(frame), header, headerStyles, lastRow }
  }

  function asParts(frame: { prefix: string; suffix: string }): SheetParts {
    try {
      return new SheetParts(frame)
    } catch (error) {
      throw formatError(error, file)
    }
  }

  async function layOut(tabs: TabSpec[]): Promise<LayoutReport> {
    // A workbook has no time zone of its own: serials are wall-clock times, as in Google.
    const loaded = await current()
    const book = loaded?.book ?? emptyBook()
    const styles = readStylesOf(book)
    const change = new BookChange(book)
    const createdTabs: string[] = []
    // Headers as they are, then as laid out, so a dropdown finds its source column.
    const headers = new Map<string, CellValue[]>()
    for (const spec of tabs) {
      for (const column of spec.columns) {
        const source = column.dropdown?.tab
        const sheet = source === undefined ? undefined : book.sheets.find((candidate) => candidate.name === source)
        if (loaded !== undefined && sheet !== undefined && !headers.has(sheet.name))
          headers.set(sheet.name, (await tabState(loaded, sheet)).header)
      }
    }
    let changed = loaded === undefined
    for (const spec of tabs) {
      const existing = book.sheets.find((candidate) => candidate.name === spec.title)
      let sheet = existing
      if (sheet === undefined) {
        checkNewTab(spec.title, [...book.sheets, ...change.addedSheets])
        sheet = change.addSheet(spec.title)
        createdTabs.push(spec.title)
      }
      const state = existing !== undefined && loaded !== undefined ? await tabState(loaded, existing) : newTabState()
      const layout = spec.summary
        ? layOutSummary(spec, state, styles, (title) => headers.get(title), await currentRows(loaded, existing))
        : layOutTab(spec, state, styles, { protect }, (title) => headers.get(title), tabs)
      headers.set(spec.title, layout.header)
      // Every page repeats the header; Excel and LibreOffice find the filter's range by name.
      change.setSheetName({ sheet: spec.title, name: '_xlnm.Print_Titles', formula: `${sheetReference(spec.title)}$1:$1` })
      if (layout.filter !== undefined)
        change.setSheetName({ sheet: spec.title, name: '_xlnm._FilterDatabase', formula: absolute(spec.title, layout.filter) })
      if (!layout.changed && existing !== undefined) continue
      changed = true
      const out = new PartCompressor(sheet.part)
      const result = await reading(() =>
        rewriteSheet(
          existing === undefined ? undefined : sheetText(book, existing),
          {
            rows: layout.rows,
            columnStyle: (column) => layout.columns.style(column + 1),
            restyle: layout.restyle,
            prefix: () => state.parts.prefix(),
            suffix: () => state.parts.suffix(),
          },
          out,
        ),
      )
      change.setPart(await out.finish())
      if (result.hadFormulas) change.dropCalcChain()
    }
    if (styles.changed || loaded === undefined) change.setStyles(compressPart(book.stylesPart ?? 'xl/styles.xml', styles.toXml()))
    if (changed) {
      writesApplied++
      await save(change, loaded?.stamp ?? null, loaded)
    }
    return { createdTabs, changed }
  }

  function readStylesOf(book: Book): Styles {
    try {
      return readStyles(book)
    } catch (error) {
      throw fileError(error, file, 'open')
    }
  }

  async function writeOnce(writes: TabWrite[], basis: Snapshot): Promise<WriteReport> {
    const loaded = await current()
    if (loaded === undefined) {
      throw new TimelineSheetsError('TS_WORKBOOK', `Cannot write to the workbook ${file}: it does not exist`, {
        hint: 'Run an export first (it creates the workbook), or check the path in the config.',
      })
    }
    const plans = writes.map((write) => planTabWrite(loaded.book, write, basis, file))
    const origin = snapshotOrigins.get(basis)
    const skipped: SkippedRow[] = []
    if (origin?.generation !== generation || origin.writes !== writesApplied) {
      // Someone saved the file since the caller read it (or we wrote since): find each addressed row again.
      for (const plan of plans) relocate(plan, basis, skipped, await readTabData(loaded, plan.write.tab))
    }
    const change = new BookChange(loaded.book)
    const appended: WriteReport['appended'] = {}
    for (const plan of plans) {
      const landed = await applyTabWrite(loaded.book, plan, change)
      if (landed !== undefined) appended[plan.write.tab] = landed
    }
    if (plans.length > 0) {
      writesApplied++
      await save(change, loaded.stamp, loaded)
    }
    return { appended, skipped }
  }

  /** Updates, then appends after the last row, then removals, in one pass over the tab's sheet. */
  async function applyTabWrite(
    book: Book,
    plan: TabWritePlan,
    change: BookChange,
  ): Promise<{ firstRow: number; count: number } | undefined> {
    const { write, lastRow } = plan
    const rows = new Map<number, RowChange>()
    let widest = 0
    for (const update of write.updates ?? []) {
      let row = rows.get(update.row)
      if (row === undefined) {
        row = { cells: [] }
        rows.set(update.row, row)
      }
      const cells = row.cells as Array<CellValue | undefined>
      update.values.forEach((value, i) => {
        cells[update.column + i] = value
      })
      widest = Math.max(widest, update.column + update.values.length)
    }
    const appends = write.appends ?? []
    appends.forEach((values, i) => {
      // A row that had leftovers below the basis (formatting, stray cells) is cleared first.
      rows.set(lastRow + 1 + i, { cells: values, clear: true })
      widest = Math.max(widest, values.length)
    })
    // A removed row is emptied in place, its formats kept, as on Google: nothing else moves (decisions/0030).
    for (const row of plan.deleteRows) rows.set(row, { cells: [], clear: true })
    let columns: Columns | undefined
    let filter: string | undefined
    const wrapped = new Map<number, number>()
    const out = new PartCompressor(plan.sheet.part)
    const result = await reading(() =>
      rewriteSheet(
        sheetText(book, plan.sheet),
        {
          rows,
          columnStyle: (column) => columns?.style(column + 1),
          rowHeight: rowHeightFor(wrapped),
          prefix: (old) => {
            const parts = asParts({ prefix: old, suffix: '</worksheet>' })
            columns = new Columns(parts.get('cols'))
            const used = dimension(parts)
            const styles = readStylesOf(book)
            for (let column = 0; column < Math.max(used.columns, widest); column++) {
              if (styles.wraps(columns.style(column + 1)))
                wrapped.set(column, Number(columns.get(column + 1).get('width') ?? DEFAULT_WIDTH))
            }
            const rowsAfter = Math.max(plan.gridRowCount, used.rows, lastRow + appends.length)
            setDimension(parts, rowsAfter, Math.max(used.columns, widest))
            return parts.prefix()
          },
          suffix: (old, last) => {
            const parts = asParts({ prefix: '<worksheet>', suffix: old })
            extendValidations(parts, last)
            filter = extendAutoFilter(parts, last)
            return parts.suffix()
          },
        },
        out,
      ),
    )
    change.setPart(await out.finish())
    if (result.hadFormulas) change.dropCalcChain()
    if (filter !== undefined)
      change.setSheetName({ sheet: plan.sheet.name, name: '_xlnm._FilterDatabase', formula: absolute(plan.sheet.name, filter) })
    if (appends.length === 0) return undefined
    return { firstRow: lastRow + 1, count: appends.length }
  }

  return {
    kind: 'workbook',
    describe: () => file,

    ensureLayout: (tabs: TabSpec[], _layout: LayoutOptions): Promise<LayoutReport> =>
      serialised(() => writing(() => againIfSavedMeanwhile(() => layOut(tabs)))),

    read: (titles: string[], readOptions: ReadOptions = {}): Promise<Snapshot> =>
      serialised(() =>
        reading(async () => {
          const loaded = await current()
          const headerOnly = new Set(readOptions.headerOnly ?? [])
          const snapshot: Snapshot = { tabs: {} }
          for (const title of titles) {
            snapshot.tabs[title] =
              loaded === undefined
                ? missingTab(title)
                : headerOnly.has(title)
                  ? await readHeaderData(loaded, title)
                  : await readTabData(loaded, title)
          }
          snapshotOrigins.set(snapshot, { generation, writes: writesApplied })
          return snapshot
        }),
      ),

    write: (writes: TabWrite[], basis: Snapshot): Promise<WriteReport> =>
      serialised(() => writing(() => againIfSavedMeanwhile(() => writeOnce(writes, basis)))),

    requestCounts: () => ({ ...counts }),

    // The file's identity, size and modification time: one stat, whatever the workbook's size.
    changeMark: async () => markOf(await statFile()),
    changeMarkRequests: 0,

    markAfterOwnWrite: () => (ownWrite === undefined ? undefined : markOf(ownWrite)),
  }
}

/** A file stamp as a change mark; `none` when there is no file. */
function markOf(stamp: FileStamp | undefined): string {
  return stamp === undefined ? 'none' : `${stamp.ino}:${stamp.size}:${stamp.mtimeMs}`
}

/** Excel's column width when `<cols>` gives none (characters of the default font). */
const DEFAULT_WIDTH = 8.43

/** A range on a tab as a name's formula: `'Activities'!$A$1:$L$9`. */
function absolute(title: string, ref: string): string {
  return sheetReference(title) + ref.replace(/([A-Z]+)(\d+)/g, '$$$1$$$2')
}

function isFormatError(error: unknown): boolean {
  return error instanceof ZipFormatError || error instanceof XmlPartError || error instanceof SheetFormatError
}

/** A workbook whose XML this tool cannot edit safely: nothing was written. */
function formatError(error: unknown, file: string): unknown {
  if (!isFormatError(error)) return error
  return new TimelineSheetsError('TS_WORKBOOK', `Cannot write to the workbook ${file}: ${(error as Error).message}`, {
    hint: 'Nothing was written. Open the workbook in Excel or LibreOffice and save it once, then run again.',
    cause: error,
  })
}

function newTabState(): TabState {
  return { parts: new SheetParts(NEW_SHEET_FRAME), header: [], headerStyles: new Map(), lastRow: 0 }
}

function checkNewTab(title: string, sheets: readonly BookSheet[]): void {
  const problem = sheetNameProblem(title)
  const clash = sheets.find((sheet) => sheet.name.toLowerCase() === title.toLowerCase())
  if (problem === undefined && clash === undefined) return
  throw new TimelineSheetsError(
    'TS_SHEET_LAYOUT',
    problem !== undefined
      ? `Cannot make a tab named "${title}": ${problem}`
      : `Cannot make a tab named "${title}": the workbook has a tab "${clash!.name}", and Excel does not tell names apart by case`,
    { hint: 'Choose another tab title in the config (targets[].tabs).' },
  )
}

function missingTab(title: string): TabData {
  return { title, exists: false, header: [], rows: [], gridRowCount: 0 }
}
