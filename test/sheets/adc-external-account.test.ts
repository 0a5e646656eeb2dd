/**
 * Application default credentials from an external_account file (workload identity federation): the subject
 * token where credential_source says, exchanged at the file's token_url (the Sheets fake's STS in msw) by
 * google-auth-library's own client, for a token the Sheets API accepts; its refusals in our words, and the
 * exchange kept on the transport (no redirect followed with the subject token).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { http, HttpResponse } from 'msw'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore, type SheetsStore } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor } from '../../counterparts/mount.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import { createTransport } from '../../src/http/transport.ts'
import { SHEETS_SCOPE } from '../../src/sheets/google/auth.ts'
import { signInWithApplicationDefault } from '../../src/sheets/google/adc.ts'
import { directClient } from './google-fixture.ts'

const ROOT = 'http://sheets.test/'
const AUDIENCE = '//iam.googleapis.com/projects/123456/locations/global/workloadIdentityPools/ci/providers/github'
const SUBJECT_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.subject-token-of-the-ci-job.sig'
let sheets: SheetsStore
let spreadsheetId: string
let dir: string
const elsewhere: string[] = []

const server = setupServer(
  mswHandlerFor(ROOT, (request) => createSheetsHandler(sheets)(request)),
  http.all('http://elsewhere.test/*', async ({ request }) => {
    elsewhere.push(await request.text())
    return HttpResponse.json({ access_token: 'stolen', expires_in: 3600 })
  }),
)
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())
beforeEach(async () => {
  sheets = createSheetsStore({ seed: 9, quota: false })
  spreadsheetId = sheets.createSpreadsheet({ title: 'Team time' }).spreadsheetId
  sheets.auth.registerWorkloadPool({ audience: AUDIENCE, subjects: { [SUBJECT_TOKEN]: 'principal://ci/repo:team/time' } })
  dir = await mkdtemp(path.join(tmpdir(), 'ts-adc-external-'))
  await writeFile(path.join(dir, 'subject-token'), SUBJECT_TOKEN)
  elsewhere.length = 0
  // Should anything fall through to the metadata step, it must not reach Google's address.
  vi.stubEnv('GCE_METADATA_HOST', '127.0.0.1:9')
  vi.stubEnv('METADATA_SERVER_DETECTION', 'none')
})
afterEach(async () => {
  server.resetHandlers()
  vi.unstubAllEnvs()
  await rm(dir, { recursive: true, force: true })
})

async function externalAccountFile(fields: Record<string, unknown> = {}): Promise<string> {
  const file = path.join(dir, 'wif.json')
  const config = {
    type: 'external_account',
    audience: AUDIENCE,
    subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    token_url: `${ROOT}v1/token`,
    credential_source: { file: path.join(dir, 'subject-token'), format: { type: 'text' } },
    ...fields,
  }
  await writeFile(file, JSON.stringify(config))
  return file
}

const signIn = (file: string) =>
  signInWithApplicationDefault({ env: { GOOGLE_APPLICATION_CREDENTIALS: file, HOME: dir }, transport: createTransport() })

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('application default credentials: an external_account file (workload identity federation)', () => {
  it("exchanges the file's subject token at its token_url for a token the Sheets API takes", async () => {
    const auth = await signIn(await externalAccountFile())
    expect(auth.mode).toBe('external-account')
    const { data } = await directClient(auth.client, ROOT).spreadsheets.get({ spreadsheetId })
    expect(data.properties?.title).toBe('Team time')
    const exchange = sheets.auth.tokenRequests().find((r) => r.grantType === 'urn:ietf:params:oauth:grant-type:token-exchange')
    expect(exchange).toMatchObject({ status: 200, form: { audience: AUDIENCE, subject_token: SUBJECT_TOKEN, scope: SHEETS_SCOPE } })
    expect(auth.secrets()).toContain(auth.client.credentials.access_token)
  })

  it('names the file and what the exchange refused when the provider does not know the audience', async () => {
    const file = await externalAccountFile({ audience: `${AUDIENCE}-gone` })
    const auth = await signIn(file)
    const error = await caught(auth.client.getAccessToken())
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_FAILED')
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toContain('invalid_target')
    expect((error as { hint: string }).hint).toContain('create-cred-config')
  })

  it('refuses a file without the fields every external account has, naming the field', async () => {
    const file = await externalAccountFile({ audience: undefined })
    const error = await caught(signIn(file))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_CONFIG_INVALID')
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toContain('audience')
  })

  it('follows no redirect of the token exchange: the subject token never reaches another host', async () => {
    server.use(
      http.post(`${ROOT}v1/token`, () => new HttpResponse(null, { status: 307, headers: { location: 'http://elsewhere.test/token' } })),
    )
    const auth = await signIn(await externalAccountFile())
    const error = await caught(auth.client.getAccessToken())
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_UNSAFE_REDIRECT')
    expect(elsewhere).toEqual([])
  })
})
