/**
 * Google's developer-metadata storage limit, through the real client: 30,000
 * characters of keys and values on the spreadsheet and 30,000 on each sheet
 * (guide "Read & write developer metadata", "Metadata storage limits"). A
 * batch that would pass it is refused whole.
 */
import type { GaxiosError } from 'gaxios'
import type { sheets_v4 } from '@googleapis/sheets'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { mswHandlerFor } from '../mount.ts'
import { createSheetsHandler } from './handler.ts'
import { createManager } from './manager.ts'
import { createSheetsStore, type SheetsStore } from './store.ts'
import { sheetsClient } from './test-support.ts'

const ROOT = 'http://sheets.test/'
let store: SheetsStore
const server = setupServer(mswHandlerFor(ROOT, (request) => createSheetsHandler(store)(request)))
const api = sheetsClient(ROOT, 'test-token')
const NO_RETRY = { retry: false } as const

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  store = createSheetsStore({ staticTokens: ['test-token'], quota: false })
})

function rowMeta(sheetId: number, row: number, key: string, value?: string): sheets_v4.Schema$Request {
  return {
    createDeveloperMetadata: {
      developerMetadata: {
        metadataKey: key,
        ...(value === undefined ? {} : { metadataValue: value }),
        location: { dimensionRange: { sheetId, dimension: 'ROWS', startIndex: row, endIndex: row + 1 } },
        visibility: 'DOCUMENT',
      },
    },
  }
}

async function failure(promise: Promise<unknown>): Promise<GaxiosError> {
  try {
    await promise
  } catch (error) {
    return error as GaxiosError
  }
  throw new Error('expected the call to fail')
}

async function metadataCount(spreadsheetId: string): Promise<number> {
  const found = await api.spreadsheets.developerMetadata.search({
    spreadsheetId,
    requestBody: { dataFilters: [{ developerMetadataLookup: { visibility: 'DOCUMENT' } }] },
  })
  return found.data.matchedDeveloperMetadata?.length ?? 0
}

describe('developer metadata storage limit', () => {
  test('a sheet holds 30,000 characters of keys and values; one more refuses the whole batch with 400', async () => {
    const id = store.createSpreadsheet({ title: 'T', sheets: [{ title: 'A', sheetId: 0, rowCount: 400 }] }).spreadsheetId
    // 300 rows × (10 + 90) characters = exactly 30,000.
    const full = Array.from({ length: 300 }, (_, i) => rowMeta(0, i, 'k'.repeat(10), String(i).padStart(90, '0')))
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: full } }, NO_RETRY)
    expect(await metadataCount(id)).toBe(300)

    const over = await failure(
      api.spreadsheets.batchUpdate(
        {
          spreadsheetId: id,
          requestBody: {
            requests: [{ insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 0, endIndex: 1 } } }, rowMeta(0, 350, 'x')],
          },
        },
        NO_RETRY,
      ),
    )
    expect(over.response?.status).toBe(400)
    expect(over.response?.data).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } })
    expect((over.response?.data as { error: { message: string } }).error.message).toMatch(
      /^Invalid requests\[1\]\.createDeveloperMetadata: .*sheet 0.*30000 characters/,
    )
    // Nothing of it applied: the inserted row is not there either.
    const sheet = await api.spreadsheets.get({ spreadsheetId: id, fields: 'sheets.properties.gridProperties.rowCount' })
    expect(sheet.data.sheets?.[0]?.properties?.gridProperties?.rowCount).toBe(400)
    expect(await metadataCount(id)).toBe(300)
  })

  test('the limit is per sheet: another sheet and the spreadsheet have their own', async () => {
    const id = store.createSpreadsheet({
      title: 'T',
      sheets: [
        { title: 'A', sheetId: 0, rowCount: 400 },
        { title: 'B', sheetId: 7, rowCount: 400 },
      ],
    }).spreadsheetId
    const fill = (sheetId: number) => Array.from({ length: 300 }, (_, i) => rowMeta(sheetId, i, 'k'.repeat(10), 'v'.repeat(90)))
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [...fill(0), ...fill(7)] } }, NO_RETRY)
    const onSpreadsheet: sheets_v4.Schema$Request = {
      createDeveloperMetadata: {
        developerMetadata: {
          metadataKey: 's'.repeat(10),
          metadataValue: 'v'.repeat(29_990),
          location: { spreadsheet: true },
          visibility: 'DOCUMENT',
        },
      },
    }
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [onSpreadsheet] } }, NO_RETRY)
    const second = await failure(
      api.spreadsheets.batchUpdate(
        {
          spreadsheetId: id,
          requestBody: {
            requests: [
              {
                createDeveloperMetadata: {
                  developerMetadata: { metadataKey: 's', location: { spreadsheet: true }, visibility: 'DOCUMENT' },
                },
              },
            ],
          },
        },
        NO_RETRY,
      ),
    )
    expect((second.response?.data as { error: { message: string } }).error.message).toMatch(/the spreadsheet/)
  })

  test('a batch that deletes as much as it adds stays within the limit; updating a value counts its new length', async () => {
    const id = store.createSpreadsheet({ title: 'T', sheets: [{ title: 'A', sheetId: 0, rowCount: 400 }] }).spreadsheetId
    const full = Array.from({ length: 300 }, (_, i) => rowMeta(0, i, 'old', 'v'.repeat(97)))
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: full } }, NO_RETRY)
    await api.spreadsheets.batchUpdate(
      {
        spreadsheetId: id,
        requestBody: {
          requests: [
            { deleteDeveloperMetadata: { dataFilter: { developerMetadataLookup: { metadataKey: 'old' } } } },
            ...full.map((r) => ({ ...r })),
          ],
        },
      },
      NO_RETRY,
    )
    expect(await metadataCount(id)).toBe(300)
    const longer = await failure(
      api.spreadsheets.batchUpdate(
        {
          spreadsheetId: id,
          requestBody: {
            requests: [
              {
                updateDeveloperMetadata: {
                  dataFilters: [{ developerMetadataLookup: { metadataKey: 'old' } }],
                  developerMetadata: { metadataValue: 'v'.repeat(98) },
                  fields: 'metadataValue',
                },
              },
            ],
          },
        },
        NO_RETRY,
      ),
    )
    expect(longer.response?.status).toBe(400)
  })

  test('rows deleted by a person take their metadata along and free its characters', async () => {
    const id = store.createSpreadsheet({ title: 'T', sheets: [{ title: 'A', sheetId: 0, rowCount: 400 }] }).spreadsheetId
    const full = Array.from({ length: 300 }, (_, i) => rowMeta(0, i, 'k'.repeat(10), 'v'.repeat(90)))
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: full } }, NO_RETRY)
    createManager(store).deleteRows(id, 'A', 1, 1)
    await api.spreadsheets.batchUpdate(
      { spreadsheetId: id, requestBody: { requests: [rowMeta(0, 350, 'k'.repeat(10), 'v'.repeat(90))] } },
      NO_RETRY,
    )
    expect(await metadataCount(id)).toBe(300)
  })

  test('the limits are options of the store', async () => {
    store = createSheetsStore({ staticTokens: ['test-token'], quota: false, metadataLimits: { sheet: 20 } })
    const id = store.createSpreadsheet({ title: 'T', sheets: [{ title: 'A', sheetId: 0 }] }).spreadsheetId
    await api.spreadsheets.batchUpdate(
      { spreadsheetId: id, requestBody: { requests: [rowMeta(0, 1, 'abcdefghij', '0123456789')] } },
      NO_RETRY,
    )
    const over = await failure(
      api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [rowMeta(0, 2, 'a')] } }, NO_RETRY),
    )
    expect(over.response?.status).toBe(400)
  })
})
