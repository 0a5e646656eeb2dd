/**
 * What a manager attaches to cells besides values, for the fuzzer: hyperlinks (on the Fuzz cell), notes
 * (on any of the tool's cells) and merged cells (the Fuzz cell with the one right of it), each naming the
 * row it was put on. After a run each must still be on that row, or gone with it: one on another row is
 * a link, note or merge the tool moved onto another activity. Workbook only: the Sheets fake models none
 * of them.
 */
import type ExcelJS from 'exceljs'

/** Which rows (by their Fuzz id) carry what. */
export interface CellParts {
  links: Set<string>
  /** The 1-based column of the row's note. */
  notes: Map<string, number>
  merges: Set<string>
}

const LINK = 'https://example.com/fuzz/'
const NOTE = 'a note on '

/** About one row in 40 gets each, chosen by its own seeded stream so the rows' values stay as the seed made them. */
export function chooseCellParts(ids: readonly string[], columns: number, random: () => number): CellParts {
  const parts: CellParts = { links: new Set(), notes: new Map(), merges: new Set() }
  for (const id of ids) {
    if (random() < 0.025) parts.links.add(id)
    if (random() < 0.025) parts.notes.set(id, 1 + Math.floor(random() * columns))
    if (random() < 0.025) parts.merges.add(id)
  }
  return parts
}

/** Puts them into the tab; `rowOf` gives each id's sheet row, `fuzzColumn` is 1-based. */
export function attachCellParts(tab: ExcelJS.Worksheet, parts: CellParts, rowOf: ReadonlyMap<string, number>, fuzzColumn: number): void {
  for (const [id, row] of rowOf) {
    const cell = tab.getCell(row, fuzzColumn)
    if (parts.links.has(id)) cell.value = { text: id, hyperlink: `${LINK}${id}` }
    const note = parts.notes.get(id)
    if (note !== undefined) tab.getCell(row, note).note = `${NOTE}${id}`
    if (parts.merges.has(id)) tab.mergeCells(row, fuzzColumn, row, fuzzColumn + 1)
  }
}

/** Each link, note or merge that is not on the row it was put on, or vanished from a row still there. */
export function misplacedCellParts(tab: ExcelJS.Worksheet, parts: CellParts, fuzzColumn: number, columns: number): string[] {
  const out: string[] = []
  const seen = { links: new Set<string>(), notes: new Set<string>(), merges: new Set<string>() }
  const idAt = new Map<number, string>()
  for (let r = 2; r <= tab.rowCount; r++) {
    const value = tab.getCell(r, fuzzColumn).value
    const id = typeof value === 'string' ? value : value !== null && typeof value === 'object' && 'text' in value ? String(value.text) : ''
    if (id === '') continue
    idAt.set(r, id)
    const link = tab.getCell(r, fuzzColumn).hyperlink
    if (link !== undefined && link !== '') {
      if (link !== `${LINK}${id}`) out.push(`a link to ${link.slice(LINK.length)} on ${id}'s row`)
      else seen.links.add(id)
    }
    for (let c = 1; c <= columns; c++) {
      const note = tab.getCell(r, c).note
      if (note === undefined) continue
      const text = typeof note === 'string' ? note : (note.texts ?? []).map((t) => t.text).join('')
      if (text !== `${NOTE}${id}`) out.push(`"${text}" on ${id}'s row`)
      else if (parts.notes.get(id) !== c) out.push(`${id}'s note moved from column ${parts.notes.get(id)} to ${c}`)
      else seen.notes.add(id)
    }
  }
  for (const range of (tab.model as unknown as { merges?: string[] }).merges ?? []) {
    const rows = [...range.matchAll(/\d+/g)].map((m) => Number(m[0]))
    const ids = new Set(rows.map((r) => idAt.get(r) ?? `row ${r}`))
    const [id] = ids
    if (ids.size !== 1 || id === undefined || !parts.merges.has(id)) out.push(`a merge ${range} on ${[...ids].join(' and ')}`)
    else seen.merges.add(id)
  }
  const present = new Set(idAt.values())
  for (const [kind, chosen] of [
    ['link', parts.links],
    ['note', new Set(parts.notes.keys())],
    ['merge', parts.merges],
  ] as const) {
    const found = kind === 'link' ? seen.links : kind === 'note' ? seen.notes : seen.merges
    for (const id of chosen) if (present.has(id) && !found.has(id)) out.push(`${id}'s ${kind} is gone though its row is there`)
  }
  return out
}
