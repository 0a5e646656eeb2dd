/**
 * The Google backend and sign-in over real sockets: the Sheets fake on a
 * loopback port, the installed-app flow with a scripted browser (PKCE, state,
 * loopback redirect), and the contract suite with manager edits sent through
 * the API the way the real-spreadsheet run sends them. No msw in this file.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import { isTimelineSheetsError } from '../../src/errors.ts'
import { signInWithInstalledApp, signInWithStaticToken, type InstalledAppOptions } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { describeSpreadsheetContract } from '../contract/spreadsheet-contract.ts'
import { directClient, managerActionsOverApi, resetSpreadsheet } from './google-fixture.ts'

let fake: SheetsFake
let dir: string

beforeAll(async () => {
  fake = await startSheetsFake({ quota: false })
  fake.store.auth.registerOAuthClient({ clientId: 'desktop-client', clientSecret: 'desktop-secret' })
})
afterAll(async () => {
  await fake.close()
})
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ts-google-loopback-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A browser that follows the consent page's redirect to our loopback callback. */
function scriptedBrowser(visits: string[], tamper?: (location: URL) => void) {
  return async (url: string) => {
    visits.push(url)
    const consent = await fetch(url, { redirect: 'manual' })
    const location = new URL(consent.headers.get('location') ?? '')
    tamper?.(location)
    await fetch(location)
  }
}

function options(visits: string[], extra: Partial<InstalledAppOptions> = {}): InstalledAppOptions {
  return {
    clientId: 'desktop-client',
    clientSecret: 'desktop-secret',
    tokenFile: path.join(dir, 'google-token.json'),
    endpoints: { authorizationUrl: fake.authUrl, tokenUrl: fake.tokenUrl },
    openBrowser: scriptedBrowser(visits),
    timeoutMs: 5_000,
    ...extra,
  }
}

describe('installed-app sign-in', () => {
  it('runs PKCE S256 with state on a 127.0.0.1 redirect, stores the refresh token 0600, and later runs reuse it', async () => {
    const visits: string[] = []
    const first = await signInWithInstalledApp(options(visits))
    expect(visits).toHaveLength(1)
    const authorize = new URL(visits[0]!)
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/)
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    expect(authorize.searchParams.get('scope')).toBe('https://www.googleapis.com/auth/spreadsheets')
    const tokenFile = path.join(dir, 'google-token.json')
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600)
    const stored = JSON.parse(await readFile(tokenFile, 'utf8')) as { refresh_token: string }
    expect(first.secrets()).toContain(stored.refresh_token)

    const spreadsheetId = fake.store.createSpreadsheet().spreadsheetId
    const viaFirst = createGoogleSpreadsheet({ spreadsheetId, auth: first, rootUrl: fake.rootUrl })
    expect((await viaFirst.read(['Sheet1'])).tabs['Sheet1']!.exists).toBe(true)

    // A later run: no browser, the stored refresh token buys an access token.
    const later = await signInWithInstalledApp(
      options(visits, {
        openBrowser: async () => {
          throw new Error('must not open a browser')
        },
      }),
    )
    const before = fake.store.auth.tokenRequests().length
    const viaLater = createGoogleSpreadsheet({ spreadsheetId, auth: later, rootUrl: fake.rootUrl })
    expect((await viaLater.read(['Sheet1'])).tabs['Sheet1']!.exists).toBe(true)
    const grants = fake.store.auth
      .tokenRequests()
      .slice(before)
      .map((r) => r.grantType)
    expect(grants).toEqual(['refresh_token'])
  })

  it('refuses an answer whose state does not match, and stores nothing', async () => {
    const visits: string[] = []
    const forged = scriptedBrowser(visits, (location) => location.searchParams.set('state', 'forged'))
    const error = await signInWithInstalledApp(options(visits, { openBrowser: forged })).catch((e: unknown) => e)
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_FAILED')
    expect((error as Error).message).toContain('wrong state')
    await expect(stat(path.join(dir, 'google-token.json'))).rejects.toThrow()
  })

  it('reports a declined consent and a browser that never comes back', async () => {
    const visits: string[] = []
    const declined = scriptedBrowser(visits, (location) => {
      location.searchParams.delete('code')
      location.searchParams.set('error', 'access_denied')
    })
    const denied = await signInWithInstalledApp(options(visits, { openBrowser: declined })).catch((e: unknown) => e)
    expect((denied as { hint?: string }).hint).toContain('Consent was declined')
    const silent = await signInWithInstalledApp(options(visits, { openBrowser: async () => undefined, timeoutMs: 200 })).catch(
      (e: unknown) => e,
    )
    expect((silent as Error).message).toContain('No answer from the browser')
  })

  it('a code the token endpoint refuses (wrong client secret) fails with TS_AUTH_FAILED', async () => {
    const visits: string[] = []
    const error = await signInWithInstalledApp(options(visits, { clientSecret: 'wrong' })).catch((e: unknown) => e)
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_FAILED')
    expect((error as Error).message).not.toContain('wrong')
  })
})

describeSpreadsheetContract('google (Sheets fake on loopback, manager edits through the API)', async () => {
  const spreadsheetId = fake.store.createSpreadsheet({ sheets: [{ title: 'Sheet1' }, { title: 'Leftover' }] }).spreadsheetId
  const auth = signInWithStaticToken(fake.staticToken)
  const api = directClient(auth.client, fake.rootUrl)
  await resetSpreadsheet(api, spreadsheetId)
  return {
    spreadsheet: createGoogleSpreadsheet({ spreadsheetId, auth, rootUrl: fake.rootUrl }),
    cleanup: async () => undefined,
    actAsManager: managerActionsOverApi(api, spreadsheetId),
  }
})
