/**
 * Test helpers for the Google backend that talk to a Sheets API (the fake or
 * a real one) through googleapis the way a person's edits arrive there.
 */
import { sheets, type sheets_v4 } from '@googleapis/sheets'
import type { OAuth2Client } from 'google-auth-library'
import type { ManagerActions } from '../contract/spreadsheet-contract.ts'
import { LAYOUT_METADATA_KEY } from '../../src/sheets/google/layout-state.ts'
import { a1Range, quoteTitle } from '../../src/sheets/google/a1.ts'

/** A googleapis client of its own (retries off), as a second person editing the spreadsheet. */
export function directClient(auth: OAuth2Client, rootUrl?: string): sheets_v4.Sheets {
  return sheets({ version: 'v4', auth, ...(rootUrl ? { rootUrl } : {}), retry: false })
}

async function sheetIdOf(api: sheets_v4.Sheets, spreadsheetId: string, tab: string): Promise<number> {
  const { data } = await api.spreadsheets.get({ spreadsheetId, fields: 'sheets.properties(sheetId,title)' })
  const found = data.sheets?.find((s) => s.properties?.title === tab)
  if (!found) throw new Error(`No tab ${tab}`)
  return found.properties?.sheetId ?? 0
}

/** Manager edits made through the API: sortRange, insertDimension, deleteDimension, USER_ENTERED typing. */
export function managerActionsOverApi(api: sheets_v4.Sheets, spreadsheetId: string): ManagerActions {
  return {
    async sortRows(tab, column) {
      const sheetId = await sheetIdOf(api, spreadsheetId, tab)
      const { data } = await api.spreadsheets.values.get({ spreadsheetId, range: `${quoteTitle(tab)}!1:1` })
      const index = (data.values?.[0] ?? []).indexOf(column)
      if (index < 0) throw new Error(`No column ${column} in ${tab}`)
      await api.spreadsheets.batchUpdate({
        spreadsheetId,
        requestBody: {
          requests: [
            { sortRange: { range: { sheetId, startRowIndex: 1 }, sortSpecs: [{ dimensionIndex: index, sortOrder: 'ASCENDING' }] } },
          ],
        },
      })
    },
    async insertBlankRow(tab, row) {
      const sheetId = await sheetIdOf(api, spreadsheetId, tab)
      await api.spreadsheets.batchUpdate({
        spreadsheetId,
        requestBody: {
          requests: [
            { insertDimension: { range: { sheetId, dimension: 'ROWS', startIndex: row - 1, endIndex: row }, inheritFromBefore: true } },
          ],
        },
      })
    },
    async deleteRow(tab, row) {
      const sheetId = await sheetIdOf(api, spreadsheetId, tab)
      await api.spreadsheets.batchUpdate({
        spreadsheetId,
        requestBody: { requests: [{ deleteDimension: { range: { sheetId, dimension: 'ROWS', startIndex: row - 1, endIndex: row } } }] },
      })
    },
    async editCell(tab, row, column, value) {
      await api.spreadsheets.values.update({
        spreadsheetId,
        range: a1Range(tab, row, column, 1, 1),
        valueInputOption: 'USER_ENTERED',
        requestBody: { values: [[value ?? '']] },
      })
    },
  }
}

/**
 * Brings a real scratch spreadsheet back to one empty tab and no layout
 * metadata: the closest thing to "a fresh spreadsheet" a service account has.
 */
export async function resetSpreadsheet(api: sheets_v4.Sheets, spreadsheetId: string): Promise<void> {
  const { data } = await api.spreadsheets.get({ spreadsheetId, fields: 'sheets.properties(sheetId,title),developerMetadata' })
  const keep = 'Sheet1'
  const requests: sheets_v4.Schema$Request[] = []
  const existing = data.sheets ?? []
  if (!existing.some((s) => s.properties?.title === keep)) requests.push({ addSheet: { properties: { title: keep } } })
  for (const s of existing) if (s.properties?.title !== keep) requests.push({ deleteSheet: { sheetId: s.properties?.sheetId ?? 0 } })
  for (const m of data.developerMetadata ?? []) {
    if (m.metadataKey === LAYOUT_METADATA_KEY)
      requests.push({ deleteDeveloperMetadata: { dataFilter: { developerMetadataLookup: { metadataId: m.metadataId ?? 0 } } } })
  }
  if (requests.length > 0) await api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests } })
  await api.spreadsheets.values.clear({ spreadsheetId, range: quoteTitle(keep), requestBody: {} })
}

/**
 * Requests that put `chars` characters of someone else's developer metadata on a sheet (500 a piece, key
 * included), as another add-on would, on its first `rows` data rows in turn.
 */
export function othersMetadata(sheetId: number, chars: number, rows: number, key = 'other-add-on'): sheets_v4.Schema$Request[] {
  const requests: sheets_v4.Schema$Request[] = []
  for (let left = chars, i = 0; left > 0; i++) {
    const value = 'v'.repeat(Math.min(500, left) - key.length)
    left -= key.length + value.length
    const row = 1 + (i % rows)
    requests.push({
      createDeveloperMetadata: {
        developerMetadata: {
          metadataKey: key,
          metadataValue: value,
          visibility: 'DOCUMENT',
          location: { dimensionRange: { sheetId, dimension: 'ROWS', startIndex: row, endIndex: row + 1 } },
        },
      },
    })
  }
  return requests
}
