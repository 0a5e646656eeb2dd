/**
 * An engine test's world: the reference server on loopback, a Timeline client
 * signed in as the transfer account (its activity reads counted), a target
 * over a workbook in a temp folder, and its state folder.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../counterparts/timeline/server.ts'
import type { SeedOptions } from '../../counterparts/timeline/seed.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { parseConfig } from '../../src/config/load.ts'
import { runExport } from '../../src/engine/export.ts'
import type { TargetConfig } from '../../src/config/schema.ts'
import type { Spreadsheet } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import type { SignIn } from '../../src/timeline/auth/sign-in.ts'
import { createTimelineClient, type TimelineClient } from '../../src/timeline/client.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'

export interface EngineFixture {
  server: ReferenceServer
  client: TimelineClient
  target: TargetConfig
  file: string
  stateDir: string
  /** URLs of the activity reads the client made, oldest first; clear it to count a step. */
  activityReads: string[]
  /** A fresh backend over the workbook, as a new run would open it. */
  spreadsheet(): Spreadsheet
}

export async function startEngineFixture(
  data: SeedOptions,
  target: Record<string, unknown>,
  serverOptions: ReferenceServerOptions = {},
): Promise<EngineFixture> {
  const server = await startReferenceServer({ ...serverOptions, data: { timeZones: ['Europe/Berlin'], otherTimelines: false, ...data } })
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-engine-'))
  const file = path.join(folder, 'team.xlsx')
  const transfer = server.credentials.transfer!
  const signIn = passwordSignIn({
    baseUrl: server.url,
    username: transfer.username,
    password: transfer.password,
    vendor: vendorIdentifiers('manictime'),
  })
  const activityReads: string[] = []
  const counting: SignIn = {
    mode: signIn.mode,
    account: signIn.account,
    entryUrl: () => signIn.entryUrl(),
    secrets: () => signIn.secrets(),
    send: (request) => {
      if (request.method === 'GET' && new URL(request.url).pathname.endsWith('/activities')) activityReads.push(request.url)
      return signIn.send(request)
    },
  }
  const { config } = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: transfer.username } },
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: file }, timeZone: 'Europe/Berlin', ...target }],
    }),
    path.join(folder, 'config.json'),
  )
  return {
    server,
    client: createTimelineClient({ signIn: counting }),
    target: config.targets[0]!,
    file,
    stateDir: path.join(folder, 'state'),
    activityReads,
    spreadsheet: () => createWorkbookSpreadsheet({ path: file }),
  }
}

/** `startEngineFixture`, then a first export at `now`: the world an import test starts from. */
export async function startExportedFixture(data: SeedOptions, target: Record<string, unknown>, now: () => Date): Promise<EngineFixture> {
  const world = await startEngineFixture(data, target)
  await runExport(world.target, {
    client: world.client,
    spreadsheet: world.spreadsheet(),
    stateDir: world.stateDir,
    reporter: silentReporter,
    now,
  })
  return world
}
