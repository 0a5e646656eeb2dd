/**
 * Rows as the tool wrote them: a digest of the cells a row is read from, kept per Key when the tool writes the
 * row, so that a later import tells a row nobody touched from its raw cells without reading it
 * (decisions/0013-rows-as-written.md).
 *
 * Why that is enough: reading a row (`readRow`) depends on nothing but its cells, the time zone and the users
 * list. The tool writes a row's cells for an activity with its fingerprint in the Base cell, and those cells
 * read back as that activity, unedited since written (a property test holds this). So a row whose cells are
 * again exactly those, read under the same zone and users, and whose Base cell is still the state's base, reads
 * as unedited since written: the same answer `unchangedSinceWritten` gives after reading it. A digest is 52
 * bits; anything that differs (a cell a person changed, a number written back as text, a trimmed cell) only
 * makes the row read in full, as before.
 */
import { ACTIVITY_COLUMN as C, type HeaderLayout } from './columns.ts'
import { fnv1a64Base64url } from './fingerprint.ts'
import type { CellValue } from './sheet.ts'

/** The columns `readRow` reads, in one fixed order: the digest covers these and nothing else (not Status). */
export const READ_COLUMNS = [C.user, C.date, C.start, C.end, C.duration, C.tags, C.labels, C.notes, C.delete, C.key, C.base] as const

/** Digests of rows as written, valid while the reading context they were taken under holds. */
export interface WrittenRows {
  /** `writtenContext` of the zone and users the rows were written under. */
  context: string
  /** Row Key → digest of its cells as written. */
  digests: Map<string, number>
}

/**
 * What a row's reading depends on besides its cells: the zone and the users (a User cell reads as one of them).
 * Digests taken under another context are not used.
 */
export function writtenContext(
  timeZone: string,
  users: readonly { tagsTimelineKey: string | undefined; username: string; displayName?: string | undefined; teams?: readonly string[] }[],
): string {
  return fnv1a64Base64url(
    JSON.stringify([
      'written-rows 1',
      timeZone,
      users.map((u) => [u.tagsTimelineKey ?? null, u.username, u.displayName ?? null, u.teams ?? null]),
    ]),
  )
}

/** Each of `READ_COLUMNS`' index in the layout, −1 when the header lacks it. */
export function readColumnsOf(layout: HeaderLayout): Int32Array {
  const index = new Int32Array(READ_COLUMNS.length)
  READ_COLUMNS.forEach((column, i) => (index[i] = layout.index[column] ?? -1))
  return index
}

/** The digest of a row as read (cells in the header's order). */
export function rowDigest(cells: readonly (CellValue | undefined)[], columns: Int32Array): number {
  begin()
  for (let i = 0; i < columns.length; i++) {
    const at = columns[i]!
    addCell(at < 0 ? undefined : cells[at])
  }
  return end()
}

/** The digest of a row the tool writes, from its cells by column name: equal to `rowDigest` of the same cells read. */
export function cellsDigest(cells: Readonly<Partial<Record<string, CellValue>>>): number {
  begin()
  for (const column of READ_COLUMNS) addCell(cells[column])
  return end()
}

/**
 * Whether row `cells` is as the tool wrote it for Key `key` with the state's base: its Base cell is the base and
 * its digest the one kept. `columns` from `readColumnsOf`; `keyAt`/`baseAt`: the Key and Base columns' indexes.
 */
export function isAsWritten(
  cells: readonly CellValue[],
  columns: Int32Array,
  key: string,
  base: ReadonlyMap<string, string>,
  digests: ReadonlyMap<string, number>,
  baseAt: number,
): boolean {
  const digest = digests.get(key)
  if (digest === undefined) return false
  const baseCell = cells[baseAt]
  return typeof baseCell === 'string' && baseCell === base.get(key) && rowDigest(cells, columns) === digest
}

// Two 32-bit lanes, FNV-1a and a murmur3-style mix, over a tag per cell kind and the cell's content: different
// kinds (the number 1, the text "1", TRUE, an empty text, no value) never hash alike by construction.
let a = 0
let b = 0
const FLOAT = new Float64Array(1)
const WORDS = new Uint32Array(FLOAT.buffer)

function begin(): void {
  a = 0x811c9dc5
  b = 0x9747b28c
}

function add(x: number): void {
  a = Math.imul(a ^ x, 0x01000193)
  let k = Math.imul(x, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  b ^= Math.imul(k, 0x1b873593)
  b = (b << 13) | (b >>> 19)
  b = (Math.imul(b, 5) + 0xe6546b64) | 0
}

function addCell(value: CellValue | undefined): void {
  if (value === undefined) return add(1)
  if (value === null) return add(2)
  if (typeof value === 'boolean') return add(value ? 3 : 4)
  if (typeof value === 'number') {
    FLOAT[0] = value
    add(5)
    add(WORDS[0]!)
    add(WORDS[1]!)
    return
  }
  add(6)
  add(value.length)
  for (let i = 0; i < value.length; i++) add(value.charCodeAt(i))
}

function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

/** 52 bits: a safe integer, kept as a JSON number. */
function end(): number {
  return fmix(a) * 0x100000 + (fmix(b) >>> 12)
}
