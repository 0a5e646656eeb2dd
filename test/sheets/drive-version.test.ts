/**
 * The Google backend's change mark: the spreadsheet's Drive version through google-auth-library against the
 * Sheets fake's files.get. A sign-in without the Drive scope is told what to set; Drive's rate limit is waited
 * out like a 5xx; the mark moves when a person edits.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SPREADSHEETS_SCOPE } from '../../counterparts/sheets/auth.ts'
import { DRIVE_METADATA_READONLY_SCOPE } from '../../counterparts/sheets/drive-files.ts'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'

const ROOT = 'http://sheets.test/'
let store: SheetsStore
let id: string
const server = setupServer(mswHandlerFor(ROOT, (request) => createSheetsHandler(store)(request)))

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  store = createSheetsStore({ seed: 5 })
  store.auth.addStaticToken('sheets-only', { scopes: [SPREADSHEETS_SCOPE] })
  store.auth.addStaticToken('watching', { scopes: [SPREADSHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] })
  id = store.createSpreadsheet({ title: 'Team time' }).spreadsheetId
})

const backend = (token: string) =>
  createGoogleSpreadsheet({
    spreadsheetId: id,
    auth: signInWithStaticToken(token),
    rootUrl: ROOT,
    retry: { sleep: async () => undefined },
  })

describe('the Google backend’s change mark', () => {
  it('is the Drive version, and moves when a person edits the spreadsheet', async () => {
    const sheet = backend('watching')
    const before = await sheet.changeMark!()
    expect(before).toMatch(/^\d+$/)
    expect(await sheet.changeMark!()).toBe(before)
    createManager(store).editCell(id, 'Sheet1', 'B2', 'typed')
    expect(await sheet.changeMark!()).not.toBe(before)
    // A Drive request is not a Sheets request.
    expect(sheet.requestCounts()).toEqual({ reads: 0, writes: 0 })
  })

  it('says what to set when the sign-in lacks the Drive metadata scope', async () => {
    const error = await backend('sheets-only').changeMark!().then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect((error as TimelineSheetsError).code).toBe('TS_FORBIDDEN')
    expect((error as TimelineSheetsError).hint).toMatch(/"watch": true/)
    expect((error as TimelineSheetsError).hint).toContain(DRIVE_METADATA_READONLY_SCOPE)
  })

  it('waits out a Drive rate limit and a 503 like any busy service', async () => {
    store.faults.inject({ status: 503, method: 'DriveFilesGet' })
    store.faults.inject({ status: 429, method: 'DriveFilesGet' })
    expect(await backend('watching').changeMark!()).toMatch(/^\d+$/)
  })

  it('names the spreadsheet and Google Drive, not Sheets, when Drive cannot find it', async () => {
    const missing = createGoogleSpreadsheet({ spreadsheetId: 'gone1234567890', auth: signInWithStaticToken('watching'), rootUrl: ROOT })
    await expect(missing.changeMark!()).rejects.toThrow(/^Google Drive answered 404 .*spreadsheet gone1234567890 \(files\.get\)/)
  })
})
