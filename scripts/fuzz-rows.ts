/**
 * The careless manager of the fuzzer (`fuzz-import.ts`): every exported row kept, edited, copied, given another
 * row's Key or a made-up one, or garbled in one to four of the columns a manager can touch — error values,
 * extreme dates, skipped local times, 50,000-character cells, control characters, formulas, huge numbers — and
 * new rows until the tab holds as many as asked. Each row records, by construction, why it can never be valid
 * (`invalidBy`), which the judging (`fuzz-judge.ts`) holds the tool's verdicts against. Seeded: the same seed
 * garbles the same rows the same way.
 */
import type { ReferenceServer } from '../counterparts/timeline/server.ts'

/** The fuzzer's own column, which the tool never writes: it follows each row through the run by its id. */
export const FUZZ = 'Fuzz'
const MANAGER_COLUMNS = ['User', 'Date', 'Start', 'End', 'Duration', 'Tags', 'Labels', 'Notes', 'Delete', 'Key', 'Base'] as const
/** The fault of a Date, Start or End holding blank text: a value missing, which only a row to delete may lack. */
const EMPTY = 'empty'
/** The fault of a Start or End the clocks skip on 2026-03-29 in Berlin: a fault of that day only. */
const SKIPPED_TIME = 'a time the clocks skip in Berlin'
const ERRORS = ['#N/A', '#REF!', '#DIV/0!', '#VALUE!', '#NAME?', '#NUM!', '#NULL!', '#ERROR!', '#SPILL!', '#CALC!', '#GETTING_DATA']

export type Backend = 'workbook' | 'google'
export type Scalar = string | number | boolean | null
/** A cell the fuzzer writes: a plain value, or an error cell (a workbook's `t="e"`; text on Google). */
export type Cell = Scalar | { error: string }

export interface FuzzRow {
  id: string
  cells: Record<string, Cell>
  /** Why this row cannot be valid, by construction; empty when it may be. */
  invalidBy: string[]
  /** The same, per column garbled (a later value in the same column replaces the earlier reason). */
  columnFaults: Record<string, string>
  /** Delete ticked on purpose on a row with its own Key. */
  ticked: boolean
}

/** The manager at work: every exported row kept, edited or garbled, and new rows until there are `rowCount`. */
export function garble(
  exported: Record<string, Scalar>[],
  server: ReferenceServer,
  random: () => number,
  backend: Backend,
  rowCount: number,
): FuzzRow[] {
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
      // A time the clocks skip is one only on the day it came with (below), not on this one.
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

/** A small seeded PRNG (mulberry32): the same seed fills the same sheet. */
export function mulberry32(a: number): () => number {
  return () => {
    a |= 0
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
