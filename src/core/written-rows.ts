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
 * makes the row read in full, as a row without a digest is.
 */
import { ACTIVITY_COLUMN as C, type HeaderLayout } from './columns.ts'
import { fnv1a64Base64url } from './fingerprint.ts'
import type { CellValue } from './sheet.ts'
import { MIDNIGHT, type DayStart } from './day-start.ts'

/** The columns `readRow` reads, in one fixed order (not Status): a digest covers them, the Key by its lookup. */
export const READ_COLUMNS = [C.user, C.date, C.start, C.end, C.duration, C.tags, C.labels, C.notes, C.delete, C.key, C.base] as const

/** Digests of rows as written, valid while the reading context they were taken under holds. */
export interface WrittenRows {
  /** `writtenContext` of the zone and users the rows were written under. */
  context: string
  /** Row Key → digest of its cells as written. */
  digests: Map<string, number>
}

/**
 * What a row's reading depends on besides its cells: the zone, the hour its days start at and the users (a User
 * cell reads as one of them).
 * Digests taken under another context are not used.
 */
export function writtenContext(
  timeZone: string,
  users: readonly { tagsTimelineKey: string | undefined; username: string; displayName?: string | undefined; teams?: readonly string[] }[],
  dayStart: DayStart = MIDNIGHT,
): string {
  const context: unknown[] = [
    'written-rows 2',
    timeZone,
    users.map((u) => [u.tagsTimelineKey ?? null, u.username, u.displayName ?? null, u.teams ?? null]),
  ]
  // A Date cell reads as another day under another day start; a midnight adds nothing, so states kept before stay valid.
  if (dayStart !== MIDNIGHT) context.push(dayStart)
  return fnv1a64Base64url(JSON.stringify(context))
}

/**
 * The columns a digest covers: those a row is read from but its Key, whose text is what the digest is kept under
 * (a row is looked up by its Key cell's exact text, so an equal Key needs no hashing).
 */
const DIGEST_COLUMNS = READ_COLUMNS.filter((column) => column !== C.key)

/** Each digested column's index in the layout, −1 when the header lacks it. */
export function readColumnsOf(layout: HeaderLayout): Int32Array {
  const index = new Int32Array(DIGEST_COLUMNS.length)
  DIGEST_COLUMNS.forEach((column, i) => (index[i] = layout.index[column] ?? -1))
  return index
}

/**
 * Whether row `cells` is as the tool wrote it for Key `key` with the state's base: its Base cell is the base and
 * its digest the one kept. `columns` from `readColumnsOf`; `baseAt`: the Base column's index.
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

// Two 32-bit lanes, FNV-1a and a murmur3-style mix, over a tag per cell kind and the cell's content (text two
// characters a step, after its length): different kinds (the number 1, the text "1", TRUE, an empty text, no
// value) never hash alike by construction. 52 bits of the two, a safe integer kept as a JSON number.
const FLOAT = new Float64Array(1)
const WORDS = new Uint32Array(FLOAT.buffer)

/** The digest of a row as read (cells in the header's order; `columns` from `readColumnsOf`). */
export function rowDigest(cells: readonly (CellValue | undefined)[], columns: Int32Array): number {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let c = 0; c < columns.length; c++) {
    const at = columns[c]!
    const value = at < 0 ? undefined : cells[at]
    if (typeof value === 'string') {
      const n = value.length
      a = fnv(fnv(a, 6), n)
      b = murmur(murmur(b, 6), n)
      let i = 0
      for (; i + 1 < n; i += 2) {
        const x = value.charCodeAt(i) | (value.charCodeAt(i + 1) << 16)
        a = fnv(a, x)
        b = murmur(b, x)
      }
      if (i < n) {
        a = fnv(a, value.charCodeAt(i))
        b = murmur(b, value.charCodeAt(i))
      }
    } else if (typeof value === 'number') {
      FLOAT[0] = value
      const lo = WORDS[0]!
      const hi = WORDS[1]!
      a = fnv(fnv(fnv(a, 5), lo), hi)
      b = murmur(murmur(murmur(b, 5), lo), hi)
    } else {
      const tag = value === undefined ? 1 : value === null ? 2 : value ? 3 : 4
      a = fnv(a, tag)
      b = murmur(b, tag)
    }
  }
  return fmix(a) * 0x100000 + (fmix(b) >>> 12)
}

function fnv(h: number, x: number): number {
  return Math.imul(h ^ x, 0x01000193)
}

function murmur(h: number, x: number): number {
  let k = Math.imul(x, 0xcc9e2d51)
  k = (k << 15) | (k >>> 17)
  h ^= Math.imul(k, 0x1b873593)
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}
