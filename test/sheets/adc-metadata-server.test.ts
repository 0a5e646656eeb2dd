/**
 * Application default credentials, the third place of Google's order: the service account the metadata server
 * returns, reached through google-auth-library (gcp-metadata's detection, its Compute client) with
 * GCE_METADATA_HOST naming the metadata counterpart in msw; its tokens call the Sheets fake. Every test pins
 * GCE_METADATA_HOST and METADATA_SERVER_DETECTION, so gcp-metadata never pings Google's address (the ping it does
 * send goes to msw in this process, well inside the 3 s gcp-metadata gives it).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gcpMetadata } from 'google-auth-library'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createMetadataHandler } from '../../counterparts/google-metadata/handler.ts'
import { createMetadataStore, type AttachedServiceAccount, type MetadataStore } from '../../counterparts/google-metadata/store.ts'
import { metadataEnv } from '../../counterparts/google-metadata/server.ts'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { HttpError, isTimelineSheetsError } from '../../src/errors.ts'
import { SHEETS_SCOPE } from '../../src/sheets/google/auth.ts'
import { signInWithApplicationDefault } from '../../src/sheets/google/adc.ts'
import { directClient } from './google-fixture.ts'

const ROOT = 'http://sheets.test/'
const METADATA = 'http://metadata.test/'
const EMAIL = 'sync-job@team-time.iam.gserviceaccount.com'
let sheets: SheetsStore
let metadata: MetadataStore
let spreadsheetId: string
let dir: string

function attach(account: AttachedServiceAccount | null) {
  metadata = createMetadataStore({
    serviceAccount: account,
    mint: (email, scopes) => ({ accessToken: sheets.auth.issueToken(email, scopes), expiresIn: 3599 }),
  })
}

const server = setupServer(
  mswHandlerFor(ROOT, (request) => createSheetsHandler(sheets)(request)),
  mswHandlerFor(METADATA, (request) => createMetadataHandler(metadata)(request)),
)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(async () => {
  sheets = createSheetsStore({ seed: 7, quota: false })
  spreadsheetId = sheets.createSpreadsheet({ title: 'Team time' }).spreadsheetId
  attach({ email: EMAIL })
  dir = await mkdtemp(path.join(tmpdir(), 'ts-adc-metadata-'))
  for (const [name, value] of Object.entries(metadataEnv('metadata.test', 'ping-only'))) vi.stubEnv(name, value)
  gcpMetadata.resetIsAvailableCache()
})
afterEach(async () => {
  server.resetHandlers()
  vi.unstubAllEnvs()
  await rm(dir, { recursive: true, force: true })
})

/** No GOOGLE_APPLICATION_CREDENTIALS and an empty home: Google's first two places are empty. */
/** A file of a type no sign-in takes. */
const sheetsKeyless = { type: 'impersonated_service_account' }

const nothingLocal = () => signInWithApplicationDefault({ env: { HOME: dir }, platform: 'linux', home: dir })

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('application default credentials: the attached service account, from the metadata server', () => {
  it('signs in as the attached account with no credential file, and its token calls the Sheets API', async () => {
    const signIn = await nothingLocal()
    expect(signIn).toMatchObject({ mode: 'metadata-server', principal: EMAIL })
    const { data } = await directClient(signIn.client, ROOT).spreadsheets.get({ spreadsheetId })
    expect(data.properties?.title).toBe('Team time')
    const token = metadata.requests().find((r) => r.path.endsWith('/token'))
    expect(token?.flavor).toBe('Google')
    expect(new URLSearchParams(token?.query).get('scopes')).toBe(SHEETS_SCOPE)
    expect(signIn.secrets()).toEqual(expect.arrayContaining([...metadata.issued()]))
  })

  it('asks for every scope the sign-in needs (the watch adds Drive metadata)', async () => {
    const drive = 'https://www.googleapis.com/auth/drive.metadata.readonly'
    const signIn = await signInWithApplicationDefault({ env: { HOME: dir }, platform: 'linux', scopes: [SHEETS_SCOPE, drive] })
    await signIn.client.getAccessToken()
    const token = metadata.requests().find((r) => r.path.endsWith('/token'))
    expect(new URLSearchParams(token?.query).get('scopes')).toBe(`${SHEETS_SCOPE},${drive}`)
  })

  it('is the last place: asked only when neither GOOGLE_APPLICATION_CREDENTIALS nor gcloud’s file gives one', async () => {
    expect((await nothingLocal()).mode).toBe('metadata-server')
    const asked = metadata.requests().length
    const user = { type: 'authorized_user', client_id: 'c', client_secret: 's', refresh_token: 'r' }
    const gcloud = path.join(dir, '.config', 'gcloud')
    await mkdir(gcloud, { recursive: true })
    await writeFile(path.join(gcloud, 'application_default_credentials.json'), JSON.stringify(user))
    expect((await nothingLocal()).mode).toBe('authorized-user')
    const named = path.join(dir, 'named.json')
    await writeFile(named, JSON.stringify(sheetsKeyless))
    const error = await caught(signInWithApplicationDefault({ env: { GOOGLE_APPLICATION_CREDENTIALS: named, HOME: dir } }))
    // The named file decides, even when it is not usable: gcloud's file and the metadata server are not tried.
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_CONFIG_INVALID')
    expect((error as Error).message).toContain(named)
    expect(metadata.requests().length).toBe(asked)
  })

  it('says no service account is attached, naming the server, when the metadata server has none', async () => {
    attach(null)
    const error = await caught(nothingLocal())
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_REQUIRED')
    expect((error as Error).message).toContain('no service account attached')
    expect((error as Error).message).toContain('metadata.test')
    expect((error as { hint: string }).hint).toContain('GOOGLE_APPLICATION_CREDENTIALS')
  })

  it('a refused token request is a sign-in failure; a 503 is Google having trouble, for the retry policy', async () => {
    metadata.fail({ pathEnd: '/token', status: 403 })
    const signIn = await nothingLocal()
    const refused = await caught(signIn.client.getAccessToken())
    expect(isTimelineSheetsError(refused) && refused.code).toBe('TS_AUTH_FAILED')
    expect((refused as Error).message).toMatch(/metadata server at http:\/\/metadata\.test refused an access token for .*\(HTTP 403\)/)
    metadata.fail({ pathEnd: '/token', status: 503 })
    const busy = await caught(signIn.client.getAccessToken())
    expect(busy).toBeInstanceOf(HttpError)
    expect((busy as HttpError).status).toBe(503)
    // Once: gaxios' own retries are off, the one retry policy decides.
    expect(
      metadata
        .requests()
        .filter((r) => r.path.endsWith('/token'))
        .map((r) => r.status),
    ).toEqual([403, 503])
  })

  it('finds no credentials when nothing answers as a metadata server, and says where it looked', async () => {
    // A server that answers 200 but is no metadata server (no Metadata-Flavor: Google on its answers).
    server.use(http.all(`${METADATA}*`, () => HttpResponse.text('hello')))
    const error = await caught(nothingLocal())
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_REQUIRED')
    expect((error as Error).message).toContain('No Google credentials found')
    expect((error as Error).message).toContain(path.join(dir, '.config', 'gcloud', 'application_default_credentials.json'))
    expect((error as Error).message).toContain('http://metadata.test')
    expect((error as { hint: string }).hint).toMatch(
      /GOOGLE_APPLICATION_CREDENTIALS.*gcloud auth application-default login.*service account is attached.*timeline-sheets login/s,
    )
  })

  it('asks no metadata server at all under METADATA_SERVER_DETECTION=none', async () => {
    vi.stubEnv('METADATA_SERVER_DETECTION', 'none')
    const error = await caught(nothingLocal())
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_REQUIRED')
    expect(metadata.requests()).toEqual([])
  })

  it('names METADATA_SERVER_DETECTION when it holds a value gcp-metadata does not know', async () => {
    vi.stubEnv('METADATA_SERVER_DETECTION', 'sometimes')
    const error = await caught(nothingLocal())
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_CONFIG_INVALID')
    expect((error as Error).message).toContain('METADATA_SERVER_DETECTION')
    expect(metadata.requests()).toEqual([])
  })
})
