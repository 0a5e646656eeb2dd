/**
 * spreadsheets.create and spreadsheets.batchUpdate (reference/sheets-api.md
 * §2.5, §6): the batchUpdate dispatcher checks the whole body first, then
 * applies each request in order through the applier for its name, inside one
 * transaction that is committed whole or rolled back whole. The appliers live
 * with what they change (tabs, rows and columns, cells, protection, developer
 * metadata, merges, filters, rules, charts).
 */
import { badRequest, invalidArgument, SheetsApiError } from './google-errors.ts'
import { basicFilterAppliers } from './basic-filter.ts'
import { cellAppliers } from './cell-requests.ts'
import { chartAppliers } from './charts.ts'
import { conditionalFormatAppliers } from './conditional-formats.ts'
import { metadataAppliers } from './developer-metadata.ts'
import { dimensionAppliers } from './dimension-requests.ts'
import { assertCellLimit } from './grid-shape.ts'
import { mergeAppliers } from './merges.ts'
import { metadataUsage, overBudget, overBudgetMessage } from './metadata-budget.ts'
import { protectedRangeAppliers } from './protected-ranges.ts'
import { type Caller, editGuardFor } from './protection-rules.ts'
import type { Applier, Ctx, Json } from './request-support.ts'
import type { SpreadsheetData } from './sheet-data.ts'
import { sheetAppliers } from './sheet-requests.ts'
import { spreadsheetJson } from './spreadsheet-json.ts'
import type { SheetsStore } from './store.ts'
import { beginTx, commitTx, rollback } from './tx.ts'

/** Every request name of the Request union, so unknown names and unimplemented ones differ. */
const KNOWN_REQUESTS = new Set([
  'updateSpreadsheetProperties',
  'updateSheetProperties',
  'updateDimensionProperties',
  'updateNamedRange',
  'repeatCell',
  'addNamedRange',
  'deleteNamedRange',
  'addSheet',
  'deleteSheet',
  'autoFill',
  'cutPaste',
  'copyPaste',
  'mergeCells',
  'unmergeCells',
  'updateBorders',
  'updateCells',
  'addFilterView',
  'appendCells',
  'clearBasicFilter',
  'deleteDimension',
  'deleteEmbeddedObject',
  'deleteFilterView',
  'duplicateFilterView',
  'duplicateSheet',
  'findReplace',
  'insertDimension',
  'insertRange',
  'moveDimension',
  'updateEmbeddedObjectPosition',
  'pasteData',
  'textToColumns',
  'updateFilterView',
  'deleteRange',
  'appendDimension',
  'addConditionalFormatRule',
  'updateConditionalFormatRule',
  'deleteConditionalFormatRule',
  'sortRange',
  'setDataValidation',
  'setBasicFilter',
  'addProtectedRange',
  'updateProtectedRange',
  'deleteProtectedRange',
  'autoResizeDimensions',
  'addChart',
  'updateChartSpec',
  'updateBanding',
  'addBanding',
  'deleteBanding',
  'createDeveloperMetadata',
  'updateDeveloperMetadata',
  'deleteDeveloperMetadata',
  'randomizeRange',
  'addDimensionGroup',
  'deleteDimensionGroup',
  'updateDimensionGroup',
  'trimWhitespace',
  'deleteDuplicates',
  'updateEmbeddedObjectBorder',
  'addSlicer',
  'updateSlicerSpec',
  'addDataSource',
  'updateDataSource',
  'deleteDataSource',
  'refreshDataSource',
  'cancelDataSourceRefresh',
  'addTable',
  'updateTable',
  'deleteTable',
])

const APPLIERS: Record<string, Applier> = {
  ...mergeAppliers,
  ...basicFilterAppliers,
  ...conditionalFormatAppliers,
  ...chartAppliers,
  ...sheetAppliers,
  ...dimensionAppliers,
  ...cellAppliers,
  ...protectedRangeAppliers,
  ...metadataAppliers,
}

/** Request names the fake implements. */
export const IMPLEMENTED_REQUESTS: readonly string[] = Object.keys(APPLIERS)

/**
 * spreadsheets.batchUpdate: applies requests in order, each seeing the ones
 * before; any failure rolls everything back and is prefixed
 * `Invalid requests[i].<name>: ` (§6.1).
 */
export function batchUpdate(store: SheetsStore, ss: SpreadsheetData, body: Json, caller: Caller, viewer = false): Json {
  const requests = body.requests
  if (!Array.isArray(requests) || requests.length === 0) throw invalidArgument('Must specify at least one request.')
  // JSON-shape errors come before anything is applied, as the API parses the whole body first.
  requests.forEach((request, i) => {
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      const description = `Invalid value at 'requests[${i}]' (type.googleapis.com/google.apps.sheets.v4.BatchUpdateSpreadsheetRequest.Request), ${JSON.stringify(request)}`
      throw badRequest(description, `requests[${i}]`, description)
    }
    for (const key of Object.keys(request)) {
      if (!KNOWN_REQUESTS.has(key)) {
        const description = `Invalid JSON payload received. Unknown name "${key}" at 'requests[${i}]': Cannot find field.`
        throw badRequest(description, `requests[${i}]`, description)
      }
    }
    if (Object.keys(request).length !== 1) throw invalidArgument(`Invalid requests[${i}]: Exactly one kind of request must be set.`)
  })
  const tx = beginTx(editGuardFor(ss, caller))
  const ctx: Ctx = { store, ss, tx, caller }
  const replies: Json[] = []
  // Only a batch that adds or changes metadata can pass the storage limit.
  const metadataAt = requests.findIndex((r: Json) => 'createDeveloperMetadata' in r || 'updateDeveloperMetadata' in r)
  const usageBefore = metadataAt >= 0 ? metadataUsage(ss) : undefined
  try {
    requests.forEach((request: Json, i) => {
      const name = Object.keys(request)[0]!
      const applier = APPLIERS[name]
      if (!applier) throw invalidArgument(`Invalid requests[${i}].${name}: this request is not implemented by the Sheets fake.`)
      try {
        replies.push(applier(ctx, (request[name] ?? {}) as Json, i) ?? {})
      } catch (error) {
        if (error instanceof SheetsApiError && !error.message.startsWith('Invalid value at') && !error.message.startsWith('Invalid JSON')) {
          throw error.prefixed(`Invalid requests[${i}].${name}: `)
        }
        throw error
      }
    })
    const over = usageBefore && overBudget(usageBefore, metadataUsage(ss), store.options.metadataLimits)
    if (over) {
      const name = Object.keys(requests[metadataAt] as Json)[0]!
      throw invalidArgument(`Invalid requests[${metadataAt}].${name}: ${overBudgetMessage(over)}`)
    }
  } catch (error) {
    rollback(tx)
    throw error
  }
  commitTx(tx, ss)
  const out: Json = { spreadsheetId: ss.spreadsheetId, replies }
  if (body.includeSpreadsheetInResponse === true) {
    out.updatedSpreadsheet = spreadsheetJson(ss, {
      ranges: (body.responseRanges as string[] | undefined) ?? [],
      includeGridData: body.responseIncludeGridData === true,
      caller,
      viewer,
    })
  }
  return out
}

/** spreadsheets.create (§2.5): honours title, locale, timeZone and the given sheets. */
export function createFromBody(store: SheetsStore, body: Json): SpreadsheetData {
  const props = (body.properties ?? {}) as Json
  const sheets = ((body.sheets ?? []) as Json[]).map((s, i) => {
    const p = (s.properties ?? {}) as Json
    const g = (p.gridProperties ?? {}) as Json
    return {
      title: typeof p.title === 'string' ? p.title : `Sheet${i + 1}`,
      ...(typeof p.sheetId === 'number' && p.sheetId >= 0 ? { sheetId: p.sheetId } : {}),
      ...(typeof g.rowCount === 'number' ? { rowCount: g.rowCount } : {}),
      ...(typeof g.columnCount === 'number' ? { columnCount: g.columnCount } : {}),
      ...(p.hidden === true ? { hidden: true } : {}),
    }
  })
  const ss = store.createSpreadsheet({
    ...(typeof props.title === 'string' ? { title: props.title } : {}),
    ...(typeof props.locale === 'string' ? { locale: props.locale } : {}),
    ...(typeof props.timeZone === 'string' ? { timeZone: props.timeZone } : {}),
    sheets,
  })
  try {
    assertCellLimit(ss, store.options.cellLimit)
  } catch (error) {
    store.spreadsheets.delete(ss.spreadsheetId)
    throw error
  }
  return ss
}
