/** The usual end-to-end world: the reference server on loopback and one workbook target signed in as the transfer account. */
import path from 'node:path'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import type { SeedOptions } from '../../counterparts/timeline/seed.ts'
import { tempFolder, writeConfig } from './cli.ts'

export interface WorkbookTarget {
  server: ReferenceServer
  folder: string
  configFile: string
  workbookFile: string
  /** The environment the CLI needs (the transfer account's password). */
  env: Record<string, string>
}

export async function startWorkbookTarget(name: string, data: SeedOptions, target: Record<string, unknown>): Promise<WorkbookTarget> {
  const server = await startReferenceServer({ data: { otherTimelines: false, ...data } })
  const folder = await tempFolder(name)
  const configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, ...target }],
  })
  return {
    server,
    folder,
    configFile,
    workbookFile: path.join(folder, 'team.xlsx'),
    env: { TIMELINE_PASSWORD: server.credentials.transfer!.password },
  }
}
