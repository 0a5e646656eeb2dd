/**
 * The world of the engine's Google request-count tests: a reference server with two Berlin users' ten days
 * (deletions reported), a Sheets fake without quotas that takes one static token, one spreadsheet, a password
 * client and one target on it.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createManager, type Manager } from '../../counterparts/sheets/manager.ts'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import type { SheetsStoreOptions } from '../../counterparts/sheets/store.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { parseConfig } from '../../src/config/load.ts'
import type { TargetConfig } from '../../src/config/schema.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import { createTimelineClient, type TimelineClient } from '../../src/timeline/client.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'

export interface GoogleWorld {
  server: ReferenceServer
  fake: SheetsFake
  manager: Manager
  client: TimelineClient
  target: TargetConfig
  stateDir: string
  spreadsheetId: string
  /** The first user's Tags timeline. */
  timelineKey: string
  close(): Promise<void>
}

/**
 * `token` is the one the fake accepts; `folderPrefix` names the temporary folder of the state; `sheets` sets the
 * fake's store options (its clock, a Drive version lag).
 */
export async function startGoogleWorld(token: string, folderPrefix: string, sheets: SheetsStoreOptions = {}): Promise<GoogleWorld> {
  const server = await startReferenceServer({
    data: { users: 2, days: 10, startDate: '2026-11-01', timeZones: ['Europe/Berlin'], otherTimelines: false },
    reportDeletions: true,
  })
  const fake = await startSheetsFake({ quota: false, ...sheets, staticToken: token })
  const manager = createManager(fake.store)
  const spreadsheetId = manager.createSpreadsheet({ title: 'Team time' })
  const folder = await mkdtemp(path.join(tmpdir(), folderPrefix))
  const transfer = server.credentials.transfer!
  const client = createTimelineClient({
    signIn: passwordSignIn({
      baseUrl: server.url,
      username: transfer.username,
      password: transfer.password,
      vendor: vendorIdentifiers('manictime'),
    }),
  })
  const { config } = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: transfer.username } },
      google: { auth: { mode: 'static-token', tokenEnv: 'UNUSED_TOKEN' }, rootUrl: fake.rootUrl },
      targets: [
        { name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, timeZone: 'Europe/Berlin', window: { days: 10, lookBackDays: 3 } },
      ],
    }),
    path.join(folder, 'config.json'),
  )
  return {
    server,
    fake,
    manager,
    client,
    target: config.targets[0]!,
    stateDir: path.join(folder, 'state'),
    spreadsheetId,
    timelineKey: server.credentials.users.map((u) => u.tagsTimelineKey!).find(Boolean)!,
    async close() {
      await server.close()
      await fake.close()
    },
  }
}
