/**
 * The shared spreadsheet contract against a real Google spreadsheet. Runs only
 * when both variables are set (see src/sheets/google/README.md):
 *   TIMELINE_SHEETS_GOOGLE_KEY_FILE        a service-account JSON key
 *   TIMELINE_SHEETS_GOOGLE_SPREADSHEET_ID  a scratch spreadsheet shared with that account as editor
 * Every test starts by bringing the spreadsheet back to one empty Sheet1.
 */
import { describe, vi } from 'vitest'
import { signInWithServiceAccountFile } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { describeSpreadsheetContract } from '../contract/spreadsheet-contract.ts'
import { directClient, managerActionsOverApi, resetSpreadsheet } from './google-fixture.ts'

const keyFile = process.env['TIMELINE_SHEETS_GOOGLE_KEY_FILE']
const spreadsheetId = process.env['TIMELINE_SHEETS_GOOGLE_SPREADSHEET_ID']
const enabled = Boolean(keyFile && spreadsheetId)

// Real quota windows are a minute long; a test may wait for one or two.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 })

describe.runIf(enabled)('real Google spreadsheet', () => {
  describeSpreadsheetContract('google (real spreadsheet)', async () => {
    const auth = await signInWithServiceAccountFile(keyFile!)
    const api = directClient(auth.client)
    await resetSpreadsheet(api, spreadsheetId!)
    return {
      // Stay under 60/min with room for the manager actions and the reset.
      spreadsheet: createGoogleSpreadsheet({ spreadsheetId: spreadsheetId!, auth, pace: { readsPerMinute: 45, writesPerMinute: 45 } }),
      cleanup: async () => undefined,
      actAsManager: managerActionsOverApi(api, spreadsheetId!),
    }
  })
})
