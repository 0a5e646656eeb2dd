/**
 * The shared spreadsheet contract, run against the Google backend over the
 * Sheets fake through the real @googleapis/sheets client (msw, in-process).
 * Manager actions go through the fake's Manager: what a person does in the
 * UI, without spending the backend's requests.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll } from 'vitest'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { columnLetters } from '../../src/sheets/google/a1.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { describeSpreadsheetContract } from '../contract/spreadsheet-contract.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'contract-token'
const server = setupServer()

// onUnhandledFrame is msw 3's name for onUnhandledRequest.
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

describeSpreadsheetContract('google (Sheets fake)', async () => {
  const store = createSheetsStore({ staticTokens: [TOKEN] })
  server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
  const manager = createManager(store)
  const spreadsheetId = manager.createSpreadsheet()
  return {
    spreadsheet: createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT }),
    cleanup: async () => undefined,
    actAsManager: {
      async sortRows(tab, column) {
        const header = manager.readTab(spreadsheetId, tab)[0] ?? []
        manager.sortTab(spreadsheetId, tab, header.indexOf(column))
      },
      async insertBlankRow(tab, row) {
        manager.insertRows(spreadsheetId, tab, row)
      },
      async deleteRow(tab, row) {
        manager.deleteRows(spreadsheetId, tab, row)
      },
      async editCell(tab, row, column, value) {
        manager.editCell(spreadsheetId, tab, `${columnLetters(column)}${row}`, value)
      },
    },
  }
})
