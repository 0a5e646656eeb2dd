/**
 * End to end: `export` with `{"mode":"adc"}` and no key file, as a CronJob on GKE, Cloud Run or a VM runs it.
 * The CLI as a subprocess signs in as the attached service account through the metadata-server counterpart
 * (GCE_METADATA_HOST), whose tokens the Sheets fake accepts; the reference Timeline server on loopback. No
 * GOOGLE_APPLICATION_CREDENTIALS, an empty home: Google's first two places hold nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { metadataEnv, startMetadataServer, type MetadataServer } from '../../counterparts/google-metadata/server.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { onlyRun, runCli, tempFolder, writeConfig } from './cli.ts'
import { storedTab } from './google-sheet.ts'

const EMAIL = 'timeline-sync@team-time.iam.gserviceaccount.com'
const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets'

let server: ReferenceServer
let fake: SheetsFake
let metadata: MetadataServer
let spreadsheetId: string
let folder: string
let configFile: string
let env: Record<string, string>

beforeAll(async () => {
  server = await startReferenceServer({
    data: { users: 2, days: 5, startDate: '2026-11-03', timeZones: ['Europe/Berlin'], otherTimelines: false },
  })
  fake = await startSheetsFake({ quota: false })
  metadata = await startMetadataServer({
    serviceAccount: { email: EMAIL },
    mint: (email, scopes) => ({ accessToken: fake.store.auth.issueToken(email, scopes), expiresIn: 3599 }),
  })
  spreadsheetId = createManager(fake.store).createSpreadsheet({ title: 'Team time' })
  folder = await tempFolder('adc-metadata')
  configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    google: { auth: { mode: 'adc' }, rootUrl: fake.rootUrl },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, timeZone: 'Europe/Berlin', window: { days: 7 } }],
  })
  env = {
    TIMELINE_PASSWORD: server.credentials.transfer!.password,
    // Nothing in Google's first two places: no named file, no gcloud folder in this home.
    GOOGLE_APPLICATION_CREDENTIALS: '',
    CLOUDSDK_CONFIG: '',
    HOME: folder,
    ...metadataEnv(metadata.host),
  }
})

afterAll(async () => {
  await server?.close()
  await fake?.close()
  await metadata?.close()
})

describe('export signing in as the attached service account (metadata server), no key file', () => {
  it('exports every activity of the window, with a token the metadata server handed out for the spreadsheets scope', async () => {
    const run = await runCli(['export', '--config', configFile, '--now', '2026-11-08T12:00:00Z', '--json'], env)
    expect(run.code, run.stderr).toBe(0)
    expect(onlyRun(run).result).toBe('success')
    const keys = storedTab(fake.store, spreadsheetId, 'Activities')
      .column('Key')
      .filter((k) => typeof k === 'string')
    expect(keys.length).toBeGreaterThan(10)
    const tokens = metadata.store.requests().filter((r) => r.path.endsWith('/service-accounts/default/token'))
    expect(tokens.length).toBe(1)
    expect(tokens[0]).toMatchObject({ flavor: 'Google', status: 200 })
    expect(new URLSearchParams(tokens[0]!.query).get('scopes')).toBe(SHEETS_SCOPE)
    for (const token of metadata.store.issued()) {
      expect(run.stdout).not.toContain(token)
      expect(run.stderr).not.toContain(token)
    }
  })

  it('says no service account is attached, and where it asked, when the metadata server has none', async () => {
    metadata.store.serviceAccount = null
    const run = await runCli(['export', '--config', configFile, '--now', '2026-11-08T12:00:00Z'], env)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain(`The metadata server at http://${metadata.host} has no service account attached`)
    expect(run.stderr).toContain('GOOGLE_APPLICATION_CREDENTIALS')
  })
})
