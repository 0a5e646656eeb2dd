/**
 * One Sheets fake's whole state: spreadsheets, tokens, quota windows, faults,
 * request statistics and the clock. No module state: two stores never share
 * anything, so tests can run side by side.
 */
import { type AuthState, createAuthState, type StaticTokenSpec } from './auth.ts'
import { createDriveQuota, type DriveQuotaOptions, type DriveQuotaRefusal, GOOGLE_DRIVE_QUOTA } from './drive-quota.ts'
import { createFaults, type FaultController, type FaultRule, type RequestClass, seededRandom } from './faults.ts'
import { quotaExceeded, type MethodName, type SheetsApiError } from './google-errors.ts'
import { newDriveFile } from './drive-version.ts'
import { DEFAULT_CELL_LIMIT } from './grid-shape.ts'
import { emptyMetadataIndex } from './metadata-index.ts'
import type { SharingRole, SheetData, SpreadsheetData } from './sheet-data.ts'
import { GOOGLE_METADATA_LIMITS, type MetadataLimits } from './metadata-budget.ts'

export interface QuotaOptions {
  /** @default 60 */
  readPerUser?: number
  /** @default 60 */
  writePerUser?: number
  /** @default 300 */
  readPerProject?: number
  /** @default 300 */
  writePerProject?: number
}

export type { DriveQuotaOptions } from './drive-quota.ts'

export interface SheetsStoreOptions {
  /** Clock in epoch ms; inject one to advance time in tests. @default Date.now */
  now?: () => number
  /** Seed of every random choice (ids, tokens, fault shares). @default 1 */
  seed?: number
  /** Tokens accepted without an exchange: a list, or token → subject/scopes. */
  staticTokens?: readonly string[] | Record<string, StaticTokenSpec>
  /** Per-minute quotas; `false` turns quotas off. @default 60/60 per user, 300/300 per project */
  quota?: QuotaOptions | false
  /** Drive's per-minute quota units (files.get costs 5); `false` turns it off. @default { unitsPerUser: 325_000, unitsPerProject: 1_000_000 } */
  driveQuota?: DriveQuotaOptions | false
  /**
   * How long files.get lags behind a change before its `version` shows it (Google does not say; a Google engineer
   * speaks of changes "coalesced and only sent around every 3 minutes or so"). @default 0, at once
   */
  driveVersionLagMs?: number
  /** @default 10_000_000 */
  cellLimit?: number
  /** Bodies larger than this are refused with 400. @default 10_485_760 */
  maxPayloadBytes?: number
  /** Characters of developer metadata (keys and values) on the spreadsheet and on each sheet. @default 30,000 and 30,000 */
  metadataLimits?: Partial<MetadataLimits>
  /**
   * What Google does not document, as the fake does it by default; each can be turned the other way to see what
   * a client does then. `sortMovesRowMetadata`: a sort over every column carries row metadata along with its row.
   * `emptyFilter`: a data filter that matches nothing is a no-op (`values.batchUpdateByDataFilter`,
   * `deleteDeveloperMetadata`), or refused with 400. `payloadLimitCounts`: what of a compressed body the payload
   * limit counts. @default { sortMovesRowMetadata: true, emptyFilter: 'no-op', payloadLimitCounts: 'unpacked' }
   */
  undocumented?: Partial<UndocumentedBehaviour>
  /** Shown in quota errors. @default '603366585132' */
  projectNumber?: string
  /** The identity that owns new spreadsheets (listed as protected-range editor). @default 'fake-owner@test.iam.gserviceaccount.com' */
  ownerEmail?: string
  /** Faults active from the start. */
  faults?: readonly FaultRule[]
}

/** Behaviours of Google's the documentation leaves open (see `SheetsStoreOptions.undocumented`). */
export interface UndocumentedBehaviour {
  sortMovesRowMetadata: boolean
  emptyFilter: 'no-op' | 'refused'
  /**
   * What the payload limit (`maxPayloadBytes`) counts of a gzip-compressed body: what it unpacks to (the
   * stricter reading), or the bytes as sent.
   */
  payloadLimitCounts: 'unpacked' | 'sent'
}

/** Request counts the fake saw, for asserting request economy. */
export interface SheetsStats {
  /** Every API request received (token endpoint excluded), answered or refused. */
  total: number
  reads: number
  writes: number
  /** By method (`GetValues`, `BatchUpdateSpreadsheet`, …). */
  byMethod: Partial<Record<MethodName, number>>
  /** Refused with 429 by the quota (not by injected faults). */
  quotaRejections: number
  /** Answered with an injected fault. */
  faultsInjected: number
  /** Requests to the token endpoint. */
  tokenRequests: number
}

/** Initial content of a spreadsheet. */
export interface SpreadsheetInit {
  spreadsheetId?: string
  title?: string
  /** @default 'en_US' */
  locale?: string
  /** @default 'Etc/GMT' */
  timeZone?: string
  /** @default one sheet `Sheet1`, id 0, 1000 × 26 */
  sheets?: { title: string; sheetId?: number; rowCount?: number; columnCount?: number; hidden?: boolean }[]
  /** Token subject → role; absent: every valid token may read and write. */
  sharedWith?: Record<string, SharingRole>
}

export interface SheetsStore {
  now(): number
  /** Seeded generator in [0, 1). */
  random(): number
  /** A random non-negative int32 id, as Google gives sheets and protected ranges. */
  randomId(): number
  readonly options: Required<
    Omit<SheetsStoreOptions, 'staticTokens' | 'faults' | 'now' | 'quota' | 'driveQuota' | 'metadataLimits' | 'undocumented'>
  > & {
    metadataLimits: MetadataLimits
    undocumented: UndocumentedBehaviour
    quota: Required<QuotaOptions> | false
    driveQuota: Required<DriveQuotaOptions> | false
  }
  readonly spreadsheets: Map<string, SpreadsheetData>
  createSpreadsheet(init?: SpreadsheetInit): SpreadsheetData
  readonly auth: AuthState
  readonly faults: FaultController
  /** Counts a request against the per-minute quotas; returns the 429 to answer when over. */
  takeQuota(requestClass: RequestClass, user: string): SheetsApiError | undefined
  /** Spends `units` of Drive's per-user and per-project quota for this clock minute; the limit it would pass, if any. */
  takeDriveQuota(user: string, units: number): DriveQuotaRefusal | undefined
  /** Records one received request. */
  record(method: MethodName, requestClass: RequestClass): void
  /** Records one request answered with an injected fault. */
  recordFault(): void
  stats(): SheetsStats
  resetStats(): void
}

function newSheet(sheetId: number, title: string, index: number, rowCount: number, columnCount: number, hidden?: boolean): SheetData {
  return {
    properties: {
      sheetId,
      title,
      index,
      sheetType: 'GRID',
      gridProperties: { rowCount, columnCount },
      ...(hidden ? { hidden: true } : {}),
    },
    rows: [],
    columns: [],
    merges: [],
    protectedRanges: [],
    conditionalFormats: [],
    basicFilter: undefined,
    charts: [],
    metadataIds: [],
  }
}

export { newSheet }

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** Creates an empty store. */
export function createSheetsStore(options: SheetsStoreOptions = {}): SheetsStore {
  const now = options.now ?? Date.now
  const random = seededRandom(options.seed ?? 1)
  const randomString = (length: number) => {
    let s = ''
    for (let i = 0; i < length; i++) s += ID_CHARS[Math.floor(random() * ID_CHARS.length)]
    return s
  }
  const quota: Required<QuotaOptions> | false =
    options.quota === false
      ? false
      : { readPerUser: 60, writePerUser: 60, readPerProject: 300, writePerProject: 300, ...(options.quota ?? {}) }
  const resolved = {
    seed: options.seed ?? 1,
    cellLimit: options.cellLimit ?? DEFAULT_CELL_LIMIT,
    driveVersionLagMs: options.driveVersionLagMs ?? 0,
    maxPayloadBytes: options.maxPayloadBytes ?? 10_485_760,
    metadataLimits: { ...GOOGLE_METADATA_LIMITS, ...options.metadataLimits },
    undocumented: {
      sortMovesRowMetadata: true,
      emptyFilter: 'no-op' as const,
      payloadLimitCounts: 'unpacked' as const,
      ...options.undocumented,
    },
    projectNumber: options.projectNumber ?? '603366585132',
    ownerEmail: options.ownerEmail ?? 'fake-owner@test.iam.gserviceaccount.com',
    quota,
    driveQuota: options.driveQuota === false ? (false as const) : { ...GOOGLE_DRIVE_QUOTA, ...(options.driveQuota ?? {}) },
  }
  const auth = createAuthState(now, (prefix) => `${prefix}${randomString(40)}`)
  if (Array.isArray(options.staticTokens)) for (const t of options.staticTokens as string[]) auth.addStaticToken(t)
  else if (options.staticTokens) for (const [t, spec] of Object.entries(options.staticTokens)) auth.addStaticToken(t, spec)
  const faults = createFaults(random, options.faults ?? [])
  const spreadsheets = new Map<string, SpreadsheetData>()
  const windows = new Map<string, number>()
  // Drive's quota units: windows of their own, apart from the Sheets ones.
  const driveQuota = createDriveQuota(resolved.driveQuota, now)
  let stats: SheetsStats

  const resetStats = () => {
    stats = { total: 0, reads: 0, writes: 0, byMethod: {}, quotaRejections: 0, faultsInjected: 0, tokenRequests: 0 }
  }
  resetStats()

  const store: SheetsStore = {
    now,
    random,
    randomId: () => Math.floor(random() * 2_147_483_647),
    options: resolved,
    spreadsheets,
    auth,
    faults,
    createSpreadsheet(init = {}) {
      const spreadsheetId = init.spreadsheetId ?? `1${randomString(43)}`
      const specs = init.sheets && init.sheets.length > 0 ? init.sheets : [{ title: 'Sheet1', sheetId: 0 }]
      const sheets = specs.map((s, index) =>
        newSheet(s.sheetId ?? (index === 0 ? 0 : store.randomId()), s.title, index, s.rowCount || 1000, s.columnCount || 26, s.hidden),
      )
      const ss: SpreadsheetData = {
        spreadsheetId,
        properties: {
          title: init.title ?? 'Untitled spreadsheet',
          locale: init.locale ?? 'en_US',
          timeZone: init.timeZone ?? 'Etc/GMT',
          autoRecalc: 'ON_CHANGE',
        },
        sheets,
        metadata: new Map(),
        metadataIds: [],
        metadataIndex: emptyMetadataIndex(),
        ownerEmail: resolved.ownerEmail,
        clock: now,
        drive: newDriveFile(now(), resolved.driveVersionLagMs),
        ...(init.sharedWith ? { sharedWith: { ...init.sharedWith } } : {}),
      }
      spreadsheets.set(spreadsheetId, ss)
      return ss
    },
    takeQuota(requestClass, user) {
      if (quota === false) return undefined
      const minute = Math.floor(now() / 60_000)
      const userKey = `${requestClass}|u|${user}|${minute}`
      const projectKey = `${requestClass}|p|${minute}`
      const userLimit = requestClass === 'read' ? quota.readPerUser : quota.writePerUser
      const projectLimit = requestClass === 'read' ? quota.readPerProject : quota.writePerProject
      if ((windows.get(userKey) ?? 0) >= userLimit) {
        stats.quotaRejections++
        return quotaExceeded(requestClass, 'user', userLimit, resolved.projectNumber)
      }
      if ((windows.get(projectKey) ?? 0) >= projectLimit) {
        stats.quotaRejections++
        return quotaExceeded(requestClass, 'project', projectLimit, resolved.projectNumber)
      }
      windows.set(userKey, (windows.get(userKey) ?? 0) + 1)
      windows.set(projectKey, (windows.get(projectKey) ?? 0) + 1)
      // Old windows are never read again; drop them so long runs stay small.
      for (const key of windows.keys()) if (!key.endsWith(`|${minute}`)) windows.delete(key)
      return undefined
    },
    takeDriveQuota: (user, units) => driveQuota.take(user, units),
    record(method, requestClass) {
      stats.total++
      if (requestClass === 'read') stats.reads++
      else stats.writes++
      stats.byMethod[method] = (stats.byMethod[method] ?? 0) + 1
    },
    recordFault() {
      stats.faultsInjected++
    },
    stats: () => ({ ...stats, byMethod: { ...stats.byMethod }, tokenRequests: auth.tokenRequests().length }),
    resetStats,
  }
  return store
}
