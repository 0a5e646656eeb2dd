/**
 * The fake's token exchange (Google's STS, workload identity federation): what it issues is a token the fake's
 * API takes; each refusal is an OAuth-style body. Driven through the fake's handler directly.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { SPREADSHEETS_SCOPE } from './auth.ts'
import { createSheetsHandler } from './handler.ts'
import { createSheetsStore, type SheetsStore } from './store.ts'
import { TOKEN_EXCHANGE_GRANT } from './sts.ts'

const AUDIENCE = '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/ci/providers/gh'
let store: SheetsStore

beforeEach(() => {
  store = createSheetsStore({ seed: 4, quota: false })
  store.auth.registerWorkloadPool({ audience: AUDIENCE, subjects: { 'subject-1': 'principal://ci/job' } })
})

function exchange(fields: Record<string, string | undefined> = {}) {
  const form: Record<string, string> = {}
  const all = {
    grant_type: TOKEN_EXCHANGE_GRANT,
    audience: AUDIENCE,
    requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    subject_token: 'subject-1',
    scope: SPREADSHEETS_SCOPE,
    ...fields,
  }
  for (const [name, value] of Object.entries(all)) if (value !== undefined) form[name] = value
  return createSheetsHandler(store)(new Request('http://sheets.test/v1/token', { method: 'POST', body: new URLSearchParams(form) }))
}

describe('token exchange (STS)', () => {
  it("issues an access token for the subject token's principal, with the scopes asked, that the API takes", async () => {
    const response = await exchange()
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      expires_in: 3599,
    })
    expect(store.auth.check(String(body.access_token), true)).toMatchObject({ ok: true, grant: { subject: 'principal://ci/job' } })
  })

  it.each([
    ['an audience no pool provider has', 'invalid_target', { audience: `${AUDIENCE}-x` }],
    ['a subject token the provider does not take', 'invalid_grant', { subject_token: 'subject-2' }],
    ['another requested token type', 'invalid_request', { requested_token_type: 'urn:ietf:params:oauth:token-type:id_token' }],
    ['an unknown subject token type', 'invalid_request', { subject_token_type: 'urn:example:other' }],
    ['no scope', 'invalid_scope', { scope: undefined }],
  ])('refuses %s with 400 %s', async (_what, error, fields) => {
    const response = await exchange(fields)
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe(error)
    expect(store.auth.tokenRequests().at(-1)).toMatchObject({ grantType: TOKEN_EXCHANGE_GRANT })
  })
})
