/**
 * One read of the Activities tab as an import judges it: every row read once (`readRow`), except the rows as the
 * tool wrote them (`written-rows.ts`), which are read only if a pass asks for more than their Key.
 */
import { ACTIVITY_COLUMN as C, type HeaderLayout } from './columns.ts'
import { unchangedSinceWritten } from './row-judge.ts'
import { newReadMemo, readRow, type RowReading } from './row-read.ts'
import type { ReadContext } from './row-context.ts'
import { parseActivityKey } from './activity-key.ts'
import type { TabData } from './sheet.ts'
import { isAsWritten, readColumnsOf, rowDigest, writtenContext, type WrittenRows } from './written-rows.ts'

export interface SheetReadings {
  /** Data rows (`at(i)` is sheet row `i + 2`). */
  readonly length: number
  /** Row `i` read; a row as written is read on first asking. */
  at(i: number): RowReading
  /** Whether row `i` holds exactly what the tool wrote for its Key and the state's base: unedited since written. */
  asWritten(i: number): boolean
  /** Row `i`'s Key, without reading a row as written. */
  keyOf(i: number): RowReading['key']
  /**
   * The digests of the rows this read read in full and found unedited since written with `base`: an import keeps
   * them, so that the next one tells those rows from their cells (rows of a sheet written before digests existed,
   * rows a manager edited and the import then wrote back).
   */
  uneditedDigests(base: Pick<ReadonlyMap<string, string>, 'get'>): [string, number][]
}

/**
 * Reads every data row of `tab`, but a row `written` says is as written only when asked. `written` is used only
 * if taken under the same zone and users as `ctx`.
 */
export function readSheet(
  tab: TabData,
  layout: HeaderLayout,
  ctx: ReadContext,
  base: ReadonlyMap<string, string> = new Map(),
  written?: WrittenRows,
): SheetReadings {
  const memo = newReadMemo()
  const rows = tab.rows
  const readings = new Array<RowReading | undefined>(rows.length)
  const keys = new Array<RowReading['key']>(rows.length)
  const digests = written && written.context === writtenContext(ctx.timeZone, ctx.users, ctx.dayStart) ? written.digests : undefined
  const keyAt = layout.index[C.key]
  const baseAt = layout.index[C.base]
  if (digests && digests.size > 0 && keyAt !== undefined && baseAt !== undefined) {
    const columns = readColumnsOf(layout)
    const keyOf = keyReader(ctx.users)
    for (let i = 0; i < rows.length; i++) {
      const cells = rows[i]!
      const keyCell = cells[keyAt]
      if (typeof keyCell !== 'string' || !isAsWritten(cells, columns, keyCell, base, digests, baseAt)) continue
      // The tool writes only Keys it can read back; anything else is read as any row.
      keys[i] = keyOf(keyCell)
    }
  }
  for (let i = 0; i < rows.length; i++) if (keys[i] === undefined) readings[i] = readRow(rows[i]!, layout, ctx, memo)
  return {
    length: rows.length,
    at: (i) => (readings[i] ??= readRow(rows[i]!, layout, ctx, memo)),
    asWritten: (i) => keys[i] !== undefined,
    keyOf: (i) => keys[i] ?? (readings[i] ??= readRow(rows[i]!, layout, ctx, memo)).key,
    uneditedDigests(base) {
      const found: [string, number][] = []
      const columns = readColumnsOf(layout)
      for (let i = 0; i < rows.length; i++) {
        const reading = readings[i]
        const key = reading?.key?.text
        // Only a Key cell that is the Key itself, as `isAsWritten` looks rows up by.
        if (key === undefined || keys[i] !== undefined || rows[i]![keyAt ?? -1] !== key) continue
        if (unchangedSinceWritten(reading!, base)) found.push([key, rowDigest(rows[i]!, columns)])
      }
      return found
    },
  }
}

/**
 * A Key as `readRow` reads it (`parseActivityKey`, the timeline's string as the users list holds it), or undefined
 * when it is not one. Told by hand for the common form (`timeline/123`), the pattern asked once per timeline:
 * the Keys of a big sheet name a few hundred timelines, so the pattern runs that often rather than once a row.
 */
export function keyReader(users: ReadContext['users']): (text: string) => RowReading['key'] {
  // One string per timeline, as `readRow` keeps them: the Keys of 100k rows name a few hundred timelines.
  const known = new Map<string, string>()
  for (const u of users) if (u.tagsTimelineKey !== undefined) known.set(u.tagsTimelineKey, u.tagsTimelineKey)
  const heads = new Map<string, string | null>()
  const slow = (text: string): RowReading['key'] => {
    const parsed = text.trim() === text ? parseActivityKey(text) : undefined
    return parsed && { text, timelineKey: known.get(parsed.timelineKey) ?? parsed.timelineKey, entityId: parsed.entityId }
  }
  return (text) => {
    const slash = text.indexOf('/')
    const tail = text.slice(slash + 1)
    const entityId = Number(tail)
    // Only digits in their plain form (`007`, `-1`, `1e3` and the like go the pattern's way): then whether the
    // pattern takes the Key depends on its timeline alone, and the answer for one Key holds for its timeline's others.
    if (slash <= 0 || !Number.isSafeInteger(entityId) || entityId < 0 || String(entityId) !== tail) return slow(text)
    const head = text.slice(0, slash)
    let timelineKey = heads.get(head)
    if (timelineKey === undefined) {
      timelineKey = slow(text)?.timelineKey ?? null
      heads.set(head, timelineKey)
    }
    return timelineKey === null ? undefined : { text, timelineKey, entityId }
  }
}
