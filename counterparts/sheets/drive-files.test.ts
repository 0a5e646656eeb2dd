/**
 * Drive `files.get` on the fake's spreadsheets, as Google documents it: the version moves with every change
 * applied (through the API or by a person) and with nothing else, fields decide what is answered, Drive's
 * scopes and errors, and no Sheets quota spent.
 */
import { http, passthrough } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { mswHandlerFor } from '../mount.ts'
import { SPREADSHEETS_SCOPE } from './auth.ts'
import { DRIVE_METADATA_READONLY_SCOPE, driveVersionOf } from './drive-files.ts'
import { createSheetsHandler } from './handler.ts'
import { createManager } from './manager.ts'
import { startSheetsFake } from './server.ts'
import type { SheetsStore, SheetsStoreOptions } from './store.ts'
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
beforeEach(() => setUp())

function setUp(options: SheetsStoreOptions = {}): void {
  ;({ store, clock } = testStore({ quota: { readPerUser: 2, writePerUser: 60, readPerProject: 300, writePerProject: 300 }, ...options }))
  store.auth.addStaticToken(DRIVE, { scopes: [DRIVE_METADATA_READONLY_SCOPE] })
  store.auth.addStaticToken(BOTH, { scopes: [SPREADSHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] })
  id = store.createSpreadsheet({ title: 'Team time' }).spreadsheetId
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Google's JSON, read field by field
type Body = Record<string, any>

/** files.get with `token` (null: no Authorization header). */
async function files(fileId: string, query = '?fields=version,modifiedTime', token: string | null = DRIVE) {
  const response = await fetch(`${ROOT}drive/v3/files/${fileId}${query}`, {
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  })
  return { status: response.status, body: (await response.json()) as Body }
}

const version = async () => Number((await files(id)).body.version)

async function statusOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise
    return 200
  } catch (error) {
    return (error as { status?: number }).status
  }
}

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

  it('answers every field it models for `*`, a version of digits in a JSON string, and nothing of `version` without asking', async () => {
    expect((await files(id, '?fields=*')).body).toEqual({
      kind: 'drive#file',
      id,
      name: 'Team time',
      mimeType: 'application/vnd.google-apps.spreadsheet',
      version: '1',
      modifiedTime: '2026-03-02T09:00:00.000Z',
    })
    expect((await files(id, '?fields=version')).body).toEqual({ version: '1' })
    expect((await files(id, '?fields=id,name')).body).toEqual({ id, name: 'Team time' })
    expect((await files(id, '')).body).not.toHaveProperty('version')
  })

  it('refuses a field the File resource does not have, and leaves out one it has but a spreadsheet does not', async () => {
    // `files(version)` is files.list's mask: a client that sends it to files.get gets Drive's 400.
    for (const [mask, name] of [
      ['files(version)', 'files'],
      ['version,revision', 'revision'],
    ]) {
      const refused = await files(id, `?fields=${encodeURIComponent(mask!)}`)
      expect(refused.status).toBe(400)
      expect(refused.body).toEqual({
        error: {
          code: 400,
          message: `Invalid field selection ${name}`,
          errors: [
            {
              message: `Invalid field selection ${name}`,
              domain: 'global',
              reason: 'invalidParameter',
              location: 'fields',
              locationType: 'parameter',
            },
          ],
        },
      })
    }
    expect(await files(id, '?fields=size,md5Checksum')).toEqual({ status: 200, body: {} })
  })

  it('is served under any root prefix, as the Sheets routes are', async () => {
    const response = await fetch(`${ROOT}some/prefix/drive/v3/files/${id}?fields=version`, {
      headers: { authorization: `Bearer ${DRIVE}` },
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ version: '1' })
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

  it('moves the version with every kind of write that changes something: append, clear, batch writes, metadata, sort', async () => {
    const api = sheetsClient(ROOT, BOTH)
    const writes: [string, () => Promise<unknown>][] = [
      [
        'append',
        () =>
          api.spreadsheets.values.append({
            spreadsheetId: id,
            range: 'Sheet1!A1',
            valueInputOption: 'RAW',
            requestBody: { values: [['b'], ['a'], ['c']] },
          }),
      ],
      [
        'values.batchUpdate',
        () =>
          api.spreadsheets.values.batchUpdate({
            spreadsheetId: id,
            requestBody: { valueInputOption: 'RAW', data: [{ range: 'Sheet1!B1', values: [['c']] }] },
          }),
      ],
      ['clear', () => api.spreadsheets.values.clear({ spreadsheetId: id, range: 'Sheet1!B1', requestBody: {} })],
      ['batchClear', () => api.spreadsheets.values.batchClear({ spreadsheetId: id, requestBody: { ranges: ['Sheet1!A3'] } })],
      [
        'createDeveloperMetadata',
        () =>
          api.spreadsheets.batchUpdate({
            spreadsheetId: id,
            requestBody: {
              requests: [
                {
                  createDeveloperMetadata: {
                    developerMetadata: { metadataKey: 'k', metadataValue: 'v', visibility: 'DOCUMENT', location: { spreadsheet: true } },
                  },
                },
              ],
            },
          }),
      ],
      [
        'sortRange',
        () =>
          api.spreadsheets.batchUpdate({
            spreadsheetId: id,
            requestBody: {
              requests: [{ sortRange: { range: { sheetId: 0, startRowIndex: 0, endRowIndex: 3 }, sortSpecs: [{ dimensionIndex: 0 }] } }],
            },
          }),
      ],
    ]
    let last = await version()
    for (const [name, write] of writes) {
      clock.advance(1_000)
      await write()
      const now = await files(id)
      expect(Number(now.body.version), name).toBeGreaterThan(last)
      expect(now.body.modifiedTime, name).toBe(new Date(clock.now()).toISOString())
      last = Number(now.body.version)
    }
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

  it("moves the time with a person's edit, by the store's clock, and the test reads the version the client sees", async () => {
    clock.advance(5 * 60_000)
    createManager(store).pasteBlock(id, 'Sheet1', 'A1', [['pasted', 2]])
    const seen = await files(id)
    expect(seen.body.modifiedTime).toBe(new Date(clock.now()).toISOString())
    expect(driveVersionOf(store, id)).toBe(seen.body.version)
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

  it('leaves the version and the time on reads, refused writes and writes that change nothing', async () => {
    const api = sheetsClient(ROOT, BOTH)
    const before = await files(id)
    clock.advance(60_000)
    await api.spreadsheets.get({ spreadsheetId: id })
    await api.spreadsheets.values.batchGet({ spreadsheetId: id, ranges: ['Sheet1!A1:C3'] })
    // Past the grid: refused, nothing written.
    expect(
      await statusOf(
        api.spreadsheets.values.update(
          { spreadsheetId: id, range: 'Sheet1!A1000', valueInputOption: 'RAW', requestBody: { values: [['x'], ['y']] } },
          { retry: false },
        ),
      ),
    ).toBe(400)
    // A clear of cells that hold nothing, and a batch of no ranges: nothing changes.
    await api.spreadsheets.values.clear({ spreadsheetId: id, range: 'Sheet1!D4:E5', requestBody: {} })
    await api.spreadsheets.values.batchClear({ spreadsheetId: id, requestBody: { ranges: [] } })
    expect(await files(id)).toEqual(before)
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

  it('answers the Sheets-only token exactly Google’s insufficient-scopes body', async () => {
    const answer = await fetch(`${ROOT}drive/v3/files/${id}?fields=version`, { headers: { authorization: `Bearer ${SHEETS_ONLY}` } })
    expect(await answer.text()).toBe(
      '{"error":{"code":403,"message":"Request had insufficient authentication scopes.","errors":[{"message":"Insufficient Permission","domain":"global","reason":"insufficientPermissions"}],"status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT","domain":"googleapis.com","metadata":{"service":"drive.googleapis.com","method":"google.apps.drive.v3.DriveFiles.Get"}}]}}',
    )
  })

  it('accepts each scope Drive lists for files.get', async () => {
    for (const scope of [
      'drive',
      'drive.file',
      'drive.readonly',
      'drive.metadata',
      'drive.metadata.readonly',
      'drive.appdata',
      'drive.photos.readonly',
      'drive.meet.readonly',
    ]) {
      const token = store.auth.issueToken('someone@test', [`https://www.googleapis.com/auth/${scope}`])
      expect((await files(id, '?fields=version', token)).status, scope).toBe(200)
    }
  })

  it('lets the Drive metadata scope call no Sheets method', async () => {
    const refused = await sheetsClient(ROOT, DRIVE)
      .spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
      .catch((error: { status?: number }) => error)
    expect((refused as { status?: number }).status).toBe(403)
  })

  it('refuses the Drive metadata scope alone a spreadsheets.get and a write, with the Sheets insufficient-scopes body', async () => {
    const api = sheetsClient(ROOT, DRIVE)
    const read = await fetch(`${ROOT}v4/spreadsheets/${id}`, { headers: { authorization: `Bearer ${DRIVE}` } })
    expect(read.status).toBe(403)
    expect(((await read.json()) as Body).error.details[0]).toMatchObject({
      reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      metadata: { service: 'sheets.googleapis.com', method: 'google.apps.sheets.v4.SpreadsheetsService.GetSpreadsheet' },
    })
    expect(
      await statusOf(
        api.spreadsheets.values.update(
          { spreadsheetId: id, range: 'Sheet1!A1', valueInputOption: 'RAW', requestBody: { values: [['x']] } },
          { retry: false },
        ),
      ),
    ).toBe(403)
    expect(await version()).toBe(1)
  })

  it('answers 401 without a valid token and 404 for a file nobody shared', async () => {
    expect((await files(id, '', 'no-such-token')).status).toBe(401)
    const missing = await files('nope123456', '')
    expect(missing.status).toBe(404)
    expect(missing.body.error.errors[0]).toMatchObject({ reason: 'notFound', location: 'fileId', message: 'File not found: nope123456.' })
  })

  it('answers the 401 bodies of the Sheets routes, for the Drive service, with Drive’s errors entry', async () => {
    const help =
      'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.'
    const info = (reason: string) => ({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason,
      domain: 'googleapis.com',
      metadata: { service: 'drive.googleapis.com', method: 'google.apps.drive.v3.DriveFiles.Get' },
    })
    expect(await files(id, '', null)).toEqual({
      status: 401,
      body: {
        error: {
          code: 401,
          message: `Request is missing required authentication credential. ${help}`,
          errors: [{ message: 'Login Required.', domain: 'global', reason: 'required', location: 'Authorization', locationType: 'header' }],
          status: 'UNAUTHENTICATED',
          details: [info('CREDENTIALS_MISSING')],
        },
      },
    })
    const expired = store.auth.issueToken('someone@test', [DRIVE_METADATA_READONLY_SCOPE], 60)
    clock.advance(61_000)
    for (const token of ['no-such-token', expired]) {
      expect(await files(id, '', token)).toEqual({
        status: 401,
        body: {
          error: {
            code: 401,
            message: `Request had invalid authentication credentials. ${help}`,
            errors: [
              { message: 'Invalid Credentials', domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' },
            ],
            status: 'UNAUTHENTICATED',
            details: [info('ACCESS_TOKEN_EXPIRED')],
          },
        },
      })
    }
  })

  it('answers Drive’s 404 body for an unknown file and for one not shared with the caller, and 200 to a reader', async () => {
    const notFound = (fileId: string) => ({
      status: 404,
      body: {
        error: {
          code: 404,
          message: `File not found: ${fileId}.`,
          errors: [
            { message: `File not found: ${fileId}.`, domain: 'global', reason: 'notFound', location: 'fileId', locationType: 'parameter' },
          ],
        },
      },
    })
    expect(await files('1NoSuchFile', '?fields=version')).toEqual(notFound('1NoSuchFile'))
    const shared = store.createSpreadsheet({ title: 'Private', sharedWith: { 'reader@test': 'reader' } }).spreadsheetId
    expect(await files(shared, '?fields=version')).toEqual(notFound(shared))
    store.auth.addStaticToken('reader-token', { subject: 'reader@test', scopes: [DRIVE_METADATA_READONLY_SCOPE] })
    expect(await files(shared, '?fields=version', 'reader-token')).toEqual({ status: 200, body: { version: '1' } })
  })

  it('spends none of the Sheets quota', async () => {
    for (let i = 0; i < 5; i++) expect((await files(id)).status).toBe(200)
    const api = sheetsClient(ROOT, BOTH)
    // The fake allows two reads a minute here: both are still there.
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
  })

  it('is answered even when the Sheets read quota is spent, and counted as a DriveFilesGet', async () => {
    const api = sheetsClient(ROOT, BOTH)
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
    await api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' })
    expect(await statusOf(api.spreadsheets.values.get({ spreadsheetId: id, range: 'Sheet1!A1' }, { retry: false }))).toBe(429)
    store.resetStats()
    expect((await files(id)).status).toBe(200)
    expect(store.stats()).toMatchObject({ byMethod: { DriveFilesGet: 1 }, quotaRejections: 0 })
  })

  it('has a quota of its own, per user and minute: past it, Drive’s 403 User rate limit exceeded', async () => {
    // Two calls of 5 units each.
    setUp({ driveQuota: { unitsPerUser: 10 } })
    expect((await files(id)).status).toBe(200)
    expect((await files(id)).status).toBe(200)
    expect(await files(id)).toEqual({
      status: 403,
      body: {
        error: {
          code: 403,
          message: 'User rate limit exceeded.',
          errors: [{ message: 'User rate limit exceeded.', domain: 'usageLimits', reason: 'userRateLimitExceeded' }],
        },
      },
    })
    // Another user has a quota of their own; the Sheets quota is untouched.
    expect((await files(id, '?fields=version', store.auth.issueToken('other@test', [DRIVE_METADATA_READONLY_SCOPE]))).status).toBe(200)
    expect(await statusOf(sheetsClient(ROOT, BOTH).spreadsheets.values.get({ spreadsheetId: id, range: 'A1' }))).toBe(200)
    clock.advance(60_000)
    expect((await files(id)).status).toBe(200)
  })

  it('charges 5 quota units a call against 325,000 a minute per user: the call that reaches it is answered, the next refused', async () => {
    expect(store.options.driveQuota).toEqual({ unitsPerUser: 325_000, unitsPerProject: 1_000_000 })
    expect(store.takeDriveQuota('static-user@test', 325_000 - 10)).toBeUndefined()
    expect((await files(id)).status).toBe(200)
    expect((await files(id)).status).toBe(200)
    expect((await files(id)).body.error).toMatchObject({ code: 403, errors: [{ reason: 'userRateLimitExceeded' }] })
    clock.advance(60_000)
    expect((await files(id)).status).toBe(200)
  })

  it('has a limit per project, 1,000,000 units a minute across its users: past it, 429 RESOURCE_EXHAUSTED with the quota ErrorInfo', async () => {
    // Three users spend 975,000 units, a fourth all but 10 of the rest: two more calls fit, from anyone.
    for (const user of ['a@test', 'b@test', 'c@test']) expect(store.takeDriveQuota(user, 325_000)).toBeUndefined()
    expect(store.takeDriveQuota('d@test', 25_000 - 10)).toBeUndefined()
    expect((await files(id)).status).toBe(200)
    expect((await files(id)).status).toBe(200)
    const message =
      "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'drive.googleapis.com' for consumer 'project_number:603366585132'."
    expect(await files(id, '?fields=version', store.auth.issueToken('fresh@test', [DRIVE_METADATA_READONLY_SCOPE]))).toEqual({
      status: 429,
      body: {
        error: {
          code: 429,
          message,
          errors: [{ message, domain: 'usageLimits', reason: 'rateLimitExceeded' }],
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'RATE_LIMIT_EXCEEDED',
              domain: 'googleapis.com',
              metadata: {
                quota_limit_value: '1000000',
                service: 'drive.googleapis.com',
                consumer: 'projects/603366585132',
                quota_unit: '1/min/{project}',
                quota_location: 'global',
                quota_metric: 'drive.googleapis.com/default',
                quota_limit: 'defaultPerMinutePerProject',
              },
            },
            {
              '@type': 'type.googleapis.com/google.rpc.Help',
              links: [{ description: 'Request a higher quota limit.', url: 'https://cloud.google.com/docs/quotas/help/request_increase' }],
            },
          ],
        },
      },
    })
    // The Sheets quota is not Drive's; the next minute both Drive windows are full again.
    expect(await statusOf(sheetsClient(ROOT, BOTH).spreadsheets.values.get({ spreadsheetId: id, range: 'A1' }))).toBe(200)
    clock.advance(60_000)
    expect((await files(id)).status).toBe(200)
  })

  it('takes the limits of a project that keeps its earlier quotas, and spends nothing on a refused call', async () => {
    setUp({ driveQuota: { unitsPerUser: 100, unitsPerProject: 12 } })
    expect((await files(id)).status).toBe(200)
    expect((await files(id)).status).toBe(200)
    expect((await files(id)).status).toBe(429)
    // 10 of 12 spent: the refused call took none, so 2 units are left for a caller that asks for that few.
    expect(store.takeDriveQuota('other@test', 2)).toBeUndefined()
    expect(store.takeDriveQuota('other@test', 1)).toEqual({ scope: 'project', limit: 12 })
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

  it('answers injected faults in Drive’s shapes: 429 rate limit, 5xx backend error, a dropped connection, a late answer', async () => {
    store.faults.inject({ status: 429, method: 'DriveFilesGet' })
    expect(await files(id)).toEqual({
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Rate limit exceeded.',
          errors: [{ message: 'Rate limit exceeded.', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
        },
      },
    })
    store.faults.inject({ status: 500, method: 'DriveFilesGet' })
    expect((await files(id)).body.error.errors[0].reason).toBe('backendError')
    store.faults.inject({ status: 200, method: 'DriveFilesGet', dropUnapplied: true })
    await expect(files(id)).rejects.toThrow()
    store.faults.inject({ status: 200, method: 'DriveFilesGet', thenAnswer: { stallMs: 50 } })
    const started = performance.now()
    expect(await files(id, '?fields=version')).toEqual({ status: 200, body: { version: '1' } })
    expect(performance.now() - started).toBeGreaterThanOrEqual(45)
    expect(store.stats().faultsInjected).toBe(4)
  })

  it('leaves a Sheets fault alone when it names a Sheets method', async () => {
    store.faults.inject({ status: 503, method: 'GetValues' })
    expect((await files(id)).status).toBe(200)
    expect(await statusOf(sheetsClient(ROOT, BOTH).spreadsheets.values.get({ spreadsheetId: id, range: 'A1' }, { retry: false }))).toBe(503)
  })
})

describe('Drive files.get on the loopback mount', () => {
  it('answers the version over a real socket, to the request the tool sends', async () => {
    const fake = await startSheetsFake({ quota: false })
    // The requests go over the socket: msw lets them through.
    server.use(http.all(`${fake.rootUrl}*`, () => passthrough()))
    try {
      fake.store.auth.addStaticToken('loopback-drive', { scopes: [SPREADSHEETS_SCOPE, DRIVE_METADATA_READONLY_SCOPE] })
      const ss = fake.store.createSpreadsheet({ title: 'On a port' })
      const url = `${fake.rootUrl}drive/v3/files/${ss.spreadsheetId}?fields=version,modifiedTime&supportsAllDrives=true`
      const first = await staticAuth('loopback-drive').request<{ version: string; modifiedTime: string }>({ url })
      expect(first.data).toEqual({ version: '1', modifiedTime: new Date(ss.drive.modifiedTime).toISOString() })
      await sheetsClient(fake.rootUrl, 'loopback-drive').spreadsheets.values.update({
        spreadsheetId: ss.spreadsheetId,
        range: 'A1',
        valueInputOption: 'RAW',
        requestBody: { values: [['x']] },
      })
      const second = await staticAuth('loopback-drive').request<{ version: string }>({ url })
      expect(BigInt(second.data.version)).toBeGreaterThan(BigInt(first.data.version))
      const refused = await fetch(url, { headers: { authorization: `Bearer ${fake.staticToken}` } })
      expect(refused.status).toBe(403)
    } finally {
      server.resetHandlers()
      await fake.close()
    }
  })
})
