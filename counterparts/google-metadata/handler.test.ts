import { describe, expect, it } from 'vitest'
import { createMetadataHandler } from './handler.ts'
import { createMetadataStore, type AttachedServiceAccount } from './store.ts'

const EMAIL = 'runner@proj.iam.gserviceaccount.com'
const SHEETS = 'https://www.googleapis.com/auth/spreadsheets'

function server(account: AttachedServiceAccount | null = { email: EMAIL }) {
  let n = 0
  const store = createMetadataStore({
    serviceAccount: account,
    mint: (email, scopes) => ({ accessToken: `tok-${++n}-${email}-${scopes.join('+')}`, expiresIn: 3599 }),
  })
  const handler = createMetadataHandler(store)
  const get = (path: string, headers: Record<string, string> = { 'Metadata-Flavor': 'Google' }) =>
    handler(new Request(`http://metadata.test/computeMetadata/v1/${path}`, { headers }))
  return { store, get }
}

describe('metadata-server counterpart', () => {
  it('answers the detection ping and the project with Metadata-Flavor: Google, which gcp-metadata requires', async () => {
    const { get } = server()
    const ping = await get('instance')
    expect(ping.status).toBe(200)
    expect(ping.headers.get('metadata-flavor')).toBe('Google')
    expect(await (await get('project/project-id')).text()).toBe('timeline-sheets-fake')
    expect(await (await get('universe/universe-domain')).text()).toBe('googleapis.com')
  })

  it('refuses a request without Metadata-Flavor: Google, or one that came through a proxy, with 403', async () => {
    const { get, store } = server()
    expect((await get('instance/service-accounts/default/token', {})).status).toBe(403)
    expect((await get('instance/service-accounts/default/token', { 'Metadata-Flavor': 'google' })).status).toBe(403)
    expect(
      (await get('instance/service-accounts/default/token', { 'Metadata-Flavor': 'Google', 'X-Forwarded-For': '10.0.0.1' })).status,
    ).toBe(403)
    expect(store.issued()).toEqual([])
  })

  it('hands out a token with the scopes asked for, and the attached account by e-mail or as default', async () => {
    const { get, store } = server()
    const token = await get(`instance/service-accounts/default/token?scopes=${encodeURIComponent(`${SHEETS},x`)}`)
    expect(token.headers.get('content-type')).toBe('application/json')
    expect(await token.json()).toEqual({ access_token: `tok-1-${EMAIL}-${SHEETS}+x`, expires_in: 3599, token_type: 'Bearer' })
    expect(await (await get(`instance/service-accounts/${EMAIL}/email`)).text()).toBe(EMAIL)
    expect(await (await get('instance/service-accounts/default/scopes')).text()).toBe('https://www.googleapis.com/auth/cloud-platform\n')
    expect(store.issued()).toEqual([`tok-1-${EMAIL}-${SHEETS}+x`])
  })

  it("keeps a VM's access scopes whatever a request asks for, when told to", async () => {
    const { get } = server({ email: EMAIL, scopes: ['https://www.googleapis.com/auth/cloud-platform'], honoursRequestedScopes: false })
    const body = (await (await get(`instance/service-accounts/default/token?scopes=${SHEETS}`)).json()) as { access_token: string }
    expect(body.access_token).toBe(`tok-1-${EMAIL}-https://www.googleapis.com/auth/cloud-platform`)
  })

  it('answers 404 for the token and e-mail when no service account is attached, and for another account or path', async () => {
    const none = server(null)
    expect((await none.get('instance/service-accounts/default/token')).status).toBe(404)
    expect((await none.get('instance/service-accounts/default/email')).status).toBe(404)
    expect(await (await none.get('instance/service-accounts/')).text()).toBe('')
    const one = server()
    expect((await one.get('instance/service-accounts/other@x.iam.gserviceaccount.com/token')).status).toBe(404)
    expect((await one.get('instance/nothing-here')).status).toBe(404)
  })

  it('answers an injected fault as many times as asked, then as before', async () => {
    const { get, store } = server()
    store.fail({ pathEnd: '/token', status: 503, times: 2 })
    expect((await get('instance/service-accounts/default/token')).status).toBe(503)
    expect((await get('instance/service-accounts/default/email')).status).toBe(200)
    expect((await get('instance/service-accounts/default/token')).status).toBe(503)
    expect((await get('instance/service-accounts/default/token')).status).toBe(200)
    expect(store.requests().map((r) => r.status)).toEqual([503, 200, 503, 200])
  })
})
