/**
 * Drive `files.get` on the fake's spreadsheets, as Google documents it: the version moves with every change
 * applied (through the API or by a person) and with nothing else, fields decide what is answered, Drive's
 * scopes and errors, and no Sheets quota spent.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mswHandlerFor } from '../mount.ts'
import { SPREADSHEETS_SCOPE } from './auth.ts'
import { DRIVE_METADATA_READONLY_SCOPE } from './drive-files.ts'
import { createSheetsHandler } from './handler.ts'
import { createManager } from './manager.ts'
import type { SheetsStore } from './store.ts'
import { sheetsClient, staticAuth, testStore, type ManualClock } from './test-support.ts'

const ROOT = 'http://sheets.test/'
const SHEETS_ONLY = 'test-token'
const DRIVE = 'drive-token'
const BOTH = 'both-token'
let store: SheetsStore
let clock: ManualClock
let id: string
const server = setupServer(mswHandlerFor(ROOT, (request) => createSheetsHandler(store)(request)))

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(() => {
  ;({ store, clock } = testStore({ quota: { readPerUser: 2, writePerUser: 60, readPerProject: 300, writePerProject: 300 } }))
  store.auth.addStaticToken(DRIVE, { scopes: [DRIVE_METADATA_READONLY_SCOPE] })
  store.auth.addStaticToken(BOTH, { scopes: [SPREADSHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] })
  id = store.createSpreadsheet({ title: 'Team time' }).spreadsheetId
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Google's JSON, read field by field
type Body = Record<string, any>

async function files(fileId: string, query = '?fields=version,modifiedTime', token = DRIVE) {
  const response = await fetch(`${ROOT}drive/v3/files/${fileId}${query}`, { headers: { authorization: `Bearer ${token}` } })
  return { status: response.status, body: (await response.json()) as Body }
}

const version = async () => Number((await files(id)).body.version)

describe('Drive files.get on a spreadsheet', () => {
  it('answers the default fields without `fields`, and the asked ones with it', async () => {
    expect((await files(id, '')).body).toEqual({
      kind: 'drive#file',
      id,
      name: 'Team time',
      mimeType: 'application/vnd.google-apps.spreadsheet',
    })
    const asked = await files(id)
    expect(Object.keys(asked.body).sort()).toEqual(['modifiedTime', 'version'])
    expect(asked.body.version).toMatch(/^\d+$/)
    expect(asked.body.modifiedTime).toBe(new Date(clock.now()).toISOString())
    expect(Object.keys((await files(id, '?fields=*')).body)).toContain('version')
  })

  it('moves the version and the time with a values write and a batchUpdate through the API', async () => {
    const api = sheetsClient(ROOT, BOTH)
    const v0 = await version()
    clock.advance(60_000)
    await api.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A1',
      valueInputOption: 'RAW',
      requestBody: { values: [['x']] },
    })
    const v1 = await version()
    expect(v1).toBeGreaterThan(v0)
    expect((await files(id)).body.modifiedTime).toBe(new Date(clock.now()).toISOString())
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [{ addSheet: { properties: { title: 'Two' } } }] } })
    expect(await version()).toBeGreaterThan(v1)
  })

  it("moves the version with a person's edit, sort, insert and delete", async () => {
    const person = createManager(store)
    let last = await version()
    for (const act of [
      () => person.editCell(id, 'Sheet1', 'A2', 'typed'),
      () => person.insertRows(id, 'Sheet1', 2),
      () => person.sortTab(id, 'Sheet1', 0),
      () => person.deleteRows(id, 'Sheet1', 2),
    ]) {
      act()
      const now = await version()
      expect(now).toBeGreaterThan(last)
      last = now
    }
  })

  it('leaves the version on a read and on a refused batch, which applies nothing', async () => {
    const api = sheetsClient(ROOT, BOTH)
    const v0 = await version()
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1:B2' })
    const refused = await api.spreadsheets
      .batchUpdate({
        spreadsheetId: id,
        requestBody: { requests: [{ addSheet: { properties: { title: 'Three' } } }, { deleteSheet: { sheetId: 987654 } }] },
      })
      .catch((error: { status?: number }) => error)
    expect((refused as { status?: number }).status).toBe(400)
    expect(await version()).toBe(v0)
  })

  it('refuses a token with the Sheets scope alone, with Google’s insufficient-scopes body', async () => {
    const answer = await files(id, '?fields=version', SHEETS_ONLY)
    expect(answer.status).toBe(403)
    expect(answer.body.error.errors[0].reason).toBe('insufficientPermissions')
    expect(answer.body.error.details[0]).toMatchObject({
      reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      metadata: { service: 'drive.googleapis.com' },
    })
  })

  it('lets the Drive metadata scope call no Sheets method', async () => {
    const refused = await sheetsClient(ROOT, DRIVE)
      .spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
      .catch((error: { status?: number }) => error)
    expect((refused as { status?: number }).status).toBe(403)
  })

  it('answers 401 without a valid token and 404 for a file nobody shared', async () => {
    expect((await files(id, '', 'no-such-token')).status).toBe(401)
    const missing = await files('nope123456', '')
    expect(missing.status).toBe(404)
    expect(missing.body.error.errors[0]).toMatchObject({ reason: 'notFound', location: 'fileId', message: 'File not found: nope123456.' })
  })

  it('spends none of the Sheets quota', async () => {
    for (let i = 0; i < 5; i++) expect((await files(id)).status).toBe(200)
    const api = sheetsClient(ROOT, BOTH)
    // The fake allows two reads a minute here: both are still there.
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
  })

  it('is answered to google-auth-library’s own request, as the tool sends it', async () => {
    const answer = await staticAuth(DRIVE).request<{ version: string }>({ url: `${ROOT}drive/v3/files/${id}?fields=version,modifiedTime` })
    expect(answer.data.version).toBe(String(await version()))
  })

  it('fails as injected, for a test of a client that meets a failing Drive', async () => {
    store.faults.inject({ status: 503, method: 'DriveFilesGet' })
    expect((await files(id)).status).toBe(503)
    expect((await files(id)).status).toBe(200)
  })
})
