/**
 * The import case's manager: edits typed straight into the Sheets fake's stored cells
 * through its manager helpers (`counterparts/sheets/manager.ts`), so they
 * count no request. Runs inside the counterparts host. A seeded mix over
 * distinct rows drawn from the whole tab: changed notes, tags and times,
 * ticked deletes, and new rows inserted between existing ones (inserted last,
 * bottom up, so the row numbers of the other edits stay put).
 */
import { createManager } from '../../counterparts/sheets/manager.ts'
import type { SheetsStore } from '../../counterparts/sheets/store.ts'
import { createRandom } from '../../counterparts/timeline/store.ts'

export interface ManagerEditsOptions {
  spreadsheetId: string
  /** How many edits in all (each on its own row; a new row counts as one). */
  edits: number
  seed: number
  tab?: string
}

export interface ManagerEditsDone {
  notes: number
  tags: number
  times: number
  deletes: number
  creates: number
  /** Data rows before the edits. */
  rows: number
}

/** Shares of the mix; the rest are notes. */
const SHARE = { tags: 0.25, times: 0.25, deletes: 0.05, creates: 0.05 }
const MINUTE = 1 / 1440

export function applyManagerEdits(store: SheetsStore, options: ManagerEditsOptions): ManagerEditsDone {
  const tab = options.tab ?? 'Activities'
  const manager = createManager(store)
  const grid = manager.readTab(options.spreadsheetId, tab, 'UNFORMATTED_VALUE')
  const header = grid[0]!.map(String)
  const col = (name: string) => {
    const i = header.indexOf(name)
    if (i < 0) throw new Error(`no ${name} column in ${tab}`)
    return i
  }
  const [user, date, start, end, tags, notes, del, key] = ['User', 'Date', 'Start', 'End', 'Tags', 'Notes', 'Delete', 'Key'].map(
    col,
  ) as number[]
  const letter = (i: number) => String.fromCharCode(65 + i)
  const a1 = (column: number, row: number) => `${letter(column)}${row}`
  // Sheet row numbers of data rows with a Key, shuffled (distinct rows, seeded).
  const rows: number[] = []
  for (let i = 1; i < grid.length; i++) if (typeof grid[i]![key!] === 'string' && grid[i]![key!]) rows.push(i + 1)
  const random = createRandom(options.seed)
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[rows[i], rows[j]] = [rows[j]!, rows[i]!]
  }
  const cells = (row: number) => grid[row - 1]!
  const count = {
    tags: Math.round(options.edits * SHARE.tags),
    times: Math.round(options.edits * SHARE.times),
    deletes: Math.round(options.edits * SHARE.deletes),
    creates: Math.round(options.edits * SHARE.creates),
  }
  const notesCount = options.edits - count.tags - count.times - count.deletes - count.creates
  if (notesCount + count.tags + count.times + count.deletes + count.creates > rows.length)
    throw new Error(`${options.edits} edits for ${rows.length} rows`)
  let at = 0
  const id = options.spreadsheetId

  for (let i = 0; i < notesCount; i++) manager.editCell(id, tab, a1(notes!, rows[at++]!), `Checked by the manager (${i})`)
  for (let i = 0; i < count.tags; i++) {
    const row = rows[at++]!
    // Another row's tags: a combination the Allowed tags tab knows, different from this row's.
    let other = rows[(at + 7 * i) % rows.length]!
    for (let k = 1; String(cells(other)[tags!]) === String(cells(row)[tags!]) && k < 50; k++) other = rows[(at + 7 * i + k) % rows.length]!
    manager.editCell(id, tab, a1(tags!, row), String(cells(other)[tags!]))
  }
  for (let i = 0; i < count.times; i++) {
    const row = rows[at++]!
    const s = Number(cells(row)[start!])
    const e = Number(cells(row)[end!])
    // Ten minutes longer: End later if that stays before midnight, else Start earlier.
    if (e >= s && e + 10 * MINUTE < 1) manager.pasteBlock(id, tab, a1(end!, row), [[e + 10 * MINUTE]], { raw: true })
    else manager.pasteBlock(id, tab, a1(start!, row), [[Math.max(0, s - 10 * MINUTE)]], { raw: true })
  }
  for (let i = 0; i < count.deletes; i++) manager.editCell(id, tab, a1(del!, rows[at++]!), true)
  // New rows: under an existing row, same user and day, 19:00–19:30, that row's tags.
  const under = rows.slice(at, at + count.creates).sort((a, b) => b - a)
  for (const [i, row] of under.entries()) {
    const model = cells(row)
    manager.insertRows(id, tab, row + 1, 1)
    const line: (string | number | boolean | null)[] = header.map(() => null)
    line[user!] = String(model[user!])
    line[date!] = Number(model[date!])
    line[start!] = 19 * 60 * MINUTE
    line[end!] = 19.5 * 60 * MINUTE
    line[tags!] = String(model[tags!])
    line[notes!] = `Added by the manager (${i})`
    manager.pasteBlock(id, tab, a1(0, row + 1), [line], { raw: true })
  }
  return { notes: notesCount, ...count, rows: grid.length - 1 }
}
