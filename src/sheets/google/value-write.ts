/**
 * The values of a write: one `values.batchUpdateByDataFilter` (`RAW`, so no
 * text turns into a formula or a number), through the claims of keyed rows and
 * the marks of marked rows (values from column A, `null` leaves a cell, `""`
 * clears) and through the A1 ranges a fresh read confirmed for the others. A removal empties the row.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { SkippedRow } from '../port.ts'
import { a1Range, columnIndex } from './a1.ts'
import { areaHolding } from './protected-rows.ts'
import { isProtectedRefusal } from './refusals.ts'
import { cellToApi, jsonBytes, packBySize, preserialized } from './requests.ts'
import { claimFilter, refId, refOfFilter } from './row-claims.ts'
import { markFilter, markOfFilter } from './row-marks.ts'
import type { TabState, Target, WriteDeps } from './write-targets.ts'

/** One item of the value write, and the row it is for. */
interface ValueItem {
  range: sheets_v4.Schema$DataFilterValueRange
  tab: TabState
  target: Target
  /** Items through a claim or a mark are confirmed by the answer: one that matched nothing wrote nothing. */
  through?: string
}

/** What a claim's or a mark's filter is known by in the answer (`dataFilter` echoes it). */
function throughOf(filter: sheets_v4.Schema$DataFilter | undefined): string | undefined {
  const mark = markOfFilter(filter)
  if (mark !== undefined) return `mark ${mark}`
  const ref = filter ? refOfFilter(filter) : undefined
  return ref ? refId(ref) : undefined
}

/** Writes the values of `targets` (claimed and read back, or at a confirmed position). */
export async function writeValues(
  deps: WriteDeps,
  targets: readonly { t: TabState; target: Target }[],
  skip: (t: TabState, row: number, reason: SkippedRow['reason'], protectedBy?: string) => void,
): Promise<void> {
  const items: ValueItem[] = []
  for (const { t, target } of targets) {
    if ((target.accepted || target.mark !== undefined) && target.echo) {
      const values = rowValues(target, target.echo.cells.length, t.write.tab)
      if (values === undefined) continue
      const dataFilter = target.mark !== undefined ? markFilter(target.mark) : claimFilter(target.accepted!)
      items.push({ range: { dataFilter, majorDimension: 'ROWS', values: [values] }, tab: t, target, through: throughOf(dataFilter)! })
    } else if (target.now !== undefined) {
      if (target.remove) {
        const width = target.nowCells?.length ?? 0
        if (width > 0)
          items.push({
            range: {
              dataFilter: { a1Range: a1Range(t.write.tab, target.now, 0, 1, width) },
              majorDimension: 'ROWS',
              values: [new Array(width).fill('')],
            },
            tab: t,
            target,
          })
        continue
      }
      for (const update of target.updates) {
        const where = a1Range(t.write.tab, target.now, update.column, 1, update.values.length)
        items.push({
          range: { dataFilter: { a1Range: where }, majorDimension: 'ROWS', values: [update.values.map((v) => cellToApi(v, where))] },
          tab: t,
          target,
        })
      }
    }
  }
  for (const packed of packBySize(items, (item) => jsonBytes(item.range), deps.maxPayloadBytes)) {
    const batch = await sendValues(deps, packed, skip)
    if (!batch) continue
    const { data } = batch
    const written = new Set((data?.responses ?? []).map((r) => throughOf(r.dataFilter)).filter((r) => r !== undefined))
    for (const item of batch.items) {
      if (item.through && !written.has(item.through)) {
        // The row went between the read (or read-back) and the write: nothing was written to it.
        skip(item.tab, item.target.row, 'gone')
      } else {
        item.target.written = true
      }
    }
  }
}

/** Rounds of leaving out the rows Google refuses as protected: a range protected meanwhile costs one more. */
const PROTECTED_ROUNDS = 3

/**
 * Sends one batch of values. Google refuses the whole batch when one of its cells lies in a range protected
 * against this account: the rows that lie in one are left out (skipped as `protected`, naming the range) and
 * the rest sent again. Undefined when no row is left to send.
 */
async function sendValues(
  deps: WriteDeps,
  batch: ValueItem[],
  skip: (t: TabState, row: number, reason: SkippedRow['reason'], protectedBy?: string) => void,
): Promise<{ items: ValueItem[]; data: sheets_v4.Schema$BatchUpdateValuesByDataFilterResponse | undefined } | undefined> {
  let items = batch
  for (let round = 1; ; round++) {
    // Claims and confirmed ranges: a repeat writes the same cells again.
    const body = preserialized({ valueInputOption: 'RAW', data: items.map((item) => item.range) })
    try {
      const data = await deps.call('write', 'values.batchUpdateByDataFilter', () =>
        deps.api.spreadsheets.values.batchUpdateByDataFilter(
          { spreadsheetId: deps.spreadsheetId, requestBody: body.requestBody },
          body.options,
        ),
      )
      return { items, data }
    } catch (error) {
      if (!isProtectedRefusal(error)) throw error
      const areas = await deps.protectedAreas()
      const kept: ValueItem[] = []
      for (const item of items) {
        const area = areaHolding(areas, item.tab.write.tab, rowNow(item), columnsWritten(item))
        if (area) skip(item.tab, item.target.row, 'protected', area.name)
        else kept.push(item)
      }
      // Nothing to leave out, or still refused after the rounds: no row can be named, the ranges can.
      if (kept.length === items.length || (round === PROTECTED_ROUNDS && kept.length > 0))
        throw deps.protectedError(
          error,
          areas,
          items.map((item) => item.tab.write.tab),
        )
      if (kept.length === 0) return undefined
      items = kept
    }
  }
}

/** The sheet row (1-based) an item writes to, as last seen. */
function rowNow(item: ValueItem): number {
  return item.target.echo?.row ?? item.target.now ?? item.target.row
}

/** The columns (0-based) an item sets: a `null` leaves its cell as it is. */
function columnsWritten(item: ValueItem): number[] {
  const a1 = item.range.dataFilter?.a1Range
  // A title may hold a `!`: the cell starts after the last one.
  const first = a1 ? columnIndex(/^\$?([A-Z]+)/.exec(a1.slice(a1.lastIndexOf('!') + 1))?.[1] ?? 'A') : 0
  const row = item.range.values?.[0] ?? []
  const out: number[] = []
  row.forEach((value, i) => {
    if (value !== null) out.push(first + i)
  })
  return out
}

/**
 * The cells a write through a row's claim sends, from column A: `null` leaves
 * a cell as it is; a removal empties the cells the row holds. Undefined when
 * there is nothing to send.
 */
function rowValues(target: Target, heldWidth: number, tab: string): (string | number | boolean | null)[] | undefined {
  if (target.remove) return heldWidth > 0 ? new Array(heldWidth).fill('') : undefined
  let width = 0
  for (const update of target.updates) width = Math.max(width, update.column + update.values.length)
  if (width === 0) return undefined
  const values: (string | number | boolean | null)[] = new Array(width).fill(null)
  for (const update of target.updates) {
    update.values.forEach((value, i) => {
      values[update.column + i] = cellToApi(value, () => a1Range(tab, target.row, update.column + i, 1, 1))
    })
  }
  return values
}
