/**
 * How the Google backend applies a write planned on an earlier read
 * (decisions/0003-rows-that-move.md). The Sheets API has no conditional
 * write, so nothing is written to a position that was not just confirmed:
 *
 * 1. Rows of a tab written with `keyColumn` are addressed through their row
 *    anchors: one `values.batchGetByDataFilter` reads them back wherever they
 *    are now, and a row that no longer holds what the basis showed is skipped.
 * 2. A row without an anchor (typed by a person, written by an older version,
 *    a Key on two rows) is found in a fresh read of the tab by content and Key,
 *    claimed with an anchor there, read back through the claim and kept only
 *    if the claim sits on that row. Tabs without `keyColumn` get the same
 *    fresh read and are written to the positions it confirmed.
 * 3. Values go through the anchors (`values.batchUpdateByDataFilter`): a sort
 *    between the read-back and the write still lands every cell on its row.
 *    A removal empties the row.
 * 4. New rows are inserted (never written over) after the last row, with their
 *    formats and, where they have a Key, their anchor, in one atomic
 *    `spreadsheets.batchUpdate`, which also deletes the anchors of emptied rows
 *    and the claims.
 *
 * Steady state (every addressed row anchored): one read and at most two writes.
 *
 * Longer than most files because the steps above act on one basis and one set of anchors: split, a step could
 * write to a row another step has not confirmed.
 */
import { randomUUID } from 'node:crypto'
import type { sheets_v4 } from '@googleapis/sheets'
import { setImmediate } from 'node:timers/promises'
import { keyText, locateRows, sameCells, writableCells } from '../../core/row-identity.ts'
import { TimelineSheetsError } from '../../errors.ts'
import type { CellUpdate, CellValue, SkippedRow, Snapshot, TabData, TabWrite, WriteReport } from '../port.ts'
import { a1Range, parseRangeEcho } from './a1.ts'
import { ROW_FORMAT_FIELDS, type ColumnCellFormat, type RowFormats } from './layout.ts'
import { batchesBySize, cellData, cellToApi, jsonBytes, packBySize, preserialized } from './requests.ts'
import {
  anchorFilter,
  type AnchorRef,
  createAnchor,
  deleteAnchors,
  renameAnchor,
  refId,
  refOfFilter,
  ROW_ANCHOR_KEY,
  ROW_CLAIM_KEY,
  type RowEcho,
  rowsByAnchor,
} from './row-anchors.ts'

/** What a look after a lost answer says about a structural batchUpdate. */
export type StructuralOutcome = 'applied' | 'not-applied' | 'diverged'

/** The backend's I/O, as the write needs it. */
export interface WriteDeps {
  spreadsheetId: string
  api: sheets_v4.Sheets
  /** One call under the retry policy; a lost answer repeats it as it is. */
  call<T>(lane: 'read' | 'write', operation: string, request: () => Promise<{ data: T }>): Promise<T>
  /**
   * A `spreadsheets.batchUpdate` that, after a lost answer, repeats only if `check` says it was not applied.
   * `body`, when given, is the request body as JSON already (rows serialized once, for their size and to send).
   */
  batchUpdate(
    requests: sheets_v4.Schema$Request[],
    check: () => Promise<StructuralOutcome>,
    touched: readonly string[],
    body?: string,
  ): Promise<void>
  /** Whole tabs as a read returns them (values.batchGet). */
  readTabs(tabs: readonly string[]): Promise<Map<string, TabData>>
  /** Sheet ids of these tabs, learnt with one spreadsheets.get if one is not known. */
  sheetIds(tabs: readonly string[]): Promise<Map<string, number>>
  /** False while a tab's id comes from an earlier run's hints and Google has not shown it names that tab. */
  idConfirmed(tab: string): boolean
  confirmId(tab: string): void
  /** Grid columns of a tab as last seen, if known. */
  columnCount(tab: string): number | undefined
  setColumnCount(tab: string, count: number): void
  /** What the tab's data rows carry, by column name, if the layout is known. */
  rowFormats(tab: string): RowFormats | undefined
  maxPayloadBytes: number
  /** A fresh value for a claim; tests make it predictable. */
  claimValue?: () => string
}

/** A basis row the write addresses, and how it was found again. */
interface Target {
  row: number
  cells: readonly CellValue[]
  key: string | undefined
  identifying: boolean
  updates: CellUpdate[]
  remove: boolean
  /** Keyed tabs: the anchor the value write goes through, and the row as read back through it. */
  anchor?: AnchorRef
  echo?: RowEcho
  claim?: { ref: AnchorRef; row: number; permanent: boolean }
  /** A rejected claim with the row's Key, to delete in the same batch as the next claim. */
  unclaim?: sheets_v4.Schema$DataFilter
  /** Positional: the row it is now and what it holds. */
  now?: number
  nowCells?: readonly CellValue[]
  /** The values reached the row (its anchor answered the value write). */
  written?: boolean
}

export interface TabState {
  write: TabWrite
  basis: TabData
  keyColumn: number | undefined
  targets: Map<number, Target>
  basisKeys: Map<string, number>
  current?: TabData
  sheetId?: number
  /** Anchor filters to delete once the values are written. */
  cleanup: sheets_v4.Schema$DataFilter[]
  /** Temporary claims this write made (kept or not): each is deleted by its own value at the end. */
  temporaryClaims: AnchorRef[]
}

/** Thrown when a tab id no longer names that tab: the caller learns the ids again and starts over. */
export class StaleSheetIdError extends Error {
  readonly tab: string
  constructor(tab: string) {
    super(`The sheet id known for "${tab}" no longer names that tab`)
    this.tab = tab
  }
}

/**
 * The anchors a read of the basis looked up in the same request (Google's `rowsToWrite`): the rows of `keys`
 * in `tab` as they stood when the basis was read, and the header rows that confirm sheet ids.
 */
export interface PriorLookUp {
  tab: string
  keys: ReadonlySet<string>
  answer: LookUpAnswer
}

/** Applies `writes`, addressed relative to `basis`, as the module comment says. */
export async function applyWrite(deps: WriteDeps, writes: readonly TabWrite[], basis: Snapshot, prior?: PriorLookUp): Promise<WriteReport> {
  const tabs = planTabs(writes, basis)
  const skipped: SkippedRow[] = []
  const skip = (tab: TabState, row: number, reason: SkippedRow['reason']) => {
    if (!skipped.some((s) => s.tab === tab.write.tab && s.row === row)) skipped.push({ tab: tab.write.tab, row, reason })
  }
  const claimValue = deps.claimValue ?? (() => randomUUID())

  // Sheet ids: every keyed tab looks its rows up by sheet, and every tab that grows needs one.
  const needIds = tabs.filter(
    (t) => (t.keyColumn !== undefined && keyedTargets(t).length > 0) || (t.write.appends?.length ?? 0) > 0 || needsColumns(deps, t) > 0,
  )
  if (needIds.length > 0) {
    const ids = await deps.sheetIds(needIds.map((t) => t.write.tab))
    for (const t of needIds) t.sheetId = ids.get(t.write.tab)
  }

  // 1. Read the anchored rows back (one read), confirming each keyed tab's sheet id on the way. A write whose
  // rows have no Key of their own (new rows getting theirs) skips it: the claims' batch checks the id. Rows the
  // read of the basis already looked up through their anchors (`prior`, no write since) are not read again.
  const lookups = tabs.filter((t) => t.keyColumn !== undefined && keyedTargets(t).some((target) => target.identifying))
  if (lookups.length > 0) {
    const filters: sheets_v4.Schema$DataFilter[] = []
    for (const t of lookups) {
      const fromPrior = prior?.tab === t.write.tab && prior.answer.headers.has(t.sheetId!)
      if (!fromPrior) filters.push(headerFilter(t.sheetId!))
      for (const target of keyedTargets(t))
        if (target.identifying && !(fromPrior && prior.keys.has(target.key!)))
          filters.push(anchorFilter({ metadataKey: ROW_ANCHOR_KEY, value: target.key! }))
    }
    const answer: LookUpAnswer = { rows: new Map(prior?.answer.rows), headers: new Map(prior?.answer.headers) }
    if (filters.length > 0) {
      const fresh = await lookUp(deps, filters)
      for (const [key, rows] of fresh.rows) answer.rows.set(key, rows)
      for (const [id, header] of fresh.headers) answer.headers.set(id, header)
    }
    for (const t of lookups) confirmIds(deps, t, answer.headers)
    for (const t of lookups) {
      for (const target of keyedTargets(t)) {
        if (!target.identifying) continue
        const ref: AnchorRef = { metadataKey: ROW_ANCHOR_KEY, value: target.key! }
        const rows = answer.rows.get(refId(ref)) ?? []
        if (rows.length === 1 && rows[0]!.title === t.write.tab) {
          const [echo] = rows as [RowEcho]
          if (accepts(t, target, echo, skip)) {
            target.anchor = ref
            target.echo = echo
          } else if (keyText(echo.cells, t.keyColumn) !== target.key) {
            // The anchored row no longer holds this Key (pasted over, or pasted onto another row): the anchor
            // no longer marks the Key's row. It goes, in the same batch that claims the row holding the Key now.
            target.identifying = false
            target.unclaim = anchorFilter(ref)
          }
        } else if (rows.length > 0) {
          // This Key's anchor is on two rows, or on a copy of the tab: a write through it would reach them all.
          // Every such anchor goes; this time the row is claimed afresh, next time it gets its anchor back.
          target.identifying = false
          t.cleanup.push(anchorFilter(ref))
        }
      }
    }
  }

  // 2–4, in rounds: a fresh read finds the rows that still need finding (unanchored keyed rows, and every row of
  // a tab without keyColumn); keyed ones are claimed there and the claims read back. A claim a shift of rows made
  // land on another row (a person inserted or deleted a row just before it) is tried again from a new read.
  let grown = false
  for (let round = 0; round < CLAIM_ROUNDS; round++) {
    const toRead = tabs.filter((t) => pendingTargets(t).length > 0)
    if (toRead.length === 0) break
    const fresh = await deps.readTabs(toRead.map((t) => t.write.tab))
    for (const t of toRead) {
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
      locatePending(t, current, claimValue, skip)
    }

    // Columns the values need (once), and claims on the rows found by content.
    await runStructural(deps, tabs, preparingParts(deps, tabs, !grown))
    grown = true

    // A claim is kept only where it sits on the row it was meant for.
    const claimed = tabs.flatMap((t) =>
      [...t.targets.values()].filter((target) => target.claim && !target.anchor).map((target) => ({ t, target })),
    )
    if (claimed.length === 0) continue
    const answer = await lookUp(
      deps,
      claimed.map(({ target }) => anchorFilter(target.claim!.ref)),
    )
    for (const { t, target } of claimed) {
      const claim = target.claim!
      const rows = answer.rows.get(refId(claim.ref)) ?? []
      if (rows.length === 1 && rows[0]!.title === t.write.tab && accepts(t, target, rows[0]!, skip)) {
        target.anchor = claim.ref
        target.echo = rows[0]!
        continue
      }
      target.claim = undefined
      // A claim with the row's Key must go before that Key is claimed again, or two rows would carry it.
      if (claim.permanent) {
        if (round + 1 < CLAIM_ROUNDS) target.unclaim = anchorFilter(claim.ref)
        else t.cleanup.push(anchorFilter(claim.ref))
      }
      if (round + 1 === CLAIM_ROUNDS) {
        skip(t, target.row, 'changed')
        target.updates = []
        target.remove = false
      }
    }
  }

  // Columns a write needs beyond the grid, when no round of claims took them along.
  if (!grown) await runStructural(deps, tabs, preparingParts(deps, tabs, true))

  // 5. Values, through the anchors (keyed) or at the confirmed positions.
  await writeValues(deps, tabs, skip)

  // 6. New rows (inserted, with formats and anchors), and the anchors of emptied rows, rejected and temporary claims go.
  const appended: WriteReport['appended'] = {}
  await runStructural(deps, tabs, finishingParts(deps, tabs, appended))

  skipped.sort((a, b) => (a.tab === b.tab ? a.row - b.row : a.tab < b.tab ? -1 : 1))
  return { appended, skipped }
}

/** Checks every write against its basis before anything is sent, and gathers the rows each one addresses. */
export function planTabs(writes: readonly TabWrite[], basis: Snapshot): TabState[] {
  const seen = new Set<string>()
  const out: TabState[] = []
  for (const write of writes) {
    if (seen.has(write.tab)) {
      throw new TimelineSheetsError('TS_INTERNAL', `Two writes address the tab "${write.tab}" in one call`, {
        hint: 'Merge them into one TabWrite: positions of the second would not account for the first.',
      })
    }
    seen.add(write.tab)
    const data = basis.tabs[write.tab]
    if (!data || !data.exists) {
      throw new TimelineSheetsError('TS_SHEET_LAYOUT', `Cannot write to the tab "${write.tab}": it was not in the snapshot read before`, {
        hint: 'Create the tabs first (ensureLayout), then read them, then write.',
      })
    }
    if (data.headerOnly) {
      throw new TimelineSheetsError('TS_INTERNAL', `Cannot write to the tab "${write.tab}": only its header was read`, {
        hint: 'Read the whole tab before planning writes to its rows.',
      })
    }
    if (write.keyColumn !== undefined && (!Number.isInteger(write.keyColumn) || write.keyColumn < 0)) {
      throw new TimelineSheetsError('TS_INTERNAL', `Invalid key column ${write.keyColumn} for "${write.tab}"`, {
        hint: 'The key column is a 0-based index, as read.',
      })
    }
    const basisKeys = new Map<string, number>()
    if (write.keyColumn !== undefined) {
      for (const cells of data.rows) {
        const key = keyText(cells, write.keyColumn)
        if (key !== undefined) basisKeys.set(key, (basisKeys.get(key) ?? 0) + 1)
      }
    }
    const t: TabState = { write, basis: data, keyColumn: write.keyColumn, targets: new Map(), basisKeys, cleanup: [], temporaryClaims: [] }
    const targetOf = (row: number): Target => {
      let target = t.targets.get(row)
      if (!target) {
        const cells = row === 1 ? data.header : (data.rows[row - 2] ?? [])
        const key = row === 1 ? undefined : keyText(cells, write.keyColumn)
        target = { row, cells, key, identifying: key !== undefined && basisKeys.get(key) === 1, updates: [], remove: false }
        t.targets.set(row, target)
      }
      return target
    }
    for (const update of write.updates ?? []) {
      if (!Number.isInteger(update.row) || update.row < 1 || !Number.isInteger(update.column) || update.column < 0) {
        throw new TimelineSheetsError('TS_INTERNAL', `Invalid cell address row ${update.row}, column ${update.column} in "${write.tab}"`, {
          hint: 'Rows are 1-based sheet rows and columns 0-based indexes, as read.',
        })
      }
      update.values.forEach((value, i) => cellToApi(value, () => a1Range(write.tab, update.row, update.column + i, 1, 1)))
      if (update.values.length > 0) targetOf(update.row).updates.push(update)
    }
    const lastRow = Math.max(data.gridRowCount, data.rows.length + 1)
    for (const row of write.deleteRows ?? []) {
      if (!Number.isInteger(row) || row < 2 || row > lastRow) {
        throw new TimelineSheetsError('TS_INTERNAL', `Cannot remove row ${row} of "${write.tab}": rows 2…${lastRow} exist`, {
          hint: 'Row numbers must come from the snapshot the write is based on; row 1 is the header.',
        })
      }
      targetOf(row).remove = true
    }
    for (const [i, row] of (write.appends ?? []).entries())
      row.forEach((value, j) => cellToApi(value, () => `${write.tab} appended row ${i + 1}, cell ${j + 1}`))
    out.push(t)
  }
  return out
}

function keyedTargets(t: TabState): Target[] {
  if (t.keyColumn === undefined) return []
  return [...t.targets.values()].filter((target) => target.row >= 2 && (target.updates.length > 0 || target.remove))
}

/** Targets not yet found again: unanchored, unclaimed keyed rows, and positional ones without a confirmed position. */
function pendingTargets(t: TabState): Target[] {
  return [...t.targets.values()].filter(
    (target) => (target.updates.length > 0 || target.remove) && !target.anchor && !target.claim && target.now === undefined,
  )
}

/** Rounds of finding and claiming rows by content: a claim that landed on another row is tried again twice. */
const CLAIM_ROUNDS = 3

/** Finds pending rows in a fresh read: keyed rows get a claim there, positional rows their position. */
function locatePending(
  t: TabState,
  current: TabData,
  claimValue: () => string,
  skip: (t: TabState, row: number, reason: SkippedRow['reason']) => void,
): void {
  const pending = pendingTargets(t)
  const header = pending.filter((target) => target.row === 1)
  for (const target of header) {
    if (sameCells(current.header, target.cells)) {
      target.now = 1
      target.nowCells = current.header
    } else {
      skip(t, 1, 'changed')
      target.updates = []
    }
  }
  const rows = pending.filter((target) => target.row >= 2)
  const where = locateRows(
    t.basis,
    current,
    rows.map((target) => target.row),
    t.keyColumn,
  )
  for (const target of rows) {
    const found = where.get(target.row)
    // A row found by its unique Key after a person typed into it is claimed too; its cells are checked through the claim.
    if (found === undefined || found.kind === 'gone' || (found.kind === 'changed' && (t.keyColumn === undefined || target.remove))) {
      skip(t, target.row, found?.kind === 'changed' ? 'changed' : 'gone')
      target.updates = []
      target.remove = false
      continue
    }
    if (t.keyColumn === undefined) {
      target.now = found.row
      target.nowCells = current.rows[found.row - 2] ?? []
      continue
    }
    const newKey = target.key === undefined ? keySetBy(target.updates, t.keyColumn) : undefined
    let ref: AnchorRef
    let permanent = true
    if (target.identifying) ref = { metadataKey: ROW_ANCHOR_KEY, value: target.key! }
    else if (newKey !== undefined && !t.basisKeys.has(newKey)) ref = { metadataKey: ROW_ANCHOR_KEY, value: newKey }
    else {
      ref = { metadataKey: ROW_CLAIM_KEY, value: claimValue() }
      permanent = false
      t.temporaryClaims.push(ref)
    }
    target.claim = { ref, row: found.row, permanent }
  }
}

/**
 * Whether a row read back through an anchor or claim is the basis row, and
 * what may be written to it: all of it when it still holds the basis cells;
 * when a person typed into it since (its Key, on one basis row, still says it
 * is the row), only the updates whose cells still hold what the basis showed,
 * and no removal. Skips what it leaves out. False when nothing of the write is
 * left for this row, or it is not the row.
 */
function accepts(
  t: TabState,
  target: Target,
  echo: RowEcho,
  skip: (t: TabState, row: number, reason: SkippedRow['reason']) => void,
): boolean {
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

/** The Key a row's updates put in the key column, if they set one. */
function keySetBy(updates: readonly CellUpdate[], keyColumn: number): string | undefined {
  let key: string | undefined
  for (const update of updates) {
    const i = keyColumn - update.column
    if (i >= 0 && i < update.values.length) {
      const value = update.values[i]
      key = typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
    }
  }
  return key
}

/** Columns a write needs beyond the grid as last seen (0: none, or the width is not known). */
function needsColumns(deps: WriteDeps, t: TabState): number {
  const known = deps.columnCount(t.write.tab)
  if (known === undefined) return 0
  let width = 0
  for (const update of t.write.updates ?? []) width = Math.max(width, update.column + update.values.length)
  for (const row of t.write.appends ?? []) width = Math.max(width, row.length)
  return Math.max(0, width - known)
}

export interface LookUpAnswer {
  rows: Map<string, RowEcho[]>
  /** Sheet id → title and columns, from the header-row filters. */
  headers: Map<number, { title: string; columnCount: number }>
}

/** The filter for a tab's header row by sheet id: its answer names the tab, which confirms the id. */
export function headerFilter(sheetId: number): sheets_v4.Schema$DataFilter {
  return { gridRange: { sheetId, startRowIndex: 0, endRowIndex: 1 } }
}

/** The filters that look up the rows of these Keys through their row anchors. */
export function keyAnchorFilters(keys: Iterable<string>): sheets_v4.Schema$DataFilter[] {
  return [...keys].map((value) => anchorFilter({ metadataKey: ROW_ANCHOR_KEY, value }))
}

/** Reads a `values.batchGetByDataFilter` answer: rows by anchor, headers by sheet id. */
export function readLookUp(ranges: readonly sheets_v4.Schema$MatchedValueRange[], into?: LookUpAnswer): LookUpAnswer {
  const answer: LookUpAnswer = into ?? { rows: new Map(), headers: new Map() }
  for (const [key, rows] of rowsByAnchor(ranges)) answer.rows.set(key, (answer.rows.get(key) ?? []).concat(rows))
  for (const matched of ranges) {
    const grid = matched.dataFilters?.find((f) => f.gridRange)?.gridRange
    if (!grid || typeof matched.valueRange?.range !== 'string') continue
    const echo = parseRangeEcho(matched.valueRange.range)
    answer.headers.set(grid.sheetId ?? 0, { title: echo.title, columnCount: echo.endColumn + 1 })
  }
  return answer
}

async function lookUp(deps: WriteDeps, filters: readonly sheets_v4.Schema$DataFilter[]): Promise<LookUpAnswer> {
  const answer: LookUpAnswer = { rows: new Map(), headers: new Map() }
  for (const batch of packBySize(filters, jsonBytes, deps.maxPayloadBytes)) {
    const body = preserialized({
      dataFilters: batch,
      majorDimension: 'ROWS',
      valueRenderOption: 'FORMULA',
      dateTimeRenderOption: 'SERIAL_NUMBER',
    })
    const data = await deps.call('read', 'values.batchGetByDataFilter', () =>
      deps.api.spreadsheets.values.batchGetByDataFilter({ spreadsheetId: deps.spreadsheetId, requestBody: body.requestBody }, body.options),
    )
    readLookUp(Array.isArray(data?.valueRanges) ? data.valueRanges : [], answer)
  }
  return answer
}

function confirmIds(deps: WriteDeps, t: TabState, headers: LookUpAnswer['headers']): void {
  const seen = headers.get(t.sheetId!)
  if (!seen || seen.title !== t.write.tab) throw new StaleSheetIdError(t.write.tab)
  deps.confirmId(t.write.tab)
  deps.setColumnCount(t.write.tab, seen.columnCount)
}

/** One unit of the structural write; units are packed into batchUpdates under the payload limit, in order. */
interface StructuralPart {
  tab: TabState
  requests: sheets_v4.Schema$Request[]
  bytes: number
  /** `requests` as JSON, comma-separated, when made with them (appended rows: each row is serialized once). */
  json?: string
  /** Anchors this part creates, with the cells their row must hold (undefined: any). */
  anchors: { ref: AnchorRef; cells: readonly CellValue[] | undefined }[]
  /** Rows inserted at a 1-based row, for a look at the tab after a lost answer. */
  inserted?: Insert
  /** Grid columns before and after, when the part adds columns. */
  columns?: { before: number; after: number }
}

interface Insert {
  at: number
  rows: readonly (readonly CellValue[])[]
}

/** Before the values: columns they need (first round only), and the claims on rows found by content. */
function preparingParts(deps: WriteDeps, tabs: readonly TabState[], withColumns: boolean): StructuralPart[] {
  const parts: StructuralPart[] = []
  for (const t of withColumns ? tabs : []) {
    const grow = needsColumns(deps, t)
    const known = deps.columnCount(t.write.tab) ?? 0
    if (grow > 0)
      parts.push(
        structuralPart(t, [{ appendDimension: { sheetId: t.sheetId!, dimension: 'COLUMNS', length: grow } }], {
          columns: { before: known, after: known + grow },
        }),
      )
  }
  for (const t of tabs) {
    for (const target of t.targets.values()) {
      if (!target.claim || target.anchor) continue
      const claim = target.claim
      const requests = [createAnchor(claim.ref, t.sheetId!, claim.row)]
      if (target.unclaim) requests.unshift(deleteAnchors(target.unclaim))
      target.unclaim = undefined
      parts.push(structuralPart(t, requests, { anchors: [{ ref: claim.ref, cells: undefined }] }))
    }
  }
  return parts
}

/**
 * After the values: new rows, then the anchors that must go (emptied rows,
 * rejected claims, anchors found on two rows or on a copy of the tab, and this
 * write's temporary claims). Deleting by filter twice deletes nothing more, so
 * these parts repeat safely.
 */
function* finishingParts(deps: WriteDeps, tabs: readonly TabState[], appended: WriteReport['appended']): Generator<StructuralPart> {
  for (const t of tabs) {
    const rows = t.write.appends ?? []
    if (rows.length === 0) continue
    const before = t.current ?? t.basis
    // New rows go right after the last row as the tab was last seen: inserted, so they never cover a row.
    const start = Math.min(before.rows.length + 1, Math.max(1, before.gridRowCount))
    appended[t.write.tab] = { firstRow: start + 1, count: rows.length }
    yield* appendChunkParts(t, rows, start, deps.rowFormats(t.write.tab), deps.maxPayloadBytes)
  }
  for (const t of tabs) for (const request of reKeyed(t)) yield structuralPart(t, [request])
  const seen = new Set<string>()
  for (const t of tabs) {
    for (const ref of t.temporaryClaims) t.cleanup.push(anchorFilter(ref))
    for (const filter of t.cleanup) {
      const id = JSON.stringify(filter)
      if (seen.has(id)) continue
      seen.add(id)
      yield structuralPart(t, [deleteAnchors(filter)])
    }
  }
}

/**
 * Anchors whose row the write gave another Key (a pending mark replaced by the
 * activity's Key, a claim on a row that got its Key): the anchor takes the
 * new Key as its value, so the next write finds the row by it. A Key the tab
 * holds elsewhere would make two rows answer to it: that anchor goes instead.
 */
function reKeyed(t: TabState): sheets_v4.Schema$Request[] {
  const out: sheets_v4.Schema$Request[] = []
  if (t.keyColumn === undefined) return out
  for (const target of t.targets.values()) {
    if (!target.anchor || !target.written) continue
    const key = keySetBy(target.updates, t.keyColumn)
    if (key === undefined || (target.anchor.metadataKey === ROW_ANCHOR_KEY && target.anchor.value === key)) continue
    const heldElsewhere = (t.basisKeys.get(key) ?? 0) - (target.key === key ? 1 : 0) > 0
    if (heldElsewhere) {
      if (target.anchor.metadataKey === ROW_ANCHOR_KEY) t.cleanup.push(anchorFilter(target.anchor))
      continue
    }
    out.push(renameAnchor(target.anchor, { metadataKey: ROW_ANCHOR_KEY, value: key }))
  }
  return out
}

function structuralPart(tab: TabState, requests: sheets_v4.Schema$Request[], extra: Partial<StructuralPart> = {}): StructuralPart {
  return { tab, requests, bytes: jsonBytes(requests), anchors: [], ...extra }
}

/**
 * The requests that add `rows` to a tab at 0-based row `start` (right after
 * its last data row), in chunks under the payload limit: insertDimension
 * (rows are inserted, never written over), each column's format and
 * validation, the values as updateCells (RAW: `stringValue` is never parsed),
 * and an anchor for each row with a Key that is new to the tab.
 */
export function appendChunks(
  t: TabState,
  rows: readonly (readonly CellValue[])[],
  start: number,
  formats: RowFormats | undefined,
  maxBytes: number,
): StructuralPart[] {
  return [...appendChunkParts(t, rows, start, formats, maxBytes)]
}

/** `appendChunks` one chunk at a time: a chunk's rows are serialized only when it is drawn. */
function* appendChunkParts(
  t: TabState,
  rows: readonly (readonly CellValue[])[],
  start: number,
  formats: RowFormats | undefined,
  maxBytes: number,
): Generator<StructuralPart> {
  const sheetId = t.sheetId!
  const keyed = t.keyColumn !== undefined
  const keyCounts = new Map<string, number>()
  if (keyed) {
    for (const row of rows) {
      const key = keyText(row, t.keyColumn)
      if (key !== undefined) keyCounts.set(key, (keyCounts.get(key) ?? 0) + 1)
    }
  }
  const columnFormats: { column: number; format: ColumnCellFormat }[] = []
  if (formats) {
    t.basis.header.forEach((name, column) => {
      const format = typeof name === 'string' ? formats[name] : undefined
      if (format) columnFormats.push({ column, format })
    })
  }
  let chunkRows: sheets_v4.Schema$RowData[] = []
  let rowJsons: string[] = []
  let chunkCells: (readonly CellValue[])[] = []
  let chunkAnchors: sheets_v4.Schema$Request[] = []
  let anchors: StructuralPart['anchors'] = []
  let bytes = 0
  let at = start
  const flush = (): StructuralPart | undefined => {
    if (chunkRows.length === 0) return undefined
    const count = chunkRows.length
    const requests: sheets_v4.Schema$Request[] = [
      {
        insertDimension: {
          range: { sheetId, dimension: 'ROWS', startIndex: at, endIndex: at + count },
          // From a data row above, never from the header: the formats follow even where no layout is known.
          inheritFromBefore: at >= 2,
        },
      },
    ]
    for (const { column, format } of columnFormats) {
      requests.push({
        repeatCell: {
          range: { sheetId, startRowIndex: at, endRowIndex: at + count, startColumnIndex: column, endColumnIndex: column + 1 },
          cell: {
            ...(format.numberFormat || format.wrapStrategy
              ? {
                  userEnteredFormat: {
                    ...(format.numberFormat ? { numberFormat: format.numberFormat } : {}),
                    ...(format.wrapStrategy ? { wrapStrategy: format.wrapStrategy } : {}),
                  },
                }
              : {}),
            ...(format.dataValidation ? { dataValidation: format.dataValidation } : {}),
          },
          fields: ROW_FORMAT_FIELDS,
        },
      })
    }
    const start = { sheetId, rowIndex: at, columnIndex: 0 }
    const json = [
      ...requests.map((r) => JSON.stringify(r)),
      // The rows as serialized for their size: the body is the same JSON, made once.
      `{"updateCells":{"start":${JSON.stringify(start)},"rows":[${rowJsons.join(',')}],"fields":"userEnteredValue"}}`,
      ...chunkAnchors.map((r) => JSON.stringify(r)),
    ].join(',')
    requests.push({ updateCells: { start, rows: chunkRows, fields: 'userEnteredValue' } })
    for (const request of chunkAnchors) requests.push(request)
    const part: StructuralPart = { tab: t, requests, bytes, json, anchors, inserted: { at: at + 1, rows: chunkCells } }
    at += count
    chunkRows = []
    rowJsons = []
    chunkCells = []
    chunkAnchors = []
    anchors = []
    bytes = 0
    return part
  }
  // Room for the insert and format requests of a chunk.
  const overhead = 300 + columnFormats.reduce((n, c) => n + jsonBytes(c.format) + 200, 0)
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i]!
    const rowData: sheets_v4.Schema$RowData = {
      values: cells.map((value, j) => cellData(value, () => `${t.write.tab} appended row ${i + 1}, cell ${j + 1}`)),
    }
    const key = keyed ? keyText(cells, t.keyColumn) : undefined
    // A Key the tab or this batch already holds would give two rows one anchor: such rows get none.
    const ref: AnchorRef | undefined =
      key !== undefined && keyCounts.get(key) === 1 && !t.basisKeys.has(key) ? { metadataKey: ROW_ANCHOR_KEY, value: key } : undefined
    // The anchor's row number may change by a chunk boundary; its size by a digit or two at most.
    const rowJson = JSON.stringify(rowData)
    const rowBytes = Buffer.byteLength(rowJson, 'utf8') + (ref ? jsonBytes(createAnchor(ref, sheetId, at + rows.length)) : 0) + 2
    if (chunkRows.length > 0 && bytes + rowBytes + overhead > maxBytes) yield flush()!
    if (ref) {
      chunkAnchors.push(createAnchor(ref, sheetId, at + chunkRows.length + 1))
      anchors.push({ ref, cells })
    }
    chunkRows.push(rowData)
    rowJsons.push(rowJson)
    chunkCells.push(cells)
    bytes += rowBytes
  }
  const last = flush()
  if (last) yield last
}

async function runStructural(deps: WriteDeps, tabs: readonly TabState[], parts: Iterable<StructuralPart>): Promise<void> {
  // Inserts already applied per tab, so a look after a lost answer knows how the tab looked before each batch.
  const applied = new Map<TabState, Insert[]>(tabs.map((t) => [t, []]))
  const send = async (batch: StructuralPart[]): Promise<void> => {
    const earlier = new Map([...applied].map(([t, inserts]) => [t, [...inserts]]))
    const touched = [...new Set(batch.map((p) => p.tab.write.tab))]
    const requests: sheets_v4.Schema$Request[] = []
    for (const p of batch) for (const request of p.requests) requests.push(request)
    const body = `{"requests":[${batch.map((p) => p.json ?? p.requests.map((r) => JSON.stringify(r)).join(',')).join(',')}]}`
    await deps.batchUpdate(requests, () => structuralLook(deps, batch, earlier), touched, body)
    for (const p of batch) if (p.inserted) applied.get(p.tab)!.push(p.inserted)
    for (const tab of touched) deps.confirmId(tab)
  }
  // Batches go one after another, in order; the next one is built (appended rows serialized) while the one before
  // is in flight, so a 100,000-row first export does not build 90 MB of JSON while the service sits idle.
  let sending: Promise<void> | undefined
  for (const batch of batchesBySize(withTitleChecks(deps, parts), (p) => p.bytes, deps.maxPayloadBytes)) {
    await sending
    sending = send(batch)
    // Awaited before the next batch or after the last; until then a failure must not count as unhandled.
    sending.catch(() => undefined)
    // Let the request leave before the next batch takes the thread.
    await setImmediate()
  }
  await sending
}

/**
 * A tab id from an earlier run's hints may now name another tab (the tab was
 * renamed and made again). Before the first request that uses such an id,
 * the batch "renames" that sheet to the title it should have: a no-op when
 * the id is right, and when it is not, a refusal (the title is taken) that
 * fails the whole batch before anything is applied.
 */
function* withTitleChecks(deps: WriteDeps, parts: Iterable<StructuralPart>): Generator<StructuralPart> {
  const checked = new Set<TabState>()
  for (const p of parts) {
    if (!checked.has(p.tab) && !deps.idConfirmed(p.tab.write.tab)) {
      const { requests, ...rest } = p
      const check: sheets_v4.Schema$Request = {
        updateSheetProperties: { properties: { sheetId: p.tab.sheetId!, title: p.tab.write.tab }, fields: 'title' },
      }
      const json = rest.json === undefined ? undefined : `${JSON.stringify(check)},${rest.json}`
      yield { ...rest, requests: [check, ...requests], bytes: p.bytes + jsonBytes(check), ...(json === undefined ? {} : { json }) }
    } else {
      yield p
    }
    checked.add(p.tab)
  }
}

/**
 * After a lost answer: were the parts applied? A batchUpdate is atomic, so
 * one anchor it created, found on its row, says yes. Without anchors, the
 * touched tabs are read: applied when the grid grew by the inserted rows and
 * they sit where they were inserted, not applied when the grid is as before;
 * anything else means a person changed the tab meanwhile.
 */
async function structuralLook(
  deps: WriteDeps,
  batch: readonly StructuralPart[],
  earlier: Map<TabState, Insert[]>,
): Promise<StructuralOutcome> {
  const anchors = batch.flatMap((p) => p.anchors.map((a) => ({ ...a, tab: p.tab })))
  if (anchors.length > 0) {
    const sample = anchors.length > 2 ? [anchors[0]!, anchors[anchors.length - 1]!] : anchors
    const answer = await lookUp(
      deps,
      sample.map((a) => anchorFilter(a.ref)),
    )
    const found = sample.some((a) =>
      (answer.rows.get(refId(a.ref)) ?? []).some(
        (r) => r.title === a.tab.write.tab && (a.cells === undefined || sameCells(r.cells, a.cells)),
      ),
    )
    return found ? 'applied' : 'not-applied'
  }
  // Only anchor deletions: repeating them deletes nothing more.
  if (!batch.some((p) => p.inserted || p.columns)) return 'not-applied'
  const tabs = [...new Set(batch.filter((p) => p.inserted || p.columns).map((p) => p.tab))]
  const now = await deps.readTabs(tabs.map((t) => t.write.tab))
  let applied = true
  let untouched = true
  for (const t of tabs) {
    const current = now.get(t.write.tab)
    if (!current?.exists) return 'diverged'
    const inserts = batch.filter((p) => p.tab === t && p.inserted).map((p) => p.inserted!)
    const gridBefore = (t.current ?? t.basis).gridRowCount + (earlier.get(t) ?? []).reduce((n, i) => n + i.rows.length, 0)
    const gridAfter = gridBefore + inserts.reduce((n, i) => n + i.rows.length, 0)
    const landed = inserts.every((insert) => insert.rows.every((cells, j) => sameCells(current.rows[insert.at - 2 + j] ?? [], cells)))
    const columns = batch.find((p) => p.tab === t && p.columns)?.columns
    const columnsNow = deps.columnCount(t.write.tab)
    applied &&= current.gridRowCount === gridAfter && landed && (columns === undefined || columnsNow === columns.after)
    untouched &&=
      current.gridRowCount === gridBefore && (inserts.length === 0 || !landed) && (columns === undefined || columnsNow === columns.before)
  }
  if (applied) return 'applied'
  if (untouched) return 'not-applied'
  return 'diverged'
}

/** One item of the value write, and the row it is for. */
interface ValueItem {
  range: sheets_v4.Schema$DataFilterValueRange
  tab: TabState
  target: Target
  /** Keyed items are confirmed by the answer: an anchor that matched nothing wrote nothing. */
  ref?: AnchorRef
}

async function writeValues(
  deps: WriteDeps,
  tabs: readonly TabState[],
  skip: (t: TabState, row: number, reason: SkippedRow['reason']) => void,
): Promise<void> {
  const items: ValueItem[] = []
  for (const t of tabs) {
    for (const target of t.targets.values()) {
      if (target.anchor && target.echo) {
        if (target.remove) t.cleanup.push(anchorFilter(target.anchor))
        const values = rowValues(target, target.echo.cells.length, t.write.tab)
        if (values === undefined) continue
        items.push({
          range: { dataFilter: anchorFilter(target.anchor), majorDimension: 'ROWS', values: [values] },
          tab: t,
          target,
          ref: target.anchor,
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
  }
  for (const batch of packBySize(items, (item) => jsonBytes(item.range), deps.maxPayloadBytes)) {
    // RAW: no text turns into a formula or a number. Anchors and confirmed ranges: a repeat writes the same cells again.
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
 * The cells a write through a row's anchor sends, from column A: `null`
 * leaves a cell as it is; a removal empties the cells the row holds.
 * Undefined when there is nothing to send.
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
