/**
 * `doctor --write-test` on a Google spreadsheet: the behaviours the write protocol relies on
 * (decisions/0003-rows-that-move.md), tried on the real service in a scratch tab that is removed afterwards.
 * Google documents that row metadata follows inserted and deleted rows; it does not document that a sort moves
 * it, nor what a data filter matching nothing does. The tool's own tabs are never touched; the metadata room is
 * read, not used.
 */
import { randomBytes } from 'node:crypto'
import type { sheets_v4 } from '@googleapis/sheets'
import { TimelineSheetsError } from '../../errors.ts'
import type { Spreadsheet } from '../port.ts'
import type { WriteTestFinding } from '../probe.ts'
import { quoteTitle } from './a1.ts'
import { encodeBody, GZIP_MIN_BYTES } from './gzip-requests.ts'
import { isPayloadTooLarge } from './refusals.ts'
import { COMPRESSED_MAX_PAYLOAD_BYTES, preserialized } from './requests.ts'
import { CLAIM_CHARS_PER_SHEET, claimReserve } from './row-claims.ts'

/** Google's documented storage for developer metadata on one sheet ("Metadata storage limits"). */
export const SHEET_METADATA_CHARS = 30_000

export interface WriteTestDeps {
  spreadsheetId: string
  api: sheets_v4.Sheets
  /** A backend on the same spreadsheet, sign-in and transport: the protocol itself is tried through it. */
  backend(): Spreadsheet
  /** The tabs of the target, whose metadata room is reported. */
  tabs: readonly string[]
  /** Whether `api` sends its larger bodies gzip-compressed (`google.gzipRequests`). */
  gzipRequests: boolean
  /** @default random */
  suffix?: string
}

const KEYS = ['k3', 'k1', 'k5', 'k2', 'k6', 'k4']
const PROBE_KEY = 'ts.probe'
const REPORT = 'Tell the timeline-sheets maintainers what this line says (run with --json for the details).'

/** Runs every step; the scratch tab is removed whatever happens. */
export async function runWriteTest(deps: WriteTestDeps): Promise<WriteTestFinding[]> {
  const { api, spreadsheetId } = deps
  const title = `timeline-sheets write test ${deps.suffix ?? randomBytes(3).toString('hex')}`
  const findings: WriteTestFinding[] = []
  let sheetId: number
  try {
    const added = await api.spreadsheets.batchUpdate({
      spreadsheetId,
      requestBody: { requests: [{ addSheet: { properties: { title, gridProperties: { rowCount: 12, columnCount: 3 } } } }] },
    })
    sheetId = added.data.replies?.[0]?.addSheet?.properties?.sheetId ?? -1
    if (sheetId < 0) {
      throw new TimelineSheetsError('TS_RESPONSE_INVALID', `addSheet of "${title}" answered without the new sheet id`)
    }
  } catch (error) {
    return [
      {
        name: 'scratch tab added',
        status: 'fail',
        detail: `Google refused a new tab: ${messageOf(error)}`,
        fix: 'Share the spreadsheet with the account as editor, then run again.',
      },
    ]
  }
  try {
    findings.push({ name: 'scratch tab added', status: 'pass', detail: `"${title}" (removed at the end)` })
    const compressed = await compressedBodyApplied(deps, title)
    findings.push(compressed)
    // The steps after send larger bodies too: each would fail the same way and say nothing new.
    if (compressed.status === 'pass') {
      findings.push(...(await metadataFollowsRows(deps, title, sheetId)))
      findings.push(await valueWriteMatchingNothing(deps, title))
      findings.push(await metadataDeleteMatchingNothing(deps))
      findings.push(await protocolAfterSort(deps, title, sheetId))
      findings.push(await payloadLimitCounts(deps, sheetId))
    }
  } finally {
    try {
      await api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests: [{ deleteSheet: { sheetId } }] } })
      findings.push({ name: 'scratch tab removed', status: 'pass', detail: `"${title}" and its metadata are gone` })
    } catch (error) {
      findings.push({
        name: 'scratch tab removed',
        status: 'warn',
        detail: `Google refused to remove "${title}": ${messageOf(error)}`,
        fix: `Delete the tab "${title}" by hand; it holds nothing of yours.`,
      })
    }
  }
  findings.push(await metadataRoom(deps))
  return findings
}

/**
 * A write whose body leaves gzip-compressed lands as sent. Google's Java and .NET clients compress every body by
 * default, but no Google reference says the Sheets API takes one (a Google engineer: "There some special cases
 * where GZip compression is not supported for APIs on Google infrastructure."), and a proxy in between may refuse
 * it; then `google.gzipRequests` goes off.
 */
async function compressedBodyApplied(deps: WriteTestDeps, title: string): Promise<WriteTestFinding> {
  const name = 'a gzip-compressed request body is applied'
  if (!deps.gzipRequests) return { name, status: 'pass', detail: 'not tried: google.gzipRequests is off, so bodies leave as plain JSON' }
  // Twelve rows of three cells, twice the size from which bodies are compressed.
  const filler = 'x'.repeat(Math.ceil((2 * GZIP_MIN_BYTES) / 12))
  const values = Array.from({ length: 12 }, (_, i) => [`row ${i + 1}`, `compressed ${filler}`, `ü ✓ ${i + 1}`])
  const range = `${quoteTitle(title)}!A1:C12`
  try {
    await deps.api.spreadsheets.values.update({
      spreadsheetId: deps.spreadsheetId,
      range,
      valueInputOption: 'RAW',
      requestBody: { values },
    })
  } catch (error) {
    return {
      name,
      status: 'fail',
      detail: `Google (or a proxy on the way) refused it: ${messageOf(error)}`,
      fix: 'Set "gzipRequests": false in the "google" section of the config (bodies then leave as plain JSON, several times larger) and run the write test again: the steps after this one were not tried.',
    }
  }
  const read = await deps.api.spreadsheets.values.get({ spreadsheetId: deps.spreadsheetId, range })
  await deps.api.spreadsheets.values.clear({ spreadsheetId: deps.spreadsheetId, range, requestBody: {} })
  const landed = JSON.stringify(read.data.values ?? []) === JSON.stringify(values)
  return landed
    ? { name, status: 'pass', detail: `${values.length} rows sent compressed read back cell for cell` }
    : {
        name,
        status: 'fail',
        detail: 'the rows read back differ from the rows sent compressed',
        fix: `Set "gzipRequests": false in the "google" section of the config. ${REPORT}`,
      }
}

/** The body size Google has been seen to refuse (10 MiB); its limits page names no figure beyond the 2 MB it recommends. */
const REFUSED_BODY_BYTES = 10_485_760
/** Characters in each cell of the payload step: under the 50,000 a cell holds. */
const PAYLOAD_CELL_CHARS = 40_000

/**
 * What Google's 10 MB request limit counts of a compressed body: the bytes as sent, or what they unpack to.
 * Google says neither. The tool keeps each request under the limit either way (`COMPRESSED_MAX_PAYLOAD_BYTES`
 * of JSON at most), so either answer passes; one that counts the bytes as sent would allow fewer, larger requests. The body is a little more
 * than 10 MiB of JSON (rows of one long cell, inserted into the scratch tab) and leaves as a few KB.
 */
async function payloadLimitCounts(deps: WriteTestDeps, sheetId: number): Promise<WriteTestFinding> {
  const name = "what Google's 10 MB request limit counts of a compressed body"
  if (!deps.gzipRequests) return { name, status: 'pass', detail: 'not tried: google.gzipRequests is off, so no body leaves compressed' }
  const cell = { userEnteredValue: { stringValue: 'x'.repeat(PAYLOAD_CELL_CHARS) } }
  const rows = Math.ceil((REFUSED_BODY_BYTES + 65_536) / PAYLOAD_CELL_CHARS)
  // Rows inserted at the top, so the write fits whatever rows the steps before left.
  const requests: sheets_v4.Schema$Request[] = [
    { insertDimension: { range: { sheetId, dimension: 'ROWS', startIndex: 0, endIndex: rows }, inheritFromBefore: false } },
    {
      updateCells: {
        start: { sheetId, rowIndex: 0, columnIndex: 0 },
        rows: Array.from({ length: rows }, () => ({ values: [cell] })),
        fields: 'userEnteredValue',
      },
    },
  ]
  const json = JSON.stringify({ requests })
  const encoded = await encodeBody(json, true)
  const body = preserialized({ requests }, encoded)
  const sizes = `${(json.length / 1_000_000).toFixed(1)} MB of JSON sent as ${(encoded.bytes.byteLength / 1000).toFixed(0)} KB`
  try {
    await deps.api.spreadsheets.batchUpdate(
      { spreadsheetId: deps.spreadsheetId, fields: 'spreadsheetId', requestBody: body.requestBody },
      body.options,
    )
  } catch (error) {
    const message = messageOf(error)
    if (isPayloadTooLarge(message)) {
      return {
        name,
        status: 'pass',
        detail: `what a body unpacks to: ${sizes} was refused ("${message}"); the tool's requests (${COMPRESSED_MAX_PAYLOAD_BYTES / 1_000_000} MB of JSON at most) stay under it`,
      }
    }
    return { name, status: 'warn', detail: `${sizes} was refused otherwise: ${message}`, fix: REPORT }
  }
  return {
    name,
    status: 'pass',
    detail: `the bytes as sent: ${sizes} was applied. The tool's requests (${COMPRESSED_MAX_PAYLOAD_BYTES / 1_000_000} MB of JSON at most) stay under the limit either way; fewer, larger ones would be possible. ${REPORT}`,
  }
}

/** Row metadata on rows that a sort, an insert and a delete move: each must stay with its row's cells. */
async function metadataFollowsRows(deps: WriteTestDeps, title: string, sheetId: number): Promise<WriteTestFinding[]> {
  const { api, spreadsheetId } = deps
  await api.spreadsheets.values.update({
    spreadsheetId,
    range: `${quoteTitle(title)}!A1`,
    valueInputOption: 'RAW',
    requestBody: { values: [['Key', 'Notes'], ...KEYS.map((k) => [k, `note of ${k}`])] },
  })
  await api.spreadsheets.batchUpdate({
    spreadsheetId,
    requestBody: {
      requests: KEYS.map((key, i) => ({
        createDeveloperMetadata: {
          developerMetadata: {
            metadataKey: PROBE_KEY,
            metadataValue: key,
            visibility: 'DOCUMENT',
            location: { dimensionRange: { sheetId, dimension: 'ROWS', startIndex: i + 1, endIndex: i + 2 } },
          },
        },
      })),
    },
  })
  // What a manager does: sort the rows by Key, insert a row above, delete the row of k6.
  await api.spreadsheets.batchUpdate({
    spreadsheetId,
    requestBody: {
      requests: [
        {
          sortRange: {
            range: { sheetId, startRowIndex: 1, endRowIndex: 1 + KEYS.length, startColumnIndex: 0, endColumnIndex: 3 },
            sortSpecs: [{ dimensionIndex: 0, sortOrder: 'ASCENDING' }],
          },
        },
      ],
    },
  })
  const sorted = await rowsOfProbes(deps)
  const afterSort = KEYS.filter((k) => sorted.get(k) !== k)
  const sort: WriteTestFinding =
    afterSort.length === 0
      ? { name: 'a sort moves row metadata with its row', status: 'pass', detail: `${KEYS.length} rows sorted, each kept its metadata` }
      : {
          name: 'a sort moves row metadata with its row',
          status: 'fail',
          detail: `after a sort, the metadata of ${afterSort.join(', ')} sits on another row (undocumented by Google)`,
          fix: `Activities rows stay safe (a claim on another row is refused, never written through), but a row a manager sorts while a run writes waits for the next run. The Approvals tab's cells go through row marks with no read before them: take \`approvals\` off the targets of this spreadsheet until this passes. ${REPORT}`,
        }
  await api.spreadsheets.batchUpdate({
    spreadsheetId,
    requestBody: {
      requests: [
        { insertDimension: { range: { sheetId, dimension: 'ROWS', startIndex: 2, endIndex: 3 }, inheritFromBefore: false } },
        // k6 sorts last: row 7, row 8 after the insert (0-based 7).
        { deleteDimension: { range: { sheetId, dimension: 'ROWS', startIndex: 7, endIndex: 8 } } },
      ],
    },
  })
  // Each piece of metadata must select the cells it selected after the sort; the one on k6's row went with it.
  const moved = await rowsOfProbes(deps)
  const wrong = KEYS.filter((k) => (sorted.get(k) === 'k6' ? moved.has(k) : moved.get(k) !== sorted.get(k)))
  const shift: WriteTestFinding =
    wrong.length === 0
      ? {
          name: 'inserted and deleted rows move row metadata',
          status: 'pass',
          detail: 'each kept its row; the deleted row took its own along',
        }
      : {
          name: 'inserted and deleted rows move row metadata',
          status: 'fail',
          detail: `after a row was inserted and one deleted, the metadata of ${wrong.join(', ')} is not on its row, against Google's documentation`,
          fix: `Do not run imports or exports into this spreadsheet until this is understood. ${REPORT}`,
        }
  return [sort, shift]
}

/** The Key in column A of the row each probe metadata selects now. */
async function rowsOfProbes(deps: WriteTestDeps): Promise<Map<string, string>> {
  const answer = await deps.api.spreadsheets.values.batchGetByDataFilter({
    spreadsheetId: deps.spreadsheetId,
    requestBody: {
      dataFilters: KEYS.map((metadataValue) => ({ developerMetadataLookup: { metadataKey: PROBE_KEY, metadataValue } })),
      majorDimension: 'ROWS',
    },
  })
  const out = new Map<string, string>()
  for (const matched of answer.data.valueRanges ?? []) {
    const value = matched.dataFilters?.[0]?.developerMetadataLookup?.metadataValue
    if (typeof value === 'string') out.set(value, String(matched.valueRange?.values?.[0]?.[0] ?? ''))
  }
  return out
}

async function valueWriteMatchingNothing(deps: WriteTestDeps, title: string): Promise<WriteTestFinding> {
  const name = 'a value write through a filter that matches nothing writes nothing'
  try {
    await deps.api.spreadsheets.values.batchUpdateByDataFilter({
      spreadsheetId: deps.spreadsheetId,
      requestBody: {
        valueInputOption: 'RAW',
        data: [{ dataFilter: { developerMetadataLookup: { metadataKey: PROBE_KEY, metadataValue: 'none' } }, values: [['written']] }],
      },
    })
  } catch (error) {
    return {
      name,
      status: 'fail',
      detail: `Google refused it: ${messageOf(error)} (undocumented by Google)`,
      fix: `A row a manager deletes while a run writes would fail the run instead of being skipped. ${REPORT}`,
    }
  }
  const read = await deps.api.spreadsheets.values.get({ spreadsheetId: deps.spreadsheetId, range: quoteTitle(title) })
  const landed = (read.data.values ?? []).some((row) => row.includes('written'))
  return landed
    ? { name, status: 'fail', detail: 'the value landed in a cell', fix: `Do not run imports or exports into this spreadsheet. ${REPORT}` }
    : { name, status: 'pass', detail: 'Google answered and no cell changed' }
}

async function metadataDeleteMatchingNothing(deps: WriteTestDeps): Promise<WriteTestFinding> {
  const name = 'a metadata delete through a filter that matches nothing is a no-op'
  try {
    await deps.api.spreadsheets.batchUpdate({
      spreadsheetId: deps.spreadsheetId,
      requestBody: {
        requests: [
          { deleteDeveloperMetadata: { dataFilter: { developerMetadataLookup: { metadataKey: PROBE_KEY, metadataValue: 'none' } } } },
        ],
      },
    })
    return { name, status: 'pass', detail: 'Google answered without error' }
  } catch (error) {
    return {
      name,
      status: 'fail',
      detail: `Google refused it: ${messageOf(error)} (undocumented by Google)`,
      fix: `A write whose rows a manager deleted meanwhile would fail at its last step, after its values landed. ${REPORT}`,
    }
  }
}

/** The protocol itself, through the backend: a write planned on a read, a sort by a manager, every cell on its row. */
async function protocolAfterSort(deps: WriteTestDeps, title: string, sheetId: number): Promise<WriteTestFinding> {
  const name = "a write planned before a manager's sort lands every cell on its row"
  const backend = deps.backend()
  const basis = await backend.read([title])
  const rows = basis.tabs[title]?.rows ?? []
  await deps.api.spreadsheets.batchUpdate({
    spreadsheetId: deps.spreadsheetId,
    requestBody: {
      requests: [
        {
          sortRange: {
            range: { sheetId, startRowIndex: 1, endRowIndex: 1 + rows.length, startColumnIndex: 0, endColumnIndex: 3 },
            sortSpecs: [{ dimensionIndex: 0, sortOrder: 'DESCENDING' }],
          },
        },
      ],
    },
  })
  const updates = rows.flatMap((cells, i) =>
    typeof cells[0] === 'string' ? [{ row: i + 2, column: 1, values: [`written to ${cells[0]}`] }] : [],
  )
  try {
    const report = await backend.write([{ tab: title, keyColumn: 0, updates }], basis)
    const after = await deps.api.spreadsheets.values.get({ spreadsheetId: deps.spreadsheetId, range: quoteTitle(title) })
    const misplaced = (after.data.values ?? [])
      .slice(1)
      .filter((row) => typeof row[1] === 'string' && row[1].startsWith('written to ') && row[1] !== `written to ${row[0]}`)
    const written = (after.data.values ?? []).filter((row) => row[1] === `written to ${row[0]}`).length
    if (misplaced.length > 0) {
      return {
        name,
        status: 'fail',
        detail: `${misplaced.length} cells landed on another row`,
        fix: `Do not run imports or exports into this spreadsheet. ${REPORT}`,
      }
    }
    return {
      name,
      status: 'pass',
      detail: `${written} of ${updates.length} rows written through claims after the sort, none elsewhere${report.skipped.length > 0 ? `; ${report.skipped.length} skipped for the next run` : ''}`,
    }
  } catch (error) {
    return { name, status: 'fail', detail: `the write failed: ${messageOf(error)}`, fix: REPORT }
  }
}

/** How much of each tab's developer-metadata storage others use, as far as this account can see. */
async function metadataRoom(deps: WriteTestDeps): Promise<WriteTestFinding> {
  const name = 'developer-metadata room'
  const [layout, found] = await Promise.all([
    deps.api.spreadsheets.get({ spreadsheetId: deps.spreadsheetId, fields: 'sheets.properties(sheetId,title)' }),
    deps.api.spreadsheets.developerMetadata.search({
      spreadsheetId: deps.spreadsheetId,
      requestBody: {
        dataFilters: (['SHEET', 'ROW', 'COLUMN'] as const).map((locationType) => ({ developerMetadataLookup: { locationType } })),
      },
    }),
  ])
  const used = new Map<number, number>()
  for (const matched of found.data.matchedDeveloperMetadata ?? []) {
    const m = matched.developerMetadata
    const sheet = m?.location?.sheetId ?? m?.location?.dimensionRange?.sheetId
    if (m === undefined || sheet === undefined || sheet === null) continue
    used.set(sheet, (used.get(sheet) ?? 0) + (m.metadataKey?.length ?? 0) + (m.metadataValue?.length ?? 0))
  }
  const tabs = (layout.data.sheets ?? []).filter((s) => deps.tabs.includes(s.properties?.title ?? ''))
  if (tabs.length === 0)
    return { name, status: 'pass', detail: "none of the target's tabs exists yet: each starts with 30,000 characters free" }
  const rooms = tabs.map((s) => ({ title: s.properties!.title!, free: SHEET_METADATA_CHARS - (used.get(s.properties!.sheetId ?? 0) ?? 0) }))
  const shown = rooms.map((r) => `"${r.title}" ${r.free.toLocaleString('en')} free`).join(', ')
  const invisible = '(metadata other projects keep private is not visible and may take more)'
  // The most a claim takes on any sheet: ids run up to 2^31 − 1.
  const oneClaim = claimReserve(2 ** 31 - 1)
  if (rooms.some((r) => r.free < oneClaim)) {
    return {
      name,
      status: 'fail',
      detail: `of 30,000 characters a tab: ${shown} ${invisible}`,
      fix: 'Remove developer metadata other add-ons or scripts left on that tab; runs cannot update its rows without a little room.',
    }
  }
  if (rooms.some((r) => r.free < CLAIM_CHARS_PER_SHEET)) {
    return {
      name,
      status: 'warn',
      detail: `of 30,000 characters a tab: ${shown} ${invisible}; the tool uses up to ${CLAIM_CHARS_PER_SHEET.toLocaleString('en')} while it writes`,
      fix: 'Runs go on in smaller steps (more requests). Remove metadata other add-ons left to give them room.',
    }
  }
  return { name, status: 'pass', detail: `of 30,000 characters a tab: ${shown} ${invisible}` }
}

function messageOf(error: unknown): string {
  if (error instanceof TimelineSheetsError) return error.message
  const data = (error as { response?: { data?: { error?: { message?: unknown } } } }).response?.data?.error?.message
  if (typeof data === 'string') return data
  return error instanceof Error ? error.message : String(error)
}
