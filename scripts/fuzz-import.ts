/**
 * `npm run fuzz -- [--seed N] [--rows N] [--backend workbook|google|both]`:
 * the importer against a sheet full of garbage, through the real CLI.
 *
 * For each backend: starts the reference Timeline server with a generated
 * team, exports it (a local workbook, or a spreadsheet in the Sheets fake),
 * then acts as a careless manager on every column a manager can touch — error
 * values, extreme dates, skipped local times, 50,000-character cells, control
 * characters, formulas, huge numbers, Keys and Bases duplicated, pasted and
 * garbled, Delete ticked on some damaged rows — until the tab holds `--rows`
 * rows, and runs `import --dry-run` and `import --yes` as subprocesses. A
 * column of its own ("Fuzz", which the tool never writes) follows each row
 * through the run.
 *
 * Four figures per backend, each of which must be 0:
 * - exits whose output calls something a bug ("This is a bug…") or shows a stack trace;
 * - invalid rows without a Status after `import --yes` (invalid: the dry run
 *   says so, or the row holds something no row may hold, by construction);
 * - server writes made from invalid rows (every change the reference server
 *   recorded, traced to the rows holding that Key), a deletion from a ticked
 *   row that holds a cell the tool cannot read among them;
 * - rows whose content was replaced (an invalid row whose manager cells
 *   changed, a row that vanished without Delete ticked, a row whose Notes or
 *   Tags now say something else than what it asked for, or whose Key changed).
 * And in a workbook a fifth: hyperlinks, notes and merged cells the manager put
 * on rows that end up on another row (`fuzz-cell-parts.ts`; the Sheets fake
 * models none of them, so Google is not checked for it).
 * Seeded: the same seed fills the same sheet.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import ExcelJS from 'exceljs'
import { createManager } from '../counterparts/sheets/manager.ts'
import { beginTx, insertDimension, sheetByTitle } from '../counterparts/sheets/model.ts'
import { startSheetsFake, type SheetsFake } from '../counterparts/sheets/server.ts'
import { startReferenceServer, type ReferenceServer } from '../counterparts/timeline/server.ts'
import { notesCellText } from '../src/core/notes-cell.ts'
import { readStatus } from '../src/core/status.ts'
import { decodeExcelText } from '../src/sheets/workbook/xml-text.ts'
import { attachCellParts, chooseCellParts, misplacedCellParts, type CellParts } from './fuzz-cell-parts.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const CLI = path.join(root, 'src/cli/main.ts')
const NOW = '2026-11-10T11:00:00Z'
const TODAY = '2026-11-10'
const ZONE = 'Europe/Berlin'
const TOKEN = 'fuzz-static-token'
const TOKEN_ENV = 'FUZZ_GOOGLE_TOKEN'
const FUZZ = 'Fuzz'
const MANAGER_COLUMNS = ['User', 'Date', 'Start', 'End', 'Duration', 'Tags', 'Labels', 'Notes', 'Delete', 'Key', 'Base'] as const
const COMPARED = ['User', 'Date', 'Start', 'End', 'Tags', 'Labels', 'Notes', 'Delete', 'Key'] as const
/** The fault of a Date, Start or End holding blank text: a value missing, which only a row to delete may lack. */
const EMPTY = 'empty'
/** The fault of a Start or End the clocks skip on 2026-03-29 in Berlin: a fault of that day only. */
const SKIPPED_TIME = 'a time the clocks skip in Berlin'
const ERRORS = ['#N/A', '#REF!', '#DIV/0!', '#VALUE!', '#NAME?', '#NUM!', '#NULL!', '#ERROR!', '#SPILL!', '#CALC!', '#GETTING_DATA']

type Backend = 'workbook' | 'google'
type Scalar = string | number | boolean | null
/** A cell the fuzzer writes: a plain value, or an error cell (a workbook's `t="e"`; text on Google). */
type Cell = Scalar | { error: string }

interface FuzzRow {
  id: string
  cells: Record<string, Cell>
  /** Why this row cannot be valid, by construction; empty when it may be. */
  invalidBy: string[]
  /** The same, per column garbled (a later value in the same column replaces the earlier reason). */
  columnFaults: Record<string, string>
  /** Delete ticked on purpose on a row with its own Key. */
  ticked: boolean
}

interface Figures {
  bugExits: number
  invalidWithoutStatus: number
  writesFromInvalid: number
  replaced: number
  /** Links, notes and merges off their rows; undefined where they are not checked. */
  misplaced?: number
  details: string[]
}

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    rows: { type: 'string', default: '10000' },
    backend: { type: 'string', default: 'both' },
    keep: { type: 'boolean', default: false },
  },
})
const seed = Number(args.seed)
const rowCount = Number(args.rows)
const backends: Backend[] = args.backend === 'both' ? ['workbook', 'google'] : [args.backend as Backend]
if (!Number.isInteger(seed) || !Number.isInteger(rowCount) || rowCount < 1 || !backends.every((b) => b === 'workbook' || b === 'google')) {
  process.stderr.write('usage: npm run fuzz -- [--seed N] [--rows N] [--backend workbook|google|both] [--keep]\n')
  process.exit(2)
}

let failed = false
for (const backend of backends) {
  const started = Date.now()
  const figures = await fuzzOnce(backend)
  const total = figures.bugExits + figures.invalidWithoutStatus + figures.writesFromInvalid + figures.replaced + (figures.misplaced ?? 0)
  failed ||= total > 0
  process.stdout.write(
    [
      `${backend} (seed ${seed}, ${rowCount} rows, ${Math.round((Date.now() - started) / 1000)} s):`,
      `  exits whose output says "bug": ${figures.bugExits}`,
      `  invalid rows without a Status: ${figures.invalidWithoutStatus}`,
      `  server writes from invalid rows: ${figures.writesFromInvalid}`,
      `  rows whose content was replaced: ${figures.replaced}`,
      `  links, notes and merged cells off their rows: ${figures.misplaced ?? 'not checked (the Sheets fake has none)'}`,
      ...figures.details.map((d) => `  · ${d}`),
      '',
    ].join('\n'),
  )
}
process.exitCode = failed ? 1 : 0

async function fuzzOnce(backend: Backend): Promise<Figures> {
  const random = mulberry32(seed)
  const server = await startReferenceServer({
    data: { users: 6, days: 35, startDate: '2026-10-07', timeZones: [ZONE, 'America/New_York'], otherTimelines: false, seed },
  })
  const fake = backend === 'google' ? await startSheetsFake({ quota: false, staticToken: TOKEN }) : undefined
  const folder = await mkdtemp(path.join(tmpdir(), `ts-fuzz-${backend}-`))
  try {
    const sheet = await openSheet(backend, folder, fake)
    const configFile = path.join(folder, 'timeline-sheets.json')
    await writeFile(
      configFile,
      JSON.stringify({
        timeline: {
          auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username },
          pace: { concurrency: 8, requestsPerInterval: 100_000, intervalMs: 1000 },
        },
        ...(fake ? { google: { auth: { mode: 'static-token', tokenEnv: TOKEN_ENV }, rootUrl: fake.rootUrl, quotaWindowMs: 1000 } } : {}),
        stateDir: 'state',
        targets: [{ name: 'team', spreadsheet: sheet.spec, timeZone: ZONE, window: { days: 35, lookBackDays: 7 } }],
      }),
    )
    const env = { TIMELINE_PASSWORD: server.credentials.transfer!.password, [TOKEN_ENV]: TOKEN }
    const exported = await cli(['export', '--config', configFile, '--now', NOW], env)
    if (exported.code !== 0) throw new Error(`export exited ${exported.code}: ${exported.stderr}`)

    const header = await sheet.header()
    const exportedRows = await sheet.rows(header)
    const fuzzRows = garble(exportedRows, server, random, backend)
    const cellParts =
      backend === 'workbook'
        ? chooseCellParts(
            fuzzRows.map((row) => row.id),
            header.length,
            mulberry32(seed ^ 0x5bd1e995),
          )
        : undefined
    await sheet.fill([...header, FUZZ], fuzzRows, cellParts)

    const layout = [...header, FUZZ]
    const before = await sheet.rows(layout)
    const seqBefore = changeSeqs(server)
    const dry = await cli(['import', '--config', configFile, '--now', NOW, '--dry-run', '--json'], env)
    const applied = await cli(
      ['import', '--config', configFile, '--now', NOW, '--yes', '--json', '--force', '--max-delete', '1000000'],
      env,
    )
    const after = await sheet.rows(layout)
    const misplaced = cellParts === undefined ? undefined : await sheet.misplaced(layout, cellParts)
    const figures = measure({ server, seqBefore, fuzzRows, before, after, runs: { dry, applied } })
    if (misplaced !== undefined && misplaced.length > 0)
      figures.details.push(`off their rows: ${misplaced.slice(0, 8).join('; ')}${misplaced.length > 8 ? '; …' : ''}`)
    return { ...figures, misplaced: misplaced?.length }
  } finally {
    await server.close()
    await fake?.close()
    if (!args.keep) await rm(folder, { recursive: true, force: true })
    else process.stdout.write(`(kept ${folder})\n`)
  }
}

interface Sheet {
  spec: Record<string, unknown>
  header(): Promise<string[]>
  /** Data rows by column name (sheet row 2 on). */
  rows(header: string[]): Promise<Record<string, Scalar>[]>
  fill(header: string[], rows: FuzzRow[], parts?: CellParts): Promise<void>
  /** The links, notes and merges not on the rows they were put on (a workbook's; none on Google). */
  misplaced(header: string[], parts: CellParts): Promise<string[]>
}

async function openSheet(backend: Backend, folder: string, fake: SheetsFake | undefined): Promise<Sheet> {
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

/** The manager at work: every exported row kept, edited or garbled, and new rows until there are `rowCount`. */
function garble(exported: Record<string, Scalar>[], server: ReferenceServer, random: () => number, backend: Backend): FuzzRow[] {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const users = server.credentials.users.map((u) => u.username)
  const timelines = server.credentials.users.map((u) => u.tagsTimelineKey!).filter(Boolean)
  const rows: FuzzRow[] = []
  for (let i = 0; i < rowCount; i++) {
    const id = `r${i}`
    const source = i < exported.length ? exported[i]! : undefined
    const base: Record<string, Cell> = source ? { ...source } : {}
    const row: FuzzRow = { id, cells: base, invalidBy: [], columnFaults: {}, ticked: false }
    const roll = random()
    if (source && roll < 0.2) {
      // kept as exported
    } else if (source && roll < 0.3) {
      row.cells['Notes'] = `checked by the manager ${i}`
    } else if (source && roll < 0.31) {
      row.cells['Delete'] = true
      row.ticked = true
    } else if (roll < 0.36) {
      row.cells = newRow(pick(users), i)
    } else if (roll < 0.41 && exported.length > 0) {
      // A copied row: same Key and Base, sometimes edited.
      const other = pick(exported)
      row.cells = { ...other, ...(random() < 0.5 ? { Notes: `copy ${i}` } : {}) }
    } else if (roll < 0.44 && exported.length > 0) {
      // Another row's Key (and sometimes Base) pasted over this one's.
      const other = pick(exported)
      row.cells = {
        ...(source ?? newRow(pick(users), i)),
        Key: other['Key'] ?? null,
        ...(random() < 0.5 ? { Base: other['Base'] ?? null } : {}),
      }
    } else if (roll < 0.46) {
      row.cells = {
        ...(source ?? newRow(pick(users), i)),
        Key: `${pick(timelines)}/${900_000 + i}`,
        Base: exported.length > 0 ? (pick(exported)['Base'] ?? 'AAAAAAAAAAA') : 'AAAAAAAAAAA',
      }
      row.invalidBy.push('made-up Key')
    } else {
      if (!source) row.cells = newRow(pick(users), i)
      // Some with Delete ticked too: a garbled cell must keep the activity, a deletion asks no less of a row than an edit.
      if (source && random() < 0.15) row.cells['Delete'] = true
      const n = 1 + Math.floor(random() * 4)
      for (let k = 0; k < n; k++) garbleCell(row, pick(MANAGER_COLUMNS), random, backend, timelines)
      row.ticked = source !== undefined && row.cells['Delete'] === true && row.cells['Key'] === source['Key']
      // A ticked row whose Key was emptied is a new row discarded whatever it holds (nothing is created), unless its Base is an error value.
      const keyCell = row.cells['Key']
      const discarded = row.cells['Delete'] === true && (keyCell === null || keyCell === undefined || String(keyCell).trim() === '')
      // An emptied cell is no fault of a ticked row: emptying the row and ticking Delete is how an activity is removed.
      const faults = Object.entries(row.columnFaults).filter(([column, why]) =>
        discarded ? column === 'Base' : !(row.ticked && why === EMPTY),
      )
      row.invalidBy.push(...faults.map(([column, why]) => `${column}: ${why}`))
    }
    rows.push(row)
  }
  // Every row holding a Key another row holds is invalid, however it got there.
  const holders = new Map<string, FuzzRow[]>()
  for (const row of rows) {
    const key = typeof row.cells['Key'] === 'string' ? row.cells['Key'].trim() : ''
    if (key) holders.set(key, [...(holders.get(key) ?? []), row])
  }
  for (const list of holders.values()) if (list.length > 1) for (const row of list) row.invalidBy.push('Key on several rows')
  for (const row of rows) if (row.ticked && row.invalidBy.length > 0) row.ticked = false
  return rows
}

function newRow(user: string, i: number): Record<string, Cell> {
  const day = 1 + (i % 9)
  return { User: user, Date: `2026-11-0${day}`, Start: '14:00', End: '15:30', Tags: 'Acme Corp, Website, Build', Notes: `new row ${i}` }
}

/** Puts one garbage value into one column and notes when the value can never make a valid row. */
function garbleCell(
  row: FuzzRow,
  column: (typeof MANAGER_COLUMNS)[number],
  random: () => number,
  backend: Backend,
  timelines: string[],
): void {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!
  const set = (value: Cell, invalid?: string) => {
    row.cells[column] = value
    if (invalid) row.columnFaults[column] = invalid
    else delete row.columnFaults[column]
  }
  const kind = random()
  if (kind < 0.2) {
    const error = pick(ERRORS)
    set(random() < 0.5 ? { error } : error, column === 'Duration' ? undefined : `error value ${error}`)
    return
  }
  if (kind < 0.4) {
    const text = kind < 0.3 ? hugeText(random, backend) : pick(oddTexts(backend))
    const blank = text.trim() === ''
    // Which columns no such text can ever be right in: a day or time column always (blank is missing), the others
    // unless it is blank (an existing row's User may be empty; a Key or Delete cleared is a new row or no tick).
    const never =
      column === 'Date' ||
      column === 'Start' ||
      column === 'End' ||
      (!blank && (column === 'Key' || column === 'Delete' || column === 'User'))
    // Labels fold case and drop repeats, so `a, a, …` is one label there; in Tags it is thousands of tags.
    const tooLong =
      (column === 'Tags' || column === 'Labels') &&
      text.length > 1000 &&
      (/^(x|😀)/.test(text) || (column === 'Tags' && text.startsWith('a, ')))
    // Only a day or time column can be blank and wrong at once (`never`).
    const fault = never ? (blank ? EMPTY : 'not a value of its column') : tooLong ? 'too many tags or a tag over 200 characters' : undefined
    set(text, fault)
    return
  }
  if (kind < 0.5) {
    const formula = pick(['=1/0', '=TODAY()', '=A1', '=HYPERLINK("http://x")', '=SUM(1,2)'])
    set(formula, column === 'Duration' || column === 'Base' ? undefined : 'a formula')
    return
  }
  switch (column) {
    case 'Date': {
      const value = pick<Scalar>([
        '9999-12-31',
        '2999-12-31',
        '1970-01-01',
        2_958_465,
        2_958_466,
        401_769,
        -1,
        0,
        1,
        60,
        1e308,
        -1e308,
        'NaN',
        '1899-12-31',
        '1969-12-31',
        '0001-01-01',
        '31/02/2026',
        9_007_199_254_740_993,
        5e-324,
        -0,
      ])
      // The first and the last day the tool takes are fine; every other value here is outside them or no date.
      set(value, value === '2999-12-31' || value === '1970-01-01' ? undefined : 'a day outside 1970-01-01…2999-12-31')
      // A time the clocks skip was one on the day it came with (below), not on this one.
      for (const c of ['Start', 'End']) if (row.columnFaults[c] === SKIPPED_TIME) delete row.columnFaults[c]
      if (value === '2999-12-31' && random() < 0.5) {
        // Across New Year of 3000 for more than a year: too long.
        row.cells['Start'] = '23:00'
        row.cells['End'] = 400
        for (const c of ['Start', 'End']) delete row.columnFaults[c]
        row.columnFaults['Date'] = 'an activity over a year'
      }
      return
    }
    case 'Start':
    case 'End': {
      if (random() < 0.3) {
        row.cells['Date'] = '2026-03-29'
        row.cells['Start'] = column === 'Start' ? null : '01:00'
        row.cells['End'] = column === 'End' ? null : '04:00'
        for (const c of ['Date', 'Start', 'End']) delete row.columnFaults[c]
        set(pick(['02:00', '02:30', '02:59:59']), SKIPPED_TIME)
        return
      }
      const value = pick<Scalar>([0.99999999884, '24:00', '25:99', -0.5, 1e308, -1e308, 3e6, 367.5, '23:59:59.9999', true])
      // End may be 24:00 (or round to it): the next day's midnight.
      const harmless = column === 'End' && (value === '24:00' || value === 0.99999999884)
      set(value, harmless ? undefined : 'not a time the tool can hold')
      return
    }
    case 'Key': {
      const value = pick<Scalar>([
        'abc',
        'tl/abc',
        '/5',
        `${pick(timelines)}/`,
        `${pick(timelines)}/-1`,
        `${pick(timelines)}/1.5`,
        ' ',
        42,
        true,
      ])
      set(value, value === ' ' ? undefined : 'a garbled Key')
      return
    }
    case 'Base':
      set(pick<Scalar>(['garbled', '', 42, true, 'AAAAAAAAAAA']))
      return
    case 'Delete':
      set(pick<Scalar>(['perhaps', 2, -1, 'nein', 0.5]), 'not a tick')
      return
    case 'User':
      set(pick<Scalar>(['nobody@example.com', 'ACME\\zoe', 42, false]), 'not a user')
      return
    case 'Tags':
      set(pick<Scalar>([' , ', 'a,b,c,d,e,f,g,h,i,j,k', 1e308]), undefined)
      return
    default:
      set(pick<Scalar>([1e308, -1e308, Number.MAX_VALUE, -0, 5e-324, true, false, 9_007_199_254_740_993, '']))
  }
}

/** A long cell: at most 50,000 characters on Google (its cell limit), a little more in a workbook. */
function hugeText(random: () => number, backend: Backend): string {
  const unit = ['x', 'a, ', '😀', ':b, ', '\n'][Math.floor(random() * 5)]!
  const length = backend === 'google' ? 50_000 : 50_000 + Math.floor(random() * 10_000)
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length)
}

/** Control characters and other odd text; a workbook gets what Excel can store (`_x0001_` is how it writes U+0001). */
function oddTexts(backend: Backend): string[] {
  const both = [
    '\t\n\r',
    'a\u200eb\u202ec',
    'ß İ ǅ',
    '\u00a0',
    ' leading and trailing ',
    'emoji 👩🏽‍💻',
    'lone \ud800 surrogate',
    '"quoted", and, commas',
  ]
  return backend === 'google'
    ? [...both, '\u0000\u0001\u0002', '\u0007bell', '\u007f\u0085', '\ufffe']
    : [...both, '_x0001__x0007_', 'x_x0000_y']
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

function changeSeqs(server: ReferenceServer): Map<string, number> {
  return new Map(
    server.credentials.users.flatMap((u) =>
      u.tagsTimelineKey ? [[u.tagsTimelineKey, server.store.changes(u.tagsTimelineKey).length] as const] : [],
    ),
  )
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function measure(input: {
  server: ReferenceServer
  seqBefore: Map<string, number>
  fuzzRows: FuzzRow[]
  before: Record<string, Scalar>[]
  after: Record<string, Scalar>[]
  runs: { dry: Run; applied: Run }
}): Figures {
  const { server, seqBefore, fuzzRows, before, after, runs } = input
  const details: string[] = []
  const byId = new Map(fuzzRows.map((r) => [r.id, r]))
  const idAt = (row: Record<string, Scalar>) => String(row[FUZZ] ?? '')
  const text = (v: Scalar | undefined) => (v === null || v === undefined ? '' : String(v))

  // 1. Exits whose output says "bug" or shows a stack trace.
  let bugExits = 0
  for (const [name, run] of Object.entries(runs)) {
    const output = `${run.stdout}\n${run.stderr}`
    // The line that gives it away, so a report shows the cause rather than the first line of output.
    // The tool's own words for a bug ("This is a bug…", "report this as a bug"), not any "bug" — a
    // field-level plan quotes Notes, and a team's Notes say "Fixed login bug".
    const bug = /^.*\b(this is a bug|as a bug)\b.*$/im.exec(output) ?? /^\s+at .+:\d+:\d+\)?$/m.exec(output)
    if (bug) bugExits++
    details.push(`import ${name === 'dry' ? '--dry-run' : '--yes'}: exit ${run.code}${bug ? ` — ${excerptOf(bug[0])}` : ''}`)
  }

  // Invalid rows: what the dry run says, and what no row may hold by construction.
  const invalid = new Map<string, string>()
  let planned: { invalid?: { rowNumber?: number; reason: string }[]; writes?: unknown[] } = {}
  try {
    const parsed = JSON.parse(runs.dry.stdout)
    planned = parsed?.runs?.[0]?.plan ?? {}
  } catch {
    details.push('the dry run printed no JSON plan')
  }
  for (const i of planned.invalid ?? []) {
    const row = i.rowNumber === undefined ? undefined : before[i.rowNumber - 2]
    if (row) invalid.set(idAt(row), i.reason)
  }
  const toolMissed: string[] = []
  for (const row of fuzzRows) {
    if (row.invalidBy.length === 0) continue
    if (!invalid.has(row.id)) toolMissed.push(`${row.id} (${row.invalidBy.join('; ')})`)
    invalid.set(row.id, invalid.get(row.id) ?? row.invalidBy.join('; '))
  }
  details.push(
    `rows: ${before.length}; invalid: ${invalid.size} (the dry run: ${planned.invalid?.length ?? 0}); planned writes: ${planned.writes?.length ?? 0}`,
  )
  if (toolMissed.length)
    details.push(
      `rows invalid by construction that the dry run let through: ${toolMissed.length}, e.g. ${toolMissed.slice(0, 5).join(', ')}`,
    )

  // 2. Invalid rows without a fresh Status.
  const afterById = new Map(after.map((r) => [idAt(r), r]))
  const noStatus: string[] = []
  for (const id of invalid.keys()) {
    const row = afterById.get(id)
    if (!row || readStatus(text(row['Status'])).date !== TODAY)
      noStatus.push(`${id}${row ? ` (Key ${excerptOf(JSON.stringify(row['Key']))}: ${excerptOf(invalid.get(id) ?? '')})` : ' (row gone)'}`)
  }
  const sharedKey = noStatus.filter((r) => /this activity is in rows/.test(r))
  if (sharedKey.length)
    details.push(
      `invalid rows without a Status that hold a Key other rows hold too (the write-back puts one Status per Key, on the last such row): ${sharedKey.length} of ${noStatus.length}`,
    )
  if (noStatus.length) details.push(`invalid rows without a Status: ${noStatus.slice(0, 8).join('; ')}${noStatus.length > 8 ? '; …' : ''}`)

  // 3. Server writes, traced to the rows that hold their Key.
  const keyHolders = new Map<string, string[]>()
  for (const row of before) {
    const key = text(row['Key']).trim()
    if (key) keyHolders.set(key, [...(keyHolders.get(key) ?? []), idAt(row)])
  }
  for (const row of after) {
    const key = text(row['Key']).trim()
    if (key && !keyHolders.has(key)) keyHolders.set(key, [idAt(row)])
  }
  let writes = 0
  let writesFromInvalid = 0
  let deletionsFromInvalid = 0
  const fromInvalid: string[] = []
  const unattributed: string[] = []
  for (const [timeline, seqs] of seqBefore) {
    for (const change of server.store.changes(timeline).slice(seqs)) {
      writes++
      const key = `${timeline}/${change.entityId}`
      const holders = keyHolders.get(key) ?? []
      if (holders.length === 0) unattributed.push(`${change.kind} ${key}`)
      const bad = holders.filter((id) => invalid.has(id))
      if (bad.length > 0 || holders.length > 1) {
        writesFromInvalid++
        if (change.kind === 'deleted') deletionsFromInvalid++
        fromInvalid.push(
          `${change.kind} ${key} from ${holders.join('+')}${bad.length ? ` (${excerptOf(invalid.get(bad[0]!) ?? '')})` : ''}`,
        )
      }
    }
  }
  details.push(`server writes: ${writes}`)
  if (fromInvalid.length)
    details.push(`writes from invalid rows (${deletionsFromInvalid} of them deletions): ${fromInvalid.slice(0, 8).join(', ')}`)
  if (unattributed.length)
    details.push(`writes no row holds the Key of: ${unattributed.length}, e.g. ${unattributed.slice(0, 5).join(', ')}`)

  // 4. Rows whose content was replaced.
  const replacedRows: string[] = []
  const byFile: string[] = []
  for (const row of before) {
    const id = idAt(row)
    const now = afterById.get(id)
    const planned = byId.get(id)
    if (!now) {
      if (!planned?.ticked && !invalid.has(id) && text(row['Delete']).toLowerCase() !== 'true')
        replacedRows.push(`${id} (removed, Delete not ticked)`)
      else if (invalid.has(id)) replacedRows.push(`${id} (invalid, removed)`)
      continue
    }
    if (invalid.has(id)) {
      const changed = COMPARED.filter((c) => text(row[c]) !== text(now[c]))
      if (changed.length && changed.every((c) => fileRoundTrip(row[c], now[c]))) byFile.push(id)
      if (changed.length) replacedRows.push(`${id} (invalid, ${changed.map((c) => `${c} ${difference(row[c], now[c])}`).join(', ')})`)
      continue
    }
    const keyBefore = text(row['Key']).trim()
    const keyNow = text(now['Key']).trim()
    if (keyBefore && keyBefore !== keyNow) replacedRows.push(`${id} (Key ${keyBefore} became ${keyNow})`)
    // Notes longer than a cell holds are shown shortened once saved (the server keeps them whole): what the tool means.
    else if (notesOf(row['Notes']) !== notesOf(now['Notes']) && notesOf(now['Notes']) !== notesCellText(notesOf(row['Notes']))) {
      if (fileRoundTrip(row['Notes'], now['Notes'])) byFile.push(id)
      replacedRows.push(`${id} (Notes ${difference(row['Notes'], now['Notes'])})`)
    } else if (tagsOf(row) !== tagsOf(now)) {
      const kept = (c: 'Tags' | 'Labels') =>
        text(row[c]) === text(now[c]) || fileRoundTrip(text(row[c]), text(now[c])) || fileRoundTrip(`:${text(row[c])}`, text(now[c]))
      if (kept('Tags') && kept('Labels')) byFile.push(id)
      replacedRows.push(`${id} (Tags and Labels ${difference(tagsOf(row), tagsOf(now))})`)
    }
  }
  const otherwise = replacedRows.filter((r) => !byFile.includes(r.split(' ')[0]!))
  const shown = [...otherwise, ...replacedRows.filter((r) => !otherwise.includes(r))]
  if (replacedRows.length) details.push(`rows replaced: ${shown.slice(0, 8).join('; ')}${replacedRows.length > 8 ? '; …' : ''}`)
  if (byFile.length)
    details.push(
      `of which changed only as an .xlsx file can hold them (control characters dropped, characters turned into U+FFFD) when the workbook was saved: ${byFile.length}`,
    )

  return { bugExits, invalidWithoutStatus: noStatus.length, writesFromInvalid, replaced: replacedRows.length, details }
}

/** Where two cell values part: `"x\u0000y" → "xy"`, or for long text the first differing characters. */
function difference(a: Scalar | undefined, b: Scalar | undefined): string {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length + b.length < 200)
    return `${excerptOf(JSON.stringify(a ?? null))} → ${excerptOf(JSON.stringify(b ?? null))}`
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `${a.length} → ${b.length} characters, from ${i}: ${JSON.stringify(a.slice(i, i + 6))} → ${JSON.stringify(b.slice(i, i + 6))}`
}

function notesOf(value: Scalar | undefined): string {
  const text = value === null || value === undefined ? '' : typeof value === 'boolean' ? (value ? 'TRUE' : 'FALSE') : String(value)
  return text.replace(/\r\n?/g, '\n')
}

/**
 * True when `after` is `before` as an .xlsx file can keep it: control characters dropped, or characters
 * turned into U+FFFD (exceljs does both when it saves), nothing else changed.
 */
function fileRoundTrip(before: Scalar | undefined, after: Scalar | undefined): boolean {
  if (typeof before !== 'string' || typeof after !== 'string') return false
  if (before.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '') === after) return true
  if (before.length !== after.length) return false
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i] && after[i] !== '\uFFFD') return false
  return true
}

/** Tags and labels as a set, compared the way the server folds them. */
function tagsOf(row: Record<string, Scalar>): string {
  const split = (v: Scalar | undefined) =>
    v === null || v === undefined
      ? []
      : String(v)
          .split(',')
          .map((t) => t.trim().toLowerCase())
          .filter(Boolean)
  const labels = split(row['Labels']).map((l) => (l.startsWith(':') ? l : `:${l}`))
  return [...new Set([...split(row['Tags']), ...labels])].sort().join(', ')
}

function excerptOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 120)}…` : line
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** A small seeded PRNG (mulberry32): the same seed fills the same sheet. */
function mulberry32(a: number): () => number {
  return () => {
    a |= 0
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
