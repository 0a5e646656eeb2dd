/**
 * How the Google backend applies a write planned on an earlier read
 * (decisions/0003-rows-that-move.md). The Sheets API has no conditional
 * write, so nothing is written to a position that was not just confirmed:
 *
 * 1. Rows of a tab written with `keyColumn` are claimed a chunk at a time. A
 *    claim (row-located developer metadata, `row-claims.ts`) is put on the row
 *    where the basis showed it, read back through itself, and kept only where
 *    it sits, alone, on a row that still holds what the basis showed there
 *    (or, when a person typed into it since, still its Key). A claim that
 *    landed on another row (the rows moved since the basis was read) is tried
 *    again where a fresh read finds the row by content and Key, twice at most;
 *    then the row is skipped for this run.
 * 2. The chunk's values go through its claims
 *    (`values.batchUpdateByDataFilter`): a sort between the read-back and the
 *    write still lands every cell on its row. A removal empties the row.
 * 3. Rows of tabs without `keyColumn` that the read saw through their row
 *    marks (`row-marks.ts`) are written through them, with no read; the
 *    others, and header rows, are found in a fresh read and written at the
 *    position it confirmed.
 * 4. New rows are inserted (never written over) after the last row, with their
 *    formats, in atomic batchUpdates.
 *
 * A chunk's claims are deleted in the batch that makes the next chunk's, the
 * last chunk's with the new rows: a sheet holds at most one chunk's claims
 * (`claimRoom`) at any moment, and none once the write is done.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { keyText, locateRows, sameCells, writableCells } from '../../core/row-identity.ts'
import { HttpError, TimelineSheetsError } from '../../errors.ts'
import type { SkippedRow, Snapshot, TabData, TabWrite, WriteReport } from '../port.ts'
import { appendChunkParts } from './append-rows.ts'
import { markedTargets, markParts } from './marked-write.ts'
import { headerFilter, lookUp, type LookUpAnswer } from './look-up.ts'
import {
  CLAIMS_PER_ROUND,
  claimReserve,
  type ClaimValues,
  claimFilter,
  claimKey,
  claimValues,
  createClaim,
  deleteClaims,
  refId,
  type ClaimRef,
  type RowEcho,
  sheetClaimsFilter,
} from './row-claims.ts'
import { isProtectedRefusal, isStaleTabId } from './refusals.ts'
import { runStructural, structuralPart, type StructuralPart } from './structural.ts'
import { writeValues } from './value-write.ts'
import {
  claimedTargets,
  hasWork,
  needsColumns,
  planTabs,
  positionalTargets,
  StaleSheetIdError,
  type TabState,
  type Target,
  type WriteDeps,
} from './write-targets.ts'

/** Rounds of claiming a chunk: where the basis showed each row, then twice where a fresh read finds it. */
const CLAIM_ROUNDS = 3

type Skip = (t: TabState, row: number, reason: SkippedRow['reason'], protectedBy?: string) => void

interface Addressed {
  t: TabState
  target: Target
}

/** Applies `writes`, addressed relative to `basis`, as the module comment says. */
export async function applyWrite(deps: WriteDeps, writes: readonly TabWrite[], basis: Snapshot): Promise<WriteReport> {
  const tabs = planTabs(writes, basis)
  const skipped: SkippedRow[] = []
  const skip: Skip = (tab, row, reason, protectedBy) => {
    if (!skipped.some((s) => s.tab === tab.write.tab && s.row === row))
      skipped.push({ tab: tab.write.tab, row, reason, ...(protectedBy ? { protectedBy } : {}) })
  }
  const values = deps.claimValues ?? claimValues()

  // Sheet ids: every claim and mark names its sheet, and every tab that grows needs one.
  const needIds = tabs.filter(
    (t) =>
      claimedTargets(t).length > 0 ||
      (t.write.appends?.length ?? 0) > 0 ||
      needsColumns(deps, t) > 0 ||
      t.write.rowsToRevisit !== undefined,
  )
  if (needIds.length > 0) {
    const ids = await deps.sheetIds(needIds.map((t) => t.write.tab))
    for (const t of needIds) t.sheetId = ids.get(t.write.tab)
  }

  // Rows the read saw through their marks go through them; the other rows of tabs without a Key are read again.
  const marked = markedTargets(deps, tabs)
  const positional = tabs.flatMap((t) => positionalTargets(t).map((target) => ({ t, target })))
  // A closed tab's rows stand where the basis showed them: no manager can move them, and each write draws them whole.
  for (const { t, target } of positional.filter(({ t }) => t.write.closed)) {
    target.now = target.row
    target.nowCells = target.row === 1 ? t.basis.header : (t.basis.rows[target.row - 2] ?? [])
  }
  if (positional.some(({ t }) => !t.write.closed)) {
    await locatePositional(
      deps,
      tabs.filter((t) => !t.write.closed),
      skip,
    )
  }
  positional.push(...marked)

  // Columns the values need beyond the grid go with the first claims, or alone when there are none.
  let columns: StructuralPart[] | undefined = columnParts(deps, tabs)
  const owed = new Set<TabState>()
  const queue = tabs.flatMap((t) => claimedTargets(t).map((target) => ({ t, target })))
  let next = 0
  // The rows written at a position or through a mark go once, with the first chunk's values.
  let positionalSent = false
  while (next < queue.length) {
    const chunk = takeChunk(deps, queue, next)
    next += chunk.length
    const round = await claimChunk(deps, chunk, { values, skip, owed, columns })
    if (round.columnsSent) columns = undefined
    if (round.refused.length > 0) {
      // Google found no room for this many claims on a sheet: the rows not yet claimed go again, in smaller chunks.
      await deps.claimRoomRefused(round.refused[0]!.t.write.tab, round.refused[0]!.t.sheetId!, chunkChars(round.refused))
      queue.splice(next, 0, ...round.refused)
    }
    const accepted = chunk.filter(({ target }) => target.accepted && hasWork(target))
    await writeValues(deps, positionalSent ? accepted : [...positional, ...accepted], skip)
    positionalSent = true
  }
  if (columns && columns.length > 0) await runStructural(deps, tabs, columns)
  if (!positionalSent && positional.length > 0) await writeValues(deps, positional, skip)

  // New rows, and the last claims go.
  const appended: WriteReport['appended'] = {}
  await runStructural(deps, tabs, finishingParts(deps, tabs, appended, owed))

  skipped.sort((a, b) => (a.tab === b.tab ? a.row - b.row : a.tab < b.tab ? -1 : 1))
  return { appended, skipped }
}

/** The next targets from `queue[from]` whose claims fit each sheet's room. */
function takeChunk(deps: WriteDeps, queue: readonly Addressed[], from: number): Addressed[] {
  const used = new Map<TabState, number>()
  const chunk: Addressed[] = []
  for (let i = from; i < queue.length; i++) {
    const item = queue[i]!
    const cost = claimReserve(item.t.sheetId!)
    const chars = (used.get(item.t) ?? 0) + cost
    if (chunk.length > 0 && (chars > deps.claimRoom(item.t.sheetId!) || chunk.length === CLAIMS_PER_ROUND)) break
    used.set(item.t, chars)
    chunk.push(item)
  }
  return chunk
}

function chunkChars(items: readonly Addressed[]): number {
  return items.reduce((n, { t }) => n + claimReserve(t.sheetId!), 0)
}

/** Appends the columns writes need beyond the grid as last seen. */
function columnParts(deps: WriteDeps, tabs: readonly TabState[]): StructuralPart[] {
  const parts: StructuralPart[] = []
  for (const t of tabs) {
    const grow = needsColumns(deps, t)
    const known = deps.columnCount(t.write.tab) ?? 0
    if (grow > 0)
      parts.push(
        structuralPart(t, [{ appendDimension: { sheetId: t.sheetId!, dimension: 'COLUMNS', length: grow } }], {
          columns: { before: known, after: known + grow },
        }),
      )
  }
  return parts
}

interface ChunkContext {
  values: ClaimValues
  skip: Skip
  /** Tabs whose claims are still on the sheet: the next claims batch or the last batch deletes them. */
  owed: Set<TabState>
  columns: StructuralPart[] | undefined
}

/**
 * Claims a chunk's rows, in rounds, and reads the claims back. Returns the
 * targets Google had no room to claim (they go again in a smaller chunk).
 */
async function claimChunk(
  deps: WriteDeps,
  chunk: readonly Addressed[],
  context: ChunkContext,
): Promise<{ refused: Addressed[]; columnsSent: boolean }> {
  let rejected: { t: TabState; ref: ClaimRef }[] = []
  let columnsSent = false
  // The claims of the chunk before go in this chunk's first batch that lands: the sheet never holds both.
  let earlierCleared = false
  const chunkTabs = [...new Set(chunk.map((c) => c.t))]
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    const pending = chunk.filter(({ target }) => hasWork(target) && !target.accepted)
    if (pending.length === 0) break
    context.values.round()
    if (round === 0) {
      for (const { t, target } of pending) target.claim = { ref: newClaim(t, context.values), row: target.row }
    } else {
      await locateClaimed(deps, pending, context)
    }
    const toClaim = pending.filter(({ target }) => target.claim)
    if (toClaim.length === 0) continue
    const parts: StructuralPart[] = []
    // Claims that are done with go first: the earlier chunk's (no claim of this chunk stands yet) or the ones
    // this chunk's last round rejected.
    if (!earlierCleared)
      for (const t of chunkTabs) if (context.owed.has(t)) parts.push(structuralPart(t, [deleteClaims(sheetClaimsFilter(t.sheetId!))]))
    for (const { t, ref } of rejected) parts.push(structuralPart(t, [deleteClaims(claimFilter(ref))]))
    if (!columnsSent && context.columns) parts.push(...context.columns)
    for (const { t, target } of toClaim) {
      const ref = target.claim!.ref
      parts.push(structuralPart(t, [createClaim(ref, t.sheetId!, target.claim!.row)], { claims: [ref] }))
    }
    try {
      await runStructural(deps, chunkTabs, parts)
    } catch (error) {
      if (!isClaimRefusal(error)) throw error
      for (const { target } of toClaim) target.claim = undefined
      // Where the basis showed them, some rows may no longer exist (a person deleted rows at the end): a fresh
      // read finds them. Refused after a fresh read, the claims did not fit the sheet's metadata budget.
      if (round === 0) continue
      return { refused: [...pending], columnsSent }
    }
    columnsSent ||= (context.columns?.length ?? 0) > 0
    earlierCleared = true
    for (const { t } of toClaim) context.owed.add(t)
    rejected = []

    // A claim is kept only where it sits, alone, on the row it was meant for.
    const filters: sheets_v4.Schema$DataFilter[] = []
    if (round === 0) for (const t of new Set(toClaim.map((c) => c.t))) filters.push(headerFilter(t.sheetId!))
    for (const { target } of toClaim) filters.push(claimFilter(target.claim!.ref))
    const answer = await lookUp(deps, filters)
    if (round === 0) for (const t of new Set(toClaim.map((c) => c.t))) confirmIds(deps, t, answer.headers)
    for (const { t, target } of toClaim) {
      const claim = target.claim!
      target.claim = undefined
      const rows = answer.rows.get(refId(claim.ref)) ?? []
      if (rows.length === 1 && rows[0]!.title === t.write.tab && accepts(t, target, rows[0]!, context.skip)) {
        target.accepted = claim.ref
        target.echo = rows[0]!
        continue
      }
      rejected.push({ t, ref: claim.ref })
      if (round + 1 === CLAIM_ROUNDS) {
        context.skip(t, target.row, 'changed')
        target.updates = []
        target.remove = false
      }
    }
  }
  return { refused: [], columnsSent }
}

function newClaim(t: TabState, values: ClaimValues): ClaimRef {
  return { metadataKey: claimKey(t.sheetId!), value: values.next() }
}

/**
 * A refusal of a claims batch as a whole (400): claims on rows the grid no
 * longer has, or more metadata than the sheet's budget holds. A tab id that no
 * longer names its tab fails the same way and is not one.
 */
function isClaimRefusal(error: unknown): boolean {
  return error instanceof HttpError && error.status === 400 && !isProtectedRefusal(error) && !isStaleTabId(error)
}

/** Finds the chunk's unclaimed rows in a fresh read by content and Key, and claims them where they are now. */
async function locateClaimed(deps: WriteDeps, pending: readonly Addressed[], context: ChunkContext): Promise<void> {
  const byTab = new Map<TabState, Target[]>()
  for (const { t, target } of pending) byTab.set(t, [...(byTab.get(t) ?? []), target])
  const fresh = await deps.readTabs([...byTab.keys()].map((t) => t.write.tab))
  for (const [t, targets] of byTab) {
    const current = present(deps, t, fresh)
    const where = locateRows(
      t.basis,
      current,
      targets.map((target) => target.row),
      t.keyColumn,
    )
    for (const target of targets) {
      const found = where.get(target.row)
      // A row found by its unique Key after a person typed into it is claimed too; its cells are checked through the claim.
      if (found === undefined || found.kind === 'gone' || (found.kind === 'changed' && target.remove)) {
        context.skip(t, target.row, found?.kind === 'changed' ? 'changed' : 'gone')
        target.updates = []
        target.remove = false
        continue
      }
      target.claim = { ref: newClaim(t, context.values), row: found.row }
    }
  }
}

/** Finds the rows written at a position (tabs without keyColumn, header rows) in one fresh read. */
async function locatePositional(deps: WriteDeps, tabs: readonly TabState[], skip: Skip): Promise<void> {
  const toRead = tabs.filter((t) => positionalTargets(t).length > 0)
  const fresh = await deps.readTabs(toRead.map((t) => t.write.tab))
  for (const t of toRead) {
    const current = present(deps, t, fresh)
    const targets = positionalTargets(t)
    for (const target of targets.filter((x) => x.row === 1)) {
      if (sameCells(current.header, target.cells)) {
        target.now = 1
        target.nowCells = current.header
      } else {
        skip(t, 1, 'changed')
        target.updates = []
      }
    }
    const rows = targets.filter((target) => target.row >= 2)
    const where = locateRows(
      t.basis,
      current,
      rows.map((target) => target.row),
      t.keyColumn,
    )
    for (const target of rows) {
      const found = where.get(target.row)
      if (found === undefined || found.kind !== 'found') {
        skip(t, target.row, found?.kind === 'changed' ? 'changed' : 'gone')
        target.updates = []
        target.remove = false
        continue
      }
      target.now = found.row
      target.nowCells = current.rows[found.row - 2] ?? []
    }
  }
}

function present(deps: WriteDeps, t: TabState, fresh: Map<string, TabData>): TabData {
  const current = fresh.get(t.write.tab)
  if (!current?.exists) {
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `The tab "${t.write.tab}" of spreadsheet ${deps.spreadsheetId} disappeared during the run`,
      {
        hint: 'A tab was deleted or renamed during the run. Run again: the layout step creates it.',
      },
    )
  }
  t.current = current
  return current
}

/**
 * Whether a row read back through a claim is the basis row, and what may be
 * written to it: all of it when it still holds the basis cells; when a person
 * typed into it since (its Key, on one basis row, still says it is the row),
 * only the updates whose cells still hold what the basis showed, and no
 * removal. Skips what it leaves out. False when nothing of the write is left
 * for this row, or it is not the row.
 */
function accepts(t: TabState, target: Target, echo: RowEcho, skip: Skip): boolean {
  if (sameCells(echo.cells, target.cells)) return true
  if (!target.identifying || keyText(echo.cells, t.keyColumn) !== target.key) return false
  if (target.remove) {
    skip(t, target.row, 'changed')
    target.remove = false
    target.updates = []
    return true
  }
  const keep = target.updates.filter((u) =>
    writableCells(
      target.cells,
      echo.cells,
      u.values.map((_, i) => u.column + i),
    ),
  )
  if (keep.length < target.updates.length) skip(t, target.row, 'changed')
  target.updates = keep
  return true
}

function confirmIds(deps: WriteDeps, t: TabState, headers: LookUpAnswer['headers']): void {
  const seen = headers.get(t.sheetId!)
  if (!seen || seen.title !== t.write.tab) throw new StaleSheetIdError(t.write.tab)
  deps.confirmId(t.write.tab)
  deps.setColumnCount(t.write.tab, seen.columnCount)
}

/** After the values: new rows, then the row marks made again, then the claims still on the sheets. */
function* finishingParts(
  deps: WriteDeps,
  tabs: readonly TabState[],
  appended: WriteReport['appended'],
  owed: ReadonlySet<TabState>,
): Generator<StructuralPart> {
  const sendsBatch = owed.size > 0 || tabs.some((t) => (t.write.appends?.length ?? 0) > 0)
  for (const t of tabs) {
    const rows = t.write.appends ?? []
    if (rows.length === 0) continue
    const before = t.current ?? t.basis
    // New rows go right after the last row as the tab was last seen: inserted, so they never cover a row.
    const start = Math.min(before.rows.length + 1, Math.max(1, before.gridRowCount))
    appended[t.write.tab] = { firstRow: start + 1, count: rows.length }
    yield* appendChunkParts(t, rows, start, deps.rowFormats(t.write.tab), deps.maxPayloadBytes)
  }
  // Marks only where a batch goes anyway: alone, they would cost the request they save.
  if (sendsBatch) yield* markParts(deps, tabs, appended)
  for (const t of owed) yield structuralPart(t, [deleteClaims(sheetClaimsFilter(t.sheetId!))])
}
