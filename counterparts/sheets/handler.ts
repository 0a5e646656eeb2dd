/**
 * The Sheets API v4 fake as one Web handler (reference/sheets-api.md §1):
 * routes the URL shapes the real `@googleapis/sheets` client produces, then
 * applies Google's order of checks — auth → quota → injected faults →
 * spreadsheet existence → arguments (§7.5) — and answers with Google's JSON.
 * Also serves the token endpoint (`POST …/token`) and the auto-approving
 * consent page (`GET …/o/oauth2/v2/auth`).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import type { WebHandler } from '../mount.ts'
import type { RequestClass } from './faults.ts'
import { batchGetByDataFilter, batchUpdateByDataFilter } from './data-filters.ts'
import { applyMask, parseMask, SPREADSHEET_SCHEMA, unknownPath } from './fields.ts'
import {
  badRequest,
  credentialsMissing,
  errorResponse,
  invalidArgument,
  jsonResponse,
  type MethodName,
  notFound,
  permissionDenied,
  quotaExceeded,
  scopeInsufficient,
  SheetsApiError,
  tokenExpired,
} from './google-errors.ts'
import { recalcOf } from './cells.ts'
import { locateMetadataId } from './metadata-index.ts'
import type { SpreadsheetData } from './sheet-data.ts'
import { beginTx, commitTx, rollback, type Tx } from './tx.ts'
import { searchDeveloperMetadata } from './developer-metadata.ts'
import { batchUpdate, createFromBody } from './spreadsheet-ops.ts'
import { metadataJson, spreadsheetJson } from './spreadsheet-json.ts'
import type { SheetsStore, UndocumentedBehaviour } from './store.ts'
import { answerDriveFilesGet, driveFileIdOf } from './drive-files.ts'
import { type Caller, editGuardFor } from './protection-rules.ts'
import {
  appendValues,
  batchTotals,
  clearValues,
  getValues,
  majorDimensionOf,
  renderOptionsOf,
  type ResponseOptions,
  type UpdateResult,
  updateValues,
  valueInputOptionOf,
  withPrefix,
} from './values-ops.ts'

export interface SheetsHandlerOptions {
  /** Told about every API request after it was answered (method, status). */
  onRequest?: (event: { method: MethodName; status: number; url: string; bodyBytes?: number }) => void
}

type Json = Record<string, unknown>

interface Route {
  method: MethodName
  requestClass: RequestClass
  spreadsheetId?: string
  range?: string
  metadataId?: string
}

const WRITE: RequestClass = 'write'
const READ: RequestClass = 'read'

/** Maps an HTTP method and raw (still percent-encoded) path to an API method; undefined = not an API URL. */
export function routeOf(httpMethod: string, rawPath: string): Route | undefined {
  const at = rawPath.indexOf('/v4/spreadsheets')
  if (at < 0) return undefined
  const rest = rawPath.slice(at + '/v4/spreadsheets'.length)
  if (rest === '' || rest === '/') return httpMethod === 'POST' ? { method: 'CreateSpreadsheet', requestClass: WRITE } : undefined
  const m = /^\/([A-Za-z0-9_-]+)(.*)$/.exec(rest)
  if (!m) return undefined
  const spreadsheetId = m[1]!
  const tail = m[2]!
  const route = (method: MethodName, requestClass: RequestClass, extra: Partial<Route> = {}): Route => ({
    method,
    requestClass,
    spreadsheetId,
    ...extra,
  })
  if (tail === '' && httpMethod === 'GET') return route('GetSpreadsheet', READ)
  if (tail === ':batchUpdate' && httpMethod === 'POST') return route('BatchUpdateSpreadsheet', WRITE)
  if (tail === '/values:batchGet' && httpMethod === 'GET') return route('BatchGetValues', READ)
  if (tail === '/values:batchUpdate' && httpMethod === 'POST') return route('BatchUpdateValues', WRITE)
  if (tail === '/values:batchClear' && httpMethod === 'POST') return route('BatchClearValues', WRITE)
  // POST, but a retrieval: it counts against the read quota.
  if (tail === '/values:batchGetByDataFilter' && httpMethod === 'POST') return route('BatchGetValuesByDataFilter', READ)
  if (tail === '/values:batchUpdateByDataFilter' && httpMethod === 'POST') return route('BatchUpdateValuesByDataFilter', WRITE)
  if (tail === '/developerMetadata:search' && httpMethod === 'POST') return route('SearchDeveloperMetadata', READ)
  const meta = /^\/developerMetadata\/([0-9]+)$/.exec(tail)
  if (meta && httpMethod === 'GET') return route('GetDeveloperMetadata', READ, { metadataId: meta[1]! })
  if (tail.startsWith('/values/')) {
    const encoded = tail.slice('/values/'.length)
    // The suffix colon is literal; a colon inside the range arrives as %3A (§1.2).
    const suffix = /:(append|clear)$/.exec(encoded)
    const rangeText = suffix ? encoded.slice(0, suffix.index) : encoded
    let range: string
    try {
      range = decodeURIComponent(rangeText)
    } catch {
      range = rangeText
    }
    if (suffix?.[1] === 'append' && httpMethod === 'POST') return route('AppendValues', WRITE, { range })
    if (suffix?.[1] === 'clear' && httpMethod === 'POST') return route('ClearValues', WRITE, { range })
    if (!suffix && httpMethod === 'GET') return route('GetValues', READ, { range })
    if (!suffix && httpMethod === 'PUT') return route('UpdateValues', WRITE, { range })
  }
  return undefined
}

function bool(value: string | null | undefined | unknown): boolean {
  return value === true || value === 'true'
}

function responseOptions(include: unknown, valueRender: unknown, dateRender: unknown): ResponseOptions {
  return { include: bool(include), render: renderOptionsOf(valueRender, dateRender) }
}

function updateJson(spreadsheetId: string, r: UpdateResult): Json {
  const out: Json = { spreadsheetId, updatedRange: r.updatedRange }
  if (r.updatedRows) out.updatedRows = r.updatedRows
  if (r.updatedColumns) out.updatedColumns = r.updatedColumns
  if (r.updatedCells) out.updatedCells = r.updatedCells
  if (r.updatedData) out.updatedData = r.updatedData
  return out
}

/**
 * Runs a write on `ss` atomically, as `caller` (refused where it may not edit a protected range): on any error
 * the spreadsheet is as before; a change applied moves its version.
 */
function atomically<T>(ss: SpreadsheetData, caller: Caller, run: (tx: Tx) => T): T {
  const tx = beginTx(editGuardFor(ss, caller))
  try {
    const result = run(tx)
    commitTx(tx, ss)
    return result
  } catch (error) {
    rollback(tx)
    throw error
  }
}

/** Who calls, and whether only as a viewer. */
interface Calling {
  caller: Caller
  viewer: boolean
}

function execute(
  store: SheetsStore,
  route: Route,
  ss: SpreadsheetData | undefined,
  query: URLSearchParams,
  body: Json,
  { caller, viewer }: Calling,
): Json {
  const id = route.spreadsheetId ?? ''
  switch (route.method) {
    case 'CreateSpreadsheet':
      return spreadsheetJson(createFromBody(store, body))
    case 'GetSpreadsheet': {
      const fields = query.get('fields')
      // With a mask, includeGridData is ignored and the mask decides (§2.2).
      const tree = fields ? parseMask(fields) : undefined
      const sheetsNode = tree?.get('sheets')
      const wantsData = tree
        ? tree.has('*') || sheetsNode === true || (sheetsNode instanceof Map && (sheetsNode.has('data') || sheetsNode.has('*')))
        : bool(query.get('includeGridData'))
      return spreadsheetJson(ss!, { ranges: query.getAll('ranges'), includeGridData: wantsData, caller, viewer })
    }
    case 'GetValues':
      return getValues(
        ss!,
        route.range!,
        majorDimensionOf(query.get('majorDimension')),
        renderOptionsOf(query.get('valueRenderOption'), query.get('dateTimeRenderOption')),
      ) as unknown as Json
    case 'BatchGetValues': {
      const major = majorDimensionOf(query.get('majorDimension'))
      const render = renderOptionsOf(query.get('valueRenderOption'), query.get('dateTimeRenderOption'))
      // One evaluation for the whole batch: ranges read together see the same formulas once.
      const recalc = recalcOf(ss!)
      const valueRanges = query.getAll('ranges').map((r) => getValues(ss!, r, major, render, recalc))
      const out: Json = { spreadsheetId: id }
      if (valueRanges.length > 0) out.valueRanges = valueRanges
      return out
    }
    case 'UpdateValues': {
      const option = valueInputOptionOf(query.get('valueInputOption'))
      const response = responseOptions(
        query.get('includeValuesInResponse'),
        query.get('responseValueRenderOption'),
        query.get('responseDateTimeRenderOption'),
      )
      return updateJson(
        id,
        atomically(ss!, caller, (tx) => updateValues(tx, ss!, route.range!, body, option, response, 'data.values')),
      )
    }
    case 'BatchUpdateValues': {
      const option = valueInputOptionOf(body.valueInputOption)
      const response = responseOptions(body.includeValuesInResponse, body.responseValueRenderOption, body.responseDateTimeRenderOption)
      const data = (body.data ?? []) as Json[]
      const results = atomically(ss!, caller, (tx) =>
        data.map((item, i) =>
          withPrefix(`Invalid data[${i}]: `, () => {
            if (typeof item.range !== 'string') throw invalidArgument('Unable to parse range: ')
            return updateValues(
              tx,
              ss!,
              item.range,
              { values: item.values, majorDimension: item.majorDimension },
              option,
              response,
              `data[${i}].values`,
            )
          }),
        ),
      )
      const out: Json = { spreadsheetId: id, ...batchTotals(results) }
      if (results.length > 0) out.responses = results.map((r) => updateJson(id, r))
      return out
    }
    case 'AppendValues': {
      const option = valueInputOptionOf(query.get('valueInputOption'))
      const insert = query.get('insertDataOption') ?? 'OVERWRITE'
      if (insert !== 'OVERWRITE' && insert !== 'INSERT_ROWS') {
        const description = `Invalid value at 'insert_data_option' (type.googleapis.com/google.apps.sheets.v4.AppendValuesRequest.InsertDataOption), "${insert}"`
        throw badRequest(description, 'insert_data_option', description)
      }
      const response = responseOptions(
        query.get('includeValuesInResponse'),
        query.get('responseValueRenderOption'),
        query.get('responseDateTimeRenderOption'),
      )
      const result = atomically(ss!, caller, (tx) =>
        appendValues(tx, ss!, route.range!, body, option, insert, response, store.options.cellLimit),
      )
      const out: Json = { spreadsheetId: id }
      if (result.tableRange) out.tableRange = result.tableRange
      out.updates = updateJson(id, result.updates)
      return out
    }
    case 'ClearValues':
      return { spreadsheetId: id, ...atomically(ss!, caller, (tx) => clearValues(tx, ss!, route.range!)) }
    case 'BatchClearValues': {
      const ranges = (body.ranges ?? []) as string[]
      const cleared = atomically(ss!, caller, (tx) =>
        ranges.map((r, i) => withPrefix(`Invalid range[${i}]: `, () => clearValues(tx, ss!, r).clearedRange)),
      )
      const out: Json = { spreadsheetId: id }
      if (cleared.length > 0) out.clearedRanges = cleared
      return out
    }
    case 'BatchGetValuesByDataFilter':
      return batchGetByDataFilter(ss!, body, renderOptionsOf(body.valueRenderOption, body.dateTimeRenderOption))
    case 'BatchUpdateValuesByDataFilter': {
      const option = valueInputOptionOf(body.valueInputOption)
      const response = responseOptions(body.includeValuesInResponse, body.responseValueRenderOption, body.responseDateTimeRenderOption)
      return atomically(ss!, caller, (tx) =>
        batchUpdateByDataFilter(tx, ss!, body, option, response, store.options.undocumented.emptyFilter),
      )
    }
    case 'BatchUpdateSpreadsheet':
      return batchUpdate(store, ss!, body, caller, viewer)
    case 'SearchDeveloperMetadata':
      return searchDeveloperMetadata(ss!, body)
    case 'GetDeveloperMetadata': {
      const metadataId = Number(route.metadataId)
      const record = ss!.metadata.get(metadataId)
      const location = locateMetadataId(ss!, metadataId)
      if (!record || !location) throw notFound()
      return metadataJson(record, location)
    }
    case 'DriveFilesGet':
      // Answered by answerDriveFilesGet before any Sheets route is looked for.
      throw new Error('DriveFilesGet is not a Sheets route')
  }
}

function faultError(status: number, requestClass: RequestClass, store: SheetsStore): SheetsApiError {
  if (status === 429) {
    const quota = store.options.quota
    const limit = quota === false ? 60 : requestClass === 'read' ? quota.readPerUser : quota.writePerUser
    return quotaExceeded(requestClass, 'user', limit, store.options.projectNumber)
  }
  if (status === 500) return new SheetsApiError(500, 'Internal error encountered.')
  if (status === 503) return new SheetsApiError(503, 'The service is currently unavailable.')
  return new SheetsApiError(status, `Injected fault ${status}.`)
}

const gunzipAsync = promisify(gunzip)

/**
 * The request body as the API sees it. A gzip-compressed body (`content-encoding: gzip`) is taken, as Google's
 * Java and .NET clients send one by default (no Google reference says the API takes it; `doctor --write-test`
 * asks the real service); the payload limit applies to
 * what it unpacks to, or with `undocumented.payloadLimitCounts: 'sent'` to the bytes as sent (Google does not say
 * which). Any other encoding, or a body that is not gzip, is refused as a payload Google cannot read (the wording
 * is the fake's: what Google answers then is undocumented).
 */
async function decodedBody(request: Request, maxBytes: number, counts: UndocumentedBehaviour['payloadLimitCounts']): Promise<Uint8Array> {
  const raw = new Uint8Array(await request.arrayBuffer())
  if (raw.byteLength > maxBytes) throw payloadTooLarge(maxBytes)
  const encoding = request.headers.get('content-encoding')?.trim().toLowerCase()
  if (!encoding || encoding === 'identity') return raw
  if (encoding !== 'gzip') throw invalidArgument(`Invalid JSON payload received. Unsupported content encoding "${encoding}".`)
  // Counting the bytes as sent, the fake still stops unpacking at a bound, so a small body cannot fill its memory.
  const unpackedLimit = counts === 'sent' ? UNPACKED_BOUND_WHEN_SENT_COUNTS : maxBytes
  try {
    // A body that unpacks past the limit is refused as soon as it passes it, never held whole.
    return new Uint8Array(await gunzipAsync(raw, { maxOutputLength: unpackedLimit }))
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw payloadTooLarge(unpackedLimit)
    throw invalidArgument('Invalid JSON payload received. The body is not valid gzip.')
  }
}

/** How far a compressed body may unpack when the payload limit counts the bytes as sent. */
const UNPACKED_BOUND_WHEN_SENT_COUNTS = 256 * 1024 * 1024

function payloadTooLarge(maxBytes: number): SheetsApiError {
  return invalidArgument(`Request payload size exceeds the limit: ${maxBytes} bytes.`)
}

function bearerOf(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (!header) return undefined
  const m = /^Bearer\s+(.+)$/i.exec(header)
  return m ? m[1]!.trim() : ''
}

/** Creates the Web handler of a Sheets fake over `store`. */
export function createSheetsHandler(store: SheetsStore, options: SheetsHandlerOptions = {}): WebHandler {
  return async (request) => {
    const url = new URL(request.url)
    if (request.method === 'POST' && url.pathname.endsWith('/token')) return store.auth.handleToken(request)
    if (request.method === 'GET' && url.pathname.endsWith('/o/oauth2/v2/auth')) return store.auth.handleAuthorize(request)
    const driveFileId = driveFileIdOf(request.method, url.pathname)
    // Drive files.get: its own scopes, quota and error bodies (drive-files.ts).
    if (driveFileId !== undefined) return answerDriveFilesGet(store, request, driveFileId, options.onRequest)
    const route = routeOf(request.method, url.pathname)
    if (!route) {
      return new Response(
        `<!DOCTYPE html><title>Error 404 (Not Found)</title><p>The requested URL <code>${url.pathname}</code> was not found on this server.`,
        {
          status: 404,
          headers: { 'content-type': 'text/html; charset=UTF-8' },
        },
      )
    }
    store.record(route.method, route.requestClass)
    /** The body's bytes as the API reads them: after any gzip is undone. */
    let bodyBytes = 0
    const answer = (response: Response) => {
      options.onRequest?.({ method: route.method, status: response.status, url: request.url, bodyBytes })
      return response
    }
    const latency = store.faults.latency()
    if (latency > 0) await sleep(latency)
    try {
      const token = bearerOf(request)
      const auth = store.auth.check(token, route.requestClass === 'write')
      if (!auth.ok) {
        if (auth.reason === 'missing') throw credentialsMissing(route.method)
        if (auth.reason === 'invalid') throw tokenExpired(route.method)
        throw scopeInsufficient(route.method)
      }
      const overQuota = store.takeQuota(route.requestClass, auth.grant.subject)
      if (overQuota) throw overQuota
      const fault = store.faults.decide(route.method, route.requestClass)
      if (fault?.dropUnapplied) {
        store.recordFault()
        return answer(Response.error())
      }
      if (fault && !fault.applyThenFail && !fault.thenAnswer) {
        store.recordFault()
        throw faultError(fault.status, route.requestClass, store)
      }
      const ss = route.spreadsheetId === undefined ? undefined : store.spreadsheets.get(route.spreadsheetId)
      if (route.spreadsheetId !== undefined && !ss) throw notFound()
      // Drive sharing, after existence (§7.5): no role, no access; a viewer reads but may not write.
      const role = ss?.sharedWith ? ss.sharedWith[auth.grant.subject] : 'writer'
      if (role === undefined || (role === 'reader' && route.requestClass === 'write')) throw permissionDenied()
      let body: Json = {}
      if (request.method !== 'GET') {
        const raw = await decodedBody(request, store.options.maxPayloadBytes, store.options.undocumented.payloadLimitCounts)
        bodyBytes = raw.byteLength
        const text = new TextDecoder().decode(raw)
        if (text.trim() !== '') {
          try {
            body = JSON.parse(text) as Json
          } catch {
            throw invalidArgument('Invalid JSON payload received. Unexpected token.')
          }
        }
      }
      const fields = url.searchParams.get('fields')
      const mask = fields ? parseMask(fields) : undefined
      if (mask && route.method === 'GetSpreadsheet') {
        const bad = unknownPath(mask, SPREADSHEET_SCHEMA)
        if (bad)
          throw badRequest(
            'Request contains an invalid argument.',
            bad,
            `Error expanding 'fields' parameter. Cannot find matching fields for path '${bad}'.`,
          )
      }
      const result = execute(store, route, ss, url.searchParams, body, { caller: auth.grant.subject, viewer: role === 'reader' })
      if (fault?.applyThenFail) {
        store.recordFault()
        throw faultError(fault.status, route.requestClass, store)
      }
      if (fault?.thenAnswer) {
        store.recordFault()
        // Applied: no answer at all, or one that comes after the client may have given up.
        if (fault.thenAnswer === 'drop') return answer(Response.error())
        await sleep(fault.thenAnswer.stallMs)
      }
      return answer(jsonResponse(mask ? applyMask(result, mask) : result))
    } catch (error) {
      if (error instanceof SheetsApiError) return answer(errorResponse(error))
      throw error
    }
  }
}
