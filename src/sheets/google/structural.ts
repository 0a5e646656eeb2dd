/**
 * Structural writes (`spreadsheets.batchUpdate`): parts packed into batches
 * under the payload limit and sent in order, and the look that tells, after a
 * lost answer, whether a batch was applied before it is sent again.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { setImmediate } from 'node:timers/promises'
import { keyText, sameCells } from '../../core/row-identity.ts'
import { HttpError } from '../../errors.ts'
import type { CellValue, TabData } from '../port.ts'
import type { EncodedBody } from './gzip-requests.ts'
import { lookUp } from './look-up.ts'
import { isProtectedRefusal, isStaleTabId } from './refusals.ts'
import { batchesBySize, jsonBytes } from './requests.ts'
import { claimFilter, type ClaimRef, refId } from './row-claims.ts'
import type { StructuralOutcome, TabState, WriteDeps } from './write-targets.ts'

/** Whether rows inserted with Keys new to the tab are there (all), not there (none), or undefined when Keys cannot tell. */
function insertedByKeys(t: TabState, inserts: readonly Insert[], current: TabData): StructuralOutcome | undefined {
  if (t.keyColumn === undefined || inserts.length === 0) return undefined
  const keys: string[] = []
  for (const insert of inserts)
    for (const cells of insert.rows) {
      const key = keyText(cells, t.keyColumn)
      if (key === undefined || t.basisKeys.has(key)) return undefined
      keys.push(key)
    }
  const now = new Set<string>()
  for (const cells of current.rows) {
    const key = keyText(cells, t.keyColumn)
    if (key !== undefined) now.add(key)
  }
  const found = keys.filter((key) => now.has(key)).length
  return found === keys.length ? 'applied' : found === 0 ? 'not-applied' : 'diverged'
}

/** One unit of a structural write; units are packed into batchUpdates under the payload limit, in order. */
export interface StructuralPart {
  tab: TabState
  requests: sheets_v4.Schema$Request[]
  bytes: number
  /**
   * The part's JSON instead of `requests`, comma-separated requests in pieces sent one after another (appended
   * rows: each row is serialized once, and its text is what is sent).
   */
  json?: readonly string[]
  /** Claims this part creates. */
  claims: ClaimRef[]
  /** Rows inserted at a 1-based row, for a look at the tab after a lost answer. */
  inserted?: Insert
  /** Grid columns before and after, when the part adds columns. */
  columns?: { before: number; after: number }
  /**
   * A part a refusal of its batch (400) leaves out: the batch is sent again without it. Row marks: they only save
   * requests later, and Google refuses them when the sheet's metadata room is short or a row they name is gone.
   */
  droppable?: boolean
  /** Told once the batch holding the part was applied. */
  onApplied?: () => void
}

export interface Insert {
  at: number
  rows: readonly (readonly CellValue[])[]
}

export function structuralPart(tab: TabState, requests: sheets_v4.Schema$Request[], extra: Partial<StructuralPart> = {}): StructuralPart {
  return { tab, requests, bytes: jsonBytes(requests), claims: [], ...extra }
}

/** What a look after a lost answer needs of a part: not its requests or their JSON, which are sent by then. */
type LookedAtPart = Pick<StructuralPart, 'tab' | 'claims' | 'inserted' | 'columns' | 'onApplied'>

/** A batch's body in pieces (`encodeBody` takes them one after another): a part's own JSON is never copied. */
function batchJson(batch: readonly StructuralPart[]): string[] {
  const pieces = ['{"requests":[']
  batch.forEach((p, i) => {
    if (i > 0) pieces.push(',')
    if (p.json) pieces.push(...p.json)
    else pieces.push(p.requests.map((r) => JSON.stringify(r)).join(','))
  })
  pieces.push(']}')
  return pieces
}

/** Sends the parts in batches, one after another, in order. */
export async function runStructural(deps: WriteDeps, tabs: readonly TabState[], parts: Iterable<StructuralPart>): Promise<void> {
  // Inserts already applied per tab, so a look after a lost answer knows how the tab looked before each batch.
  const applied = new Map<TabState, Insert[]>(tabs.map((t) => [t, []]))
  const send = async (batch: readonly LookedAtPart[], body: EncodedBody, without?: readonly StructuralPart[]): Promise<void> => {
    const earlier = new Map([...applied].map(([t, inserts]) => [t, [...inserts]]))
    const touched = [...new Set(batch.map((p) => p.tab.write.tab))]
    try {
      await deps.batchUpdate(body, () => structuralLook(deps, batch, earlier), touched)
    } catch (error) {
      // Refused whole, nothing of it applied: the parts it may do without are left out and the rest sent again.
      if (!without || !isRefusal(error)) throw error
      if (without.length > 0) await send(lookedAt(without), await deps.encodeBody(batchJson(without)))
      return
    }
    for (const p of batch) if (p.inserted) applied.get(p.tab)!.push(p.inserted)
    for (const p of batch) p.onApplied?.()
    for (const tab of touched) deps.confirmId(tab)
  }
  // The next batch is built (appended rows serialized) and encoded (compressed) while the one before is in flight,
  // so a 100,000-row first export neither builds nor compresses while the service sits idle.
  let sending: Promise<void> | undefined
  for (const batch of batchesBySize(withTitleChecks(deps, parts), (p) => p.bytes, deps.maxPayloadBytes)) {
    const encoding = deps.encodeBody(batchJson(batch))
    // Awaited once the batch before is applied; a failure before then must not count as unhandled.
    encoding.catch(() => undefined)
    const looked = lookedAt(batch)
    // Kept only for a batch with parts a refusal may leave out.
    const without = batch.some((p) => p.droppable) ? batch.filter((p) => !p.droppable) : undefined
    // Encoded, the parts' requests and JSON (tens of MB for 8 MB of rows) are garbage while the batch before is
    // in flight, rather than held until this one is answered.
    batch.length = 0
    await sending
    sending = send(looked, await encoding, without)
    // Awaited before the next batch or after the last; until then a failure must not count as unhandled.
    sending.catch(() => undefined)
    // Let the request leave before the next batch takes the thread.
    await setImmediate()
  }
  await sending
}

function lookedAt(batch: readonly StructuralPart[]): LookedAtPart[] {
  return batch.map(({ tab, claims, inserted, columns, onApplied }): LookedAtPart => ({ tab, claims, inserted, columns, onApplied }))
}

/** A refusal of a batch as a whole (400) that is not about protection or a stale tab id. */
function isRefusal(error: unknown): boolean {
  return error instanceof HttpError && error.status === 400 && !isProtectedRefusal(error) && !isStaleTabId(error)
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
      const json = rest.json === undefined ? undefined : [`${JSON.stringify(check)},`, ...rest.json]
      yield { ...rest, requests: [check, ...requests], bytes: p.bytes + jsonBytes(check), ...(json === undefined ? {} : { json }) }
    } else {
      yield p
    }
    checked.add(p.tab)
  }
}

/**
 * After a lost answer: were the parts applied? A batchUpdate is atomic, so one
 * claim it created, found on a row of its tab, says yes. Without claims, the
 * touched tabs are read: inserted rows with Keys new to the tab are there or
 * not; other inserted rows are applied when the grid grew by them and they sit
 * where they were inserted, not applied when the grid is as before. Anything
 * else means a person changed the tab meanwhile.
 */
async function structuralLook(
  deps: WriteDeps,
  batch: readonly LookedAtPart[],
  earlier: Map<TabState, Insert[]>,
): Promise<StructuralOutcome> {
  const claims = batch.flatMap((p) => p.claims.map((ref) => ({ ref, tab: p.tab })))
  if (claims.length > 0) {
    const sample = claims.length > 2 ? [claims[0]!, claims[claims.length - 1]!] : claims
    const answer = await lookUp(
      deps,
      sample.map((c) => claimFilter(c.ref)),
    )
    const found = sample.some((c) => (answer.rows.get(refId(c.ref)) ?? []).some((r) => r.title === c.tab.write.tab))
    return found ? 'applied' : 'not-applied'
  }
  // Only deletions of claims: repeating them deletes nothing more.
  if (!batch.some((p) => p.inserted || p.columns)) return 'not-applied'
  const tabs = [...new Set(batch.filter((p) => p.inserted || p.columns).map((p) => p.tab))]
  const now = await deps.readTabs(tabs.map((t) => t.write.tab))
  let applied = true
  let untouched = true
  for (const t of tabs) {
    const current = now.get(t.write.tab)
    if (!current?.exists) return 'diverged'
    const inserts = batch.filter((p) => p.tab === t && p.inserted).map((p) => p.inserted!)
    // Rows with Keys new to the tab tell by their Keys alone, wherever a person's sort or insert put them since.
    const byKeys = insertedByKeys(t, inserts, current)
    if (byKeys) {
      applied &&= byKeys === 'applied'
      untouched &&= byKeys === 'not-applied'
      continue
    }
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
