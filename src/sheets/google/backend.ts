/**
 * The Google Sheets backend of the spreadsheet port. Request economy first:
 * a read is one `values.batchGet`; a write claims the rows it changes, reads
 * them back through the claims and writes through them (write.ts,
 * decisions/0003-rows-that-move.md); an unchanged layout is one
 * `spreadsheets.get`. googleapis' own retries are off; the one retry policy
 * (src/http/retry.ts) runs over two pace lanes, reads and writes, each held
 * for the quota window after a 429. Every call goes through one send, one
 * retry and one pace here; the reads, the layout and the write are in their
 * own files.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { z } from 'zod'
import { TimelineSheetsError } from '../../errors.ts'
import { createPace, type Pace } from '../../http/pace.ts'
import type { Transport } from '../../http/transport.ts'
import { readDriveVersion } from './drive-version.ts'
import { retry, retryOptions, type RetryEvent, type RetryOptions, type RetryVerdict } from '../../http/retry.ts'
import type { CellValue, LayoutOptions, RequestCounts, Snapshot, Spreadsheet, TabData, TabSpec } from '../port.ts'
import { quoteTitle } from './a1.ts'
import { headerNames } from './partial-read.ts'
import { rangeRows, tabsFromBatchGet } from './batch-get.ts'
import { type PartialReadDeps, readPartial } from './incremental-read.ts'
import { createClaimRooms } from './claim-rooms.ts'
import type { ClaimValues } from './row-claims.ts'
import { sheetsApi } from './api-client.ts'
import { classifySheetsFailure, readApiFailure, toSheetsError } from './api-errors.ts'
import type { GoogleSignIn } from './auth.ts'
import type { RowFormats } from './column-formats.ts'
import { planLayout, type CreatedTab, type LayoutPlan } from './layout.ts'
import { LAYOUT_FIELDS, defaultTabCandidate, layoutIsCurrent, readSpreadsheetState, type SpreadsheetState } from './layout-state.ts'
import { encodeBody, type EncodedBody } from './gzip-requests.ts'
import { batchGetParams, COMPRESSED_MAX_PAYLOAD_BYTES, DEFAULT_MAX_PAYLOAD_BYTES, preserialized } from './requests.ts'
import { PROTECTION_FIELDS, protectedAreas, protectedWriteError } from './protected-rows.ts'
import { isProtectedRefusal, isStaleTabId, isUnparsableRange } from './refusals.ts'
import { applyWrite } from './write.ts'
import { hintsOf, takeHints, type HintedMemory } from './hints.ts'
import { readWithMarks, type MarkedReadDeps } from './marked-read.ts'
import type { MarkedTab, SeenMarks } from './row-marks.ts'
import { StaleSheetIdError, type StructuralOutcome, type WriteDeps } from './write-targets.ts'

export interface GooglePaceOptions {
  /** Read requests started per minute. @default 60 */
  readsPerMinute: number
  /** Write requests started per minute. @default 60 */
  writesPerMinute: number
  /** Requests in flight per lane. @default 2 */
  concurrency: number
  /** Told when a lane's requests wait for the next minute of its quota, with how many wait (`PaceOptions.onHold`). */
  onHold?: (lane: 'read' | 'write', waiting: number) => void
}

/** The two paces, reads and writes, that Google's per-user quota is kept by. */
export type GoogleLanes = Record<'read' | 'write', Pace>

/**
 * Google's paces for one user. Its quota is the user's (a service account's), not a spreadsheet's: every
 * spreadsheet a run opens with the same sign-in takes its requests from the same lanes, and a 429 holds them all.
 */
export function createGoogleLanes(pace: Partial<GooglePaceOptions> = {}): GoogleLanes {
  const concurrency = pace.concurrency ?? 2
  const lane = (name: 'read' | 'write', perMinute: number | undefined): Pace => {
    const { onHold } = pace
    return createPace({
      concurrency,
      intervalCap: perMinute ?? 60,
      interval: 60_000,
      ...(onHold ? { onHold: (waiting: number) => onHold(name, waiting) } : {}),
    })
  }
  return { read: lane('read', pace.readsPerMinute), write: lane('write', pace.writesPerMinute) }
}

/** What the backend tells a logger; never tokens or cell values. */
export type GoogleSheetsEvent =
  | { type: 'request'; lane: 'read' | 'write'; operation: string; attempt: number }
  | { type: 'retry'; operation: string; attempt: number; delayMs: number; reason: string }
  | { type: 'structural-repeat'; outcome: 'applied' | 'not-applied' }
  /** Google refused claims on a tab for want of metadata room: the rows are claimed in chunks of at most `chars` characters. */
  | { type: 'metadata-room'; tab: string; chars: number }
  /** Row anchors an earlier version left on every row were removed, freeing their metadata room. */
  | { type: 'legacy-anchors-removed'; count: number }
  /** A batchUpdate got no answer: it is looked at, before any repeat, once Google can no longer be applying it. */
  | { type: 'write-unanswered'; waitMs: number }

export interface GoogleSpreadsheetOptions {
  /** The id in the spreadsheet's URL, between `/d/` and `/edit`. */
  spreadsheetId: string
  auth: GoogleSignIn
  /** API root; tests point it at the fake. @default 'https://sheets.googleapis.com/' */
  rootUrl?: string
  /** Request bodies of 1 KB and more leave gzip-compressed (gzip-requests.ts). @default true */
  gzipRequests?: boolean
  pace?: Partial<GooglePaceOptions>
  /** Lanes shared with the run's other spreadsheets (`createGoogleLanes`); `pace` is then not used. */
  lanes?: GoogleLanes
  /** The retry policy; 5xx back off up to about a minute by default. */
  retry?: Partial<RetryOptions>
  /** Google's quota window; tests with a fast fake clock shorten it. */
  quota?: { windowMs?: number; now?: () => number; random?: () => number }
  /**
   * How long Google may go on processing one request (its documented limit, 180 s): a batchUpdate whose answer
   * never came is looked at, to learn whether it was applied, only once this has passed since it was sent.
   * @default 180_000
   */
  processingWindowMs?: number
  /**
   * Largest request body the backend builds, as JSON before any compression (larger writes are split).
   * @default 8_000_000 with gzipRequests, else 2_000_000 (requests.ts)
   */
  maxPayloadBytes?: number
  /** Values of claims; tests make them predictable. @default `claimValues()` of row-claims.ts, per write */
  claimValues?: () => ClaimValues
  /**
   * The way to the network: the timeouts, and a bearer token never follows a
   * redirect to another origin. @default a transport with the default limits
   */
  transport?: Transport
  log?: (event: GoogleSheetsEvent) => void
}

/**
 * How long rows a read confirmed in passing stay confirmed for the write planned on it: the gap in which a
 * person's typing into a cell the write sets is not seen. A write later than this reads its rows back. The
 * same bound holds for a tab list a layout plans on and for tabs a layout has just made.
 */
const CONFIRMED_FOR_MS = 5_000

/** Something a request showed, with the writes made until then and when. */
interface Seen<T> {
  value: T
  writes: number
  at: number
}

/** Google's documented limit on processing one request ("Usage limits": 180 seconds). */
export const GOOGLE_PROCESSING_WINDOW_MS = 180_000

/** Retry defaults for Sheets: 7 retries doubling from 0.5 s reach about a minute of back-off for 5xx. */
export const GOOGLE_RETRY: Partial<RetryOptions> = { limit: 7, baseDelay: 500, backoffLimit: 65_000, jitter: 0.25 }

const sheetListSchema = z.object({
  sheets: z
    .array(z.object({ properties: z.object({ sheetId: z.number().optional(), title: z.string() }).passthrough() }).passthrough())
    .optional(),
})

/** The Google Sheets backend for one spreadsheet. */
export function createGoogleSpreadsheet(options: GoogleSpreadsheetOptions): Spreadsheet {
  const { spreadsheetId, auth } = options
  const api = sheetsApi(options)
  const lanes = options.lanes ?? createGoogleLanes(options.pace)
  const counts: RequestCounts = { reads: 0, writes: 0 }
  const policy = retryOptions({ ...GOOGLE_RETRY, ...options.retry })
  const quotaWindowMs = options.quota?.windowMs ?? 60_000
  const now = options.quota?.now ?? Date.now
  const maxPayload = options.maxPayloadBytes ?? (options.gzipRequests === false ? DEFAULT_MAX_PAYLOAD_BYTES : COMPRESSED_MAX_PAYLOAD_BYTES)
  const processingWindowMs = options.processingWindowMs ?? GOOGLE_PROCESSING_WINDOW_MS
  const sheetIds = new Map<string, number>()
  const columnCounts = new Map<string, number>()
  /** Each tab's header names as last read here or in an earlier run (hints): where to find a column without reading row 1 first. */
  const headersSeen = new Map<string, (string | null)[]>()
  /** True while the ids in `sheetIds` came from an earlier run's hints and are not confirmed yet. */
  let hintedIds = false
  /** What each tab's data rows carry, from the layout applied in this process or an earlier run's hints. */
  const rowFormats = new Map<string, RowFormats>()
  /** Tabs the backend keeps row marks on, and the marks each read of them saw (row-marks.ts). */
  const markedTabs = new Map<string, MarkedTab>()
  const marksSeen = new WeakMap<TabData, SeenMarks>()
  const memory: HintedMemory = { sheetIds, rowFormats, headersSeen, markedTabs }
  /** Tabs whose id Google showed to name them in this process (an id from hints is not confirmed until then). */
  const confirmedIds = new Set<string>()
  /**
   * What the last tab list showed (`refreshSheetIds`: after a read that found a tab missing, say), and tabs this
   * process's layout added, with the write count and time they were seen at: for a few seconds and while nothing
   * else is written, they stand for what a request would show (decisions/0009, a target's first run).
   */
  let tabListSeen: Seen<SpreadsheetState> | undefined
  const tabsMade = new Map<string, Seen<CreatedTab>>()
  const stillHolds = <T>(seen: Seen<T> | undefined): seen is Seen<T> =>
    seen !== undefined && seen.writes === counts.writes && now() - seen.at <= CONFIRMED_FOR_MS

  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  // The quota hold lives here rather than in Pace.holdFor so that it follows
  // the injected clock and sleep, as the fake's quota window does in tests.
  const heldUntil: Record<'read' | 'write', number> = { read: 0, write: 0 }

  const send = <T>(lane: 'read' | 'write', operation: string, attempt: number, call: () => Promise<{ data: T }>): Promise<T> =>
    lanes[lane].run(async () => {
      const wait = heldUntil[lane] - now()
      if (wait > 0) await sleep(wait)
      if (lane === 'read') counts.reads++
      else counts.writes++
      options.log?.({ type: 'request', lane, operation, attempt })
      return (await call()).data
    })

  const classifyFor =
    (lane: 'read' | 'write') =>
    (error: unknown): RetryVerdict => {
      const verdict = classifySheetsFailure(error, {
        now: now(),
        quotaWindowMs,
        kind: lane,
        ...(options.quota?.random ? { random: options.quota.random } : {}),
      })
      // A 429 stops the whole lane, so queued calls do not spend the next window too.
      if (verdict.retry && verdict.retryAfterMs !== undefined && readApiFailure(error)?.status === 429) {
        heldUntil[lane] = Math.max(heldUntil[lane], now() + verdict.retryAfterMs)
      }
      return verdict
    }

  const withRetry = async <T>(lane: 'read' | 'write', operation: string, run: (attempt: number) => Promise<T>): Promise<T> => {
    try {
      return await retry(run, classifyFor(lane), {
        ...policy,
        onRetry: (event: RetryEvent) => {
          options.log?.({ type: 'retry', operation, ...event })
          policy.onRetry?.(event)
        },
      })
    } catch (error) {
      throw toSheetsError(error, { spreadsheetId, operation, principal: auth.principal, secrets: auth.secrets() })
    }
  }

  const call = <T>(lane: 'read' | 'write', operation: string, request: () => Promise<{ data: T }>): Promise<T> =>
    withRetry(lane, operation, (attempt) => send(lane, operation, attempt, request))

  const batchGet = async (tabs: readonly string[], headerOnly: ReadonlySet<string> = new Set()): Promise<Map<string, TabData>> => {
    const data = await call('read', 'values.batchGet', () =>
      api.spreadsheets.values.batchGet(batchGetParams(spreadsheetId, [...tabs], headerOnly)),
    )
    return toTabs([...tabs], data, headerOnly)
  }

  const toTabs = (tabs: string[], data: unknown, headerOnly: ReadonlySet<string>): Map<string, TabData> => {
    const read = tabsFromBatchGet(spreadsheetId, tabs, data, headerOnly)
    for (const [title, tab] of read) {
      columnCounts.set(title, tab.columnCount)
      headersSeen.set(title, headerNames(tab.data.header))
    }
    return new Map([...read].map(([title, tab]) => [title, tab.data]))
  }

  const getSpreadsheet = async (fields: string): Promise<sheets_v4.Schema$Spreadsheet> => {
    const data = await call('read', 'spreadsheets.get', () => api.spreadsheets.get({ spreadsheetId, fields }))
    const parsed = sheetListSchema.safeParse(data)
    if (!parsed.success) {
      throw new TimelineSheetsError(
        'TS_RESPONSE_INVALID',
        `Google Sheets answered spreadsheets.get for spreadsheet ${spreadsheetId} without its list of tabs`,
        {
          hint: 'The Sheets API answered in a shape this version does not understand.',
        },
      )
    }
    for (const sheet of parsed.data.sheets ?? []) sheetIds.set(sheet.properties.title, sheet.properties.sheetId ?? 0)
    return data as sheets_v4.Schema$Spreadsheet
  }

  /** The tab list, with what the layout needs of it: kept for a layout that follows (a first sync's export half). */
  const refreshSheetIds = async (): Promise<Set<string>> => {
    sheetIds.clear()
    hintedIds = false
    const state = readSpreadsheetState(await getSpreadsheet(LAYOUT_FIELDS))
    tabListSeen = { value: state, writes: counts.writes, at: now() }
    return new Set(sheetIds.keys())
  }

  /** The tabs as this process's layout made them, when every one asked for was made here and still holds. */
  const readMadeTabs = (tabs: readonly string[]): Snapshot | undefined => {
    const made = tabs.map((title) => tabsMade.get(title))
    if (!made.every((tab) => stillHolds(tab))) return undefined
    const result: Snapshot = { tabs: {} }
    tabs.forEach((title, i) => {
      const { header, rowCount, columnCount } = made[i]!.value
      columnCounts.set(title, columnCount)
      headersSeen.set(title, [...header])
      result.tabs[title] = { title, exists: true, header: [...header], rows: [], gridRowCount: rowCount }
    })
    return result
  }

  const partialDeps: PartialReadDeps = {
    ids: sheetIds,
    headersSeen,
    columnCounts,
    maxPayload,
    batchGetByDataFilter: (requestBody) =>
      call('read', 'values.batchGetByDataFilter', () =>
        api.spreadsheets.values.batchGetByDataFilter({ spreadsheetId, requestBody: requestBody.requestBody }, requestBody.options),
      ),
  }

  const markedReadDeps: MarkedReadDeps = { maxPayload, batchGetByDataFilter: partialDeps.batchGetByDataFilter, toTabs, now }

  const read: Spreadsheet['read'] = async (tabs, readOptions = {}) => {
    const unique = [...new Set(tabs)]
    const result: Snapshot = { tabs: {} }
    if (unique.length === 0) return result
    // Tabs the layout has just made hold their header and nothing else; a row typed there since is not
    // overwritten: new rows are inserted.
    const made = readMadeTabs(unique)
    if (made) return made
    const partial = await readPartial(partialDeps, unique, readOptions)
    if (partial) return partial
    const headerOnly = new Set(readOptions.headerOnly ?? [])
    const readPresent = async (): Promise<Map<string, TabData>> => {
      const existing = await refreshSheetIds()
      const present = unique.filter((t) => existing.has(t))
      return present.length > 0 ? batchGet(present, headerOnly) : new Map()
    }
    let found: Map<string, TabData>
    if (readOptions.tabsMayBeMissing) {
      found = await readPresent()
    } else {
      try {
        found = (await readWithMarks(markedReadDeps, unique, headerOnly, markedTabs, marksSeen)) ?? (await batchGet(unique, headerOnly))
      } catch (error) {
        // One missing tab fails the whole batchGet; only then is the tab list read.
        if (!isUnparsableRange(error)) throw error
        found = await readPresent()
      }
    }
    for (const title of unique) {
      result.tabs[title] = found.get(title) ?? { title, exists: false, header: [], rows: [], gridRowCount: 0 }
    }
    return result
  }

  /**
   * One spreadsheets.batchUpdate; a failure tells `lost` whether it may have been applied all the same (its answer
   * lost), and whether no answer came at all (Google may then still be applying it).
   */
  const batchUpdate = async (
    requests: sheets_v4.Schema$Request[] | EncodedBody,
    attempt: number,
    lost: (maybe: boolean, unanswered: boolean) => void,
  ) => {
    try {
      // The replies (an echo of every anchor created) are not used: `fields` leaves them out of the answer.
      const body = Array.isArray(requests)
        ? preserialized<sheets_v4.Schema$BatchUpdateSpreadsheetRequest>({ requests })
        : preserialized<sheets_v4.Schema$BatchUpdateSpreadsheetRequest>({}, requests)
      await send('write', 'spreadsheets.batchUpdate', attempt, () =>
        api.spreadsheets.batchUpdate({ spreadsheetId, fields: 'spreadsheetId', requestBody: body.requestBody }, body.options),
      )
    } catch (error) {
      lost(answerMayBeLost(error), noAnswerCame(error))
      throw error
    }
  }

  /**
   * A spreadsheets.batchUpdate. It is atomic on Google's side but may have
   * been applied before its answer was lost (5xx, dropped connection; a 429 is
   * refused before anything happens): then `check` looks first, and the batch
   * is repeated only if it was not applied.
   */
  const structuralBatch = async (
    requests: sheets_v4.Schema$Request[] | EncodedBody,
    check: () => Promise<StructuralOutcome>,
    touched: readonly string[],
  ): Promise<void> => {
    let answerLost = false
    let unanswered = false
    let sentAt = 0
    await withRetry('write', 'spreadsheets.batchUpdate', async (attempt) => {
      if (answerLost) {
        // Google may take up to its processing limit over a request: a look before that has passed could find the
        // batch not applied yet while it still is being applied, and a repeat would add its rows twice.
        const wait = unanswered ? sentAt + processingWindowMs - now() : 0
        if (wait > 0) {
          options.log?.({ type: 'write-unanswered', waitMs: wait })
          await sleep(wait)
        }
        const outcome = await check()
        if (outcome === 'diverged') {
          throw new TimelineSheetsError(
            'TS_SHEETS_API',
            `The tabs ${touched.map((t) => `"${t}"`).join(', ')} of spreadsheet ${spreadsheetId} changed while rows were being added; the change was not repeated`,
            {
              hint: 'Someone edited the sheet during the run. Run again: the next run reads the sheet afresh.',
            },
          )
        }
        options.log?.({ type: 'structural-repeat', outcome })
        if (outcome === 'applied') return
      }
      sentAt = now()
      await batchUpdate(requests, attempt, (lost, noAnswer) => {
        answerLost = lost
        unanswered = noAnswer
      })
    })
  }

  const rooms = createClaimRooms({
    spreadsheetId,
    search: (dataFilters) =>
      call('read', 'developerMetadata.search', () =>
        api.spreadsheets.developerMetadata.search({ spreadsheetId, requestBody: { dataFilters } }),
      ),
    deleteMetadata: (requests, tab) => structuralBatch(requests, async () => 'not-applied', [tab]),
    ...(options.log ? { log: options.log } : {}),
  })

  const knownSheetIds = async (tabs: readonly string[]): Promise<Map<string, number>> => {
    if (tabs.some((t) => !sheetIds.has(t))) await refreshSheetIds()
    const missing = tabs.filter((t) => !sheetIds.has(t))
    if (missing.length > 0) {
      throw new TimelineSheetsError(
        'TS_SHEET_LAYOUT',
        `The tabs ${missing.map((t) => `"${t}"`).join(', ')} no longer exist in spreadsheet ${spreadsheetId}`,
        {
          hint: 'A tab was deleted or renamed during the run. Run again: the layout step creates it.',
        },
      )
    }
    return new Map(tabs.map((t) => [t, sheetIds.get(t)!]))
  }

  const writeDeps: WriteDeps = {
    spreadsheetId,
    api,
    call,
    batchUpdate: structuralBatch,
    encodeBody: (json) => encodeBody(json, options.gzipRequests !== false),
    readTabs: batchGet,
    sheetIds: knownSheetIds,
    idConfirmed: (tab) => !hintedIds || confirmedIds.has(tab),
    confirmId: (tab) => void confirmedIds.add(tab),
    columnCount: (tab) => columnCounts.get(tab),
    setColumnCount: (tab, count) => void columnCounts.set(tab, count),
    rowFormats: (tab) => rowFormats.get(tab),
    maxPayloadBytes: maxPayload,
    claimRoom: rooms.room,
    claimRoomRefused: rooms.refused,
    protectedAreas: async () =>
      protectedAreas(await call('read', 'spreadsheets.get', () => api.spreadsheets.get({ spreadsheetId, fields: PROTECTION_FIELDS }))),
    protectedError: (cause, areas, tabs) => protectedWriteError(cause, spreadsheetId, areas, tabs, auth.principal),
    seenMarks: (tab) => marksSeen.get(tab),
    markedTab: (tab) => markedTabs.get(tab),
    marksMade: (tab, marked) => void markedTabs.set(tab, marked),
    now,
  }

  /** A refusal as protected that reached here names the ranges of the tabs written (nothing of it was applied). */
  const explainRefusal = async (error: unknown, tabs: readonly ({ tab: string } | { title: string })[]): Promise<unknown> =>
    isProtectedRefusal(error)
      ? writeDeps.protectedError(
          error,
          await writeDeps.protectedAreas(),
          tabs.map((t) => ('tab' in t ? t.tab : t.title)),
        )
      : error

  // A write's claims take their values from a source of their own.
  const withValues = (): WriteDeps => (options.claimValues ? { ...writeDeps, claimValues: options.claimValues() } : writeDeps)

  const write: Spreadsheet['write'] = async (writes, basis) => {
    const effective = writes.filter((w) => (w.updates?.length ?? 0) + (w.appends?.length ?? 0) + (w.deleteRows?.length ?? 0) > 0)
    if (effective.length === 0) return { appended: {}, skipped: [] }
    try {
      return await applyWrite(withValues(), effective, basis)
    } catch (caught) {
      const error = await explainRefusal(caught, effective)
      // Tab ids from an earlier run's hints may be stale (a tab deleted and made again): learn them afresh, once.
      const stale = error instanceof StaleSheetIdError || isStaleTabId(error)
      if (!stale) throw error
      if (!hintedIds) throw tabsChanged(error)
      hintedIds = false
      await refreshSheetIds()
      // Ids just learned that no longer name their tab: a person changed the tabs meanwhile.
      return applyWrite(withValues(), effective, basis).catch((again: unknown) => {
        throw again instanceof StaleSheetIdError ? tabsChanged(again) : again
      })
    }
  }

  const tabsChanged = (cause: unknown): TimelineSheetsError =>
    new TimelineSheetsError(
      'TS_SHEETS_API',
      `A tab of spreadsheet ${spreadsheetId} was deleted, made again or renamed while rows were being written; nothing more was written`,
      { hint: 'Someone changed the tabs during the run. Run again: the next run reads the sheet afresh.', cause },
    )

  const layoutPlan = async (tabs: TabSpec[], layoutOptions: LayoutOptions): Promise<LayoutPlan | undefined> => {
    // A tab list just read stands in only where the plan only adds tabs (a tab made meanwhile fails the write,
    // nothing is lost); a plan that changes a tab must see it now.
    const seen = stillHolds(tabListSeen) ? tabListSeen.value : undefined
    tabListSeen = undefined
    const usable = seen !== undefined && tabs.every((t) => !seen.sheets.some((s) => s.title === t.title))
    sheetIds.clear()
    const state: SpreadsheetState = usable ? seen : readSpreadsheetState(await getSpreadsheet(LAYOUT_FIELDS))
    if (usable) for (const sheet of state.sheets) sheetIds.set(sheet.title, sheet.sheetId)
    hintedIds = false
    if (layoutIsCurrent(tabs, layoutOptions, state)) return undefined
    const existing = tabs.map((t) => t.title).filter((title) => state.sheets.some((s) => s.title === title))
    const headers = new Map<string, CellValue[]>()
    if (existing.length > 0) {
      // Only when the layout changed: row 1 of existing tabs, so columns are
      // found by name and no header is written over another column's.
      const data = await call('read', 'values.batchGet', () =>
        api.spreadsheets.values.batchGet({ ...batchGetParams(spreadsheetId, []), ranges: existing.map((t) => `${quoteTitle(t)}!1:1`) }),
      )
      existing.forEach((title, i) => headers.set(title, rangeRows(data, i)?.[0] ?? []))
    }
    // The empty first tab Google made with the spreadsheet goes when the tool sets it up: one read, once.
    const candidate = defaultTabCandidate(tabs, state)
    let removeTab: number | undefined
    if (candidate) {
      const data = await call('read', 'values.batchGet', () =>
        api.spreadsheets.values.batchGet({ ...batchGetParams(spreadsheetId, []), ranges: [quoteTitle(candidate.title)] }),
      )
      // Not readable as rows of cells: not known to be empty, so kept.
      const values = rangeRows(data, 0) ?? [['unknown']]
      if (values.every((row) => row.every((cell) => cell === null))) removeTab = candidate.sheetId
    }
    return planLayout(tabs, layoutOptions, state, headers, removeTab)
  }

  const ensureLayout: Spreadsheet['ensureLayout'] = async (tabs, layoutOptions) => {
    let plan = await layoutPlan(tabs, layoutOptions)
    if (!plan) return { createdTabs: [], changed: false }
    const createdTabs = plan.createdTabs
    let answerLost = false
    await withRetry('write', 'spreadsheets.batchUpdate', async (attempt) => {
      if (answerLost) {
        // addSheet and addProtectedRange are not idempotent: plan again from
        // what the spreadsheet holds now, which is empty if it was applied.
        plan = await layoutPlan(tabs, layoutOptions)
        if (!plan) return
      }
      const requests = plan!.requests
      await batchUpdate(requests, attempt, (lost) => (answerLost = lost))
    }).catch(async (error: unknown) => {
      throw await explainRefusal(error, tabs)
    })
    if (plan) {
      for (const [title, id] of plan.sheetIds) sheetIds.set(title, id)
      for (const [title, formats] of plan.rowFormats) rowFormats.set(title, formats)
      for (const [title, tab] of plan.created) tabsMade.set(title, { value: tab, writes: counts.writes, at: now() })
    }
    return { createdTabs, changed: true }
  }

  return {
    kind: 'google',
    describe: () => `https://docs.google.com/spreadsheets/d/${spreadsheetId}/edit`,
    ensureLayout,
    read,
    write,
    requestCounts: () => ({ ...counts }),

    // Drive's version of the file: one small request whatever the sheet's size, outside the Sheets quota.
    changeMarkRequests: 1,
    changeMark: async () => (await readDriveVersion({ fileId: spreadsheetId, auth, rootUrl: options.rootUrl, retry: policy })).version,
    exportHints: () => hintsOf(memory),
    importHints: (hints) => {
      if (takeHints(memory, hints)) hintedIds = true
    },
  }
}

/** No answer came, though the request may have reached Google: a timeout after sending, a dropped connection. */
function noAnswerCame(error: unknown): boolean {
  const failure = readApiFailure(error)
  return failure !== undefined && failure.status === undefined && failure.networkCode !== 'UND_ERR_CONNECT_TIMEOUT'
}

/** A 429 is refused before any work; a 5xx or a dropped connection may come after the change was applied. */
function answerMayBeLost(error: unknown): boolean {
  const failure = readApiFailure(error)
  if (!failure) return false
  if (failure.status === undefined) return failure.networkCode !== undefined
  return failure.status >= 500 || failure.status === 408
}
