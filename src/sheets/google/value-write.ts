/**
 * The values of a write: one `values.batchUpdateByDataFilter` (`RAW`, so no
 * text turns into a formula or a number), through the claims of keyed rows
 * (values from column A, `null` leaves a cell, `""` clears) and through the
 * A1 ranges a fresh read confirmed for the others. A removal empties the row.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import type { SkippedRow } from '../port.ts'
import { a1Range } from './a1.ts'
import { cellToApi, jsonBytes, packBySize, preserialized } from './requests.ts'
import { claimFilter, type ClaimRef, refId, refOfFilter } from './row-claims.ts'
import type { TabState, Target, WriteDeps } from './write-targets.ts'

/** One item of the value write, and the row it is for. */
interface ValueItem {
  range: sheets_v4.Schema$DataFilterValueRange
  tab: TabState
  target: Target
  /** Claimed items are confirmed by the answer: a claim that matched nothing wrote nothing. */
  ref?: ClaimRef
}

/** Writes the values of `targets` (claimed and read back, or at a confirmed position). */
export async function writeValues(
  deps: WriteDeps,
  targets: readonly { t: TabState; target: Target }[],
  skip: (t: TabState, row: number, reason: SkippedRow['reason']) => void,
): Promise<void> {
  const items: ValueItem[] = []
  for (const { t, target } of targets) {
    if (target.accepted && target.echo) {
      const values = rowValues(target, target.echo.cells.length, t.write.tab)
      if (values === undefined) continue
      items.push({
        range: { dataFilter: claimFilter(target.accepted), majorDimension: 'ROWS', values: [values] },
        tab: t,
        target,
        ref: target.accepted,
      })
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
  for (const batch of packBySize(items, (item) => jsonBytes(item.range), deps.maxPayloadBytes)) {
    // Claims and confirmed ranges: a repeat writes the same cells again.
    const body = preserialized({ valueInputOption: 'RAW', data: batch.map((item) => item.range) })
    const data = await deps.call('write', 'values.batchUpdateByDataFilter', () =>
      deps.api.spreadsheets.values.batchUpdateByDataFilter(
        { spreadsheetId: deps.spreadsheetId, requestBody: body.requestBody },
        body.options,
      ),
    )
    const written = new Set(
      (data?.responses ?? [])
        .map((r) => (r.dataFilter ? refOfFilter(r.dataFilter) : undefined))
        .filter((r) => r !== undefined)
        .map(refId),
    )
    for (const item of batch) {
      if (item.ref && !written.has(refId(item.ref))) {
        // The row went between the read-back and the write: nothing was written to it.
        skip(item.tab, item.target.row, 'gone')
      } else {
        item.target.written = true
      }
    }
  }
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
