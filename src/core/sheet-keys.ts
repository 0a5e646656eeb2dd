/** A tab's Keys: which rows hold which Key text, as an import collects them before it reads the rows. */
import { cellText } from './cells.ts'
import { ACTIVITY_COLUMN as C, type HeaderLayout } from './columns.ts'
import type { TabData } from './sheet.ts'

/**
 * A tab's Keys in one pass: `keys`, every Key a text cell holds (trimmed, non-empty), and `shared`, what
 * `rowsByKeyText` says of the Keys several rows hold, the only ones the candidate scan and the planner look at (a
 * map and a list for each of a big sheet's 100k Keys, nearly all on one row, were kept for nothing).
 */
export function sheetKeysOf(tab: TabData, layout: HeaderLayout): { keys: Set<string>; shared: Map<string, number[]> } {
  const keyIndex = layout.index[C.key]!
  const keys = new Set<string>()
  // The texts of Key cells that hold no text (a number, a tick): never a Key, but a second row all the same.
  let others: Set<string> | undefined
  let twice: Set<string> | undefined
  for (const cells of tab.rows) {
    const cell = cells[keyIndex]
    const text = typeof cell === 'string' ? cell.trim() : cellText(cell).trim()
    if (text === '') continue
    if (keys.has(text) || others?.has(text)) (twice ??= new Set()).add(text)
    if (typeof cell === 'string') keys.add(text)
    else (others ??= new Set()).add(text)
  }
  const shared = new Map<string, number[]>()
  if (twice === undefined) return { keys, shared }
  tab.rows.forEach((cells, i) => {
    const text = cellText(cells[keyIndex]).trim()
    if (!twice.has(text)) return
    const at = shared.get(text)
    if (at) at.push(i + 2)
    else shared.set(text, [i + 2])
  })
  return { keys, shared }
}

/** Sheet row numbers of every non-empty Key text (trimmed), in sheet order. */
export function rowsByKeyText(tab: TabData, layout: HeaderLayout): Map<string, number[]> {
  const keyIndex = layout.index[C.key]!
  const rows = new Map<string, number[]>()
  tab.rows.forEach((cells, i) => {
    const key = cellText(cells[keyIndex]).trim()
    if (key === '') return
    const at = rows.get(key)
    if (at) at.push(i + 2)
    else rows.set(key, [i + 2])
  })
  return rows
}
